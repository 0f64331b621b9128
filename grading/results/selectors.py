"""Reads for the results page's on-demand parts: one paper's cells, which the page does not
render for every paper (at 255 papers × 77 criteria the hidden lists were three quarters of the
page's time), but loads when its row is opened; and the totals the medal cut-offs are proposed
from (`cutoff_totals`).

How a cell settles is `grading.rules.domain.cell_outcome`'s, reached through
`grading.resolution.cells.settle_cell`, as `contest_results` does."""

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count
from django.http import Http404

from grading.models import Assignment, Paper, PaperLabel, Resolution
from grading.resolution.cells import Cell, settle_cell, submitted_marks
from grading.resolution.contest_grading import contest_results
from rubrics.models import Contest, Criterion


def paper_cells(contest: Contest, *, public_code: str) -> tuple[Paper, list[Cell]]:
    """The paper with this public code and its cell for each criterion of the contest, as
    `contest_results` counts them, in its order (problem, criterion); 404 for a code that
    names no assigned paper of the contest. Six queries whatever the paper's size."""
    paper = Paper.objects.filter(contest=contest, public_code=public_code).first()
    expected = dict(
        Assignment.objects.filter(paper=paper, problem__contest=contest)
        .values("problem_id")
        .annotate(n=Count("id"))
        .values_list("problem_id", "n")
        .order_by()
    )
    blank = set(
        PaperLabel.objects.filter(paper=paper, blank=True).values_list("problem_id", flat=True)
    )
    # A contestant who left every problem blank has no assignment, and a row of results still.
    if paper is None or not (expected or blank):
        raise Http404("No paper has this code in this contest.")
    marks = defaultdict(list)
    for criterion_id, points in (
        submitted_marks(contest).filter(paper=paper).values_list("criterion_id", "points")
    ):
        marks[criterion_id].append(points)
    resolutions = {
        criterion_id: (kind, points, reason)
        for criterion_id, kind, points, reason in Resolution.objects.filter(
            paper=paper, criterion__problem__contest=contest
        ).values_list("criterion_id", "kind", "points", "reason")
    }
    criteria = (
        Criterion.objects.filter(problem__contest=contest)
        .select_related("problem")
        .order_by("problem__number", "order", "code")
    )
    cells = [
        settle_cell(
            paper_id=paper.pk,
            criterion=criterion,
            marks=marks.get(criterion.pk, []),
            expected=expected.get(criterion.problem_id, 0),
            resolution=resolutions.get(criterion.pk),
            no_answer=criterion.problem_id in blank,
        )
        for criterion in criteria
    ]
    return paper, cells


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
