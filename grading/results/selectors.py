"""Reads for the results page's on-demand parts: one paper's cells, which the page does not
render for every paper (at 255 papers × 77 criteria the hidden lists were three quarters of the
page's time), but loads when its row is opened; and the provisional results as published, with
what the appeals changed, beside the results now.

How a cell settles is `grading.rules.domain.cell_outcome`'s, reached through
`grading.resolution.cells.settle_cell`, as `contest_results` does."""

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, F
from django.http import Http404

from grading.models import (
    Appeal,
    AppealCriterion,
    Assignment,
    Paper,
    PaperLabel,
    ProvisionalResult,
    Resolution,
)
from grading.resolution.cells import Cell, settle_cell, submitted_marks
from grading.rules.domain import points_text
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
