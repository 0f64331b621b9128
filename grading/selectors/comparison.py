"""Reads for comparison, resolution and results: which (paper, criterion) cells agree, which are
open discrepancies, each paper's agreed points, total, medal and equivalent rank.

Every function runs a fixed number of queries whatever the number of papers: the database
aggregates marks per cell (count, lowest, highest, sum) and Python does the rest over those rows.
Only marks of *submitted* sheets count; a draft is the juror's own business (independence).

How a cell's value is agreed, in order:
1. a chair decision (Resolution kind "chair") is final until the chair changes it;
2. when every submitted mark is within the criterion's tolerance, the marks' value. Marks that
   differ within tolerance give their mean rounded *down* to the criterion's step: rounding down
   never awards points that no juror would have given more of, and is the same whichever juror
   is listed first;
3. otherwise the cell is an open discrepancy; its provisional value is the plain mean.
A cell is "pending" while an assigned juror's submitted mark is missing."""

from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, ROUND_HALF_UP, Decimal

from django.contrib.auth import get_user_model
from django.db.models import CharField, Count, Exists, F, Max, Min, OuterRef, StringAgg, Sum, Value
from django.db.models.functions import Cast, Concat

from grading.models import (
    Assignment,
    CellSpread,
    Comment,
    HumanScore,
    Mark,
    MarkEvent,
    Paper,
    PaperLabel,
    Resolution,
    Sheet,
)
from rubrics.models import Contest, Criterion, MedalCutoff, Problem

AGREED = "agreed"
CONSENSUS = "consensus"
CHAIR = "chair"
OPEN = "open"
PENDING = "pending"

CENT = Decimal("0.01")
NO_MEDAL = ""


def _cent(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def floor_to_step(value: Decimal, step: Decimal) -> Decimal:
    return _cent((value / step).to_integral_value(rounding=ROUND_FLOOR) * step)


@dataclass
class Cell:
    """One (paper, criterion): what the submitted marks say and how the value was agreed."""

    paper_id: int
    criterion: Criterion
    n: int
    lo: Decimal | None
    hi: Decimal | None
    status: str
    points: Decimal
    resolution_kind: str = ""
    reason: str = ""
    marks: list[tuple[str, Decimal]] = field(default_factory=list)

    @property
    def spread(self) -> Decimal:
        return self.hi - self.lo if self.n else Decimal("0")

    @property
    def is_open(self) -> bool:
        return self.status == OPEN

    @property
    def is_resolved(self) -> bool:
        return self.status in (CONSENSUS, CHAIR)


def cell_from_marks(
    *,
    paper_id: int,
    criterion: Criterion,
    n: int,
    lo: Decimal | None,
    hi: Decimal | None,
    total: Decimal | None,
    expected: int,
    resolution: tuple[str, Decimal, str] | None,
) -> Cell:
    """The cell's status and value from the aggregates of its submitted marks (see module doc)."""
    kind, resolved_points, reason = resolution or ("", None, "")
    cell = Cell(
        paper_id=paper_id,
        criterion=criterion,
        n=n,
        lo=lo,
        hi=hi,
        status=PENDING,
        points=Decimal("0"),
        resolution_kind=kind,
        reason=reason,
    )
    if kind == CHAIR:
        cell.status, cell.points = CHAIR, resolved_points
        return cell
    if n == 0:
        return cell
    mean = total / n
    if hi - lo <= criterion.tolerance:
        cell.points = floor_to_step(mean, criterion.step)
        if n < expected:
            cell.status = PENDING
        else:
            cell.status = CONSENSUS if kind == CONSENSUS else AGREED
    else:
        cell.status, cell.points = OPEN, _cent(mean)
    return cell


def cell_status_for_values(
    values: list[Decimal], criterion: Criterion, *, expected: int = 0, resolution=None
) -> Cell:
    """The same rule over a plain list of marks (used by services after a revision)."""
    return cell_from_marks(
        paper_id=0,
        criterion=criterion,
        n=len(values),
        lo=min(values) if values else None,
        hi=max(values) if values else None,
        total=sum(values, Decimal("0")) if values else None,
        expected=expected,
        resolution=resolution,
    )


def medal_for(total: Decimal, cutoffs: list[MedalCutoff]) -> str:
    """The best medal (lowest `order`) whose minimum the total reaches."""
    for cutoff in sorted(cutoffs, key=lambda c: c.order):
        if total >= cutoff.min_total:
            return cutoff.name
    return NO_MEDAL


def _submitted_marks(contest: Contest):
    return Mark.objects.filter(
        sheet__state=Sheet.State.SUBMITTED,
        sheet__problem__contest=contest,
        points__isnull=False,
    )


@dataclass
class PaperResult:
    paper_id: int
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
    rank: int | None = None
    percentile: Decimal | None = None

    @property
    def open_count(self) -> int:
        return sum(1 for cell in self.cells.values() if cell.status == OPEN)

    @property
    def pending_count(self) -> int:
        return sum(1 for cell in self.cells.values() if cell.status == PENDING)

    @property
    def provisional(self) -> bool:
        return any(cell.status in (OPEN, PENDING) for cell in self.cells.values())

    def nearest_cutoff(self, cutoffs: list[MedalCutoff]) -> tuple[str, Decimal | None]:
        if not cutoffs:
            return "", None
        best = min(cutoffs, key=lambda c: (abs(self.total - c.min_total), c.order))
        return best.name, abs(self.total - best.min_total)

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

    @property
    def cells(self) -> list[Cell]:
        return [cell for paper in self.papers for cell in paper.cells.values()]

    @property
    def open_cells(self) -> list[Cell]:
        return [cell for cell in self.cells if cell.status == OPEN]

    @property
    def pending_cells(self) -> list[Cell]:
        return [cell for cell in self.cells if cell.status == PENDING]

    def paper(self, paper_id: int) -> PaperResult:
        return next(paper for paper in self.papers if paper.paper_id == paper_id)


def contest_results(
    contest: Contest, *, identities: bool = False, with_marks: bool = False
) -> ContestResults:
    """Every assigned paper's cells, problem points, total out of `contest.max_total`, medal,
    medal-straddle flag and equivalent rank among the imported human totals.

    `identities` fetches identity and metadata (callers check `roles.may_see_identities`);
    `with_marks` adds each juror's mark per cell (for the long export). At most eleven queries, twelve
    with marks, whatever the number of papers."""
    problems = list(contest.problems.order_by("number"))
    criteria = list(
        Criterion.objects.filter(problem__contest=contest)
        .select_related("problem")
        .order_by("problem__number", "order", "code")
    )
    cutoffs = list(contest.cutoffs.order_by("order"))
    problem_sum = sum((problem.max_points for problem in problems), Decimal("0"))
    # Problems whose maxima do not add up to the contest's maximum are scaled proportionally.
    scale = contest.max_total / problem_sum if problem_sum else Decimal("1")
    number_of = {problem.pk: problem.number for problem in problems}

    marks = _submitted_marks(contest)
    aggregates = {
        (row["paper_id"], row["criterion_id"]): row
        for row in marks.values("paper_id", "criterion_id")
        .annotate(n=Count("id"), lo=Min("points"), hi=Max("points"), total=Sum("points"))
        .order_by()
    }
    # Each juror's problem total, for the medal-straddle rule.
    juror_sums: dict[tuple[int, int], dict[int, Decimal]] = defaultdict(dict)
    for paper_id, problem_id, juror_id, points in (
        marks.values("paper_id", "sheet__problem_id", "sheet__juror_id")
        .annotate(s=Sum("points"))
        .order_by()
        .values_list("paper_id", "sheet__problem_id", "sheet__juror_id", "s")
    ):
        juror_sums[(paper_id, problem_id)][juror_id] = points
    # Once the chair decided a cell, no juror's total can take another value for it.
    chair_cells = Resolution.objects.filter(
        paper=OuterRef("paper"), criterion=OuterRef("criterion"), kind=CHAIR
    )
    decided_marks = list(
        marks.filter(Exists(chair_cells)).values_list(
            "paper_id", "sheet__problem_id", "sheet__juror_id", "criterion_id", "points"
        )
    )
    expected = {
        (row["paper_id"], row["problem_id"]): row["n"]
        for row in Assignment.objects.filter(problem__contest=contest)
        .values("paper_id", "problem_id")
        .annotate(n=Count("id"))
        .order_by()
    }
    resolutions = {
        (paper_id, criterion_id): (kind, points, reason)
        for paper_id, criterion_id, kind, points, reason in Resolution.objects.filter(
            criterion__problem__contest=contest
        ).values_list("paper_id", "criterion_id", "kind", "points", "reason")
    }
    labels: dict[int, dict[int, str]] = defaultdict(dict)
    for paper_id, problem_id, label in PaperLabel.objects.filter(
        problem__contest=contest
    ).values_list("paper_id", "problem_id", "label"):
        labels[paper_id][number_of[problem_id]] = label
    assigned = {paper_id for paper_id, _ in expected}
    if identities:
        papers = {
            pk: (identity, metadata)
            for pk, identity, metadata in Paper.objects.filter(pk__in=assigned).values_list(
                "pk", "identity", "metadata"
            )
        }
    else:
        papers = dict.fromkeys(sorted(assigned), (None, None))
    humans = sorted(HumanScore.objects.filter(contest=contest).values_list("total", flat=True))
    marks_by_cell: dict[tuple[int, int], list[tuple[str, Decimal]]] = defaultdict(list)
    juror_slots = 0
    if with_marks:
        for paper_id, criterion_id, username, points in marks.order_by(
            "sheet__juror__username"
        ).values_list("paper_id", "criterion_id", "sheet__juror__username", "points"):
            marks_by_cell[(paper_id, criterion_id)].append((username, points))
        juror_slots = max((len(v) for v in marks_by_cell.values()), default=0)

    decided = {(p, c): resolutions[(p, c)][1] for p, _, _, c, _ in decided_marks}
    for paper_id, problem_id, juror_id, criterion_id, points in decided_marks:
        sums = juror_sums[(paper_id, problem_id)]
        sums[juror_id] = sums[juror_id] - points + decided[(paper_id, criterion_id)]

    results = []
    for paper_id in sorted(papers):
        identity, metadata = papers[paper_id]
        cells = {}
        problem_points = {}
        graded = set()
        low = high = Decimal("0")
        for problem in problems:
            problem_points[problem.number] = Decimal("0")
            sums = juror_sums.get((paper_id, problem.pk))
            if sums:
                low += min(sums.values())
                high += max(sums.values())
        for criterion in criteria:
            row = aggregates.get((paper_id, criterion.pk))
            cell = cell_from_marks(
                paper_id=paper_id,
                criterion=criterion,
                n=row["n"] if row else 0,
                lo=row["lo"] if row else None,
                hi=row["hi"] if row else None,
                total=row["total"] if row else None,
                expected=expected.get((paper_id, criterion.problem_id), 0),
                resolution=resolutions.get((paper_id, criterion.pk)),
            )
            if with_marks:
                cell.marks = marks_by_cell.get((paper_id, criterion.pk), [])
            cells[criterion.pk] = cell
            problem_points[number_of[criterion.problem_id]] += cell.points
            if cell.n or cell.status == CHAIR:
                graded.add(number_of[criterion.problem_id])
        total = _cent(sum(problem_points.values(), Decimal("0")) * scale)
        low, high = _cent(low * scale), _cent(high * scale)
        result = PaperResult(
            paper_id=paper_id,
            labels=dict(labels.get(paper_id, {})),
            identity=identity,
            metadata=metadata,
            cells=cells,
            problem_points={k: _cent(v) for k, v in problem_points.items()},
            total=total,
            medal=medal_for(total, cutoffs),
            low=low,
            high=high,
            straddle=medal_for(low, cutoffs) != medal_for(high, cutoffs),
            problems_graded=graded,
        )
        if humans:
            # Equivalent rank: the place the paper would take among the humans, ties sharing
            # the better place; percentile: the share of humans strictly below it.
            result.rank = 1 + len(humans) - bisect_right(humans, total)
            below = bisect_left(humans, total)
            result.percentile = (Decimal(100 * below) / len(humans)).quantize(Decimal("0.1"))
        results.append(result)
    results.sort(key=lambda r: (-r.total, r.paper_id))
    return ContestResults(
        contest=contest,
        problems=problems,
        criteria=criteria,
        cutoffs=cutoffs,
        papers=results,
        human_count=len(humans),
        scale=scale,
        juror_slots=juror_slots,
    )


def contest_discrepancies(contest: Contest) -> list[tuple[int, int, Decimal, Decimal]]:
    """(paper id, criterion id, lowest, highest) of every open discrepancy of the contest:
    submitted marks further apart than the criterion's tolerance and no chair decision.

    Reads the kept range of each cell (`CellSpread`) through its index of the cells whose marks
    differ at all (a few percent of them), not the marks; the tolerance is applied here, so a
    changed tolerance needs no recomputation. Three queries."""
    tolerance = dict(
        Criterion.objects.filter(problem__contest=contest).values_list("pk", "tolerance")
    )
    decided = set(
        Resolution.objects.filter(criterion__problem__contest=contest, kind=CHAIR).values_list(
            "paper_id", "criterion_id"
        )
    )
    rows = (
        CellSpread.objects.filter(criterion_id__in=list(tolerance), hi__gt=F("lo"))
        .order_by()
        .values_list("paper_id", "criterion_id", "lo", "hi")
    )
    return [
        row
        for row in rows
        if row[3] - row[2] > tolerance[row[1]] and (row[0], row[1]) not in decided
    ]


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


def chair_queue(contest: Contest) -> tuple[list[QueueItem], ContestResults]:
    """Every open discrepancy of the contest, the most consequential first: papers whose
    provisional total is nearest a medal cut-off, then the widest disagreement.
    The results' queries plus three."""
    results = contest_results(contest)
    problem_of = {problem.pk: problem for problem in results.problems}
    User = get_user_model()
    names = dict(
        User.objects.filter(sheets__problem__contest=contest)
        .distinct()
        .values_list("pk", "username")
    )
    juror_marks = {
        (paper_id, criterion_id): joined
        for paper_id, criterion_id, joined in _submitted_marks(contest)
        .values("paper_id", "criterion_id")
        .annotate(
            lo=Min("points"),
            hi=Max("points"),
            joined=StringAgg(
                Concat(
                    Cast("sheet__juror_id", CharField()),
                    Value(":"),
                    Cast("points", CharField()),
                    output_field=CharField(),
                ),
                delimiter=Value(","),
            ),
        )
        .filter(hi__gt=F("lo") + F("criterion__tolerance"))
        .order_by()
        .values_list("paper_id", "criterion_id", "joined")
    }
    comments = {
        (row["paper_id"], row["criterion_id"]): row["n"]
        for row in Comment.objects.filter(criterion__problem__contest=contest)
        .values("paper_id", "criterion_id")
        .annotate(n=Count("id"))
        .order_by()
    }
    items = []
    for paper in results.papers:
        nearest, distance = paper.nearest_cutoff(results.cutoffs)
        for cell in paper.cells.values():
            if cell.status != OPEN:
                continue
            problem = problem_of[cell.criterion.problem_id]
            marks = []
            for part in (juror_marks.get((paper.paper_id, cell.criterion.pk)) or "").split(","):
                if part:
                    juror_id, points = part.split(":")
                    marks.append((names.get(int(juror_id), "?"), Decimal(points)))
            marks.sort()
            items.append(
                QueueItem(
                    cell=cell,
                    paper=paper,
                    problem=problem,
                    label=paper.labels.get(problem.number, "?"),
                    marks=marks,
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


@dataclass
class ComparisonRow:
    paper_id: int
    label: str
    cells: list[dict]
    juror_totals: list[Decimal | None]
    open_count: int
    straddle: bool


@dataclass
class Comparison:
    problem: Problem
    criteria: list[Criterion]
    jurors: list[str]
    rows: list[ComparisonRow]
    open_count: int
    resolved_count: int
    all_criteria: list[Criterion]


def problem_comparison(
    problem: Problem,
    *,
    discrepancies_only: bool = False,
    paper_label: str = "",
    criterion_code: str = "",
) -> Comparison:
    """Paper × criterion for one problem, each submitted juror's mark side by side, with the
    cell's status; each juror's total per paper and the paper's medal-straddle flag.
    Filters narrow the rows and columns shown; the open and resolved counts are the problem's."""
    criteria = list(Criterion.objects.for_problem(problem))
    sheets = list(
        Sheet.objects.submitted()
        .filter(problem=problem)
        .select_related("juror")
        .order_by("juror__username")
    )
    column = {sheet.juror_id: index for index, sheet in enumerate(sheets)}
    marks: dict[tuple[int, int], list[Decimal | None]] = {}
    for paper_id, criterion_id, juror_id, points in Mark.objects.filter(
        sheet__in=[sheet.pk for sheet in sheets]
    ).values_list("paper_id", "criterion_id", "sheet__juror_id", "points"):
        marks.setdefault((paper_id, criterion_id), [None] * len(sheets))[column[juror_id]] = points
    labels = dict(PaperLabel.objects.filter(problem=problem).values_list("paper_id", "label"))
    expected = {
        row["paper_id"]: row["n"]
        for row in Assignment.objects.filter(problem=problem)
        .values("paper_id")
        .annotate(n=Count("id"))
        .order_by()
    }
    resolutions = {
        (paper_id, criterion_id): (kind, points, reason)
        for paper_id, criterion_id, kind, points, reason in Resolution.objects.filter(
            criterion__problem=problem
        ).values_list("paper_id", "criterion_id", "kind", "points", "reason")
    }
    comments = {
        (row["paper_id"], row["criterion_id"]): row["n"]
        for row in Comment.objects.filter(criterion__problem=problem)
        .values("paper_id", "criterion_id")
        .annotate(n=Count("id"))
        .order_by()
    }
    straddle = {paper.paper_id: paper.straddle for paper in contest_results(problem.contest).papers}

    shown = [c for c in criteria if not criterion_code or c.code == criterion_code]
    rows = []
    open_total = resolved_total = 0
    for paper_id in sorted(expected, key=lambda pk: labels.get(pk, "")):
        label = labels.get(paper_id, "?")
        cells = []
        totals: list[Decimal | None] = [None] * len(sheets)
        open_count = 0
        for criterion in criteria:
            values = marks.get((paper_id, criterion.pk), [None] * len(sheets))
            present = [v for v in values if v is not None]
            cell = cell_status_for_values(
                present,
                criterion,
                expected=expected[paper_id],
                resolution=resolutions.get((paper_id, criterion.pk)),
            )
            for index, value in enumerate(values):
                if value is not None:
                    totals[index] = (totals[index] or Decimal("0")) + value
            open_count += cell.status == OPEN
            resolved_total += cell.is_resolved
            if criterion in shown:
                cells.append(
                    {
                        "criterion": criterion,
                        "values": values,
                        "cell": cell,
                        "comments": comments.get((paper_id, criterion.pk), 0),
                    }
                )
        open_total += open_count
        if paper_label and label != paper_label:
            continue
        if discrepancies_only and not any(item["cell"].status == OPEN for item in cells):
            continue
        rows.append(
            ComparisonRow(
                paper_id=paper_id,
                label=label,
                cells=cells,
                juror_totals=totals,
                open_count=open_count,
                straddle=straddle.get(paper_id, False),
            )
        )
    return Comparison(
        problem=problem,
        criteria=shown,
        jurors=[sheet.juror.username for sheet in sheets],
        rows=rows,
        open_count=open_total,
        resolved_count=resolved_total,
        all_criteria=criteria,
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


def cell_discussion(
    *, problem: Problem, paper: Paper, label: str, criterion: Criterion
) -> Discussion:
    """One (paper, criterion): the submitted marks with their full history, the comments and
    the resolution with its history. Six queries."""
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
    cell = cell_status_for_values(
        [mark.points for mark in marks if mark.points is not None],
        criterion,
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
    )
