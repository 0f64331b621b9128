"""Hostile workbooks within the upload limit: each is refused with a sentence before openpyxl
opens it; nothing is written and nothing large is kept in the session. A body
larger than the limit is refused by its Content-Length, unread, whatever the sheet's state."""

import io
import json
import re
import zipfile
from unittest import mock

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from grading.marking import xlsx_upload
from grading.marking.views import MAX_UPLOAD_BYTES
from grading.models import Mark, Sheet
from rubrics.models import Contest
from tests import factories
from tests.grading.marking.test_xlsx import _bytes as _book_bytes
from tests.grading.marking.test_xlsx import _download, _refused, _snapshot, _upload
from tests.xlsx_files import merged, rows, with_marks


@pytest.fixture
def alice(client, contest, juror):
    client.force_login(juror)
    return juror


@pytest.fixture
def sheet_bytes(client, contest, alice) -> bytes:
    return _book_bytes(_download(client, contest))


def _refused_quickly(client, contest, data: bytes) -> list[tuple]:
    """The refusal of a file built to cost: it comes from the bounds read in the zip's
    directory and parts, before openpyxl opens the workbook (checked, not timed)."""
    assert len(data) <= MAX_UPLOAD_BYTES
    opened = []
    with mock.patch.object(
        xlsx_upload, "load_workbook", side_effect=lambda *a, **k: opened.append(a)
    ):
        errors = _refused(client, contest, data)
    assert opened == []
    pending = client.session.get(f"sheet-upload:{Sheet.objects.get(juror__username='alice').pk}")
    assert pending is None  # confirming dropped it
    return errors


@pytest.mark.parametrize("papers, criteria", [(1, 1), (30, 5), (120, 12)])
def test_a_jurors_own_sheet_of_any_shape_with_a_note_in_every_cell_is_read(
    client, juror, papers, criteria
):
    # The bounds grow with the sheet: every tab's rows count (a sheet of 30 papers × 5
    # criteria was once refused for "more than 251 rows": its Notes tab was left out).
    codes = tuple((f"C{n}", "assignment", "2") for n in range(1, criteria + 1))
    contest = factories.make_contest("shape", problems=1, papers=papers, criteria=codes)
    factories.assign(contest, [juror])
    # The same note in every cell, as a juror who pastes one remark everywhere would write.
    note = "Item 2 keeps the plural; rule 3 (word-final <ng> is [ŋ]) is stated, not applied."
    Mark.objects.filter(sheet__juror=juror).update(note=note)
    client.force_login(juror)
    pending = _upload(client, contest, _book_bytes(_download(client, contest)))
    assert pending["errors"] == []


def test_a_merge_over_forty_thousand_rows_is_refused_before_openpyxl_reads_it(
    client, contest, sheet_bytes
):
    data = with_marks(sheet_bytes, merged("AA1:AZ40000"))
    assert _refused_quickly(client, contest, data) == [
        (
            1,
            "AA",
            "Row 1, column AA: cells AA1:AZ40000 are merged; unmerge them so that every mark "
            "has its own cell.",
        )
    ]


def test_a_merge_of_the_whole_sheet_is_refused(client, contest, sheet_bytes):
    data = with_marks(sheet_bytes, merged("A1:XFD1048576"))
    assert _refused_quickly(client, contest, data) == [
        (
            1,
            "A",
            "Row 1, column A: cells A1:XFD1048576 are merged; unmerge them so that every mark "
            "has its own cell.",
        )
    ]


def test_a_million_dense_cells_are_refused(client, contest, sheet_bytes):
    dense = with_marks(sheet_bytes, rows(range(6, 1006), cells_per_row=1000))
    assert _refused_quickly(client, contest, dense) == [
        (
            None,
            None,
            "The file unpacks to 39.1 MB; a sheet of P1 (3 papers × 2 criteria) unpacks to "
            "less than 4.0 MB. Please upload the .xlsx file downloaded from your sheet.",
        )
    ]


def test_a_hundred_thousand_bogus_rows_are_refused_before_a_preview_is_built(
    client, contest, sheet_bytes
):
    data = with_marks(sheet_bytes, rows(range(6, 100_006)))
    before = _snapshot()
    pending = _upload(client, contest, data)
    assert len(json.dumps(pending)) < 2_000
    assert [error["message"] for error in pending["errors"]] == [
        "The file unpacks to 6.1 MB; a sheet of P1 (3 papers × 2 criteria) unpacks to less "
        "than 4.0 MB. Please upload the .xlsx file downloaded from your sheet."
    ]
    assert _snapshot() == before


def test_a_dimension_far_beyond_the_sheet_is_refused(client, contest, sheet_bytes):
    data = with_marks(
        sheet_bytes,
        lambda xml: re.sub(r'<dimension ref="[^"]*"', '<dimension ref="A1:XFD1048576"', xml),
    )
    assert _refused_quickly(client, contest, data) == [
        (
            None,
            None,
            "The “Marks” tab reaches cell XFD1048576; a sheet of P1 (3 papers × 2 criteria) "
            "ends at column D, row 5. Please delete what you added there, or download a fresh "
            "copy of your sheet.",
        )
    ]


def test_rows_past_the_papers_and_a_little_slack_are_refused(client, contest, sheet_bytes):
    data = with_marks(sheet_bytes, rows(range(6, 106)))
    assert _refused_quickly(client, contest, data) == [
        (
            None,
            None,
            "The “Marks” tab reaches row 26; a sheet of P1 (3 papers × 2 criteria) ends at "
            "column D, row 5. Please delete what you added there, or download a fresh copy of "
            "your sheet.",
        )
    ]


def test_a_single_cell_far_below_the_sheet_is_refused(client, contest, sheet_bytes):
    data = with_marks(sheet_bytes, rows([1_048_576]))
    assert _refused_quickly(client, contest, data) == [
        (
            None,
            None,
            "The “Marks” tab reaches row 1,048,576; a sheet of P1 (3 papers × 2 criteria) ends "
            "at column D, row 5. Please delete what you added there, or download a fresh copy "
            "of your sheet.",
        )
    ]


def test_a_part_packed_to_explode_is_refused(client, contest, sheet_bytes):
    source = zipfile.ZipFile(io.BytesIO(sheet_bytes))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(info.filename, source.read(info.filename))
        target.writestr("xl/media/padding.bin", b"\0" * (3 * 1024 * 1024))
    assert _refused_quickly(client, contest, buffer.getvalue()) == [
        (
            None,
            None,
            "Part xl/media/padding.bin of the file is packed 1,026 times smaller than its "
            "content, which no sheet is. Please upload the .xlsx file downloaded from your sheet.",
        )
    ]


# ---- a body over the limit is refused by its Content-Length, unread ---------------------------


def _post_claiming(client, contest, length: int):
    # The body is empty: reading it as the claimed length would fail the test client's
    # payload, so the refusal proves the body was never read.
    return client.post(
        reverse("sheet_xlsx_upload", args=[contest.slug, 1]),
        data=b"",
        content_type="multipart/form-data; boundary=xyz",
        CONTENT_LENGTH=str(length),
        follow=True,
    )


BODY_REFUSAL = (
    "The upload is 61,440 KB; a sheet's XLSX file is at most 5 MB, and far smaller in "
    "practice. Upload the file downloaded from this sheet."
)


def test_a_body_over_the_limit_is_refused_by_its_content_length_before_csrf_reads_it(
    contest, juror
):
    client = Client(enforce_csrf_checks=True)
    client.force_login(juror)
    before = _snapshot()
    response = _post_claiming(client, contest, 60 * 1024 * 1024)
    assert [str(m) for m in response.context["messages"]] == [BODY_REFUSAL]
    assert _snapshot() == before


@pytest.mark.parametrize("state", ["final", "submitted"])
def test_a_body_over_the_limit_is_refused_unread_on_a_locked_sheet(client, contest, alice, state):
    _download(client, contest)  # makes the sheet
    if state == "final":
        Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    else:
        Sheet.objects.filter(juror=alice).update(state="submitted")
    response = _post_claiming(client, contest, 60 * 1024 * 1024)
    assert [str(m) for m in response.context["messages"]] == [BODY_REFUSAL]


def test_an_upload_with_its_csrf_token_is_still_read(contest, juror):
    client = Client(enforce_csrf_checks=True)
    client.force_login(juror)
    client.get(reverse("sheet", args=[contest.slug, 1]))
    data = _book_bytes(_download(client, contest))
    response = client.post(
        reverse("sheet_xlsx_upload", args=[contest.slug, 1]),
        {
            "file": SimpleUploadedFile("sheet.xlsx", data),
            "csrfmiddlewaretoken": client.cookies[settings.CSRF_COOKIE_NAME].value,
        },
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("sheet_xlsx_preview", args=[contest.slug, 1])
