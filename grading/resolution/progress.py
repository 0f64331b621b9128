"""A contest's progress for the organizer and the chair: per problem and per juror, cells
graded of the total, sheets submitted, discrepancies open and resolved, and the drafts that
wait, told apart: jurors who have not signed in yet, drafts of jurors who signed in without a
mark in them yet, and drafts with marks that nobody has touched for an hour (the last
`MarkEvent` of each sheet). Right after grading opens every draft is untouched; naming them
all "idle" would hide the jurors who cannot get in among those who have not begun. A fixed
number of queries
whatever the number of papers: the sheets with their counts, their last changes, and
`contest_results` for the discrepancies."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Count, Max, Q
from django.utils import timezone

from grading.models import MarkEvent, Sheet
from grading.resolution.comparison import contest_results
from rubrics.models import Contest

# A draft untouched for this long is named on the page.
IDLE_AFTER = timedelta(hours=1)


@dataclass
class SheetProgress:
    problem_number: int
    username: str
    full_name: str
    cells: int
    graded: int
    submitted: bool
    last_change: datetime | None
    # Has marks and none changed in the last IDLE_AFTER.
    idle: bool
    # The juror has signed in at least once (a new account signs in through its one-time link).
    signed_in: bool = True

    @property
    def waiting(self) -> str:
        """Why a draft waits, if it does: "not signed in", "not started" or "idle"; "" for a
        submitted sheet or a draft at work."""
        if self.submitted:
            return ""
        if not self.signed_in:
            return "not signed in"
        if not self.graded:
            return "not started"
        return "idle" if self.idle else ""


@dataclass
class Tally:
    """Cells graded of the total and sheets submitted of the total, for a problem or a juror."""

    cells: int = 0
    graded: int = 0
    sheets: int = 0
    submitted: int = 0
    open: int = 0
    resolved: int = 0
    sheet_rows: list[SheetProgress] = field(default_factory=list)

    def add(self, sheet: SheetProgress) -> None:
        self.cells += sheet.cells
        self.graded += sheet.graded
        self.sheets += 1
        self.submitted += sheet.submitted
        self.sheet_rows.append(sheet)

    @property
    def percent(self) -> int:
        return self.graded * 100 // self.cells if self.cells else 0


@dataclass
class ContestProgress:
    contest: Contest
    # Problem number → its tally (every problem, in order), username → the juror's tally.
    problems: dict[int, Tally]
    jurors: dict[str, Tally]
    sheets: list[SheetProgress]
    now: datetime

    @property
    def idle(self) -> list[SheetProgress]:
        """Drafts with marks untouched for an hour, oldest first."""
        return sorted(
            (sheet for sheet in self.sheets if sheet.waiting == "idle"),
            key=lambda sheet: (sheet.last_change is not None, sheet.last_change or self.now),
        )

    @property
    def not_signed_in(self) -> dict[str, list[SheetProgress]]:
        """Username → the drafts of each juror who has not signed in yet, by username."""
        jurors: dict[str, list[SheetProgress]] = {}
        for sheet in self.sheets:
            if sheet.waiting == "not signed in":
                jurors.setdefault(sheet.username, []).append(sheet)
        return dict(sorted(jurors.items()))

    @property
    def not_started(self) -> list[SheetProgress]:
        """Drafts without a mark yet, of jurors who have signed in, by username and problem."""
        return sorted(
            (sheet for sheet in self.sheets if sheet.waiting == "not started"),
            key=lambda sheet: (sheet.username, sheet.problem_number),
        )


def contest_progress(contest: Contest, *, now: datetime | None = None) -> ContestProgress:
    """The contest's progress as it stands `now`. Eleven queries, whatever the number of
    papers and jurors."""

    now = now or timezone.now()
    problems = {
        number: Tally()
        for number in contest.problems.order_by("number").values_list("number", flat=True)
    }
    last_change = dict(
        MarkEvent.objects.filter(mark__sheet__problem__contest=contest)
        .values("mark__sheet_id")
        .annotate(last=Max("created_at"))
        .values_list("mark__sheet_id", "last")
    )
    rows = (
        Sheet.objects.filter(problem__contest=contest)
        .annotate(
            n_cells=Count("marks"),
            n_graded=Count("marks", filter=Q(marks__points__isnull=False)),
        )
        .values_list(
            "pk",
            "problem__number",
            "juror_id",
            "juror__username",
            "juror__first_name",
            "juror__last_name",
            "juror__last_login",
            "state",
            "n_cells",
            "n_graded",
        )
        .order_by("problem__number", "juror__username")
    )
    sheets, jurors, username_of = [], {}, {}
    for pk, number, juror_id, username, first, last, login, state, cells, graded in rows:
        username_of[juror_id] = username
        submitted = state == Sheet.State.SUBMITTED
        changed = last_change.get(pk)
        sheet = SheetProgress(
            problem_number=number,
            username=username,
            full_name=f"{first} {last}".strip(),
            cells=cells,
            graded=graded,
            submitted=submitted,
            last_change=changed,
            idle=not submitted and graded > 0 and (changed is None or now - changed >= IDLE_AFTER),
            signed_in=login is not None,
        )
        sheets.append(sheet)
        problems[number].add(sheet)
        jurors.setdefault(username, Tally()).add(sheet)
    # A discrepancy counts for the problem and for each juror whose mark is in it.
    results = contest_results(contest)
    number_of = {problem.pk: problem.number for problem in results.problems}
    for cell in results.cells:
        if not (cell.is_open or cell.is_resolved):
            continue
        tallies = [problems[number_of[cell.criterion.problem_id]]]
        tallies += [jurors[username_of[row[2]]] for row in cell.mark_rows if row[2] in username_of]
        for tally in tallies:
            tally.open += cell.is_open
            tally.resolved += cell.is_resolved
    return ContestProgress(
        contest=contest,
        problems=problems,
        jurors=dict(sorted(jurors.items())),
        sheets=sheets,
        now=now,
    )
