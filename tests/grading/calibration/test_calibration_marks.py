"""A juror's calibration marks: validated, versioned (a stale writer is refused), each change
recorded; never after the sheet is submitted, the round closed or the contest final."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from grading.calibration.calibration_marks import calibration_mark_set, calibration_sheet_submit
from grading.models import CalibrationMark, CalibrationMarkEvent, CalibrationSheet, Mark, MarkEvent
from grading.rules.refusals import ContestFinal, NotAllowed, SheetLocked, Stale
from tests.grading.calibration.scenario import close_round, juror_marks, make_round


@pytest.fixture
def round_(contest, chair):
    return make_round(contest.problems.get(number=1), chair)


def _fill(round_, juror, value="2"):
    for mark in juror_marks(round_, juror).values():
        calibration_mark_set(mark=mark, points=Decimal(value), actor=juror)


def test_a_calibration_mark_is_recorded_and_versioned_and_never_a_mark(round_, juror):
    marks_before = (Mark.objects.count(), MarkEvent.objects.count())
    mark = juror_marks(round_, juror)[("K1", "A1")]
    mark = calibration_mark_set(mark=mark, points=Decimal("3.5"), actor=juror, expected_version=0)
    mark = calibration_mark_set(
        mark=mark, note="rule half found", keep_points=True, actor=juror, expected_version=1
    )
    assert (mark.points, mark.note, mark.version) == (Decimal("3.5"), "rule half found", 2)
    assert list(
        CalibrationMarkEvent.objects.filter(mark=mark).values_list(
            "version", "old_points", "new_points", "old_note", "new_note", "actor__username"
        )
    ) == [
        (1, None, Decimal("3.5"), "", "", "alice"),
        (2, Decimal("3.5"), Decimal("3.5"), "", "rule half found", "alice"),
    ]
    # The same value again records nothing; no live mark moved.
    calibration_mark_set(mark=mark, points=Decimal("3.5"), actor=juror)
    assert CalibrationMarkEvent.objects.count() == 2
    assert (Mark.objects.count(), MarkEvent.objects.count()) == marks_before


def test_a_stale_or_bad_calibration_mark_is_refused_and_writes_nothing(round_, juror):
    mark = juror_marks(round_, juror)[("K1", "T1")]
    calibration_mark_set(mark=mark, points=Decimal("1"), actor=juror, expected_version=0)
    with pytest.raises(Stale) as refused:
        calibration_mark_set(mark=mark, points=Decimal("2"), actor=juror, expected_version=0)
    assert refused.value.messages == [
        "This calibration mark was changed to 1 since you loaded it; reload to see the current "
        "value before changing it."
    ]
    with pytest.raises(ValidationError) as refused:
        calibration_mark_set(mark=mark, points=Decimal("8.5"), actor=juror, expected_version=1)
    assert refused.value.messages == [
        "Paper K1, criterion T1: 8.5 is more than the 8 points this criterion allows."
    ]
    mark.refresh_from_db()
    assert (mark.points, mark.version, CalibrationMarkEvent.objects.count()) == (Decimal("1"), 1, 1)


def test_another_jurors_calibration_mark_is_refused(round_, juror, other_juror):
    mark = juror_marks(round_, juror)[("K1", "A1")]
    with pytest.raises(NotAllowed):
        calibration_mark_set(mark=mark, points=Decimal("1"), actor=other_juror)


def test_submitting_needs_every_cell_then_the_sheet_is_read_only(round_, juror):
    sheet = CalibrationSheet.objects.get(round=round_, juror=juror)
    calibration_mark_set(
        mark=juror_marks(round_, juror)[("K1", "A1")], points=Decimal("2"), actor=juror
    )
    with pytest.raises(ValidationError) as refused:
        calibration_sheet_submit(sheet=sheet, actor=juror)
    assert refused.value.messages == [
        "3 cells are still blank (K1 T1, K2 A1, K2 T1); give every cell a value before submitting."
    ]
    _fill(round_, juror)
    calibration_sheet_submit(sheet=sheet, actor=juror)
    sheet.refresh_from_db()
    assert sheet.is_submitted and sheet.submitted_at is not None
    with pytest.raises(SheetLocked) as refused:
        calibration_mark_set(
            mark=juror_marks(round_, juror)[("K1", "A1")], points=Decimal("1"), actor=juror
        )
    assert refused.value.messages == ["You submitted this calibration sheet; it is read-only."]
    with pytest.raises(SheetLocked):
        calibration_sheet_submit(sheet=sheet, actor=juror)


def test_no_calibration_mark_once_the_round_is_closed(round_, juror, chair):
    close_round(round_, chair)
    with pytest.raises(SheetLocked) as refused:
        calibration_mark_set(
            mark=juror_marks(round_, juror)[("K1", "A1")], points=Decimal("1"), actor=juror
        )
    assert refused.value.messages == ["The calibration round of P1 is closed; grading is open."]


def test_no_calibration_mark_in_a_final_contest(round_, juror, contest):
    contest.state = "final"
    contest.save()
    sheet = CalibrationSheet.objects.get(round=round_, juror=juror)
    with pytest.raises(ContestFinal):
        calibration_mark_set(
            mark=juror_marks(round_, juror)[("K1", "A1")], points=Decimal("1"), actor=juror
        )
    with pytest.raises(ContestFinal):
        calibration_sheet_submit(sheet=sheet, actor=juror)
    assert CalibrationMark.objects.exclude(points=None).count() == 0
