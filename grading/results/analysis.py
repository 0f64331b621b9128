"""The jury-versus-automatic analysis: an output layer over what `grading.results.analysis_selectors`
returns (it runs no query of its own).

- Per paper and problem: the automatic score (0–100, the competition's metric over the problem's
  tasks) beside the jury's points as a percentage of the problem's maximum (agreed values, or
  provisional ones for open discrepancies), and the difference *jury − automatic*, as the
  competition's paper reports it (positive: the jury rates the paper higher than the metric).
- Totals are taken over the problems the jury has graded for every paper (no pending cell), so
  that every paper is compared on the same problems; once grading is complete these are all
  problems and the automatic total is the paper's overall score.
- Across papers: Spearman ρ and Pearson r (scipy), n, and the range of each series: automatic
  metrics compress the scale, over-crediting weak papers and under-crediting strong ones.
- Human contestants' papers (Paper.Source.HUMAN) are graded like the AI systems' but have no
  automatic score (the metric reads typed answers, a scan has none): the jury-versus-automatic
  figures cover the AI papers alone, and each AI paper gets its equivalent rank among the human
  contestants' jury totals (or, when the jury grades no human paper, their imported totals).
- Criterion difficulty: the share of AI papers and of human papers meeting each criterion in full
  (the settled value equals the criterion's points), the human share read from imported rates
  when the jury grades no human paper, and Spearman ρ (with n and the p-value) between the two.
- Agreement before resolution, over the marks as submitted: exact agreement per problem and per
  criterion kind, Krippendorff's alpha (interval, on points) per problem, and each juror's mean
  signed deviation from the agreed value (calibration, for the chair)."""

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from grading.metrics import autoscore
from grading.resolution.comparison import equivalent_rank
from grading.results.analysis_selectors import AnalysisData
from grading.rules.domain import CellStatus
from rubrics.models import Criterion, Problem

# Fewer than three pairs always correlate perfectly (or not at all): no figure is better.
MIN_PAIRS = 3


# --- Statistics ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Range:
    low: float
    high: float

    @property
    def span(self) -> float:
        return self.high - self.low


@dataclass(frozen=True)
class Correlation:
    """Automatic against jury figures over the papers that have both (0–100 scales)."""

    n: int
    spearman: float | None
    pearson: float | None
    auto_range: Range | None
    jury_range: Range | None
    mean_difference: float | None  # jury − automatic
    weaker_half_difference: float | None  # over the half of the papers the jury rates lower
    stronger_half_difference: float | None

    @property
    def compression(self) -> float | None:
        """The automatic range as a share of the jury's (below 1: a compressed scale)."""
        if not (self.auto_range and self.jury_range and self.jury_range.span):
            return None
        return self.auto_range.span / self.jury_range.span


def _varies(values) -> bool:
    import numpy as np

    return len(values) > 0 and float(np.ptp(values)) > 0


def correlation(auto: list[float | None], jury: list[float | None]) -> Correlation:
    """Spearman ρ and Pearson r (scipy) between paired figures, skipping pairs with a missing
    side; None where fewer than three pairs remain or one side does not vary."""
    import numpy as np
    from scipy import stats

    pairs = [(a, j) for a, j in zip(auto, jury, strict=True) if a is not None and j is not None]
    n = len(pairs)
    if not n:
        return Correlation(0, None, None, None, None, None, None, None)
    a = np.array([pair[0] for pair in pairs], dtype=float)
    j = np.array([pair[1] for pair in pairs], dtype=float)
    spearman = pearson = None
    if n >= MIN_PAIRS and _varies(a) and _varies(j):
        spearman = float(stats.spearmanr(a, j).statistic)
        pearson = float(stats.pearsonr(a, j).statistic)
    # Jury − automatic, the competition's sign: positive where the metric under-credits.
    difference = j - a
    order = np.argsort(j, kind="stable")
    half = n // 2
    return Correlation(
        n=n,
        spearman=spearman,
        pearson=pearson,
        auto_range=Range(float(a.min()), float(a.max())),
        jury_range=Range(float(j.min()), float(j.max())),
        mean_difference=float(difference.mean()),
        weaker_half_difference=float(difference[order[:half]].mean()) if half else None,
        stronger_half_difference=float(difference[order[n - half :]].mean()) if half else None,
    )


def krippendorff_alpha_interval(units: list[list[float]]) -> float | None:
    """Krippendorff's alpha with the interval metric (the `krippendorff` package) over units,
    each the list of values its coders gave; units with fewer than two values are not pairable
    and left out. None when nothing is pairable or every value is the same (alpha is 0/0)."""
    import krippendorff
    import numpy as np

    pairable = [list(unit) for unit in units if len(unit) >= 2]
    if not pairable or len({value for unit in pairable for value in unit}) < 2:
        return None
    # For the interval metric only the values within each unit matter, not which coder gave
    # them, so each unit's values can fill its column from the top.
    matrix = np.full((max(len(unit) for unit in pairable), len(pairable)), np.nan)
    for column, unit in enumerate(pairable):
        matrix[: len(unit), column] = unit
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval"))


# --- Paper by problem ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ProblemFigures:
    number: int
    auto: float | None  # 0–100
    jury: float | None  # the jury's points as a percentage of the problem's maximum
    jury_points: Decimal | None

    @property
    def difference(self) -> float | None:
        """Jury − automatic."""
        if self.auto is None or self.jury is None:
            return None
        return self.jury - self.auto


@dataclass
class PaperRow:
    paper_id: int
    index: int  # "Paper 1" is the paper with the highest jury total
    name: str
    problems: list[ProblemFigures]
    auto_total: float | None
    jury_total: float | None
    medal: str
    provisional: bool
    rank: int | None = None  # among the human contestants, see Analysis.rank_basis
    percentile: Decimal | None = None
    public_code: str = ""  # what the exports join on (the page shows `name`)

    @property
    def difference(self) -> float | None:
        """Jury − automatic."""
        if self.auto_total is None or self.jury_total is None:
            return None
        return self.jury_total - self.auto_total


@dataclass(frozen=True)
class ProblemComparison:
    problem: Problem
    correlation: Correlation


@dataclass(frozen=True)
class CriterionDifficulty:
    criterion: Criterion
    n: int  # AI papers with a settled value for the criterion
    met: int  # of which met it in full
    human: float | None  # share of human contestants meeting it (jury-graded, or imported)
    human_n: int | None = None  # human papers with a settled value; None: `human` is imported
    human_met: int | None = None

    @property
    def share(self) -> float | None:
        return self.met / self.n if self.n else None


@dataclass(frozen=True)
class AgreementRow:
    label: str
    cells: int  # cells with at least two submitted marks
    exact: int  # of which every mark was the same
    alpha: float | None = None

    @property
    def rate(self) -> float | None:
        return self.exact / self.cells if self.cells else None


@dataclass(frozen=True)
class JurorCalibration:
    name: str
    n: int
    mean_deviation: float  # mark as submitted − agreed value
    mean_absolute_deviation: float


@dataclass
class Analysis:
    problems: list[Problem]
    papers: list[PaperRow]
    compared: list[int]  # numbers of the problems in the totals
    totals: Correlation
    by_problem: list[ProblemComparison]
    cutoffs: list[tuple[str, float]]  # medal name, minimum as a percentage of the maximum total
    difficulty: list[CriterionDifficulty]
    difficulty_spearman: float | None
    difficulty_pairs: int
    agreement_by_problem: list[AgreementRow]
    agreement_by_kind: list[AgreementRow]
    calibration: list[JurorCalibration] | None = None
    identities: bool = False
    difficulty_p: float | None = None
    # Where the human shares come from: "jury" (human papers graded), "imported" or "".
    difficulty_basis: str = ""
    human_papers: int = 0  # human contestants' papers graded by the jury
    rank_humans: int = 0  # the human totals the equivalent rank is taken among
    rank_basis: str = ""  # "jury", "imported" or "" (no human total at all)

    @property
    def complete(self) -> bool:
        return len(self.compared) == len(self.problems)


def _percent(part: Decimal, whole: Decimal) -> float:
    return float(part) / float(whole) * 100 if whole else 0.0


def _auto_percent(scored: autoscore.PaperResult | None, tasks_of, numbers) -> float | None:
    """The competition's score over the tasks of the given problems, ×100."""
    if scored is None:
        return None
    scores = autoscore.aggregate(
        (task.exact_match, task.chrf, task.task.effective_weight)
        for task in scored.tasks
        if tasks_of.get(task.task.id) in numbers
    )
    return None if scores.score is None else scores.score * 100


def contest_analysis(
    data: AnalysisData, *, identities: bool = False, calibration: bool = False
) -> Analysis:
    """Everything the analysis page shows, from the selectors' data. `identities` names papers
    by system (callers check `access.may_see_identities`), else "Paper 1..n" by jury total;
    `calibration` adds each juror's deviation from the agreed values (the chair's alone)."""
    results = data.results
    problems = results.problems
    humans = [paper for paper in results.papers if paper.is_human]
    human_totals = sorted(paper.total for paper in humans)
    rank_basis = "jury" if humans else ("imported" if results.imported_human_totals else "")
    if not humans:
        human_totals = list(results.imported_human_totals)
    rows = []
    ai_papers = [paper for paper in results.papers if not paper.is_human]
    for index, paper in enumerate(ai_papers, start=1):
        scored = data.autoscores.get(paper.paper_id)
        figures = []
        for problem in problems:
            cells = paper.problem_cells(problem.pk)
            graded = bool(cells) and all(cell.status != CellStatus.PENDING for cell in cells)
            points = paper.problem_points.get(problem.number) if graded else None
            figures.append(
                ProblemFigures(
                    number=problem.number,
                    auto=_auto_percent(scored, data.task_problem, {problem.number}),
                    jury=None if points is None else _percent(points, problem.max_points),
                    jury_points=points,
                )
            )
        rows.append(
            PaperRow(
                paper_id=paper.paper_id,
                index=index,
                name=paper.identity if identities and paper.identity else f"Paper {index}",
                problems=figures,
                auto_total=None,
                jury_total=None,
                medal=paper.medal,
                provisional=paper.provisional,
                public_code=paper.public_code,
            )
        )
        if human_totals:
            rows[-1].rank, rows[-1].percentile = equivalent_rank(paper.total, human_totals)

    compared = [
        problem.number
        for position, problem in enumerate(problems)
        if rows and all(row.problems[position].jury is not None for row in rows)
    ]
    if compared:
        maximum = sum((p.max_points for p in problems if p.number in compared), Decimal("0"))
        for row in rows:
            points = sum(
                (f.jury_points for f in row.problems if f.number in compared), Decimal("0")
            )
            row.jury_total = _percent(points, maximum)
            row.auto_total = _auto_percent(
                data.autoscores.get(row.paper_id), data.task_problem, set(compared)
            )

    by_problem = [
        ProblemComparison(
            problem=problem,
            correlation=correlation(
                [row.problems[position].auto for row in rows],
                [row.problems[position].jury for row in rows],
            ),
        )
        for position, problem in enumerate(problems)
    ]
    difficulty, rho, p_value, pairs = _difficulty(data)
    by_problem_agreement, by_kind_agreement = _agreement(data)
    contest = results.contest
    return Analysis(
        problems=problems,
        papers=rows,
        compared=compared,
        totals=correlation([r.auto_total for r in rows], [r.jury_total for r in rows]),
        by_problem=by_problem,
        cutoffs=[
            (cutoff.name, _percent(cutoff.min_total, contest.max_total))
            for cutoff in results.cutoffs
        ],
        difficulty=difficulty,
        difficulty_spearman=rho,
        difficulty_pairs=pairs,
        difficulty_p=p_value,
        difficulty_basis="jury" if humans else ("imported" if data.human_rates else ""),
        human_papers=len(humans),
        rank_humans=len(human_totals),
        rank_basis=rank_basis,
        agreement_by_problem=by_problem_agreement,
        agreement_by_kind=by_kind_agreement,
        calibration=_calibration(data) if calibration else None,
        identities=identities,
    )


def _difficulty(
    data: AnalysisData,
) -> tuple[list[CriterionDifficulty], float | None, float | None, int]:
    """Per criterion, how many AI papers and how many human papers with a settled value met it
    in full (the settled value equals the criterion's points: open and pending cells have none
    yet). Without any human paper graded by the jury, the human share is the imported rate.
    Spearman ρ and its p-value between the two shares over the criteria that have both."""
    met: dict[tuple[bool, int], int] = defaultdict(int)
    seen: dict[tuple[bool, int], int] = defaultdict(int)
    jury_humans = False
    for paper in data.results.papers:
        jury_humans = jury_humans or paper.is_human
        for criterion_id, cell in paper.cells.items():
            if not cell.status.is_settled:
                continue
            key = (paper.is_human, criterion_id)
            seen[key] += 1
            met[key] += cell.points == cell.criterion.points
    rows = []
    for criterion in data.results.criteria:
        if jury_humans:
            human_n, human_met = seen[True, criterion.pk], met[True, criterion.pk]
            human = human_met / human_n if human_n else None
        else:
            human_n = human_met = None
            rate = data.human_rates.get(criterion.pk)
            human = None if rate is None else float(rate)
        rows.append(
            CriterionDifficulty(
                criterion=criterion,
                n=seen[False, criterion.pk],
                met=met[False, criterion.pk],
                human=human,
                human_n=human_n,
                human_met=human_met,
            )
        )
    both = [
        (row.share, row.human) for row in rows if row.share is not None and row.human is not None
    ]
    rho = p_value = None
    if len(both) >= MIN_PAIRS:
        import numpy as np
        from scipy import stats

        ai, human = (np.array(side, dtype=float) for side in zip(*both, strict=True))
        if _varies(ai) and _varies(human):
            result = stats.spearmanr(ai, human)
            rho, p_value = float(result.statistic), float(result.pvalue)
    return rows, rho, p_value, len(both)


def _agreement(data: AnalysisData) -> tuple[list[AgreementRow], list[AgreementRow]]:
    """Exact agreement and alpha per problem, exact agreement per criterion kind, over the
    cells with at least two marks as submitted; a last row for the whole contest."""
    criteria = {criterion.pk: criterion for criterion in data.results.criteria}
    units: dict[tuple[int, int], list[Decimal]] = defaultdict(list)
    for mark in data.marks:
        if mark.criterion_id in criteria:
            units[(mark.paper_id, mark.criterion_id)].append(mark.points)
    by_problem: dict[int, list[list[Decimal]]] = defaultdict(list)
    by_kind: dict[str, list[list[Decimal]]] = defaultdict(list)
    every = []
    for (_, criterion_id), values in units.items():
        if len(values) < 2:
            continue
        criterion = criteria[criterion_id]
        by_problem[criterion.problem_id].append(values)
        by_kind[criterion.kind].append(values)
        every.append(values)

    def row(label: str, cells: list[list[Decimal]], *, alpha: bool) -> AgreementRow:
        return AgreementRow(
            label=label,
            cells=len(cells),
            exact=sum(1 for values in cells if min(values) == max(values)),
            alpha=(
                krippendorff_alpha_interval([[float(v) for v in values] for values in cells])
                if alpha
                else None
            ),
        )

    problem_rows = [
        row(problem.code, by_problem[problem.pk], alpha=True) for problem in data.results.problems
    ]
    problem_rows.append(row("All problems", every, alpha=True))
    kind_rows = [row(label, by_kind[kind], alpha=False) for kind, label in Criterion.Kind.choices]
    return problem_rows, kind_rows


def _calibration(data: AnalysisData) -> list[JurorCalibration]:
    """Each juror's mean signed (and absolute) deviation of the marks as submitted from the
    agreed values, over the cells that are agreed (by the marks, consensus or the chair)."""
    cells = {
        (paper.paper_id, criterion_id): cell
        for paper in data.results.papers
        for criterion_id, cell in paper.cells.items()
        if cell.status.is_settled
    }
    deviations = [
        (mark.juror_id, float(mark.points - cells[(mark.paper_id, mark.criterion_id)].points))
        for mark in data.marks
        if (mark.paper_id, mark.criterion_id) in cells
    ]
    if not deviations:
        return []
    import pandas as pd

    frame = pd.DataFrame(deviations, columns=["juror", "deviation"])
    frame["absolute"] = frame["deviation"].abs()
    summary = frame.groupby("juror").agg(
        n=("deviation", "size"), mean=("deviation", "mean"), absolute=("absolute", "mean")
    )
    rows = [
        JurorCalibration(
            name=data.jurors.get(juror_id, f"Juror #{juror_id}"),
            n=int(values["n"]),
            mean_deviation=float(values["mean"]),
            mean_absolute_deviation=float(values["absolute"]),
        )
        for juror_id, values in summary.iterrows()
    ]
    return sorted(rows, key=lambda r: r.name)
