"""Reads for a juror's own grading sheet. Every function here is given the juror's sheet and
queries that sheet only: no other juror's marks are ever loaded, so nothing on the sheet's pages,
partials or files can reveal them (independence: a juror sees no other juror's marks before
submitting their own). Each runs a fixed number of queries whatever the number of papers."""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db import connection
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import ngettext

from grading.marking.seed_values import seed_cell_values
from grading.models import (
    AssignmentMove,
    CalibrationRound,
    HelpRequest,
    Mark,
    MarkEvent,
    PaperLabel,
    Resolution,
    Sheet,
)
from grading.rules import access, compiled_sql, conflicts
from grading.rules.calibration import live_grading_waits
from grading.rules.domain import points_text
from grading.rules.schemes import reopened_sentence
from rubrics.models import Contest, Criterion, Problem
from rubrics.validators import points_refusal


class ReopenedWords:
    """What a juror's cell says of a mark an amendment reopened, the live sheet's
    (`SheetCell`) and the calibration sheet's (`calibration.selectors.Cell`) alike: it has
    `criterion`, `points`, `reopened_version` and `reopened_reason`."""

    @property
    def reopened_unfit(self) -> bool:
        """Reopened, and its points no longer fit the amended criterion: only new points close it."""
        return self.reopened and bool(points_refusal(self.points, self.criterion))

    @property
    def reopened_sentence(self) -> str:
        if not self.reopened:
            return ""
        return reopened_sentence(
            version=self.reopened_version,
            reason=self.reopened_reason,
            points=self.points,
            criterion=self.criterion,
        )


@dataclass
class SheetCell(ReopenedWords):
    criterion: Criterion
    points: Decimal | None
    note: str
    version: int
    updated_at: datetime | None
    # The amendment of the scheme that reopened the mark (its version's number and reason),
    # until its juror re-confirms or re-marks it.
    reopened_version: int | None = None
    reopened_reason: str = ""

    @property
    def shown(self) -> str:
        return points_text(self.points)

    @property
    def reopened(self) -> bool:
        return self.reopened_version is not None


@dataclass
class SheetRow:
    label: str
    cells: list[SheetCell] = field(default_factory=list)

    @property
    def total(self) -> Decimal:
        return sum((cell.points for cell in self.cells if cell.points is not None), Decimal(0))

    @property
    def total_shown(self) -> str:
        """Blank while nothing in the row is graded: a total of 0 would read as a mark."""
        return points_text(self.total) if self.graded else ""

    @property
    def graded(self) -> int:
        return sum(1 for cell in self.cells if cell.points is not None)

    @property
    def complete(self) -> bool:
        return self.graded == len(self.cells)


class GridFigures:
    """What a juror's grid says of its cells, the live sheet's (`SheetGrid`) and the
    calibration sheet's (`calibration.selectors.CalibrationGrid`) alike: it has `rows` of
    `cells` with points and a reopened flag, `lock_reason` and `reopened_lock_reason`."""

    @property
    def cells(self) -> int:
        return sum(len(row.cells) for row in self.rows)

    @property
    def graded(self) -> int:
        return sum(1 for row in self.rows for cell in row.cells if cell.points is not None)

    @property
    def percent(self) -> int:
        return round(100 * self.graded / self.cells) if self.cells else 0

    @property
    def reopened(self) -> int:
        """The marks an amendment of the scheme reopened, still to re-confirm."""
        return sum(1 for row in self.rows for cell in row.cells if cell.reopened)

    @property
    def reopened_unfit(self) -> int:
        """Of those, the marks the amended criterion no longer takes: their juror types new points."""
        return sum(1 for row in self.rows for cell in row.cells if cell.reopened_unfit)

    @property
    def reopened_open(self) -> bool:
        """Whether the juror may re-confirm or re-mark reopened marks, the sheet locked or not."""
        return bool(self.reopened) and self.reopened_lock_reason is None

    @property
    def lock_notice(self) -> str | None:
        """The sheet's lock reason as the page says it: a locked sheet's reopened marks stay
        open on it when they do."""
        reason, reopened = self.lock_reason, self.reopened
        if reason is None or not self.reopened_open:
            return reason
        marks = ngettext("Its reopened mark stays", "Its %(count)d reopened marks stay", reopened)
        return f"{reason} {marks % {'count': reopened}} open until you re-confirm or re-mark them."


@dataclass
class SheetGrid(GridFigures):
    sheet: Sheet
    criteria: list[Criterion]
    rows: list[SheetRow]
    lock_reason: str | None
    # Why the marks an amendment reopened may not change either (`reopened_lock_reason`).
    reopened_lock_reason: str | None = None

    @property
    def blanks(self) -> list[tuple[str, str]]:
        return [
            (row.label, cell.criterion.code)
            for row in self.rows
            for cell in row.cells
            if cell.points is None
        ]


def sheet_lock_reason(sheet: Sheet) -> str | None:
    """Why the juror may not change this sheet now, or None when they may. A submitted sheet is
    the juror's committed view; it opens again for revisions in the resolution phase."""
    contest = sheet.problem.contest
    if contest.state == Contest.State.FINAL:
        return "The contest is final; marks can no longer change."
    if contest.state == Contest.State.PROVISIONAL:
        # The published totals are what the leaders appeal against: no sheet moves them.
        return (
            "The results are provisional: every sheet is read-only, and marks change only "
            "through the appeals' decisions."
        )
    # The problem's calibration round comes first: no live mark before it closes.
    waits = live_grading_waits(sheet.problem)
    if waits:
        return waits
    if sheet.is_submitted and contest.state != Contest.State.RESOLUTION:
        when = (
            timezone.localtime(sheet.submitted_at).strftime("%Y-%m-%d %H:%M")
            if sheet.submitted_at
            else "earlier"
        )
        return (
            f"You submitted this sheet at {when}; it is read-only until the contest enters "
            "the resolution phase."
        )
    return None


def reopened_lock_reason(sheet: Sheet) -> str | None:
    """Why the juror may not re-confirm or re-mark a mark an amendment reopened, or None: such
    a mark waits for its juror on a submitted sheet too, in every phase but the final, once
    the problem's calibration round (if any) has opened live grading."""
    if sheet.problem.contest.state == Contest.State.FINAL:
        return "The contest is final; marks can no longer change."
    return live_grading_waits(sheet.problem)


def own_sheet(*, juror, contest_slug: str, problem_number: int) -> Sheet | None:
    """The juror's sheet for the problem, with problem, contest and calibration round (for
    `sheet_lock_reason`), if it exists."""
    return (
        Sheet.objects.select_related("problem__contest", "problem__calibration")
        .filter(juror=juror, problem__contest__slug=contest_slug, problem__number=problem_number)
        .first()
    )


def sheet_grid(*, sheet: Sheet) -> SheetGrid:
    """The juror's grid: one row per assigned paper, sorted by its anonymous label, one cell per
    criterion, seeds among them (`seed_cell_values`); a paper the juror is conflicted with is
    no row of it (`access.graded_assignments`). Five queries whatever the number of papers."""
    problem = sheet.problem
    criteria = list(Criterion.objects.for_problem(problem))
    assigned = access.graded_assignments(sheet.juror_id, problem).values("paper_id")
    label_of = dict(
        PaperLabel.objects.filter(problem=problem, paper_id__in=assigned).values_list(
            "paper_id", "label"
        )
    )
    cells_of = {label: {} for label in label_of.values()}
    for paper_id, criterion_id, *cell in Mark.objects.filter(
        sheet=sheet, paper_id__in=label_of.keys()
    ).values_list(
        "paper_id",
        "criterion_id",
        "points",
        "note",
        "version",
        "updated_at",
        "reopened_by__number",
        "reopened_by__reason",
    ):
        cells_of[label_of[paper_id]][criterion_id] = cell
    # Seeded checks: a calibration paper back under a fresh label is a row like the others,
    # sorted among them, counted and submitted with them, reopened by an amendment as they
    # are (seed_cells; one query more).
    for label, seed_cells in seed_cell_values(sheet=sheet).items():
        cells_of[label] = seed_cells
    rows = []
    for label in sorted(cells_of):
        row = SheetRow(label=label)
        for criterion in criteria:
            points, note, version, updated_at, reopened, reason = cells_of[label].get(
                criterion.pk, (None, "", 0, None, None, "")
            )
            row.cells.append(
                SheetCell(criterion, points, note, version, updated_at, reopened, reason or "")
            )
        rows.append(row)
    return SheetGrid(
        sheet=sheet,
        criteria=criteria,
        rows=rows,
        lock_reason=sheet_lock_reason(sheet),
        reopened_lock_reason=reopened_lock_reason(sheet),
    )


def _own_cell_lookup(conflicted_delegations, *, juror, contest, problem, code, label):
    """The id of the juror's own mark of a cell, while they may mark it."""
    return Mark.objects.filter(
        access.markable_marks(juror, conflicted_delegations=conflicted_delegations),
        sheet__problem__contest__slug=contest,
        sheet__problem__number=problem,
        criterion__code=code,
        # A subquery, not a join: each table joined here costs PostgreSQL planning time on
        # every save (`access.markable_marks`).
        paper_id=Subquery(
            PaperLabel.objects.filter(problem=OuterRef("sheet__problem_id"), label=label)
            .order_by()
            .values("paper_id")[:1]
        ),
    ).values_list("pk")


def own_cell(*, juror, contest_slug: str, problem_number: int, label: str, code: str):
    """The juror's own mark for the paper labelled `label` and the criterion `code`, with its
    sheet, problem, contest and criterion loaded, while they may mark that paper
    (`access.markable_marks`: they are a juror, it is assigned to them and no conflict keeps
    them from it); else None. Three queries: the conflicts, the lookup and the mark.

    Every save asks this first, and building the lookup's SQL cost 45 times what the database
    takes to answer it, so its SQL is built once per juror's conflicts and process
    (`grading.rules.compiled_sql`), as is the conflicts'.

    A save looks its cell up before its transaction, then holds it (`own_cell_hold`): on
    SQLite the transaction holds the database's write lock, which every other save waits for,
    so the lookup's ORM work stays out of it."""
    if not juror.is_authenticated:
        return None
    found = compiled_sql.rows(
        _own_cell_lookup,
        tuple(sorted(conflicts.conflicted_delegations(juror.pk))),
        juror=juror.pk,
        contest=contest_slug,
        problem=problem_number,
        code=code,
        label=label,
    )
    if not found:
        return None
    # Not `first()`, whose ORDER BY is one more thing to build.
    mark = next(
        iter(
            Mark.objects.select_related(
                "sheet__problem__contest", "sheet__problem__calibration", "criterion"
            )
            .filter(pk=found[0][0])
            .order_by()
        ),
        None,
    )
    if mark is None:  # deleted since the lookup
        return None
    # The criterion is the sheet's problem's: one problem object for both, already loaded.
    mark.criterion.problem = mark.sheet.problem
    return mark


def own_cell_hold(mark: Mark) -> None:
    """Inside a save's transaction, before it writes: hold the mark's sheet and contest rows
    (PostgreSQL) and read their state again into the loaded sheet and contest, so that a
    submission or a finalization that committed since the lookup is seen and refuses the save,
    and one that comes later waits for the save (it locks those rows for update). The mark's
    own state needs no second read: the write is refused unless the mark is still at the
    version the writer saw. One query (two on PostgreSQL)."""
    sheet_hold(mark.sheet)


def sheet_hold(sheet: Sheet) -> None:
    """`own_cell_hold` for the sheet itself, which a seed's save holds too (seed_cells)."""
    _hold_sheet_and_contest(sheet_id=sheet.pk)
    contest = sheet.problem.contest
    sheet.state, sheet.submitted_at, contest.state, round_state = (
        Sheet.objects.filter(pk=sheet.pk)
        .values_list(
            "state", "submitted_at", "problem__contest__state", "problem__calibration__state"
        )
        .get()
    )
    # A calibration round opened since the lookup holds the save back as well.
    if round_state is not None:
        problem = sheet.problem
        cached = Problem.calibration.related.get_cached_value(problem, default=None)
        if cached is not None:
            cached.state = round_state
        else:
            problem.calibration = CalibrationRound(problem=problem, state=round_state)


def _hold_sheet_and_contest(*, sheet_id: int) -> None:
    """Hold the sheet and its contest row shared (`FOR SHARE`) until the transaction ends, so
    that submitting the sheet or finalizing the contest (which lock them for update) waits for
    a save in flight, or the save waits, sees the new state and is refused.

    SQL because the ORM says `FOR UPDATE` only, which would make every save of a contest wait
    for every other. SQLite needs nothing: its transactions take the write lock when they
    begin."""
    if not connection.features.has_select_for_update_of:
        return
    quote = connection.ops.quote_name
    sheet, problem, contest = (quote(m._meta.db_table) for m in (Sheet, Problem, Contest))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT s.id FROM {sheet} s JOIN {problem} p ON p.id = s.problem_id "
            f"JOIN {contest} c ON c.id = p.contest_id WHERE s.id = %s FOR SHARE OF s, c",
            [sheet_id],
        )


def sheet_chair_decisions(*, sheet: Sheet) -> dict[tuple[str, str], Decimal]:
    """The chair's decisions on the cells of the juror's sheet: (label, criterion code) →
    points. Only for a submitted sheet: the chair decides submitted marks, and the juror of a
    draft must not learn an agreed value (independence). One query."""
    if not sheet.is_submitted:
        return {}
    label = PaperLabel.objects.filter(
        paper_id=OuterRef("paper_id"), problem_id=sheet.problem_id
    ).values("label")[:1]
    decided = (
        Resolution.objects.filter(
            kind=Resolution.Kind.CHAIR,
            criterion__problem_id=sheet.problem_id,
            paper_id__in=access.graded_assignments(sheet.juror_id, sheet.problem_id).values(
                "paper_id"
            ),
        )
        .annotate(label=Subquery(label))
        .values_list("label", "criterion__code", "points")
    )
    return {(label, code): points for label, code, points in decided}


def sheet_label_assigned(*, sheet: Sheet, label: str) -> bool:
    """Whether the label is one of the sheet's rows (`sheet_grid`)."""
    return PaperLabel.objects.filter(
        problem_id=sheet.problem_id,
        label=label,
        paper_id__in=access.graded_assignments(sheet.juror_id, sheet.problem_id).values("paper_id"),
    ).exists()


def cell_history(*, mark: Mark) -> list[MarkEvent]:
    """Every change to one mark, newest first, with who made it."""
    return list(mark.events.select_related("actor").order_by("-version"))


def sheet_help_requests(*, sheet: Sheet, paper, seed=None) -> list[HelpRequest]:
    """The questions on the paper in the sheet's problem that are the sheet's juror's to read
    (asked on its row; on the row of `seed`, a seed of it, when given), oldest first, with
    their helpers' answers: their own, and, on a live row, those of the jurors the paper moved
    from to them (a question follows the paper it is about; the juror who asked grades it no
    more). One query."""
    asked_by = Q(asked_by_id=sheet.juror_id)
    if seed is None:
        asked_by |= Q(
            asked_by_id__in=AssignmentMove.objects.filter(
                problem_id=sheet.problem_id, paper=paper, to_juror_id=sheet.juror_id
            ).values("from_juror_id")
        )
    return list(
        HelpRequest.objects.filter(
            asked_by, paper=paper, problem_id=sheet.problem_id, seed=seed
        ).order_by("asked_at", "id")
    )
