"""Reads for the results page's on-demand parts: one paper's cells, which the page does not
render for every paper (at 255 papers × 77 criteria the hidden lists were three quarters of the
page's time), but loads when its row is opened; the totals the medal cut-offs are proposed from
(`cutoff_totals`); the provisional results as published, with what the appeals changed,
beside the results now; and each AI paper's automatic score, for the wide export.

How a cell settles is `grading.rules.domain.cell_outcome`'s, reached through
`grading.resolution.cells.settle_point_cells` (every cell in one pass), as `contest_results`
settles its own."""

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, F
from django.http import Http404

from grading.metrics.autoscore import DECIMALS, contest_autoscore
from grading.models import (
    Appeal,
    AppealCriterion,
    Assignment,
    Paper,
    PaperLabel,
    ProvisionalResult,
    Resolution,
)
from grading.resolution.cells import Cell, settle_point_cells, submitted_marks
from grading.resolution.contest_grading import contest_results
from grading.rules.domain import points_text
from rubrics.models import Contest, Criterion


def paper_cells(contest: Contest, *, public_code: str) -> tuple[Paper, list[Cell]]:
    """The paper with this public code and its cell for each criterion of the contest, as
    `contest_results` counts them, in its order (problem, criterion); 404 for a code that
    names no assigned paper of the contest. Six queries whatever the paper's size."""
    paper = Paper.objects.filter(contest=contest, public_code=public_code).first()
    cells = papers_cells(contest, paper_ids=[paper.pk] if paper is not None else [])
    # A contestant who left every problem blank has no assignment, and a row of results still.
    if paper is None or paper.pk not in cells:
        raise Http404("No paper has this code in this contest.")
    return paper, cells[paper.pk]


def papers_cells(
    contest: Contest, *, paper_ids, criteria=None, marks_read=None
) -> dict[int, list[Cell]]:
    """For each of `paper_ids` assigned in the contest (or left blank in some problem), its cell
    for each criterion of the contest (or of `criteria`, a queryset of its criteria), as
    `contest_results` counts them, in its order (problem, criterion); the other papers are left
    out. Five queries whatever the number of papers; one fewer given `marks_read`, the
    (paper id, criterion id, points) of every mark that counts for those cells, not blank, as
    the caller has already read them (`submitted_marks`)."""
    paper_ids = list(paper_ids)
    expected = defaultdict(dict)
    for paper_id, problem_id, n in (
        Assignment.objects.filter(paper_id__in=paper_ids, problem__contest=contest)
        .values("paper_id", "problem_id")
        .annotate(n=Count("id"))
        .values_list("paper_id", "problem_id", "n")
        .order_by()
    ):
        expected[paper_id][problem_id] = n
    blank = defaultdict(set)
    for paper_id, problem_id in PaperLabel.objects.filter(
        paper_id__in=paper_ids, blank=True
    ).values_list("paper_id", "problem_id"):
        blank[paper_id].add(problem_id)
    shown = [paper_id for paper_id in paper_ids if expected[paper_id] or blank[paper_id]]
    if not shown:
        return {}
    given = criteria is not None
    if not given:
        criteria = Criterion.objects.filter(problem__contest=contest)
    criteria = list(criteria.select_related("problem").order_by("problem__number", "order", "code"))
    # Given criteria (one problem's, for a juror's calibration or an appeal), only their marks
    # and resolutions are read, not every problem's marks of the papers.
    only = {"criterion_id__in": [criterion.pk for criterion in criteria]} if given else {}
    if marks_read is None:
        marks_read = (
            submitted_marks(contest)
            .filter(paper_id__in=shown, **only)
            .values_list("paper_id", "criterion_id", "points")
        )
    marks = defaultdict(list)
    for paper_id, criterion_id, points in marks_read:
        marks[paper_id, criterion_id].append(points)
    resolutions = {
        (paper_id, criterion_id): (kind, points, reason)
        for paper_id, criterion_id, kind, points, reason in Resolution.objects.filter(
            paper_id__in=shown, criterion__problem__contest=contest, **only
        ).values_list("paper_id", "criterion_id", "kind", "points", "reason")
    }
    # Every cell settled in one pass, then dealt out to its paper in the criteria's order.
    settled = iter(
        settle_point_cells(
            (
                paper_id,
                criterion,
                marks.get((paper_id, criterion.pk), ()),
                expected[paper_id].get(criterion.problem_id, 0),
                resolutions.get((paper_id, criterion.pk)),
                criterion.problem_id in blank[paper_id],
            )
            for paper_id in shown
            for criterion in criteria
        )
    )
    return {paper_id: [next(settled) for _ in criteria] for paper_id in shown}


@dataclass(frozen=True)
class CutoffTotals:
    """The totals a cut-off proposal reads: the human contestants' (the jury's totals of human
    papers and the imported totals of contestants the jury does not grade, as the equivalent
    rank counts them), which the shares are of, and the AI papers', placed against the
    cut-offs but not counted in the shares."""

    humans: list[Decimal]
    ai: list[Decimal]


def cutoff_totals(contest: Contest) -> CutoffTotals:
    """The contest's human and AI totals, best first; `contest_results`'s nine queries."""
    results = contest_results(contest)
    humans = results.imported_human_totals + [p.total for p in results.papers if p.is_human]
    ai = [p.total for p in results.papers if not p.is_human]
    return CutoffTotals(humans=sorted(humans, reverse=True), ai=sorted(ai, reverse=True))


@dataclass(frozen=True)
class ProvisionalLine:
    """A paper's provisional results as published, beside its results now: what the appeals
    changed (each as "P1 A1 10 → 12, upheld"), for the results page and the exports."""

    total: Decimal
    rank: int | None
    medal: str
    changes: tuple[str, ...] = ()

    def differs(self, paper) -> bool:
        return (self.total, self.medal, self.rank) != (paper.total, paper.medal, paper.rank)


def provisional_lines(contest: Contest) -> dict[int, ProvisionalLine]:
    """Each paper's published provisional total, rank and medal, with the appeals' changes to
    its points, by paper id; empty (and no query) for a contest whose results were never
    published provisionally. Two queries."""
    if contest.appeals_deadline is None:
        return {}
    changes = defaultdict(list)
    for row in (
        AppealCriterion.objects.filter(
            appeal__paper__contest=contest,
            appeal__state=Appeal.State.DECIDED,
        )
        .exclude(points_after=F("points_before"))
        .select_related("appeal", "criterion__problem")
        .order_by("appeal__decided_at", "appeal_id", "criterion__order")
    ):
        changes[row.appeal.paper_id].append(
            f"{row.criterion.problem.code} {row.criterion.code} "
            f"{points_text(row.points_before)} → {points_text(row.points_after)}, "
            f"{row.appeal.get_outcome_display().lower()}"
        )
    return {
        paper_id: ProvisionalLine(
            total=total, rank=rank, medal=medal, changes=tuple(changes.get(paper_id, ()))
        )
        for paper_id, total, rank, medal in ProvisionalResult.objects.filter(
            paper__contest=contest
        ).values_list("paper_id", "total", "rank", "medal")
    }


def automatic_scores(contest: Contest) -> dict[int, Decimal]:
    """Each AI paper's automatic score over every task (the competition's final `score`, 0–1,
    4 decimals), by paper id; a paper without a scored task has none. The automatic scorer's
    three queries, whatever the number of papers."""
    return {
        result.paper_id: Decimal(f"{result.overall.score:.{DECIMALS}f}")
        for result in contest_autoscore(contest=contest)
        if result.overall.score is not None
    }
