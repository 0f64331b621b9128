"""The one read of a contest's grading: each assigned paper's cells, problem points, total,
medal, medal-straddle flag and equivalent rank among the human contestants. The results page,
the chair's queue, finalization, exports and analysis start from `contest_results`; a problem's
comparison reads its own problem only (`grading.resolution.comparison`).

How a cell settles is `grading.rules.domain.cell_outcome`'s, reached through
`grading.resolution.cells.settle_cells` for every cell of the contest in one pass. A fixed
number of queries whatever the number of papers."""

from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, F, IntegerField, OuterRef
from django.db.models.functions import Cast, Round

from grading.models import Assignment, HumanScore, Mark, Paper, PaperLabel, Resolution
from grading.resolution.cells import (
    Cell,
    CellEntry,
    JurorTotals,
    fixed_points,
    settle_cells,
    submitted_marks,
)
from grading.rules.domain import ZERO, CellStatus, cent, medal_for, medal_straddles, nearest_cutoff
from grading.rules.schemes import problem_versions_met
from rubrics.models import Contest, Criterion, MedalCutoff, Problem


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
    # Problems (by number) where marks given under different scheme versions meet, with the
    # sentence that says so ("marks given under scheme versions 1 and 2").
    versions_met: dict[int, str] = field(default_factory=dict)

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


def equivalent_rank(total: Decimal, humans: list[Decimal]) -> tuple[int, Decimal]:
    """The place `total` would take among the sorted human totals, ties sharing the better
    place, and its percentile: the share of humans strictly below it."""
    rank = 1 + len(humans) - bisect_right(humans, total)
    below = bisect_left(humans, total)
    return rank, (Decimal(100 * below) / len(humans)).quantize(Decimal("0.1"))


@dataclass
class ContestFrame:
    """What every read of a contest's grading starts from: its problems, criteria (by problem,
    then order), medal cut-offs, and the scale from the problems' points to the contest's."""

    problems: list[Problem]
    criteria: list[Criterion]
    cutoffs: list[MedalCutoff]
    scale: Decimal

    @property
    def number_of(self) -> dict[int, int]:
        return {problem.pk: problem.number for problem in self.problems}


def contest_frame(contest: Contest) -> ContestFrame:
    """The contest's problems, criteria and cut-offs. Three queries."""
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
    return ContestFrame(problems=problems, criteria=criteria, cutoffs=cutoffs, scale=scale)


# A mark's points as a whole number of its field's smallest unit (cents): an integer comes from
# the database as it is, where Django's SQLite converter makes each `Decimal` from a float and
# rounds it to the field's places (a quarter of the results page at 255 papers, 57,000 marks).
# `marks_by_cell` makes each different value the field's `Decimal` once: the same value, written
# to the same places.
POINTS_PLACES = Mark._meta.get_field("points").decimal_places
POINTS_IN_UNITS = Cast(Round(F("points") * 10**POINTS_PLACES), IntegerField())


def marks_by_cell(marks) -> dict[int, dict[int, list[tuple]]]:
    """Submitted marks (not blank) as rows of (paper id, criterion id, juror id, points, scheme
    version), by paper, then criterion (no key object per cell). One query."""
    by_cell: dict[int, dict[int, list[tuple]]] = defaultdict(lambda: defaultdict(list))
    points_of: dict[int, Decimal] = {}
    for paper_id, criterion_id, juror_id, units, version in (
        marks.order_by()
        .annotate(points_in_units=POINTS_IN_UNITS)
        .values_list(
            "paper_id", "criterion_id", "sheet__juror_id", "points_in_units", "scheme_version"
        )
    ):
        points = points_of.get(units)
        if points is None:
            points = points_of[units] = Decimal(units).scaleb(-POINTS_PLACES)
        by_cell[paper_id][criterion_id].append((paper_id, criterion_id, juror_id, points, version))
    return by_cell


def resolutions_by_cell(**where) -> dict[tuple[int, int], tuple[str, Decimal, str]]:
    """(kind, points, reason) of each resolution `where` selects, by (paper id, criterion id)."""
    return {
        (paper_id, criterion_id): (kind, points, reason)
        for paper_id, criterion_id, kind, points, reason in Resolution.objects.filter(
            **where
        ).values_list("paper_id", "criterion_id", "kind", "points", "reason")
    }


@dataclass
class _Papers:
    """Who is in a contest's results and what names them: the assignments per (paper, problem),
    the papers' public codes, sources and labels (by problem number), and the problems each
    left blank (by number)."""

    expected: dict[tuple[int, int], int] = field(default_factory=dict)
    public_code: dict[int, str] = field(default_factory=dict)
    source: dict[int, str] = field(default_factory=dict)
    labels: dict[int, dict[int, str]] = field(default_factory=lambda: defaultdict(dict))
    blank: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    assigned_problems: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))

    @property
    def ids(self) -> set[int]:
        return set(self.assigned_problems) | set(self.blank)


def _contest_papers(contest: Contest, number_of: dict[int, int]) -> _Papers:
    """The contest's assigned papers and those left wholly blank. Two queries."""
    papers = _Papers()
    for row in (
        Assignment.objects.filter(problem__contest=contest)
        .values("paper_id", "problem_id", "paper__public_code", "paper__source")
        .annotate(n=Count("id"))
        .order_by()
    ):
        papers.expected[row["paper_id"], row["problem_id"]] = row["n"]
        papers.public_code[row["paper_id"]] = row["paper__public_code"]
        papers.source[row["paper_id"]] = row["paper__source"]
        papers.assigned_problems[row["paper_id"]].add(row["problem_id"])
    for paper_id, problem_id, label, is_blank, code, kind in PaperLabel.objects.filter(
        problem__contest=contest
    ).values_list(
        "paper_id", "problem_id", "label", "blank", "paper__public_code", "paper__source"
    ):
        papers.labels[paper_id][number_of[problem_id]] = label
        if is_blank:
            # A contestant who left every problem blank has no assignment, and a result still.
            papers.blank[paper_id].add(number_of[problem_id])
            papers.public_code[paper_id], papers.source[paper_id] = code, kind
    return papers


def _imported_human_totals(contest: Contest) -> list[Decimal]:
    """The imported totals of human contestants whose paper the jury does not grade, sorted:
    one whose paper the jury grades is ranked by the jury's total, not the imported. One
    query."""
    graded_human = Paper.objects.filter(
        contest=contest,
        source=Paper.Source.HUMAN,
        identity=OuterRef("contestant"),
        assignments__isnull=False,
    )
    return sorted(
        HumanScore.objects.filter(contest=contest)
        .filter(~Exists(graded_human))
        .values_list("total", flat=True)
    )


def contest_juror_names(contest: Contest) -> dict[int, str]:
    """Usernames of the jurors with a sheet in the contest, by id. One query."""
    return dict(
        get_user_model()
        .objects.filter(sheets__problem__contest=contest)
        .distinct()
        .values_list("pk", "username")
    )


def contest_results(
    contest: Contest, *, identities: bool = False, with_marks: bool = False
) -> ContestResults:
    """Every assigned paper's cells, problem points, total out of `contest.max_total`, medal,
    medal-straddle flag and equivalent rank among the human contestants: the jury's totals of
    the human papers, and the imported totals of contestants whose paper the jury does not grade.

    `identities` fetches identity and metadata (callers check `access.may_see_identities`);
    `with_marks` adds each juror's mark per cell, by username. Nine queries, ten with
    identities, eleven with marks, whatever the number of papers."""
    frame = contest_frame(contest)
    # Every submitted mark, once: the cells, each juror's problem totals (for the straddle)
    # and, where asked, the marks shown per cell all come from this one read.
    marks = marks_by_cell(submitted_marks(contest))
    papers = _contest_papers(contest, frame.number_of)
    resolutions = resolutions_by_cell(criterion__problem__contest=contest)
    if identities:
        identity_of = {
            pk: (identity, metadata)
            for pk, identity, metadata in Paper.objects.filter(pk__in=papers.ids).values_list(
                "pk", "identity", "metadata"
            )
        }
    else:
        identity_of = dict.fromkeys(sorted(papers.ids), (None, None))
    imported = _imported_human_totals(contest)
    names = contest_juror_names(contest) if with_marks else None

    results = _paper_results(
        sorted(identity_of),
        frame=frame,
        papers=papers,
        identity_of=identity_of,
        marks=marks,
        resolutions=resolutions,
        names=names,
    )
    humans = sorted(imported + [result.total for result in results if result.is_human])
    if humans:
        for result in results:
            result.rank, result.percentile = equivalent_rank(result.total, humans)
    results.sort(key=lambda r: (-r.total, r.public_code))
    slots = [len(cell.mark_rows) for r in results for cell in r.cells.values()] if names else []
    return ContestResults(
        contest=contest,
        problems=frame.problems,
        criteria=frame.criteria,
        cutoffs=frame.cutoffs,
        papers=results,
        human_count=len(humans),
        scale=frame.scale,
        juror_slots=max(slots, default=0),
        imported_human_totals=imported,
    )


def _paper_results(
    paper_ids, *, frame, papers, identity_of, marks, resolutions, names
) -> list[PaperResult]:
    """Each paper's result, its cells settled with every other paper's in one pass
    (`settle_cells`)."""
    # Each criterion with its id, its problem's id and number, read once rather than once a cell.
    columns = [
        (criterion, criterion.pk, criterion.problem_id, frame.number_of[criterion.problem_id])
        for criterion in frame.criteria
    ]
    entries = []
    for paper_id in paper_ids:
        paper_marks = marks.get(paper_id, {})
        paper_blank = papers.blank.get(paper_id, ())
        for criterion, criterion_id, problem_id, number in columns:
            entries.append(
                CellEntry(
                    paper_id,
                    criterion,
                    paper_marks.get(criterion_id, ()),
                    papers.expected.get((paper_id, problem_id), 0),
                    resolutions.get((paper_id, criterion_id)),
                    number in paper_blank,
                )
            )
    cells = settle_cells(entries, juror_names=names)
    width = len(columns)
    return [
        _paper_result(
            paper_id,
            frame=frame,
            columns=columns,
            papers=papers,
            identity=identity_of[paper_id],
            entries=entries[index * width : (index + 1) * width],
            cells=cells[index * width : (index + 1) * width],
        )
        for index, paper_id in enumerate(paper_ids)
    ]


def _paper_result(paper_id, *, frame, columns, papers, identity, entries, cells) -> PaperResult:
    """One paper's points per problem, total, medal and straddle from its settled cells, one a
    criterion as `columns` gives each criterion (with its id, problem id and number)."""
    by_criterion = {}
    problem_points = dict.fromkeys(frame.number_of.values(), ZERO)
    graded = set()
    # Each problem's cells' scheme versions, one set a cell of two marks or more (only there
    # can versions meet).
    versions: dict[int, list[set[int]]] = defaultdict(list)
    # Each juror's total per problem, with the chair's value in the cells the chair decided:
    # once decided, no juror's total can take another value there.
    juror_totals = JurorTotals()
    decided = (CellStatus.CHAIR, CellStatus.APPEAL)
    for entry, cell, (_, criterion_id, _, number) in zip(entries, cells, columns, strict=True):
        cell_marks = entry.mark_rows
        juror_totals.add(
            number, cell_marks, fixed_points(entry.resolution, no_answer=entry.no_answer)
        )
        by_criterion[criterion_id] = cell
        if len(cell_marks) > 1:
            versions[number].append({row[4] for row in cell_marks})
        outcome = cell.outcome
        problem_points[number] += outcome.points
        if outcome.n or outcome.status in decided:
            graded.add(number)
    low, high = juror_totals.bounds(frame.scale)
    total = cent(sum(problem_points.values(), ZERO) * frame.scale)
    identity_text, metadata = identity
    paper_blank = papers.blank.get(paper_id, set())
    return PaperResult(
        paper_id=paper_id,
        public_code=papers.public_code[paper_id],
        labels=dict(papers.labels.get(paper_id, {})),
        identity=identity_text,
        metadata=metadata,
        cells=by_criterion,
        problem_points={k: cent(v) for k, v in problem_points.items()},
        total=total,
        medal=medal_for(total, frame.cutoffs),
        low=low,
        high=high,
        straddle=medal_straddles(low, high, frame.cutoffs),
        problems_graded=graded,
        assigned_problems=papers.assigned_problems[paper_id],
        blank_problems=paper_blank,
        source=papers.source[paper_id],
        versions_met={
            number: sentence
            for number, cells in versions.items()
            if (sentence := problem_versions_met(cells))
        },
    )
