"""A problem's comparison: paper × criterion, each juror's mark side by side, with each cell's
status, each juror's total per paper and the paper's medal-straddle flag.

It reads its own problem: the cells of the problem's criteria only, from the problem's
assignments, labels and comments. The straddle is about a paper's whole total, so every
submitted mark of the contest is read too, as bare rows, to bound each paper's total by whose
marks are taken (`grading.resolution.cells.JurorTotals`), as `contest_results` bounds it. A
juror reading it also reads their own seeds as rows (`seed_rows.py`), as papers they grade alone.
A page a screenful at a time reads only the problem's marks, then the straddles of the papers
it shows (`comparison_reads.py`).

The other reads of the resolution phase live beside it: a cell and how it settles in
`cells.py`, the contest's whole grading in `contest_grading.py`, the chair's queue in
`chair_queue.py`, a cell's discussion in `cell_discussion.py`; their names are kept here for
the pages and commands that import them from this module."""

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q

from grading.models import Assignment, PaperLabel, Sheet
from grading.resolution.cell_discussion import (
    Discussion,
    cell_discussion,
    criterion_reading,
    criterion_tasks,
)
from grading.resolution.cells import (
    Cell,
    comment_counts,
    settle_cell,
    submitted_marks,
)
from grading.resolution.chair_queue import QUEUE_STATUSES, QueueItem, chair_queue
from grading.resolution.comparison_reads import (
    StraddleFacts,
    read_straddles,
)
from grading.resolution.contest_grading import (
    ContestFrame,
    ContestResults,
    PaperResult,
    contest_frame,
    contest_results,
    equivalent_rank,
    marks_by_cell,
    resolutions_by_cell,
)
from grading.resolution.seed_rows import juror_seed_rows
from grading.rules.domain import GRADED_STATUSES, ZERO, CellStatus
from rubrics.models import Criterion, Problem

__all__ = [
    "QUEUE_STATUSES",
    "Cell",
    "Comparison",
    "ComparisonRow",
    "ContestResults",
    "Discussion",
    "JurorColumn",
    "JurorValue",
    "PaperResult",
    "QueueItem",
    "cell_discussion",
    "chair_queue",
    "contest_results",
    "criterion_reading",
    "criterion_tasks",
    "equivalent_rank",
    "problem_comparison",
    "read_straddles",
    "settle_cell",
]


@dataclass(slots=True)
class JurorColumn:
    """A juror of the problem, as a column of the comparison: `name` is what this reader may
    be shown (a juror reader is not told who has yet to submit), `key` the short heading of the
    paper × criterion grid (J1, J2, …)."""

    key: str
    name: str
    submitted: bool


@dataclass(slots=True)
class JurorValue:
    """One juror's figure in a row: a submitted mark or total, pending while the juror's sheet
    is not submitted, or nothing (the paper is not theirs)."""

    points: Decimal | None = None
    pending: bool = False


@dataclass
class ComparisonRow:
    paper_id: int
    label: str
    cells: list[dict]
    juror_totals: list[JurorValue]
    open_count: int
    straddle: bool
    # The points of the cells settled so far (agreed, agreed in discussion, decided by the
    # chair) and how many cells are in each status, in `CellStatus` order.
    settled_points: Decimal = ZERO
    settled_cells: int = 0
    status_counts: dict[str, int] = field(default_factory=dict)
    # A seed of the reader's: no straddle, ever.
    seed: bool = False


@dataclass
class Comparison:
    problem: Problem
    criteria: list[Criterion]
    jurors: list[str]
    rows: list[ComparisonRow]
    open_count: int
    resolved_count: int
    all_criteria: list[Criterion]
    juror_columns: list[JurorColumn] = field(default_factory=list)
    # The contest's problems, for links to each problem's comparison.
    problems: list[Problem] = field(default_factory=list)
    # Cells of the problem in each status, in `CellStatus` order.
    status_counts: dict[str, int] = field(default_factory=dict)
    # The shown cells where marks of different scheme versions meet: (label, criterion code,
    # the sentence that says so), by label.
    versions_met: list[tuple[str, str, str]] = field(default_factory=list)
    # The problem's papers this reader reads, before any filter, and whether the reader grades
    # any of them (`reader` of `problem_comparison`).
    paper_count: int = 0
    reader_grades: bool = False
    # Where the rows' straddles are still to read (`read_straddles`), else None.
    straddle_facts: object = None


# The narrowing of `problem_comparison(show=…)`: papers with a cell of those shown not yet
# settled, papers whose total straddles a medal cut-off (for a reader shown the flag only), the
# papers the reader grades.
SHOWS = ("open", "straddling", "mine")


@dataclass(slots=True)
class _PaperCells:
    """One paper of the problem: its label, its cells of the problem's criteria (by criterion
    id), the problem's jurors assigned to it and whether its total straddles a cut-off."""

    paper_id: int
    label: str
    cells: dict[int, Cell]
    jurors: set[str]
    straddle: bool
    # A seed of the reader's (`seed_rows`): a paper to them, discussed with no one.
    seed: bool = False


@dataclass
class _ProblemRead:
    frame: ContestFrame
    criteria: list[Criterion]
    papers: list[_PaperCells]
    # Every juror with a column: whether their sheet for the problem is submitted, by username.
    submitted: dict[str, bool]
    # Where the straddles are still to read (`read_straddles`).
    straddle_facts: StraddleFacts | None = None


def _problem_jurors(problem: Problem):
    """Every juror assigned to a paper of the problem, by paper, and whether their sheet is in;
    the assignments per paper. One query."""
    jurors: dict[int, set[str]] = defaultdict(set)
    expected: dict[int, int] = defaultdict(int)
    submitted: dict[str, bool] = {}
    for paper_id, username, is_in in (
        Assignment.objects.filter(problem=problem)
        .annotate(
            submitted=Exists(
                Sheet.objects.submitted().filter(problem=problem, juror=OuterRef("juror_id"))
            )
        )
        .values_list("paper_id", "juror__username", "submitted")
    ):
        jurors[paper_id].add(username)
        expected[paper_id] += 1
        submitted[username] = is_in
    return jurors, expected, submitted


def _read_problem(problem: Problem, *, straddles: bool) -> _ProblemRead:
    """The problem's papers with their cells and, with `straddles`, their straddle flags (the
    whole contest's marks read; else the problem's only, and `read.straddle_facts` to flag the
    papers shown later, `read_straddles`). Nine queries."""
    contest = problem.contest
    frame = contest_frame(contest)
    number_of = frame.number_of
    criteria = [c for c in frame.criteria if c.problem_id == problem.pk]
    counted = submitted_marks(contest)
    marks = marks_by_cell(counted if straddles else counted.filter(criterion__problem=problem))
    resolutions = resolutions_by_cell(criterion__problem__contest=contest)
    labels: dict[int, str] = {}
    blank: dict[int, set[int]] = defaultdict(set)
    for paper_id, problem_id, label, is_blank in PaperLabel.objects.filter(
        Q(problem=problem) | Q(blank=True), problem__contest=contest
    ).values_list("paper_id", "problem_id", "label", "blank"):
        if problem_id == problem.pk:
            labels[paper_id] = label
        if is_blank:
            blank[paper_id].add(number_of[problem_id])
    facts = StraddleFacts(
        counted=counted,
        frame=frame,
        resolutions=resolutions,
        blank=blank,
        problem_marks=marks,
        problem=problem,
    )
    jurors, expected, submitted = _problem_jurors(problem)
    names = dict(
        get_user_model()
        .objects.filter(sheets__problem=problem)
        .distinct()
        .values_list("pk", "username")
    )
    papers = []
    criteria_ids = [(criterion, criterion.pk) for criterion in criteria]
    for paper_id in sorted(jurors):
        paper_marks = marks.get(paper_id, {})
        paper_blank = blank.get(paper_id, set())
        cells = {}
        # Cell by cell (`settle_cell`, the rule's one home, settles each).
        for criterion, criterion_id in criteria_ids:
            cell_marks = paper_marks.get(criterion_id, ())
            cell = settle_cell(
                paper_id=paper_id,
                criterion=criterion,
                marks=[row[3] for row in cell_marks],
                expected=expected[paper_id],
                resolution=resolutions.get((paper_id, criterion_id)),
                no_answer=problem.number in paper_blank,
            )
            cell.mark_rows, cell.juror_names = cell_marks, names
            cells[criterion_id] = cell
        papers.append(
            _PaperCells(
                paper_id=paper_id,
                label=labels.get(paper_id, "?"),
                cells=cells,
                jurors=jurors[paper_id],
                straddle=straddles and facts.straddles(paper_id, paper_marks),
            )
        )
    # A submitted mark whose assignment has gone still shows, under its juror.
    for paper in papers:
        for cell in paper.cells.values():
            for username, _ in _marks(cell):
                submitted.setdefault(username, True)
    return _ProblemRead(
        frame=frame,
        criteria=criteria,
        papers=papers,
        submitted=submitted,
        straddle_facts=None if straddles else facts,
    )


def _marks(cell: Cell):
    """`cell.marks` as it is read, unsorted: (username, points) of each submitted mark."""
    names = cell.juror_names
    if names is None:
        return ()
    return [(names.get(row[2], "?"), row[3]) for row in cell.mark_rows]


def _add_seeds(read: _ProblemRead, problem: Problem, juror) -> None:
    """The juror's seeds among the papers, each graded by the juror alone, in place of the
    live rows of their calibration papers (colleagues may grade those live: the same answers
    under a second label would give the seed away; `access.papers_seeded_for` keeps them from
    the juror's discussions the same way), unless the juror grades that paper live too. One
    query."""
    seeds = juror_seed_rows(problem=problem, juror=juror, criteria=read.criteria)
    if seeds:
        read.submitted.setdefault(juror.username, True)
        seeded = {seed.paper_id for seed in seeds}
        read.papers = [
            paper
            for paper in read.papers
            if paper.paper_id not in seeded or juror.username in paper.jurors
        ]
    read.papers.extend(
        _PaperCells(
            paper_id=seed.paper_id,
            label=seed.label,
            cells=seed.cells,
            jurors={juror.username},
            straddle=False,
            seed=True,
        )
        for seed in seeds
    )


def _juror_columns(submitted: dict[str, bool], *, name_pending: bool) -> list[JurorColumn]:
    """The columns in their order (submitted first, then by username), each named as the
    reader may be told."""
    ordered = sorted(submitted, key=lambda name: (not submitted[name], name))
    columns = []
    waiting = 0
    for index, username in enumerate(ordered, start=1):
        is_in = submitted[username]
        waiting += not is_in
        name = username
        if not is_in and not name_pending:
            name = "juror not yet submitted" + (f" ({waiting})" if waiting > 1 else "")
        columns.append(JurorColumn(key=f"J{index}", name=name, submitted=is_in))
    return columns


@dataclass(slots=True)
class _RowShape:
    """What every row of a page shares, worked out once: the problem's criteria with their ids
    and whether each is shown, and each juror's column by username."""

    criteria: list[tuple[Criterion, int, bool]]
    ordered: list[str]
    column: dict[str, int]
    submitted: dict[str, bool]


def _comparison_row(paper: _PaperCells, *, shape: _RowShape, comments):
    """The paper's row: its shown cells with each juror's mark in the juror's column, each
    juror's total, and the problem's cells of the paper counted by status."""
    column, submitted = shape.column, shape.submitted
    pending = [username in paper.jurors and not submitted[username] for username in shape.ordered]
    # A column without a mark: the same object in every cell of the row (never changed; a mark
    # gets a value of its own).
    blank = [JurorValue(pending=flag) for flag in pending]
    waiting = any(pending)
    cells = []
    totals = [JurorValue(pending=flag) for flag in pending]
    counts = dict.fromkeys(GRADED_STATUSES, 0)
    settled = ZERO
    open_count = resolved = 0
    for criterion, criterion_id, shown_here in shape.criteria:
        cell = paper.cells[criterion_id]
        marks = blank.copy() if shown_here else []
        for username, points in _marks(cell):
            index = column[username]
            if shown_here:
                marks[index] = JurorValue(points=points, pending=pending[index])
            total = totals[index]
            total.points = (total.points or ZERO) + points
        status = cell.status
        if status in counts:  # a problem left blank after it was assigned: not graded
            counts[status] += 1
        if status.is_settled:
            settled += cell.points
        open_count += status == CellStatus.OPEN
        resolved += cell.is_resolved
        if shown_here:
            cells.append(
                {
                    "criterion": criterion,
                    "marks": marks,
                    # A juror's mark is still to come: the marks say "pending" already.
                    "waiting": waiting,
                    "cell": cell,
                    "comments": 0
                    if paper.seed
                    else comments.get((paper.paper_id, criterion_id), 0),
                }
            )
    row = ComparisonRow(
        paper_id=paper.paper_id,
        label=paper.label,
        cells=cells,
        juror_totals=totals,
        open_count=open_count,
        straddle=paper.straddle,
        settled_points=settled,
        settled_cells=sum(n for s, n in counts.items() if CellStatus(s).is_settled),
        status_counts=counts,
        seed=paper.seed,
    )
    return row, resolved


def problem_comparison(
    problem: Problem,
    *,
    discrepancies_only: bool = False,
    paper_label: str = "",
    criterion_code: str = "",
    name_pending: bool = True,
    kept_from_reader: Collection[int] = (),
    seeds_of=None,
    show: str = "",
    reader: str = "",
    straddles: bool = True,
) -> Comparison:
    """Paper × criterion for one problem, each juror's mark side by side, with the cell's
    status; each juror's total per paper, the points settled so far, the cells counted by
    status and the paper's medal-straddle flag.

    Every juror assigned to the problem has a column: a juror whose sheet is not submitted yet
    shows as pending (named only when `name_pending`; callers ask `grading.rules.access`), never as
    missing. Filters narrow the rows and columns shown; the open and resolved counts are the
    problem's. The papers `kept_from_reader` (by id: a conflict keeps them from a juror,
    `access.papers_kept_from`) are no row and no count. `seeds_of`: the juror reading, whose
    own seeds are rows and counts as papers they grade alone (`access.lists_own_seeds`; one
    query more). `show`, one of `SHOWS`, narrows the rows too: "mine" to the papers the juror
    `reader` (a username) is assigned to. Without `straddles` (and unless `show` is
    "straddling") no row's straddle is read: `read_straddles` reads those of the rows shown.
    Nine queries whatever the number of papers."""
    read = _read_problem(problem, straddles=straddles or show == "straddling")
    if seeds_of is not None:
        _add_seeds(read, problem, seeds_of)
    columns = _juror_columns(read.submitted, name_pending=name_pending)
    ordered = sorted(read.submitted, key=lambda name: (not read.submitted[name], name))
    comments = comment_counts(criterion__problem=problem)
    shown = [c for c in read.criteria if not criterion_code or c.code == criterion_code]
    shown_ids = {c.pk for c in shown}
    shape = _RowShape(
        criteria=[(c, c.pk, c.pk in shown_ids) for c in read.criteria],
        ordered=ordered,
        column={username: index for index, username in enumerate(ordered)},
        submitted=read.submitted,
    )
    problem_counts = dict.fromkeys(GRADED_STATUSES, 0)
    rows = []
    open_total = resolved_total = paper_count = 0
    reader_grades = False
    for paper in read.papers:
        if paper.paper_id in kept_from_reader:
            continue
        paper_count += 1
        mine = reader in paper.jurors
        reader_grades = reader_grades or mine
        row, resolved = _comparison_row(paper, shape=shape, comments=comments)
        open_total += row.open_count
        resolved_total += resolved
        for status, count in row.status_counts.items():
            problem_counts[status] += count
        if paper_label and row.label != paper_label:
            continue
        if discrepancies_only and not any(item["cell"].is_open for item in row.cells):
            continue
        if show and not _shown(row, show, mine=mine):
            continue
        rows.append(row)
    rows.sort(key=lambda row: row.label)
    met = [
        (row.label, item["criterion"].code, item["cell"].versions_met)
        for row in rows
        for item in row.cells
        if item["cell"].versions_met
    ]
    return Comparison(
        problem=problem,
        criteria=shown,
        jurors=[c.name for c in columns],
        rows=rows,
        open_count=open_total,
        resolved_count=resolved_total,
        all_criteria=read.criteria,
        juror_columns=columns,
        problems=read.frame.problems,
        status_counts=problem_counts,
        versions_met=met,
        paper_count=paper_count,
        reader_grades=reader_grades,
        straddle_facts=read.straddle_facts,
    )


def _shown(row: ComparisonRow, show: str, *, mine: bool) -> bool:
    """Whether the row is one of those `show` (one of `SHOWS`) asks for."""
    if show == "open":
        return any(not item["cell"].status.is_settled for item in row.cells)
    if show == "straddling":
        return row.straddle
    return mine
