"""The chair's queue: the cells of the contest in a status (open, by default), the most
consequential first. Its order needs every paper's provisional total (the distance to the
nearest medal cut-off), so it starts from `contest_results`."""

from dataclasses import dataclass
from decimal import Decimal

from grading.resolution.cells import Cell, comment_counts
from grading.resolution.contest_grading import ContestResults, PaperResult, contest_results
from grading.rules.domain import CellStatus
from rubrics.models import Contest, Problem


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
    comments = comment_counts(criterion__problem__contest=contest)
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
