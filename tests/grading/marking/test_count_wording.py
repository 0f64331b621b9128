"""The juror's sheet words its counts in the singular for one and the plural otherwise: the
blank cells that hold a submission back, and the sheet's shape in an upload's refusal."""

import io
import re
import zipfile
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from grading.marking.marks import mark_set
from grading.marking.selectors import sheet_grid
from grading.marking.sheets import sheet_submit
from grading.marking.xlsx_bounds import FileRefused, check_bounds
from grading.models import Mark, Sheet
from tests import factories


@pytest.mark.parametrize(
    ("blank", "counted"), [(1, "1 cell is still blank"), (2, "2 cells are still blank")]
)
def test_submitting_names_the_blank_cells_in_the_singular_or_the_plural(
    contest, juror, blank, counted
):
    sheet = Sheet.objects.get(juror=juror, problem__number=1)
    marks = Mark.objects.filter(sheet=sheet).select_related("criterion").order_by("pk")
    for mark in list(marks)[blank:]:
        mark_set(mark=mark, points=Decimal("1"), actor=juror, channel="browser")
    shown = ", ".join(f"{label} {code}" for label, code in sheet_grid(sheet=sheet).blanks)
    with pytest.raises(ValidationError) as error:
        sheet_submit(sheet=sheet, actor=juror)
    assert error.value.messages == [
        f"{counted} ({shown}); give every cell a value before submitting."
    ]


def _too_big() -> bytes:
    """A workbook that unpacks to 8 MB, more than any sheet of a few cells could."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/worksheets/sheet1.xml", b"<row/>" * (8 * 1024 * 1024 // 6))
    return data.getvalue()


@pytest.mark.parametrize(
    ("papers", "criteria", "shape"),
    [(1, 1, "1 paper × 1 criterion"), (2, 2, "2 papers × 2 criteria")],
)
def test_an_upload_refused_for_its_size_names_the_sheets_shape(juror, papers, criteria, shape):
    codes = tuple((f"C{n}", "assignment", "2") for n in range(1, criteria + 1))
    contest = factories.make_contest("shape", problems=1, papers=papers, criteria=codes)
    factories.assign(contest, [juror])
    grid = sheet_grid(sheet=Sheet.objects.get(juror=juror))
    with pytest.raises(FileRefused) as error:
        check_bounds(_too_big(), grid=grid)
    assert re.fullmatch(
        rf"The file unpacks to 8\.0 MB; a sheet of P1 \({shape}\) unpacks to less than "
        r"4\.\d MB\. Please upload the \.xlsx file downloaded from your sheet\.",
        str(error.value),
    )
