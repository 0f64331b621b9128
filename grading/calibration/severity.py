"""A juror's own calibration: how far their marks sit from the agreed points, per criterion
(severity: + generous, − severe), how often they are within the criterion's tolerance of them
(agreement), how far their marks in the calibration round sat from the chair's reference, and,
on a seeded problem, how far their seed marks sit from it.

The figures are plain functions over plain values (`criterion_figures`, tested by hand); the
reads (`problem_calibration`) gather a problem's submitted marks, its cells' agreed points as
the results count them (`grading.results.selectors.papers_cells`), its calibration round's
submitted marks and its seed marks in a fixed number of queries, whatever the number of
papers. Who may see whose figures is `access.may_read_calibration`'s: a juror their own, once
their sheet is submitted; the chair everyone's."""

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from grading.models import (
    Assignment,
    CalibrationMark,
    CalibrationSheet,
    ReferenceMark,
    Sheet,
)
from grading.resolution.cells import submitted_marks
from grading.results.selectors import papers_cells
from grading.rules.domain import ZERO, cent
from rubrics.models import Criterion, Problem


def mean_or_none(values: list[Decimal]) -> Decimal | None:
    """The mean to the cent (half up), None for no value: no figure rather than a 0."""
    return cent(sum(values, ZERO) / len(values)) if values else None


@dataclass(frozen=True)
class CriterionFigures:
    """One juror's figures on one criterion."""

    criterion: Criterion
    compared: int  # their marks on cells agreed so far
    within: int  # of those, within the criterion's tolerance of the agreed points
    not_agreed: int  # their marks on cells not agreed yet, left out
    severity: Decimal | None  # mean of (their points − agreed points)
    seeds: int = 0  # their graded seed marks
    seed_deviation: Decimal | None = None  # mean of (their points − reference)
    calibration_marks: int = 0  # their marks in the calibration round, once submitted
    round_deviation: Decimal | None = None  # mean of (their points − reference) there

    @property
    def agreement(self) -> Decimal | None:
        """The share of their compared marks within tolerance, as a percentage to 0.1."""
        if not self.compared:
            return None
        return (Decimal(100) * self.within / self.compared).quantize(
            Decimal("0.1"), rounding=ROUND_HALF_UP
        )


def criterion_figures(
    criterion: Criterion,
    pairs: list[tuple[Decimal, Decimal | None]],
    seed_pairs: list[tuple[Decimal, Decimal]] = (),
    round_pairs: list[tuple[Decimal, Decimal]] = (),
) -> CriterionFigures:
    """The figures from (their points, agreed points or None while not agreed) of their marks,
    (their points, reference) of their graded seed marks and (their points, reference) of
    their marks in the calibration round."""
    agreed = [(own, value) for own, value in pairs if value is not None]
    return CriterionFigures(
        criterion=criterion,
        compared=len(agreed),
        within=sum(1 for own, value in agreed if abs(own - value) <= criterion.tolerance),
        not_agreed=len(pairs) - len(agreed),
        severity=mean_or_none([own - value for own, value in agreed]),
        seeds=len(seed_pairs),
        seed_deviation=mean_or_none([own - reference for own, reference in seed_pairs]),
        calibration_marks=len(round_pairs),
        round_deviation=mean_or_none([own - reference for own, reference in round_pairs]),
    )


@dataclass
class JurorCalibration:
    """One juror's figures on a problem, one per criterion in the scheme's order."""

    juror_id: int
    username: str
    criteria: list[CriterionFigures] = field(default_factory=list)

    @property
    def not_agreed(self) -> int:
        return sum(figures.not_agreed for figures in self.criteria)

    @property
    def seeded(self) -> bool:
        return any(figures.seeds for figures in self.criteria)

    @property
    def calibrated(self) -> bool:
        """Whether they submitted a calibration sheet in the problem's round."""
        return any(figures.calibration_marks for figures in self.criteria)


def problem_calibration(problem: Problem, *, juror=None) -> list[JurorCalibration]:
    """The figures of each juror of the problem whose sheet is submitted (or of `juror` only,
    if theirs is), by username. Thirteen queries whatever the number of papers and jurors (two
    of them `counted_marks`' countries)."""
    criteria = list(Criterion.objects.for_problem(problem))
    sheets = Sheet.objects.submitted().filter(problem=problem)
    if juror is not None:
        sheets = sheets.filter(juror=juror)
    jurors = dict(sheets.values_list("juror_id", "juror__username"))
    if not jurors:
        return []
    # The problem's marks that count (only this problem's, whatever the contest's size), read
    # once: every juror's marks settle the cells, and the shown jurors' are compared with them.
    marks = list(
        submitted_marks(problem.contest)
        .filter(sheet__problem=problem)
        .values_list("sheet__juror_id", "paper_id", "criterion_id", "points")
    )
    assigned = Assignment.objects.filter(problem=problem).values_list("paper_id", flat=True)
    cells = papers_cells(
        problem.contest,
        paper_ids=set(assigned),
        criteria=Criterion.objects.filter(problem=problem),
        marks_read=[mark[1:] for mark in marks],
    )
    agreed = {
        (cell.paper_id, cell.criterion.pk): cell.points
        for paper_cells in cells.values()
        for cell in paper_cells
        if cell.status.is_settled
    }
    pairs = defaultdict(list)
    for juror_id, paper_id, criterion_id, points in marks:
        if juror_id in jurors:
            pairs[juror_id, criterion_id].append((points, agreed.get((paper_id, criterion_id))))
    references = _references(problem)
    seed_pairs = defaultdict(list)
    for juror_id, criterion_id, points, reference, *_ in seed_marks(
        problem, juror_ids=jurors, references=references
    ):
        seed_pairs[juror_id, criterion_id].append((points, reference))
    round_pairs = defaultdict(list)
    for juror_id, criterion_id, points, reference in _round_marks(
        problem, juror_ids=jurors, references=references
    ):
        round_pairs[juror_id, criterion_id].append((points, reference))
    return [
        JurorCalibration(
            juror_id=juror_id,
            username=username,
            criteria=[
                criterion_figures(
                    criterion,
                    pairs[juror_id, criterion.pk],
                    seed_pairs[juror_id, criterion.pk],
                    round_pairs[juror_id, criterion.pk],
                )
                for criterion in criteria
            ],
        )
        for juror_id, username in sorted(jurors.items(), key=lambda item: item[1])
    ]


def _references(problem: Problem) -> dict[tuple[int, int], Decimal]:
    """The reference points of the problem's calibration papers, by (paper, criterion)."""
    return {
        (paper_id, criterion_id): points
        for paper_id, criterion_id, points in ReferenceMark.objects.filter(
            calibration_paper__round__problem=problem, points__isnull=False
        ).values_list("calibration_paper_id", "criterion_id", "points")
    }


def _round_marks(problem: Problem, *, juror_ids, references) -> list[tuple]:
    """The jurors' marks on their submitted calibration sheet of the problem's round that have
    a reference: (juror id, criterion id, points, reference). A mark an amendment reopened is
    left out until its juror re-confirms it, as the calibration sheet compares it with
    nothing. One query."""
    marks = CalibrationMark.objects.filter(
        sheet__round__problem=problem,
        sheet__state=CalibrationSheet.State.SUBMITTED,
        sheet__juror_id__in=list(juror_ids),
        points__isnull=False,
        reopened_by__isnull=True,
    ).values_list("sheet__juror_id", "calibration_paper_id", "criterion_id", "points")
    return [
        (juror_id, criterion_id, points, references[paper_id, criterion_id])
        for juror_id, paper_id, criterion_id, points in marks
        if (paper_id, criterion_id) in references
    ]


def seed_marks(problem: Problem, *, juror_ids=None, references=None) -> list[tuple]:
    """The problem's graded seed marks that have a reference: (juror id, criterion id, points,
    reference, last changed, calibration paper label), oldest change first. Two queries, one
    given the `references` (`_references`)."""
    if references is None:
        references = _references(problem)
    marks = CalibrationMark.objects.filter(
        seed__calibration_paper__round__problem=problem, points__isnull=False
    )
    if juror_ids is not None:
        marks = marks.filter(seed__juror_id__in=list(juror_ids))
    rows = []
    for juror_id, paper_id, criterion_id, points, when, label in marks.order_by(
        "updated_at", "id"
    ).values_list(
        "seed__juror_id",
        "calibration_paper_id",
        "criterion_id",
        "points",
        "updated_at",
        "calibration_paper__label",
    ):
        reference = references.get((paper_id, criterion_id))
        if reference is not None:
            rows.append((juror_id, criterion_id, points, reference, when, label))
    return rows
