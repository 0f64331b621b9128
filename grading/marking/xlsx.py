"""A juror's sheet as an XLSX workbook, for grading offline; `grading.marking.xlsx_upload` reads it back.

The workbook has four tabs: "Marks" (one row per paper, one column per criterion; labels and
headers locked by sheet protection, value cells unlocked with data validation), "Notes" (one row
per cell, its note unlocked), "Guidance" (each criterion's title, points, step and guidance) and
a very hidden "stamp" that ties the file to the sheet: sheet, juror, contest, problem, time of
download, and every mark's version, value and note at that time. The stamp is signed with the
site's secret key, so an edited stamp is refused rather than trusted. Like every output module
this one works on what selectors return and never queries."""

import io
import json
from datetime import datetime
from decimal import Decimal

from django.core import signing
from openpyxl import Workbook
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Font, PatternFill, Protection
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation

from grading.marking.selectors import SheetGrid
from grading.rules.domain import points_text, points_word

FORMAT = "jury-sheet/1"
MARKS = "Marks"
NOTES = "Notes"
GUIDANCE = "Guidance"
STAMP = "stamp"
FIRST_ROW = 3  # row 1: criterion codes, row 2: maximum points
# The signing salt keeps the name of the module that first wrote stamps, so that a workbook
# downloaded from an earlier release is still read.
_SALT = "grading.xlsx.stamp"
_HEADER_FILL = PatternFill("solid", fgColor="E8ECF4")
_VALUE_FILL = PatternFill("solid", fgColor="FFFFFF")


def stamp_signature(lines: list[str]) -> str:
    return signing.Signer(salt=_SALT).signature("\n".join(lines))


def sheet_workbook(*, grid: SheetGrid, juror, exported_at: datetime) -> bytes:
    """The juror's sheet as XLSX bytes: the Marks, Notes and Guidance tabs and the stamp."""
    problem = grid.sheet.problem
    book = Workbook()
    book.properties.creator = "Jury"
    book.properties.title = f"{problem.contest.name} · {problem.code} · sheet of {juror.username}"
    editable = grid.lock_reason is None
    _marks_tab(book.active, grid, editable=editable)
    _notes_tab(book.create_sheet(NOTES), grid, editable=editable)
    _guidance_tab(book.create_sheet(GUIDANCE), grid)
    _stamp_tab(book.create_sheet(STAMP), grid, juror=juror, exported_at=exported_at)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _as_text(cells) -> None:
    # Text from the schemes and labels stays text: openpyxl would store a value starting with
    # "=" as a formula for the spreadsheet to run. (Marks, from row FIRST_ROW on, are numbers.)
    for cell in cells:
        if isinstance(cell.value, str) and not (cell.row >= FIRST_ROW and cell.column > 1):
            cell.data_type = "s"


def _marks_tab(marks, grid: SheetGrid, *, editable: bool) -> None:
    """One row per paper, one column per criterion, a total; the header's comments hold each
    criterion's guidance, and each column's validation its range and step."""
    marks.title = MARKS
    codes = [criterion.code for criterion in grid.criteria]
    total_column = get_column_letter(len(codes) + 2)
    marks.append(["Paper", *codes, "Total"])
    marks.append(
        [
            "Maximum",
            *[float(criterion.points) for criterion in grid.criteria],
            float(sum((criterion.points for criterion in grid.criteria), Decimal(0))),
        ]
    )
    for cell in (*marks[1], *marks[2]):
        cell.font = Font(bold=True)
        cell.fill = _HEADER_FILL
    for index, criterion in enumerate(grid.criteria, start=2):
        guidance = f"\n\n{criterion.guidance}" if criterion.guidance else ""
        comment = Comment(
            f"{criterion.code}: {criterion.title} ({points_text(criterion.points)} "
            f"{points_word(criterion.points)}, "
            f"step {points_text(criterion.step)}){guidance}",
            "Jury",
        )
        comment.width, comment.height = 320, 200
        marks.cell(row=1, column=index).comment = comment
    for offset, row in enumerate(grid.rows):
        number = FIRST_ROW + offset
        last = get_column_letter(len(codes) + 1)
        marks.append(
            [
                row.label,
                *[None if cell.points is None else float(cell.points) for cell in row.cells],
                f"=SUM(B{number}:{last}{number})" if codes else 0,
            ]
        )
        if editable:
            for column in range(2, len(codes) + 2):
                value_cell = marks.cell(row=number, column=column)
                value_cell.protection = Protection(locked=False)
                value_cell.fill = _VALUE_FILL
                value_cell.number_format = "0.##"
    last_row = FIRST_ROW + max(len(grid.rows), 1) - 1
    for index, criterion in enumerate(grid.criteria, start=2):
        letter = get_column_letter(index)
        marks.add_data_validation(
            _points_validation(criterion, f"{letter}{FIRST_ROW}:{letter}{last_row}")
        )
        marks.column_dimensions[letter].width = max(8, len(criterion.code) + 4)
    marks.column_dimensions["A"].width = 12
    marks.column_dimensions[total_column].width = 9
    marks.freeze_panes = f"B{FIRST_ROW}"
    marks.protection.sheet = True
    _as_text((*marks["A"], *marks[1]))


def _points_validation(criterion, cells: str) -> DataValidation:
    points = points_text(criterion.points)
    validation = DataValidation(
        type="decimal",
        operator="between",
        formula1="0",
        formula2=points,
        allow_blank=True,
        showErrorMessage=True,
        showInputMessage=True,
        errorTitle=f"{criterion.code}: 0 to {points}"[:32],
        error=(
            f"{criterion.code} takes points from 0 to {points} in steps of "
            f"{points_text(criterion.step)}; leave the cell empty if not graded yet."
        )[:255],
        promptTitle=criterion.code[:32],
        prompt=criterion.title[:255],
    )
    validation.add(cells)
    return validation


def _notes_tab(notes, grid: SheetGrid, *, editable: bool) -> None:
    """One row per cell: paper, criterion, the juror's note."""
    notes.append(["Paper", "Criterion", "Note"])
    for cell in notes[1]:
        cell.font = Font(bold=True)
        cell.fill = _HEADER_FILL
    for row in grid.rows:
        for cell in row.cells:
            notes.append([row.label, cell.criterion.code, cell.note or None])
    # Labels, codes and notes are text, whatever they start with (a note "=2+2" is no formula).
    for row in notes.iter_rows():
        for cell in row:
            if isinstance(cell.value, str):
                cell.data_type = "s"
            if editable and cell.column == 3 and cell.row > 1:
                cell.protection = Protection(locked=False)
                cell.fill = _VALUE_FILL
                cell.alignment = Alignment(wrap_text=True, vertical="top")
    for letter, width in zip("ABC", (12, 12, 80), strict=True):
        notes.column_dimensions[letter].width = width
    notes.freeze_panes = "A2"
    notes.protection.sheet = True


def _guidance_tab(guidance, grid: SheetGrid) -> None:
    """The scheme, one row per criterion, read-only."""
    guidance.append(["Criterion", "Kind", "Title", "Points", "Step", "Guidance"])
    for cell in guidance[1]:
        cell.font = Font(bold=True)
    for criterion in grid.criteria:
        guidance.append(
            [
                criterion.code,
                criterion.get_kind_display(),
                criterion.title,
                float(criterion.points),
                float(criterion.step),
                criterion.guidance,
            ]
        )
    _as_text(c for row in guidance.iter_rows() for c in row)
    for letter, width in zip("ABCDEF", (10, 12, 40, 8, 6, 80), strict=True):
        guidance.column_dimensions[letter].width = width
    for row in guidance.iter_rows(min_row=2):
        for cell in row:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
    guidance.protection.sheet = True


def _stamp_tab(stamp, grid: SheetGrid, *, juror, exported_at: datetime) -> None:
    """The very hidden, signed tab that ties the file to the sheet and says what each cell held."""
    problem = grid.sheet.problem
    meta = json.dumps(
        {
            "format": FORMAT,
            "sheet": grid.sheet.pk,
            "juror_id": juror.pk,
            "juror": juror.username,
            "contest": problem.contest.slug,
            "problem": problem.number,
            "exported_at": exported_at.isoformat(),
        },
        sort_keys=True,
    )
    lines = [meta] + [
        json.dumps(
            [row.label, cell.criterion.code, cell.version, points_text(cell.points), cell.note]
        )
        for row in grid.rows
        for cell in row.cells
    ]
    stamp.append(["Do not edit: this tab ties the file to your sheet in Jury."])
    stamp.append([meta])
    stamp.append([stamp_signature(lines)])
    for line in lines[1:]:
        stamp.append([line])
    stamp.sheet_state = "veryHidden"
    stamp.protection.sheet = True
