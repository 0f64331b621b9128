"""The automatic metrics of the IOL-AI competition, computed exactly as its scorer does, so that any
figure the chair or the organizers publish matches the official leaderboard.

- normalise: NFC; curly apostrophes made straight; strip; one pair of surrounding matching quotes
  removed; lowercase; whitespace collapsed; trailing periods removed.
- exact match per item: 1 if the normalised strings are equal and the reference is not empty.
- chrF per item (β = 2, character n-grams 1..6, spaces removed): precision and recall are averaged
  over the orders where they exist, *then* combined. sacrebleu's sentence chrF averages the
  per-order F-scores instead and gives other numbers (0.6364 instead of 0.4430 for "ab"/"abc"),
  so it must not be used here.
- alternatives: the best exact match and the best chrF, each on its own.
- per task: mean over items; aggregate: weighted by task weight (explanation-only tasks weigh 0);
  score = √(EM × chrF), 0–1, rounded to 4 decimals; overall and per split.

The first half is pure functions on plain data. `contest_autoscore` reads a contest in a fixed
number of queries and hands plain data to them.
"""

import dataclasses
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models.functions import Length, Substr

from grading.models import Paper, Solution
from grading.papers.answers import fit_to_items
from rubrics.models import Task

BETA = 2.0
MAX_ORDER = 6
DECIMALS = 4
SPLITS = ("public", "private")

_WHITESPACE = re.compile(r"\s+")
_QUOTES = ('"', "'")


# --- Pure metric functions -------------------------------------------------------------------


def normalise(text: str | None) -> str:
    """The competition's normalisation of an answer or a reference."""
    if text is None:
        return ""
    text = unicodedata.normalize("NFC", str(text))
    text = text.replace("\u2018", "'").replace("\u2019", "'")
    text = text.strip()
    if len(text) >= 2 and text[0] in _QUOTES and text[-1] == text[0]:
        text = text[1:-1].strip()
    text = text.lower()
    text = _WHITESPACE.sub(" ", text)
    text = text.rstrip(".")
    return text.strip()


def exact_match(prediction: str | None, reference: str | None) -> int:
    """1 if the normalised prediction equals the normalised, non-empty reference, else 0."""
    reference = normalise(reference)
    return int(bool(reference) and normalise(prediction) == reference)


def _ngrams(text: str, order: int) -> Counter:
    return Counter(text[i : i + order] for i in range(len(text) - order + 1))


def chrf(prediction: str | None, reference: str | None, *, beta: float = BETA) -> float:
    """Character n-gram F-score of one prediction against one reference, as the competition's
    scorer computes it (see the module docstring for how it differs from sacrebleu)."""
    hypothesis = normalise(prediction).replace(" ", "")
    target = normalise(reference).replace(" ", "")
    if not hypothesis and not target:
        return 1.0
    if not hypothesis or not target:
        return 0.0
    precisions, recalls = [], []
    for order in range(1, MAX_ORDER + 1):
        hyp_grams = _ngrams(hypothesis, order)
        ref_grams = _ngrams(target, order)
        hyp_total = sum(hyp_grams.values())
        ref_total = sum(ref_grams.values())
        matches = sum((hyp_grams & ref_grams).values())
        if hyp_total:
            precisions.append(matches / hyp_total)
        if ref_total:
            recalls.append(matches / ref_total)
    if not precisions or not recalls:
        return 0.0
    precision = sum(precisions) / len(precisions)
    recall = sum(recalls) / len(recalls)
    if precision == 0 and recall == 0:
        return 0.0
    beta2 = beta * beta
    return (1 + beta2) * precision * recall / (beta2 * precision + recall)


def _alternatives(reference) -> list[str]:
    # A single-answer item may be stored as a bare string rather than a one-element list.
    if reference is None:
        return [""]
    if isinstance(reference, str):
        return [reference]
    alternatives = ["" if item is None else str(item) for item in reference]
    return alternatives or [""]


def score_item(prediction: str | None, alternatives: Sequence[str] | str) -> tuple[int, float]:
    """Exact match and chrF of one item: the best of each over the accepted alternatives, each
    taken on its own (the best chrF may come from another alternative than the exact match)."""
    options = _alternatives(alternatives)
    return (
        max(exact_match(prediction, option) for option in options),
        max(chrf(prediction, option) for option in options),
    )


def score_task(predictions: Sequence[str], references: Sequence) -> tuple[float, float]:
    """Mean exact match and mean chrF over a task's items; the predictions are padded with empty
    answers or cut to the number of items first. A task without items scores 0."""
    if not references:
        return 0.0, 0.0
    fitted, _ = fit_to_items(["" if p is None else str(p) for p in predictions], len(references))
    items = [score_item(p, r) for p, r in zip(fitted, references, strict=True)]
    return (
        sum(em for em, _ in items) / len(items),
        sum(c for _, c in items) / len(items),
    )


@dataclass(frozen=True)
class Scores:
    """Exact match, chrF and score on the 0–1 scale, rounded to 4 decimals; None where no task
    with a positive weight exists (e.g. a contest without a private split)."""

    exact_match: float | None
    chrf: float | None
    score: float | None

    @property
    def display(self) -> dict:
        """The three figures ×100 with two decimals, or a dash, as pages show them."""
        return {
            name: "—" if value is None else f"{value:.2f}" for name, value in self.percent.items()
        }

    @property
    def percent(self) -> dict:
        """The three figures ×100 as shown on pages."""
        return {
            name: None if value is None else round(100 * value, 2)
            for name, value in (
                ("exact_match", self.exact_match),
                ("chrf", self.chrf),
                ("score", self.score),
            )
        }


def aggregate(tasks: Iterable[tuple[float, float, float | Decimal]]) -> Scores:
    """Weighted means of (exact match, chrF, weight) over tasks; score = √(EM × chrF); all three
    rounded to 4 decimals at the end (the score from the unrounded means)."""
    total = em_sum = chrf_sum = 0.0
    for em, chrf_value, weight in tasks:
        weight = float(weight)
        total += weight
        em_sum += weight * em
        chrf_sum += weight * chrf_value
    if total <= 0:
        return Scores(None, None, None)
    em_mean = em_sum / total
    chrf_mean = chrf_sum / total
    return Scores(
        round(em_mean, DECIMALS),
        round(chrf_mean, DECIMALS),
        round(math.sqrt(em_mean * chrf_mean), DECIMALS),
    )


# --- Plain data in, per-paper results out ------------------------------------------------------


EXPLANATION_TYPE = "explanation"


# How much of a solution's raw output the ranking reads to tell a blank one (no model writes a
# thousand spaces and nothing else; one that did would count as not blank).
RAW_START = 1000


@dataclass(frozen=True)
class TaskSpec:
    """What the metric needs of a task: its references (one list of alternatives per item)."""

    id: int
    external_id: str
    code: str
    split: str
    weight: Decimal
    references: list
    task_type: str = ""

    @property
    def effective_weight(self) -> Decimal:
        # Explanation-only tasks weigh nothing, whatever weight the problem set gave them.
        return Decimal("0") if self.task_type == EXPLANATION_TYPE else Decimal(self.weight)


@dataclass(frozen=True)
class SolutionSpec:
    answers: list
    explanation: str = ""
    parse_notes: list = field(default_factory=list)
    # Counted at import, before padding or cutting; None for rows that predate the counts.
    answers_given: int | None = None
    items_expected: int | None = None
    # The output it was read from was blank (whitespace only): the competition's "empty".
    raw_blank: bool = False


@dataclass(frozen=True)
class PaperSpec:
    id: int
    identity: str
    selected_for_jury: bool = False
    solutions: dict = field(default_factory=dict)  # task id → SolutionSpec


@dataclass(frozen=True)
class TaskResult:
    task: TaskSpec
    exact_match: float
    chrf: float
    items: int
    empty_items: int
    count_matches: bool | None  # None: the solution predates its stored counts
    empty: bool
    has_explanation: bool
    missing: bool


@dataclass(frozen=True)
class Diagnostics:
    """How well a paper kept to the expected format."""

    tasks: int
    items: int
    empty_items: int  # items whose normalised prediction is empty
    # Tasks with no solution or a blank output, as the competition's metrics count them: an
    # output of `[]` or `[""]` is not empty there (its items are, in `empty_items`).
    empty_tasks: int
    count_mismatches: int  # tasks whose answer count differed from the item count
    explained_tasks: int
    count_unknown: int = 0  # tasks whose solution predates its stored counts

    @property
    def line_format_match_rate(self) -> float | None:
        """The competition's format figure: the share of tasks whose answer had exactly as many
        items as the task, over the tasks whose counts are known."""
        known = self.tasks - self.count_unknown
        if not known:
            return None
        return round((known - self.count_mismatches) / known, DECIMALS)

    @property
    def explanation_rate(self) -> float | None:
        if not self.tasks:
            return None
        return round(self.explained_tasks / self.tasks, DECIMALS)

    @property
    def explanation_percent(self) -> float | None:
        rate = self.explanation_rate
        return None if rate is None else round(100 * rate, 1)

    @property
    def format_percent(self) -> float | None:
        rate = self.line_format_match_rate
        return None if rate is None else round(100 * rate, 1)


@dataclass(frozen=True)
class PaperResult:
    paper_id: int
    identity: str
    selected_for_jury: bool
    overall: Scores
    public: Scores
    # The private split alone: the competition's `private_split_*`, not its `private_score`
    # (the final score over both splits, `overall` here).
    private: Scores
    tasks: list[TaskResult]
    diagnostics: Diagnostics
    rank: int = 0

    def split(self, name: str) -> Scores:
        return {"public": self.public, "private": self.private}[name]


def _count_matches(solution: SolutionSpec | None, task: TaskSpec) -> bool | None:
    # The stored answers are already fitted to the item count, so only the counts taken at
    # import tell whether the output had as many answers as items. No solution is no answer.
    if solution is None:
        return not task.references
    if solution.answers_given is None or solution.items_expected is None:
        return None
    return solution.answers_given == solution.items_expected


def _empty(solution: SolutionSpec | None, fitted: list[str]) -> bool:
    """The competition's `format.empty`: no output, or a blank one. A row stored without its
    output (made by hand) counts when none of its answers says anything either."""
    if solution is None:
        return True
    return solution.raw_blank and not any(normalise(answer) for answer in fitted)


def score_paper(tasks: Sequence[TaskSpec], paper: PaperSpec) -> PaperResult:
    """One paper's per-task results, aggregates overall and per split, and diagnostics."""
    results = []
    for task in tasks:
        solution = paper.solutions.get(task.id)
        answers = list(solution.answers) if solution else []
        em, chrf_value = score_task(answers, task.references)
        fitted, _ = fit_to_items(
            [str(a) if a is not None else "" for a in answers], len(task.references)
        )
        results.append(
            TaskResult(
                task=task,
                exact_match=em,
                chrf=chrf_value,
                items=len(task.references),
                empty_items=sum(1 for answer in fitted if not normalise(answer)),
                count_matches=_count_matches(solution, task),
                empty=_empty(solution, fitted),
                has_explanation=bool(solution and solution.explanation.strip()),
                missing=solution is None,
            )
        )

    def weighted(selected):
        return aggregate((r.exact_match, r.chrf, r.task.effective_weight) for r in selected)

    diagnostics = Diagnostics(
        tasks=len(results),
        items=sum(r.items for r in results),
        empty_items=sum(r.empty_items for r in results),
        empty_tasks=sum(1 for r in results if r.empty),
        count_mismatches=sum(1 for r in results if r.count_matches is False),
        count_unknown=sum(1 for r in results if r.count_matches is None),
        explained_tasks=sum(1 for r in results if r.has_explanation),
    )
    return PaperResult(
        paper_id=paper.id,
        identity=paper.identity,
        selected_for_jury=paper.selected_for_jury,
        overall=weighted(results),
        public=weighted(r for r in results if r.task.split == "public"),
        private=weighted(r for r in results if r.task.split == "private"),
        tasks=results,
        diagnostics=diagnostics,
    )


def _sort_key(result: PaperResult):
    def value(x):
        return -1.0 if x is None else x

    return (
        -value(result.overall.score),
        -value(result.overall.chrf),
        -value(result.overall.exact_match),
        result.paper_id,
    )


def rank_papers(
    tasks: Sequence[TaskSpec],
    papers: Iterable[PaperSpec],
    *,
    progress: Callable[[Iterable], Iterable] | None = None,
) -> list[PaperResult]:
    """Every paper scored and ranked by score (then chrF, exact match, and paper id so that the
    order is stable); equal scores share a rank."""
    papers = progress(papers) if progress else papers
    results = sorted((score_paper(tasks, paper) for paper in papers), key=_sort_key)
    ranked, previous, rank = [], None, 0
    for position, result in enumerate(results, start=1):
        key = (result.overall.score, result.overall.chrf, result.overall.exact_match)
        if key != previous:
            rank, previous = position, key
        ranked.append(dataclasses.replace(result, rank=rank))
    return ranked


# --- Reading a contest -----------------------------------------------------------------------


def contest_task_specs(contest) -> list[TaskSpec]:
    """The contest's tasks as plain data, in problem and task order (one query)."""
    return [
        TaskSpec(
            id=task.pk,
            external_id=task.external_id,
            code=f"P{task.problem.number}.{task.number}",
            split=task.split,
            weight=task.weight,
            references=list(task.answers or []),
            task_type=task.task_type,
        )
        for task in Task.objects.filter(problem__contest=contest)
        .select_related("problem")
        .order_by("problem__number", "number")
    ]


def contest_autoscore(
    *, contest, progress: Callable[[Iterable], Iterable] | None = None
) -> list[PaperResult]:
    """The automatic ranking of a contest's AI papers: three queries (tasks, papers, solutions)
    whatever the number of papers. A human contestant's paper is left out: its answers are on
    scanned pages, not in solutions the metrics could read. Results carry identities: for
    organizers only."""
    tasks = contest_task_specs(contest)
    papers = list(
        Paper.objects.filter(contest=contest, source=Paper.Source.AI)
        .order_by("id")
        .values_list("id", "identity", "selected_for_jury")
    )
    solutions: dict[int, dict[int, SolutionSpec]] = {paper_id: {} for paper_id, _, _ in papers}
    # The raw text may be long: only its start and length leave the database, enough to tell
    # a blank output (whitespace only) from one that says something.
    rows = (
        Solution.objects.filter(paper__contest=contest, paper__source=Paper.Source.AI)
        .annotate(raw_start=Substr("raw", 1, RAW_START), raw_length=Length("raw"))
        .values_list(
            "paper_id",
            "task_id",
            "answers",
            "explanation",
            "parse_notes",
            "answers_given",
            "items_expected",
            "raw_start",
            "raw_length",
        )
    )
    for paper_id, task_id, answers, explanation, notes, given, expected, start, length in rows:
        if paper_id in solutions:
            solutions[paper_id][task_id] = SolutionSpec(
                answers=list(answers or []),
                explanation=explanation or "",
                parse_notes=list(notes or []),
                answers_given=given,
                items_expected=expected,
                raw_blank=(length or 0) <= RAW_START and not (start or "").strip(),
            )
    specs = [
        PaperSpec(
            id=paper_id,
            identity=identity,
            selected_for_jury=selected,
            solutions=solutions[paper_id],
        )
        for paper_id, identity, selected in papers
    ]
    return rank_papers(tasks, specs, progress=progress)
