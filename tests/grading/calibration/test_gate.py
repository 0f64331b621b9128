"""While a problem's calibration round is open, its live grading waits: every live door that
writes marks (the autosave, a note, the XLSX upload and its confirmation, the submission) is
refused with the gate's sentence, and opens again once the round is closed."""

import io
from decimal import Decimal

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from grading.marking.selectors import own_cell, own_sheet, sheet_lock_reason
from grading.marking.sheets import SheetChange, sheet_cell_set, sheet_xlsx_apply
from grading.models import Mark, MarkEvent, PaperLabel
from grading.rules.calibration import live_grading_waits
from grading.rules.refusals import SheetLocked
from tests.grading.calibration.scenario import close_round, make_round

WAITS = "Grading of P1 opens after its calibration round: grade the calibration papers first."


@pytest.fixture
def round_(contest, chair):
    return make_round(contest.problems.get(number=1), chair)


@pytest.fixture
def alice(client, juror):
    client.force_login(juror)
    return juror


def _label(contest) -> str:
    return (
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1)
        .order_by("label")
        .first()
        .label
    )


def _snapshot():
    return sorted(
        Mark.objects.values_list("pk", "points", "note", "version")
    ), MarkEvent.objects.count()


def test_the_gate_says_why_while_the_round_is_open_and_nothing_after(round_, contest, chair):
    problem = contest.problems.get(number=1)
    assert live_grading_waits(problem) == WAITS
    assert live_grading_waits(contest.problems.get(number=2)) is None
    close_round(round_, chair)
    problem.refresh_from_db()
    assert live_grading_waits(contest.problems.get(number=1)) is None


def test_the_autosave_and_the_note_wait_for_the_round(client, contest, round_, alice, chair):
    before = _snapshot()
    label = _label(contest)
    for name, data in (
        ("sheet_cell_save", {"points": "2", "version": "0"}),
        ("sheet_note_save", {"note": "early", "version": "0"}),
    ):
        response = client.post(reverse(name, args=[contest.slug, 1, label, "A1"]), data)
        assert (response.status_code, response.json()["error"]) == (403, WAITS)
    assert _snapshot() == before
    close_round(round_, chair)
    response = client.post(
        reverse("sheet_cell_save", args=[contest.slug, 1, label, "A1"]),
        {"points": "2", "version": "0"},
    )
    assert response.json()["saved"] is True


def test_the_sheet_page_shows_the_gate_and_is_read_only(client, contest, round_, alice):
    response = client.get(reverse("sheet", args=[contest.slug, 1]))
    assert response.context["grid"].lock_reason == WAITS
    assert response.context["locked"] is True


def test_the_xlsx_upload_waits_for_the_round(client, contest, round_, alice):
    book = openpyxl.load_workbook(
        io.BytesIO(client.get(reverse("sheet_xlsx", args=[contest.slug, 1])).content)
    )
    buffer = io.BytesIO()
    book.save(buffer)
    before = _snapshot()
    response = client.post(
        reverse("sheet_xlsx_upload", args=[contest.slug, 1]),
        {"file": SimpleUploadedFile("sheet.xlsx", buffer.getvalue())},
        follow=True,
    )
    assert [str(m) for m in response.context["messages"]] == [WAITS]
    # The confirmation's writer refuses on its own, whatever a session holds.
    sheet = own_sheet(juror=alice, contest_slug=contest.slug, problem_number=1)
    change = SheetChange(
        row=2, column="B", label=_label(contest), code="A1", old=None, new=Decimal("2"), version=0
    )
    with pytest.raises(SheetLocked) as refused:
        sheet_xlsx_apply(sheet=sheet, changes=[change], actor=alice)
    assert refused.value.messages == [WAITS]
    assert _snapshot() == before


def test_the_submission_waits_for_the_round(client, contest, round_, alice):
    Mark.objects.filter(sheet__juror=alice).update(points=Decimal("1"))
    response = client.post(reverse("sheet_submit", args=[contest.slug, 1]), follow=True)
    assert [str(m) for m in response.context["messages"]] == [WAITS]
    sheet = own_sheet(juror=alice, contest_slug=contest.slug, problem_number=1)
    assert not sheet.is_submitted and sheet_lock_reason(sheet) == WAITS


def test_a_round_opened_after_the_cell_was_looked_up_still_holds_the_save(contest, chair, juror):
    label = _label(contest)
    mark = own_cell(
        juror=juror, contest_slug=contest.slug, problem_number=1, label=label, code="A1"
    )
    make_round(contest.problems.get(number=1), chair)
    with pytest.raises(SheetLocked) as refused:
        sheet_cell_set(
            sheet=mark.sheet, mark=mark, points=Decimal("2"), expected_version=0, actor=juror
        )
    assert refused.value.messages == [WAITS]
