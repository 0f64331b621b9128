"""The inbox's reads: a person's notifications with where each leads, and, for a juror in the
resolution phase, the cells of theirs that are still open. Each runs a fixed number of queries
whatever the number of notifications, papers or cells.

Only the reader's own submitted marks are read as theirs; the other marks of a cell are read
solely to settle it through `settle_cell` (that is, `grading.rules.domain.cell_outcome`) and are never
returned, so the section says which cells are open, not what anyone else gave."""

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, Max, Q
from django.urls import reverse
from django.utils.translation import ngettext

from grading.models import Assignment, Notification, PaperLabel, Resolution, Sheet
from grading.resolution.cells import settle_cell
from grading.rules import access, conflicts
from grading.rules.counting import counted_marks
from rubrics.models import Contest, Criterion, Problem

INBOX_LIMIT = 200
Kind = Notification.Kind
# Where an appeal's notice leads: the problem's appeals queue, the leader's own appeals.
APPEAL_PAGES = {
    Kind.APPEAL: "appeal_queue",
    Kind.APPEAL_ANSWER: "appeal_queue",
    Kind.APPEAL_DECISION: "appeals_mine",
    Kind.APPEAL_QUESTION: "appeals_mine",
    Kind.APPEAL_MEETING: "evening_mine",
}
# Notices about a problem that lead to the reader's sheet for it.
SHEET_NOTICES = (Kind.PAPERS_MOVED, Kind.SCHEME_AMENDED, Kind.MARKS_REOPENED)


@dataclass
class Entry:
    notification: Notification
    url: str

    @property
    def unread(self) -> bool:
        return self.notification.read_at is None


@dataclass
class OpenCell:
    contest: Contest
    problem: Problem
    label: str
    criterion: Criterion
    own_points: Decimal
    url: str


def _labels(pairs: set[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """Labels by (paper id, problem id), in one query."""
    if not pairs:
        return {}
    papers, problems = {pair[0] for pair in pairs}, {pair[1] for pair in pairs}
    return {
        (paper_id, problem_id): label
        for paper_id, problem_id, label in PaperLabel.objects.filter(
            paper_id__in=papers, problem_id__in=problems
        ).values_list("paper_id", "problem_id", "label")
    }


def _calibrating(problem) -> bool:
    """Whether the problem's calibration round is open (its round loaded with it)."""
    round_ = getattr(problem, "calibration", None) if problem is not None else None
    return round_ is not None and round_.is_open


def inbox_entries(user, *, kind: str = "", limit: int = INBOX_LIMIT) -> list[Entry]:
    """The user's latest notifications (of one `kind` when given), newest first, each with the
    page it leads to: a cell's discussion where the reader may open it, their sheet where their
    own sheet is not in yet, the home page for a contest-wide notice; for language help, the
    help queue, the helper's questions, or the asker's sheet on the paper. Three queries."""
    notices = Notification.objects.filter(recipient=user)
    if kind:
        notices = notices.filter(kind=kind)
    notices = list(
        notices.select_related("contest", "problem__calibration", "criterion", "seed").order_by(
            "-created_at", "-id"
        )[:limit]
    )
    labels = _labels({(n.paper_id, n.problem_id) for n in notices if n.paper_id})
    submitted = set(
        Sheet.objects.submitted().filter(juror=user).values_list("problem_id", flat=True)
    )
    reads_all = access.reads_every_paper(user)
    entries = []
    for notice in notices:
        # A seed's question is read under the seed's label: the paper's own is not its asker's.
        label = (
            notice.seed.label
            if notice.seed_id
            else labels.get((notice.paper_id, notice.problem_id))
        )
        if notice.kind in APPEAL_PAGES:
            # An appeal is about a paper and a problem, not a cell: its page, or the leader's list.
            url = reverse(APPEAL_PAGES[notice.kind], args=[notice.contest.slug])
        elif notice.kind == Kind.MARKS_REOPENED and _calibrating(notice.problem):
            # While the round is open no live mark exists: the reopened marks are the
            # reader's calibration marks.
            url = reverse("calibration_sheet", args=[notice.contest.slug, notice.problem.number])
        elif notice.kind in SHEET_NOTICES and notice.problem is not None:
            # Papers given to the reader, or taken from them, or the scheme amended (and their
            # marks reopened): their sheet says which now.
            url = reverse("sheet", args=[notice.contest.slug, notice.problem.number])
        elif (
            notice.kind in (Kind.CALIBRATION_OPEN, Kind.REFERENCE_CHANGED)
            and notice.problem is not None
        ):
            # A calibration round to grade, or a reference changed since the reader submitted:
            # the reader's calibration sheet (grading/calibration/).
            url = reverse("calibration_sheet", args=[notice.contest.slug, notice.problem.number])
        elif notice.kind == Kind.SESSION_STARTED and notice.problem is not None:
            url = reverse("session", args=[notice.contest.slug, notice.problem.number])
        elif notice.kind == Kind.GRADING_OPENED and notice.problem is not None:
            url = reverse("sheet", args=[notice.contest.slug, notice.problem.number])
        elif notice.kind == Kind.HELP_ASKED:
            url = reverse("help_queue", args=[notice.contest.slug])
        elif notice.kind == Kind.HELP_ASSIGNED:
            url = reverse("help_mine")
        elif notice.kind == Kind.HELP_ANSWERED and notice.problem is not None and label:
            # The answer is read in the asker's sheet, on the paper it is about.
            sheet = reverse("sheet", args=[notice.contest.slug, notice.problem.number])
            url = f"{sheet}?row={label}#help-{label}"
        elif notice.problem is None or label is None:
            url = reverse("home")
        elif reads_all or notice.problem_id in submitted:
            url = reverse(
                "discussion",
                args=[notice.contest.slug, notice.problem.number, label, notice.criterion.code],
            )
        else:
            url = reverse("sheet", args=[notice.contest.slug, notice.problem.number])
        entries.append(Entry(notification=notice, url=url))
    return entries


@dataclass
class NoticeGroup:
    """The notifications of one kind about one problem (or one contest, for a notice about the
    whole contest): their counts, and the latest of them that the page lists."""

    contest_id: int
    contest_name: str
    problem_id: int | None
    problem_number: int | None
    kind: str
    total: int
    unread: int
    entries: list[Entry] = field(default_factory=list)

    @property
    def key(self) -> str:
        """What the page's ids call the group: contest, problem and kind, never a paper."""
        return f"{self.contest_id}-{self.problem_number or 0}-{self.kind}"

    @property
    def kind_label(self) -> str:
        return Notification.Kind(self.kind).label

    @property
    def headline(self) -> str:
        """The group in one sentence: a lone notice's own, else what the notices add up to,
        e.g. "The chair decided 23 of your cells in P2."."""
        if self.total == 1 and self.entries:
            return self.entries[0].notification.sentence
        where = f"P{self.problem_number}" if self.problem_number else self.contest_name
        n = self.total
        if self.kind == Kind.DECISION:
            return _counted(
                n,
                where,
                "The chair decided %(n)d of your cell in %(where)s.",
                "The chair decided %(n)d of your cells in %(where)s.",
            )
        if self.kind == Kind.COMMENT:
            return _counted(
                n,
                where,
                "%(n)d comment on cells in %(where)s.",
                "%(n)d comments on cells in %(where)s.",
            )
        if self.kind == Kind.REVISE_REQUEST:
            return _counted(
                n,
                where,
                "The chair asks you to revise %(n)d mark in %(where)s.",
                "The chair asks you to revise %(n)d marks in %(where)s.",
            )
        if self.kind == Kind.APPEAL:
            return _counted(
                n,
                where,
                "%(n)d appeal to review in %(where)s.",
                "%(n)d appeals to review in %(where)s.",
            )
        if self.kind == Kind.APPEAL_QUESTION:
            return _counted(
                n,
                where,
                "The jury asks %(n)d question on your appeals in %(where)s.",
                "The jury asks %(n)d questions on your appeals in %(where)s.",
            )
        if self.kind == Kind.APPEAL_ANSWER:
            return _counted(
                n,
                where,
                "%(n)d answer from team leaders on appeals in %(where)s.",
                "%(n)d answers from team leaders on appeals in %(where)s.",
            )
        if self.kind == Kind.APPEAL_DECISION:
            return _counted(
                n,
                where,
                "%(n)d of your appeals in %(where)s is decided.",
                "%(n)d of your appeals in %(where)s are decided.",
            )
        if self.kind == Kind.PAPERS_MOVED:
            return _counted(
                n,
                where,
                "%(n)d change to your papers in %(where)s.",
                "%(n)d changes to your papers in %(where)s.",
            )
        if self.kind == Kind.SCHEME_AMENDED:
            return _counted(
                n,
                where,
                "The grading scheme of %(where)s was amended %(n)d time.",
                "The grading scheme of %(where)s was amended %(n)d times.",
            )
        if self.kind == Kind.MARKS_REOPENED:
            return _counted(
                n,
                where,
                "%(n)d amendment in %(where)s reopened marks of yours to re-confirm.",
                "%(n)d amendments in %(where)s reopened marks of yours to re-confirm.",
            )
        if self.kind == Kind.HELP_ASKED:
            return _counted(
                n,
                where,
                "%(n)d question for language help in %(where)s.",
                "%(n)d questions for language help in %(where)s.",
            )
        if self.kind == Kind.HELP_ASSIGNED:
            return _counted(
                n,
                where,
                "%(n)d question for you to answer in %(where)s.",
                "%(n)d questions for you to answer in %(where)s.",
            )
        if self.kind == Kind.HELP_ANSWERED:
            return _counted(
                n,
                where,
                "%(n)d of your questions in %(where)s is answered.",
                "%(n)d of your questions in %(where)s are answered.",
            )
        if self.kind == Kind.CALIBRATION_OPEN:
            return _counted(
                n,
                where,
                "%(n)d calibration round to grade in %(where)s.",
                "%(n)d calibration rounds to grade in %(where)s.",
            )
        if self.kind == Kind.REFERENCE_CHANGED:
            return _counted(
                n,
                where,
                "The calibration reference changed in %(where)s (%(n)d notice).",
                "The calibration reference changed in %(where)s (%(n)d notices).",
            )
        if self.kind == Kind.GRADING_OPENED:
            return _counted(
                n,
                where,
                "Grading opened in %(where)s (%(n)d notice).",
                "Grading opened in %(where)s (%(n)d notices).",
            )
        if self.kind == Kind.SESSION_STARTED:
            return _counted(
                n,
                where,
                "%(n)d discussion session started in %(where)s.",
                "%(n)d discussion sessions started in %(where)s.",
            )
        if self.kind == Kind.APPEAL_MEETING:
            # Each publication is told anew: the newest timetable is the one on the page.
            return f"The appeals evening's timetable of {where} was published {n} times."
        return f"The resolution phase of {self.contest_name} opened ({n} notices)."


def inbox_groups(user, *, kind: str = "", limit: int = INBOX_LIMIT) -> list[NoticeGroup]:
    """The user's notifications (of one `kind` when given) grouped by contest, problem and
    kind, the group with the newest notice first, each with its counts (all of them, read or
    not) and its notices among the latest `limit`, newest first. Four queries: the groups in
    one, and `inbox_entries`'s three."""
    rows = Notification.objects.filter(recipient=user)
    if kind:
        rows = rows.filter(kind=kind)
    groups = {
        (row["contest_id"], row["problem_id"], row["kind"]): NoticeGroup(
            contest_id=row["contest_id"],
            contest_name=row["contest__name"],
            problem_id=row["problem_id"],
            problem_number=row["problem__number"],
            kind=row["kind"],
            total=row["total"],
            unread=row["unread"],
        )
        for row in rows.values(
            "contest_id", "contest__name", "problem_id", "problem__number", "kind"
        )
        .annotate(
            total=Count("id"),
            unread=Count("id", filter=Q(read_at__isnull=True)),
            latest=Max("created_at"),
            latest_id=Max("id"),
        )
        .order_by("-latest", "-latest_id")
    }
    for entry in inbox_entries(user, kind=kind, limit=limit):
        notice = entry.notification
        group = groups.get((notice.contest_id, notice.problem_id, notice.kind))
        # A notice written between the two reads waits for the next look at the page.
        if group is not None:
            group.entries.append(entry)
    return list(groups.values())


def open_cells_of(user) -> list[OpenCell]:
    """The cells still open in contests in their resolution phase where the user has a
    submitted mark, by contest, problem, label and criterion; none of a paper the user is
    conflicted with (its cells are the chair's). Two queries when there are none, six
    otherwise."""
    own = list(
        counted_marks()
        .filter(
            sheet__juror=user,
            sheet__problem__contest__state=Contest.State.RESOLUTION,
            points__isnull=False,
        )
        .exclude(conflicts.conflicted(user))
        .select_related("criterion__problem__contest")
    )
    if not own:
        return []
    paper_ids = {mark.paper_id for mark in own}
    criterion_ids = {mark.criterion_id for mark in own}
    problem_ids = {mark.criterion.problem_id for mark in own}
    values: dict[tuple[int, int], list[Decimal]] = defaultdict(list)
    for paper_id, criterion_id, points in (
        counted_marks()
        .filter(
            paper_id__in=paper_ids,
            criterion_id__in=criterion_ids,
            points__isnull=False,
        )
        .values_list("paper_id", "criterion_id", "points")
    ):
        values[paper_id, criterion_id].append(points)
    resolutions = {
        (paper_id, criterion_id): (kind, points, reason)
        for paper_id, criterion_id, kind, points, reason in Resolution.objects.filter(
            paper_id__in=paper_ids, criterion_id__in=criterion_ids
        ).values_list("paper_id", "criterion_id", "kind", "points", "reason")
    }
    expected = {
        (row["paper_id"], row["problem_id"]): row["n"]
        for row in Assignment.objects.filter(paper_id__in=paper_ids, problem_id__in=problem_ids)
        .values("paper_id", "problem_id")
        .annotate(n=Count("id"))
        .order_by()
    }
    labels = _labels({(mark.paper_id, mark.criterion.problem_id) for mark in own})
    cells = []
    for mark in own:
        criterion = mark.criterion
        problem = criterion.problem
        cell = settle_cell(
            paper_id=mark.paper_id,
            criterion=criterion,
            marks=values[mark.paper_id, criterion.pk],
            expected=expected.get((mark.paper_id, problem.pk), 0),
            resolution=resolutions.get((mark.paper_id, criterion.pk)),
        )
        if not cell.is_open:
            continue
        label = labels[mark.paper_id, problem.pk]
        cells.append(
            OpenCell(
                contest=problem.contest,
                problem=problem,
                label=label,
                criterion=criterion,
                own_points=mark.points,
                url=reverse(
                    "discussion", args=[problem.contest.slug, problem.number, label, criterion.code]
                ),
            )
        )
    cells.sort(
        key=lambda c: (
            c.contest.name,
            c.problem.number,
            c.label,
            c.criterion.order,
            c.criterion.code,
        )
    )
    return cells


def _counted(n: int, where: str, one: str, many: str) -> str:
    """A group's headline for `n` notices in `where`, singular or plural (ngettext)."""
    return ngettext(one, many, n) % {"n": n, "where": where}
