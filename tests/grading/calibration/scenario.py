"""A calibration round of problem 1 of the shared `contest` fixture (alice and bob grade it):
two papers, with `kept=1` the third kept out of the round for seeding (K3), a reference for
every criterion, opened to the jurors."""

from decimal import Decimal

from grading.calibration import rounds
from grading.calibration.selectors import sheets_missing
from grading.models import (
    CalibrationMark,
    CalibrationMarkEvent,
    CalibrationPaper,
    CalibrationRound,
    CalibrationSheet,
    PaperLabel,
    ReferenceMark,
)

REFERENCE = {
    ("K1", "A1"): "10",
    ("K1", "T1"): "6",
    ("K2", "A1"): "4.5",
    ("K2", "T1"): "8",
    ("K3", "A1"): "7",
    ("K3", "T1"): "2.5",
}


def problem_labels(problem) -> list[str]:
    return list(
        PaperLabel.objects.filter(problem=problem).order_by("label").values_list("label", flat=True)
    )


def make_round(
    problem, chair, *, opened: bool = True, seeded: bool = False, kept: int = 0
) -> CalibrationRound:
    labels = problem_labels(problem)
    round_ = rounds.round_create(
        problem=problem, labels=labels[:2], kept=labels[2 : 2 + kept], seeded=seeded, actor=chair
    )
    entries = []
    for paper in round_.papers.order_by("position"):
        for criterion in problem.criteria.all():
            points = REFERENCE[(paper.label, criterion.code)]
            entries.append(
                (paper, criterion, Decimal(points), f"why {paper.label} {criterion.code}")
            )
    rounds.references_set(round_=round_, entries=entries, actor=chair)
    if opened:
        rounds.round_open_to_jurors(round_=round_, actor=chair)
    round_.refresh_from_db()
    return round_


def close_round(round_, chair) -> CalibrationRound:
    """Close the round as the chair does who saw the jurors without a submitted calibration
    sheet listed and ticked that it closes without them."""
    return rounds.round_close(round_=round_, actor=chair, without=sheets_missing(round_))


def juror_marks(round_, juror):
    return {
        (mark.calibration_paper.label, mark.criterion.code): mark
        for mark in CalibrationMark.objects.filter(
            sheet__round=round_, sheet__juror=juror
        ).select_related("calibration_paper", "criterion", "sheet")
    }


def calibration_rows(problem, *, chair, juror) -> CalibrationRound:
    """A closed round of `problem` written as rows, for a contest past grading (where the
    services refuse a new round): one paper with a reference, one juror's sheet with one mark
    and its event."""
    round_ = CalibrationRound.objects.create(
        problem=problem, state=CalibrationRound.State.CLOSED, created_by=chair
    )
    link = PaperLabel.objects.filter(problem=problem).order_by("label").first()
    paper = CalibrationPaper.objects.create(round=round_, paper_id=link.paper_id, label="K1")
    criterion = problem.criteria.order_by("code").first()
    ReferenceMark.objects.create(calibration_paper=paper, criterion=criterion, points=Decimal("1"))
    sheet = CalibrationSheet.objects.create(round=round_, juror=juror)
    mark = CalibrationMark.objects.create(
        sheet=sheet, calibration_paper=paper, criterion=criterion, points=Decimal("1"), version=1
    )
    CalibrationMarkEvent.objects.create(mark=mark, actor=juror, new_points=Decimal("1"), version=1)
    return round_
