"""Reads for comparison, resolution and results: each (paper, criterion) cell's marks and how
they settle, the open discrepancies, each paper's agreed points, total, medal and equivalent rank.

How a cell settles is `grading.rules.domain.cell_outcome`'s alone; everything here gathers the marks
and hands them to it. `contest_results` is the one read of a contest's grading: the results page,
the chair's queue, a problem's comparison, finalization, exports and analysis all start from it.
Every function runs a fixed number of queries whatever the number of papers. Only marks of
*submitted* sheets count; a draft is the juror's own business (independence)."""

from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, OuterRef

from grading.metrics.answer_diff import compare_item
from grading.models import (
    Assignment,
    Comment,
    HumanScore,
    Mark,
    MarkEvent,
    Paper,
    PaperLabel,
    Resolution,
    Sheet,
    Solution,
)
from grading.papers.items import item_labels
from grading.papers.selectors import TaskView
from grading.resolution.collector import collector_paused
from grading.rules.domain import (
    GRADED_STATUSES,
    ZERO,
    CellStatus,
    Outcome,
    cell_outcome,
    cent,
    medal_for,
    medal_straddles,
    nearest_cutoff,
)
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, Task

Kind = Resolution.Kind


# Slotted, with each juror's marks kept as read and named only when asked for: a large contest
# has tens of thousands of cells, and fewer objects per cell keep the garbage collector's passes
# short on the pages that list them.
@dataclass(slots=True)
class Cell:
    """One (paper, criterion): its outcome, how it was resolved, and each submitted juror's
    mark (as database rows; `marks` names the jurors where the read asked for names)."""

    paper_id: int
    criterion: Criterion
    outcome: Outcome
    reason: str = ""
    # Rows of (paper id, criterion id, juror id, points), and the jurors' usernames by id.
    mark_rows: list | tuple = ()
    juror_names: dict[int, str] | None = None

    @property
    def marks(self) -> list[tuple[str, Decimal]]:
        """(username, points) of each submitted mark, by username; empty unless the read was
        made `with_marks`."""
        if self.juror_names is None:
            return []
        return sorted((self.juror_names.get(row[2], "?"), row[3]) for row in self.mark_rows)

    status = property(lambda self: self.outcome.status)
    points = property(lambda self: self.outcome.points)
    n = property(lambda self: self.outcome.n)
    lo = property(lambda self: self.outcome.lo)
    hi = property(lambda self: self.outcome.hi)
    spread = property(lambda self: self.outcome.spread)

    @property
    def is_open(self) -> bool:
        return self.status == CellStatus.OPEN

    @property
    def decided_by_chair(self) -> bool:
        return self.status == CellStatus.CHAIR

    @property
    def plainly_agreed(self) -> bool:
        """Agreed by the marks as submitted: nothing about the cell needs saying."""
        return self.status == CellStatus.AGREED

    @property
    def is_resolved(self) -> bool:
        return self.status.is_resolved


def settle_cell(
    *,
    paper_id: int,
    criterion: Criterion,
    marks: list[Decimal],
    expected: int,
    resolution: tuple[str, Decimal, str] | None,
    no_answer: bool = False,
) -> Cell:
    """The cell for a list of submitted marks and the cell's resolution record, if any;
    `no_answer` when the contestant left the criterion's problem blank."""
    kind, resolved_points, reason = resolution or ("", None, "")
    outcome = cell_outcome(
        marks,
        expected=expected,
        tolerance=criterion.tolerance,
        step=criterion.step,
        chair_points=resolved_points if kind == Kind.CHAIR else None,
        consensus=kind == Kind.CONSENSUS,
        no_answer=no_answer,
    )
    return Cell(
        paper_id=paper_id,
        criterion=criterion,
        outcome=outcome,
        reason=reason if kind == Kind.CHAIR else "",
    )


def _submitted_marks(contest: Contest):
    return Mark.objects.filter(
        sheet__state=Sheet.State.SUBMITTED,
        sheet__problem__contest=contest,
        points__isnull=False,
    )


@dataclass
class PaperResult:
    paper_id: int
    # What pages and exports call the paper: the database id counts papers in import order.
    public_code: str
    labels: dict[int, str]
    identity: str | None
    metadata: dict | None
    cells: dict[int, Cell]
    problem_points: dict[int, Decimal]
    total: Decimal
    medal: str
    low: Decimal
    high: Decimal
    straddle: bool
    # Problems in which at least one submitted mark or chair decision counts for the paper; the
    # others show a dash rather than a 0 that would read as a grade.
    problems_graded: set[int] = field(default_factory=set)
    # Problems (by id) in which the paper is assigned to jurors.
    assigned_problems: set[int] = field(default_factory=set)
    # Problems (by number) the contestant left blank: "no answer", 0 points without a juror.
    blank_problems: set[int] = field(default_factory=set)
    rank: int | None = None
    percentile: Decimal | None = None
    # Paper.Source: an AI system or a human contestant. Pages show it only where identities may
    # be seen (`access.may_see_identities`); the equivalent rank needs it for every reader.
    source: str = Paper.Source.AI

    @property
    def is_human(self) -> bool:
        return self.source == Paper.Source.HUMAN

    @property
    def kind(self) -> str:
        return Paper.Source(self.source).label

    @property
    def open_count(self) -> int:
        return sum(1 for cell in self.cells.values() if cell.status == CellStatus.OPEN)

    @property
    def pending_count(self) -> int:
        return sum(1 for cell in self.cells.values() if cell.status == CellStatus.PENDING)

    @property
    def provisional(self) -> bool:
        return any(not cell.status.is_settled for cell in self.cells.values())

    def nearest_cutoff(self, cutoffs: list[MedalCutoff]) -> tuple[str, Decimal | None]:
        return nearest_cutoff(self.total, cutoffs)

    def problem_cells(self, problem_id: int) -> list[Cell]:
        return [cell for cell in self.cells.values() if cell.criterion.problem_id == problem_id]


@dataclass
class ContestResults:
    contest: Contest
    problems: list[Problem]
    criteria: list[Criterion]
    cutoffs: list[MedalCutoff]
    papers: list[PaperResult]
    human_count: int
    scale: Decimal
    juror_slots: int = 0
    # Imported human totals (HumanScore) of contestants without a paper graded by the jury,
    # sorted; with the human papers' jury totals they make the equivalent rank's population.
    imported_human_totals: list[Decimal] = field(default_factory=list)

    @property
    def cells(self) -> list[Cell]:
        return [cell for paper in self.papers for cell in paper.cells.values()]

    @property
    def open_cells(self) -> list[Cell]:
        return [cell for cell in self.cells if cell.status == CellStatus.OPEN]

    @property
    def pending_cells(self) -> list[Cell]:
        return [cell for cell in self.cells if cell.status == CellStatus.PENDING]

    def paper(self, paper_id: int) -> PaperResult:
        return next(paper for paper in self.papers if paper.paper_id == paper_id)

    @property
    def jury_graded_humans(self) -> int:
        """Human contestants ranked by the jury's totals (the others by their imported ones)."""
        return self.human_count - len(self.imported_human_totals)


@collector_paused
def equivalent_rank(total: Decimal, humans: list[Decimal]) -> tuple[int, Decimal]:
    """The place `total` would take among the sorted human totals, ties sharing the better
    place, and its percentile: the share of humans strictly below it."""
    rank = 1 + len(humans) - bisect_right(humans, total)
    below = bisect_left(humans, total)
    return rank, (Decimal(100 * below) / len(humans)).quantize(Decimal("0.1"))


def contest_results(
    contest: Contest, *, identities: bool = False, with_marks: bool = False
) -> ContestResults:
    """Every assigned paper's cells, problem points, total out of `contest.max_total`, medal,
    medal-straddle flag and equivalent rank among the human contestants: the jury's totals of
    the human papers, and the imported totals of contestants whose paper the jury does not grade.

    `identities` fetches identity and metadata (callers check `access.may_see_identities`);
    `with_marks` adds each juror's mark per cell, by username. Nine queries, ten with
    identities, eleven with marks, whatever the number of papers."""
    problems = list(contest.problems.order_by("number"))
    criteria = list(
        Criterion.objects.filter(problem__contest=contest)
        .select_related("problem")
        .order_by("problem__number", "order", "code")
    )
    cutoffs = list(contest.cutoffs.order_by("order"))
    problem_sum = sum((problem.max_points for problem in problems), ZERO)
    # Problems whose maxima do not add up to the contest's maximum are scaled proportionally.
    scale = contest.max_total / problem_sum if problem_sum else Decimal("1")
    number_of = {problem.pk: problem.number for problem in problems}

    # Every submitted mark, once: the cells, each juror's problem totals (for the straddle)
    # and, where asked, the marks shown per cell all come from this one read.
    # By paper, then criterion: no key object per cell.
    marks: dict[int, dict[int, list[tuple]]] = defaultdict(lambda: defaultdict(list))
    for row in (
        _submitted_marks(contest)
        .order_by()
        .values_list("paper_id", "criterion_id", "sheet__juror_id", "points")
    ):
        marks[row[0]][row[1]].append(row)
    expected = {}
    public_code: dict[int, str] = {}
    source: dict[int, str] = {}
    for row in (
        Assignment.objects.filter(problem__contest=contest)
        .values("paper_id", "problem_id", "paper__public_code", "paper__source")
        .annotate(n=Count("id"))
        .order_by()
    ):
        expected[row["paper_id"], row["problem_id"]] = row["n"]
        public_code[row["paper_id"]] = row["paper__public_code"]
        source[row["paper_id"]] = row["paper__source"]
    resolutions = {
        (paper_id, criterion_id): (kind, points, reason)
        for paper_id, criterion_id, kind, points, reason in Resolution.objects.filter(
            criterion__problem__contest=contest
        ).values_list("paper_id", "criterion_id", "kind", "points", "reason")
    }
    labels: dict[int, dict[int, str]] = defaultdict(dict)
    blank: dict[int, set[int]] = defaultdict(set)
    for paper_id, problem_id, label, is_blank, code, kind in PaperLabel.objects.filter(
        problem__contest=contest
    ).values_list(
        "paper_id", "problem_id", "label", "blank", "paper__public_code", "paper__source"
    ):
        labels[paper_id][number_of[problem_id]] = label
        if is_blank:
            # A contestant who left every problem blank has no assignment, and a result still.
            blank[paper_id].add(number_of[problem_id])
            public_code[paper_id], source[paper_id] = code, kind
    assigned_problems: dict[int, set[int]] = defaultdict(set)
    for paper_id, problem_id in expected:
        assigned_problems[paper_id].add(problem_id)
    assigned = set(assigned_problems) | set(blank)
    if identities:
        papers = {
            pk: (identity, metadata)
            for pk, identity, metadata in Paper.objects.filter(pk__in=assigned).values_list(
                "pk", "identity", "metadata"
            )
        }
    else:
        papers = dict.fromkeys(sorted(assigned), (None, None))
    # A contestant whose paper the jury grades is ranked by the jury's total, not the imported.
    graded_human = Paper.objects.filter(
        contest=contest,
        source=Paper.Source.HUMAN,
        identity=OuterRef("contestant"),
        assignments__isnull=False,
    )
    imported = sorted(
        HumanScore.objects.filter(contest=contest)
        .filter(~Exists(graded_human))
        .values_list("total", flat=True)
    )
    names = None
    if with_marks:
        names = dict(
            get_user_model()
            .objects.filter(sheets__problem__contest=contest)
            .distinct()
            .values_list("pk", "username")
        )

    results = []
    juror_slots = 0
    for paper_id in sorted(papers):
        identity, metadata = papers[paper_id]
        cells = {}
        problem_points = dict.fromkeys(number_of.values(), ZERO)
        graded = set()
        # Each juror's total per problem, with the chair's value in the cells the chair decided:
        # once decided, no juror's total can take another value there.
        juror_totals: dict[int, dict[int, Decimal]] = defaultdict(dict)
        paper_marks = marks.get(paper_id, {})
        paper_blank = blank.get(paper_id, set())
        for criterion in criteria:
            number = number_of[criterion.problem_id]
            cell_marks = paper_marks.get(criterion.pk, ())
            cell = settle_cell(
                paper_id=paper_id,
                criterion=criterion,
                marks=[row[3] for row in cell_marks],
                expected=expected.get((paper_id, criterion.problem_id), 0),
                resolution=resolutions.get((paper_id, criterion.pk)),
                no_answer=number in paper_blank,
            )
            decided = cell.status == CellStatus.CHAIR
            # A chair's value, or a blank problem's 0, is every juror's value in the cell.
            fixed = decided or cell.status == CellStatus.NO_ANSWER
            totals = juror_totals[number]
            for _, _, juror_id, points in cell_marks:
                totals[juror_id] = totals.get(juror_id, ZERO) + (cell.points if fixed else points)
            cell.mark_rows, cell.juror_names = cell_marks, names
            juror_slots = max(juror_slots, len(cell_marks) if with_marks else 0)
            cells[criterion.pk] = cell
            problem_points[number] += cell.points
            if cell.n or decided:
                graded.add(number)
        low = sum((min(t.values()) for t in juror_totals.values() if t), ZERO)
        high = sum((max(t.values()) for t in juror_totals.values() if t), ZERO)
        total = cent(sum(problem_points.values(), ZERO) * scale)
        low, high = cent(low * scale), cent(high * scale)
        result = PaperResult(
            paper_id=paper_id,
            public_code=public_code[paper_id],
            labels=dict(labels.get(paper_id, {})),
            identity=identity,
            metadata=metadata,
            cells=cells,
            problem_points={k: cent(v) for k, v in problem_points.items()},
            total=total,
            medal=medal_for(total, cutoffs),
            low=low,
            high=high,
            straddle=medal_straddles(low, high, cutoffs),
            problems_graded=graded,
            assigned_problems=assigned_problems[paper_id],
            blank_problems=paper_blank,
            source=source[paper_id],
        )
        results.append(result)
    humans = sorted(imported + [result.total for result in results if result.is_human])
    if humans:
        for result in results:
            result.rank, result.percentile = equivalent_rank(result.total, humans)
    results.sort(key=lambda r: (-r.total, r.public_code))
    return ContestResults(
        contest=contest,
        problems=problems,
        criteria=criteria,
        cutoffs=cutoffs,
        papers=results,
        human_count=len(humans),
        scale=scale,
        juror_slots=juror_slots,
        imported_human_totals=imported,
    )


def _comment_counts(**where) -> dict[tuple[int, int], int]:
    return {
        (row["paper_id"], row["criterion_id"]): row["n"]
        for row in Comment.objects.filter(**where)
        .values("paper_id", "criterion_id")
        .annotate(n=Count("id"))
        .order_by()
    }


@dataclass
class QueueItem:
    cell: Cell
    paper: PaperResult
    problem: Problem
    label: str
    marks: list[tuple[str, Decimal]]
    nearest: str
    distance: Decimal | None
    comments: int


# The queue's status filter: which cell statuses each choice lists.
QUEUE_STATUSES = {
    "open": {CellStatus.OPEN},
    "pending": {CellStatus.PENDING},
    "chair": {CellStatus.CHAIR},
    "consensus": {CellStatus.CONSENSUS},
    "any": {CellStatus.OPEN, CellStatus.PENDING, CellStatus.CHAIR, CellStatus.CONSENSUS},
}


@collector_paused
def chair_queue(
    contest: Contest,
    *,
    status: str = "open",
    problem: int | None = None,
    straddle: bool = False,
    label: str = "",
) -> tuple[list[QueueItem], ContestResults]:
    """Every open discrepancy of the contest, the most consequential first: papers whose
    provisional total is nearest a medal cut-off, then the widest disagreement.
    Narrowed on request to cells of another status (`QUEUE_STATUSES`), one problem (by
    number), papers straddling a medal cut-off, or labels starting with `label`.
    The results' queries (with marks) plus one."""
    results = contest_results(contest, with_marks=True)
    problem_of = {problem.pk: problem for problem in results.problems}
    comments = _comment_counts(criterion__problem__contest=contest)
    statuses = QUEUE_STATUSES.get(status, QUEUE_STATUSES["open"])
    label = label.upper()
    items = []
    for paper in results.papers:
        if straddle and not paper.straddle:
            continue
        nearest, distance = paper.nearest_cutoff(results.cutoffs)
        for cell in paper.cells.values():
            if cell.status not in statuses:
                continue
            problem_obj = problem_of[cell.criterion.problem_id]
            if problem is not None and problem_obj.number != problem:
                continue
            paper_label = paper.labels.get(problem_obj.number, "?")
            if label and not paper_label.startswith(label):
                continue
            items.append(
                QueueItem(
                    cell=cell,
                    paper=paper,
                    problem=problem_obj,
                    label=paper_label,
                    marks=cell.marks,
                    nearest=nearest,
                    distance=distance,
                    comments=comments.get((paper.paper_id, cell.criterion.pk), 0),
                )
            )
    far = Decimal("1e9")
    items.sort(
        key=lambda item: (
            far if item.distance is None else item.distance,
            -item.cell.spread,
            item.paper.paper_id,
            item.problem.number,
            item.cell.criterion.order,
            item.cell.criterion.code,
        )
    )
    return items, results


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


@collector_paused
def problem_comparison(
    problem: Problem,
    *,
    discrepancies_only: bool = False,
    paper_label: str = "",
    criterion_code: str = "",
    name_pending: bool = True,
) -> Comparison:
    """Paper × criterion for one problem, each juror's mark side by side, with the cell's
    status; each juror's total per paper, the points settled so far, the cells counted by
    status and the paper's medal-straddle flag.

    Every juror assigned to the problem has a column: a juror whose sheet is not submitted yet
    shows as pending (named only when `name_pending`; callers ask `grading.rules.access`), never as
    missing. Filters narrow the rows and columns shown; the open and resolved counts are the
    problem's. The results' queries (with marks) plus two."""
    results = contest_results(problem.contest, with_marks=True)
    criteria = [c for c in results.criteria if c.problem_id == problem.pk]
    # Every juror assigned to a paper of the problem, and whether their sheet is in: one read.
    assigned: dict[int, set[str]] = defaultdict(set)
    submitted_names: dict[str, bool] = {}
    for paper_id, username, submitted in (
        Assignment.objects.filter(problem=problem)
        .annotate(
            submitted=Exists(
                Sheet.objects.submitted().filter(problem=problem, juror=OuterRef("juror_id"))
            )
        )
        .values_list("paper_id", "juror__username", "submitted")
    ):
        assigned[paper_id].add(username)
        submitted_names[username] = submitted
    # A submitted mark whose assignment has gone still shows, under its juror.
    for paper in results.papers:
        for criterion in criteria:
            for username, _ in paper.cells[criterion.pk].marks:
                submitted_names.setdefault(username, True)
    ordered = sorted(submitted_names, key=lambda name: (not submitted_names[name], name))
    columns = []
    waiting = 0
    for index, username in enumerate(ordered, start=1):
        submitted = submitted_names[username]
        waiting += not submitted
        name = username
        if not submitted and not name_pending:
            name = "juror not yet submitted" + (f" ({waiting})" if waiting > 1 else "")
        columns.append(JurorColumn(key=f"J{index}", name=name, submitted=submitted))
    column = {username: index for index, username in enumerate(ordered)}
    comments = _comment_counts(criterion__problem=problem)

    shown = [c for c in criteria if not criterion_code or c.code == criterion_code]
    shown_ids = {c.pk for c in shown}
    problem_counts = dict.fromkeys(GRADED_STATUSES, 0)
    rows = []
    open_total = resolved_total = 0
    for paper in results.papers:
        if problem.pk not in paper.assigned_problems:
            continue
        label = paper.labels.get(problem.number, "?")
        pending = [
            username in assigned[paper.paper_id] and not submitted_names[username]
            for username in ordered
        ]
        cells = []
        totals = [JurorValue(pending=flag) for flag in pending]
        counts = dict.fromkeys(GRADED_STATUSES, 0)
        settled = ZERO
        open_count = 0
        for criterion in criteria:
            cell = paper.cells[criterion.pk]
            shown_here = criterion.pk in shown_ids
            marks = [JurorValue(pending=flag) for flag in pending] if shown_here else []
            for username, points in cell.marks:
                index = column[username]
                if shown_here:
                    marks[index].points = points
                total = totals[index]
                total.points = (total.points or ZERO) + points
            if cell.status in counts:  # a problem left blank after it was assigned: not graded
                counts[cell.status] += 1
            if cell.status.is_settled:
                settled += cell.points
            open_count += cell.status == CellStatus.OPEN
            resolved_total += cell.is_resolved
            if shown_here:
                cells.append(
                    {
                        "criterion": criterion,
                        "marks": marks,
                        # A juror's mark is still to come: the marks say "pending" already.
                        "waiting": any(pending),
                        "cell": cell,
                        "comments": comments.get((paper.paper_id, criterion.pk), 0),
                    }
                )
        open_total += open_count
        for status, count in counts.items():
            problem_counts[status] += count
        if paper_label and label != paper_label:
            continue
        if discrepancies_only and not any(item["cell"].is_open for item in cells):
            continue
        rows.append(
            ComparisonRow(
                paper_id=paper.paper_id,
                label=label,
                cells=cells,
                juror_totals=totals,
                open_count=open_count,
                straddle=paper.straddle,
                settled_points=settled,
                settled_cells=sum(n for s, n in counts.items() if CellStatus(s).is_settled),
                status_counts=counts,
            )
        )
    rows.sort(key=lambda row: row.label)
    return Comparison(
        problem=problem,
        criteria=shown,
        jurors=[c.name for c in columns],
        rows=rows,
        open_count=open_total,
        resolved_count=resolved_total,
        all_criteria=criteria,
        juror_columns=columns,
        problems=results.problems,
        status_counts=problem_counts,
    )


@dataclass
class Discussion:
    problem: Problem
    paper: Paper
    label: str
    criterion: Criterion
    cell: Cell
    marks: list[Mark]
    events: list[MarkEvent]
    comments: list[Comment]
    resolution: Resolution | None
    resolution_events: list
    # What is argued about: the criterion's task (every task of the problem for a criterion on
    # none), the paper's answers item by item against the official ones, the explanations.
    tasks: list[TaskView] = field(default_factory=list)
    # The marks (by id) changed after their sheet was submitted.
    revised: set[int] = field(default_factory=set)


def criterion_tasks(*, problem: Problem, paper: Paper, criterion: Criterion) -> list[TaskView]:
    """The criterion's task(s) as the paper answered them, each item compared with its
    accepted answers (`grading.metrics.answer_diff`). Two queries."""
    tasks = Task.objects.filter(problem=problem).order_by("number")
    if criterion.task_id:
        tasks = tasks.filter(pk=criterion.task_id)
    tasks = list(tasks)
    solutions = {
        solution.task_id: solution
        for solution in Solution.objects.filter(paper=paper, task__in=[task.pk for task in tasks])
    }
    views = []
    for task in tasks:
        solution = solutions.get(task.pk)
        answers = list(solution.answers) if solution else []
        count = max(task.item_count, len(answers))
        names = item_labels(task.query, count)
        items = []
        for index in range(count):
            answer = answers[index] if index < len(answers) else ""
            references = task.answers[index] if index < len(task.answers) else []
            if isinstance(references, str):
                references = [references]
            items.append(
                {
                    "number": names[index],
                    "answer": answer,
                    "references": references,
                    "compared": compare_item(answer, references),
                }
            )
        views.append(
            TaskView(
                task=task,
                items=items,
                explanation=solution.explanation if solution else "",
                parse_notes=list(solution.parse_notes) if solution else [],
                missing=solution is None,
            )
        )
    return views


def criterion_reading(*, problem: Problem, paper_id: int, criterion: Criterion):
    """(the paper, its answers to the criterion's task(s)): what the comparison's one-criterion
    view shows of the paper a reader opens there. Three queries."""
    paper = Paper.objects.only("pk", "source", "contest_id").get(pk=paper_id)
    return paper, criterion_tasks(problem=problem, paper=paper, criterion=criterion)


def cell_discussion(
    *, problem: Problem, paper: Paper, label: str, criterion: Criterion
) -> Discussion:
    """One (paper, criterion): the submitted marks with their full history, the comments, the
    resolution with its history, and the paper's answers for the criterion's task(s) beside
    the official ones. Eight queries."""
    marks = list(
        Mark.objects.filter(paper=paper, criterion=criterion, sheet__state=Sheet.State.SUBMITTED)
        .select_related("sheet__juror")
        .order_by("sheet__juror__username")
    )
    events = list(
        MarkEvent.objects.filter(mark__in=[mark.pk for mark in marks])
        .select_related("actor", "mark__sheet__juror")
        .order_by("created_at", "id")
    )
    comments = list(
        Comment.objects.filter(paper=paper, criterion=criterion)
        .select_related("author")
        .order_by("created_at", "id")
    )
    resolution = (
        Resolution.objects.filter(paper=paper, criterion=criterion)
        .select_related("decided_by")
        .first()
    )
    resolution_events = (
        list(resolution.events.select_related("actor").order_by("created_at", "id"))
        if resolution
        else []
    )
    expected = Assignment.objects.filter(paper=paper, problem=problem).count()
    cell = settle_cell(
        paper_id=paper.pk,
        criterion=criterion,
        marks=[mark.points for mark in marks if mark.points is not None],
        expected=expected,
        resolution=(resolution.kind, resolution.points, resolution.reason) if resolution else None,
    )
    return Discussion(
        problem=problem,
        paper=paper,
        label=label,
        criterion=criterion,
        cell=cell,
        marks=marks,
        events=events,
        comments=comments,
        resolution=resolution,
        resolution_events=resolution_events,
        tasks=criterion_tasks(problem=problem, paper=paper, criterion=criterion),
        # Points changed after submission: edits while drafting and notes alone do not count.
        revised={
            event.mark_id
            for event in events
            if event.old_points != event.new_points
            and event.mark.sheet.submitted_at
            and event.created_at > event.mark.sheet.submitted_at
        },
    )
