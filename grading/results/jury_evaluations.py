"""The jury's own marks, as researchers publish them: one row per juror, paper and criterion,
with the mark as the juror submitted it (before any discussion), the mark after revision, the
cell's agreed value and how the cell was settled, for `jury_evaluation_files` to write.

Reads only: the marks that count (`grading.resolution.cells.submitted_marks`; calibration
marks are another model and never among them), each one's value at submission as the analysis
reads it (`analysis_selectors.submitted_marks_before_resolution`, so that agreement figures
recomputed from the export are the analysis page's), and the cells as the results settle them
(`contest_results`). A fixed number of queries whatever the number of papers."""

from dataclasses import dataclass
from decimal import Decimal

from grading.resolution.cells import submitted_marks
from grading.resolution.contest_grading import contest_results
from grading.results.analysis_selectors import submitted_marks_before_resolution
from grading.rules.domain import CellStatus, Outcome
from rubrics.models import Contest

# How a cell was settled: the cell's status (`CellStatus`), with "agreed" split in two, because
# whether the jurors gave the same points or only points within the criterion's tolerance (the
# agreed value then their mean rounded down to the step) is what inter-rater figures ask.
WITHIN_TOLERANCE = "within_tolerance"
SETTLED_VALUES = (
    CellStatus.AGREED.value,
    WITHIN_TOLERANCE,
    *(status.value for status in CellStatus if status != CellStatus.AGREED),
)


def settled_how(outcome: Outcome) -> str:
    """The cell's status as a code (`CellStatus` values), "agreed" split into "agreed" (every
    mark the same) and "within_tolerance" (marks that differ within the tolerance)."""
    if outcome.status == CellStatus.AGREED and outcome.lo != outcome.hi:
        return WITHIN_TOLERANCE
    return outcome.status.value


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One juror's mark for one paper and criterion, beside its cell's outcome."""

    paper: str  # the paper's public code
    identity: str | None  # None unless the read was made with identities
    kind: str
    problem: int
    label: str
    criterion: str
    criterion_kind: str
    max_points: Decimal
    juror: str
    submitted_points: Decimal | None
    revised_points: Decimal
    agreed_points: Decimal | None
    settled: str
    reason: str
    scheme_version: int


@dataclass(frozen=True)
class JuryEvaluations:
    contest: Contest
    identities: bool
    rows: list[Evaluation]


def jury_evaluations(contest: Contest, *, identities: bool) -> JuryEvaluations:
    """Every mark that counts in the contest, ordered by paper code, problem, criterion (as the
    scheme orders them) and juror. `identities` is the caller's to decide
    (`access.may_export_identities`); without it no row names a system."""
    results = contest_results(contest, identities=identities)
    papers = {paper.paper_id: paper for paper in results.papers}
    criteria = {
        criterion.pk: (order, criterion) for order, criterion in enumerate(results.criteria)
    }
    number_of = {problem.pk: problem.number for problem in results.problems}
    as_submitted = {
        (mark.paper_id, mark.criterion_id, mark.juror_id): mark.points
        for mark in submitted_marks_before_resolution(contest)
    }
    keyed = []
    for paper_id, criterion_id, juror_id, username, points, version in (
        submitted_marks(contest)
        .order_by()
        .values_list(
            "paper_id",
            "criterion_id",
            "sheet__juror_id",
            "sheet__juror__username",
            "points",
            "scheme_version",
        )
    ):
        paper = papers.get(paper_id)
        if paper is None or criterion_id not in criteria:
            continue
        order, criterion = criteria[criterion_id]
        cell = paper.cells[criterion_id]
        number = number_of[criterion.problem_id]
        row = Evaluation(
            paper=paper.public_code,
            identity=paper.identity if identities else None,
            kind=paper.kind,
            problem=number,
            label=paper.labels.get(number, ""),
            criterion=criterion.code,
            criterion_kind=criterion.kind,
            max_points=criterion.points,
            juror=username,
            submitted_points=as_submitted.get((paper_id, criterion_id, juror_id)),
            revised_points=points,
            # As the long results export: an open cell has no agreed value; a pending one
            # counts what is in so far.
            agreed_points=cell.points if cell.outcome.has_value else None,
            settled=settled_how(cell.outcome),
            reason=cell.reason,
            scheme_version=version,
        )
        keyed.append(((paper.public_code, order, username), row))
    keyed.sort(key=lambda pair: pair[0])
    return JuryEvaluations(contest=contest, identities=identities, rows=[row for _, row in keyed])
