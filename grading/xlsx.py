"""A juror's sheet as an XLSX workbook and back, for grading offline.

The workbook has four tabs: "Marks" (one row per paper, one column per criterion; labels and
headers locked by sheet protection, value cells unlocked with data validation), "Notes" (one row
per cell, its note unlocked), "Guidance" (each criterion's title, points, step and guidance) and
a very hidden "stamp" that ties the file to the sheet: sheet, juror, contest, problem, time of
download, and every mark's version, value and note at that time. The stamp is signed with the site's secret key, so an edited stamp is
refused rather than trusted.

Reading compares the file with its stamp, not with the current marks: a cell the juror left as
it was downloaded is no change, even when the mark moved on in the app since; a cell the file
does change while the app changed it too is refused by name. Like every output module this one
works on what selectors return and never queries."""

import io
import json
import posixpath
import zipfile
import zlib
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from xml.etree import ElementTree

from django.core import signing
from django.core.exceptions import ValidationError
from django.utils import timezone
from openpyxl import Workbook, load_workbook
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Font, PatternFill, Protection
from openpyxl.utils import column_index_from_string, get_column_letter
from openpyxl.utils.cell import coordinate_from_string, range_boundaries
from openpyxl.utils.exceptions import CellCoordinatesException
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula

from grading.domain import points_word
from grading.selectors.sheet import SheetGrid, shown_points
from grading.services.sheet import NOTE_MAX_LENGTH, SheetChange
from rubrics.validators import parse_points, validate_points

FORMAT = "jury-sheet/1"
MARKS = "Marks"
NOTES = "Notes"
GUIDANCE = "Guidance"
STAMP = "stamp"
FIRST_ROW = 3  # row 1: criterion codes, row 2: maximum points
_SALT = "grading.xlsx.stamp"
_HEADER_FILL = PatternFill("solid", fgColor="E8ECF4")
_VALUE_FILL = PatternFill("solid", fgColor="FFFFFF")


def _when(moment: datetime | None) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M") if moment else "earlier"


def _signature(lines: list[str]) -> str:
    return signing.Signer(salt=_SALT).signature("\n".join(lines))


def sheet_workbook(*, grid: SheetGrid, juror, exported_at: datetime) -> bytes:
    """The juror's sheet as XLSX bytes."""
    sheet = grid.sheet
    problem = sheet.problem
    contest = problem.contest
    book = Workbook()
    book.properties.creator = "Jury"
    book.properties.title = f"{contest.name} · {problem.code} · sheet of {juror.username}"

    marks = book.active
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
            f"{criterion.code}: {criterion.title} ({shown_points(criterion.points)} "
            f"{points_word(criterion.points)}, "
            f"step {shown_points(criterion.step)}){guidance}",
            "Jury",
        )
        comment.width, comment.height = 320, 200
        marks.cell(row=1, column=index).comment = comment
    editable = grid.lock_reason is None
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
        points = shown_points(criterion.points)
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
                f"{shown_points(criterion.step)}; leave the cell empty if not graded yet."
            )[:255],
            promptTitle=criterion.code[:32],
            prompt=criterion.title[:255],
        )
        validation.add(f"{letter}{FIRST_ROW}:{letter}{last_row}")
        marks.add_data_validation(validation)
        marks.column_dimensions[letter].width = max(8, len(criterion.code) + 4)
    marks.column_dimensions["A"].width = 12
    marks.column_dimensions[total_column].width = 9
    marks.freeze_panes = f"B{FIRST_ROW}"
    marks.protection.sheet = True

    notes = book.create_sheet(NOTES)
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

    guidance = book.create_sheet(GUIDANCE)
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
    # Text from the schemes and labels stays text: openpyxl would store a value starting with
    # "=" as a formula for the spreadsheet to run.
    for cell in (*marks["A"], *marks[1], *(c for row in guidance.iter_rows() for c in row)):
        if isinstance(cell.value, str) and not (cell.row >= FIRST_ROW and cell.column > 1):
            cell.data_type = "s"
    for letter, width in zip("ABCDEF", (10, 12, 40, 8, 6, 80), strict=True):
        guidance.column_dimensions[letter].width = width
    for row in guidance.iter_rows(min_row=2):
        for cell in row:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
    guidance.protection.sheet = True

    stamp = book.create_sheet(STAMP)
    meta = json.dumps(
        {
            "format": FORMAT,
            "sheet": sheet.pk,
            "juror_id": juror.pk,
            "juror": juror.username,
            "contest": contest.slug,
            "problem": problem.number,
            "exported_at": exported_at.isoformat(),
        },
        sort_keys=True,
    )
    lines = [meta] + [
        json.dumps(
            [row.label, cell.criterion.code, cell.version, shown_points(cell.points), cell.note]
        )
        for row in grid.rows
        for cell in row.cells
    ]
    stamp.append(["Do not edit: this tab ties the file to your sheet in Jury."])
    stamp.append([meta])
    stamp.append([_signature(lines)])
    for line in lines[1:]:
        stamp.append([line])
    stamp.sheet_state = "veryHidden"
    stamp.protection.sheet = True

    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


@dataclass
class UploadError:
    message: str
    row: int | None = None
    column: str | None = None


@dataclass
class UploadReading:
    """What an uploaded file would do: the changes, the errors that stop it, and the cells the
    app changed after the download that the file leaves alone."""

    changes: list[SheetChange] = field(default_factory=list)
    errors: list[UploadError] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    exported_at: datetime | None = None
    # Whether every cell was read, so that `changes` is all the file would change once its
    # errors are fixed; False when the file was refused before its cells (no stamp, moved columns).
    cells_read: bool = False


@dataclass
class _Stamp:
    meta: dict
    cells: dict[tuple[str, str], tuple[int, Decimal | None]]
    labels: list[str]
    codes: list[str]
    exported_at: datetime
    # The notes as downloaded; empty for a file stamped before notes were in the workbook.
    notes: dict[tuple[str, str], str] = field(default_factory=dict)


class _Refused(Exception):
    """The file as a whole cannot be read; its message is the one error shown."""


def read_sheet_upload(*, data: bytes, grid: SheetGrid, juror) -> UploadReading:
    """Compare an uploaded workbook with its stamp and with the current marks of `grid`."""
    reading = UploadReading()
    try:
        merged = _check_bounds(data, grid=grid)
        if merged:
            reading.errors.extend(merged)
            return reading
        book = _open(data)
        stamp = _read_stamp(book)
        _check_identity(stamp.meta, grid=grid, juror=juror)
        reading.exported_at = stamp.exported_at
        if MARKS not in book.sheetnames:
            raise _Refused(
                f"The file has no “{MARKS}” tab; upload the workbook as it was downloaded."
            )
        current_codes = [criterion.code for criterion in grid.criteria]
        if stamp.codes != current_codes:
            raise _Refused(
                f"The grading scheme of {grid.sheet.problem.code} changed since this file was "
                f"downloaded at {_when(reading.exported_at)}; download a fresh copy."
            )
    except _Refused as refusal:
        reading.errors.append(UploadError(str(refusal)))
        return reading
    _read_marks(book[MARKS], stamp=stamp, grid=grid, reading=reading)
    if NOTES in book.sheetnames and stamp.notes and reading.cells_read:
        _read_notes(book[NOTES], stamp=stamp, grid=grid, reading=reading)
    return reading


# What bounds the work on an upload before openpyxl builds anything: openpyxl makes one object
# per merged cell and per cell of every tab, and reading the marks walks every row up to the
# last, so a small file could cost seconds and hundreds of MB. A downloaded sheet holds its
# papers × criteria plus the header rows; the slack leaves room for a juror's stray note.
SLACK_ROWS = 20
SLACK_COLUMNS = 20
SLACK_CELLS = 500
MAX_PARTS = 200
# A workbook's XML packs 5 to 20 times; only a part made to explode packs this well.
MAX_PACKING_RATIO = 100
_RATIO_FROM_BYTES = 256 * 1024
_BASE_BYTES = 4 * 1024 * 1024
_BYTES_PER_CELL = 300
_MERGES_SHOWN = 20
_DOWNLOADED = "upload the .xlsx file downloaded from your sheet"
# What a damaged zip or XML part raises while it is read.
_DAMAGED = (
    ElementTree.ParseError,
    zipfile.BadZipFile,
    zlib.error,
    OSError,
    ValueError,
    EOFError,
    NotImplementedError,
    RuntimeError,
)


@dataclass
class _Bounds:
    marks_rows: int
    other_rows: int
    columns: int
    cells: int
    rows: int
    unpacked: int
    shape: str
    criteria: int


def _bounds(grid: SheetGrid) -> _Bounds:
    papers, criteria = len(grid.rows), len(grid.criteria)
    marks_rows = FIRST_ROW - 1 + max(papers, 1)
    # Marks: label, criteria and total per row; Notes: three columns per cell plus a header;
    # Guidance: six columns per criterion; stamp: one row per cell plus three.
    notes_rows = papers * criteria + 1
    stamp_rows = 3 + papers * criteria
    cells = (
        marks_rows * (criteria + 2) + (papers * criteria + 1) * 3 + (criteria + 1) * 6 + stamp_rows
    )
    text = sum(len(c.title) + len(c.guidance) + len(c.code) for c in grid.criteria)
    # A note is written twice (Notes tab, stamp), each up to its longest, four bytes a character.
    notes = papers * criteria * NOTE_MAX_LENGTH * 4 * 2
    return _Bounds(
        marks_rows=marks_rows + SLACK_ROWS,
        other_rows=max(stamp_rows, criteria + 1) + SLACK_ROWS,
        columns=max(criteria + 2, 6) + SLACK_COLUMNS,
        cells=cells + cells // 10 + SLACK_CELLS,
        # Every tab's rows: Marks, Notes, Guidance (a header and a row per criterion), stamp.
        rows=marks_rows + notes_rows + criteria + 1 + stamp_rows + 4 * SLACK_ROWS,
        # Guidance is written three times (Guidance tab, comments, their drawing), up to four
        # bytes a character.
        unpacked=_BASE_BYTES + cells * _BYTES_PER_CELL + text * 12 + notes,
        criteria=criteria,
        shape=(
            f"{papers} paper{'s' if papers != 1 else ''} × {criteria} "
            f"criteri{'a' if criteria != 1 else 'on'}"
        ),
    )


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def _check_bounds(data: bytes, *, grid: SheetGrid) -> list[UploadError]:
    """Refuse, from the zip's directory and a streamed read of each tab, a file that no sheet
    of this problem could be; the merged cells of the Marks tab, if any, as errors."""
    bounds = _bounds(grid)
    code = grid.sheet.problem.code
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as error:
        raise _Refused(
            "The file could not be read as an XLSX workbook "
            f"({type(error).__name__}); {_DOWNLOADED}."
        ) from None
    with archive:
        parts = archive.infolist()
        if len(parts) > MAX_PARTS:
            raise _Refused(
                f"The file holds {len(parts):,} parts; a sheet's workbook holds a dozen or "
                f"so. Please {_DOWNLOADED}."
            )
        total = sum(part.file_size for part in parts)
        if total > bounds.unpacked:
            raise _Refused(
                f"The file unpacks to {_mb(total)}; a sheet of {code} ({bounds.shape}) "
                f"unpacks to less than {_mb(bounds.unpacked)}. Please {_DOWNLOADED}."
            )
        for part in parts:
            if part.file_size > _RATIO_FROM_BYTES and part.file_size > MAX_PACKING_RATIO * max(
                part.compress_size, 1
            ):
                raise _Refused(
                    f"Part {part.filename} of the file is packed "
                    f"{part.file_size // max(part.compress_size, 1):,} times smaller than "
                    f"its content, which no sheet is. Please {_DOWNLOADED}."
                )
        tabs = _worksheet_parts(archive)
        counts = {"cells": 0, "rows": 0, "elements": 0}
        merged: list[UploadError] = []
        for name, member in tabs.items():
            merged.extend(_scan_tab(archive, member, name, bounds=bounds, counts=counts, code=code))
    return merged


def _rels_targets(archive: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """The relationships of `part`: id → (type, resolved part name)."""
    folder, name = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", f"{name}.rels")
    targets = {}
    for element in _small_xml(archive, rels):
        if _local(element.tag) == "Relationship" and element.get("TargetMode") != "External":
            target = element.get("Target", "")
            resolved = (
                target.lstrip("/")
                if target.startswith("/")
                else posixpath.normpath(posixpath.join(folder, target))
            )
            targets[element.get("Id", "")] = (element.get("Type", ""), resolved)
    return targets


def _worksheet_parts(archive: zipfile.ZipFile) -> dict[str, str]:
    """Tab name → part name, for each tab the workbook lists, as openpyxl finds them."""
    workbook = next(
        (
            target
            for kind, target in _rels_targets(archive, "").values()
            if kind.endswith("/officeDocument")
        ),
        "xl/workbook.xml",
    )
    targets = _rels_targets(archive, workbook)
    tabs = {}
    for element in _small_xml(archive, workbook):
        if _local(element.tag) != "sheet":
            continue
        rel = next((v for k, v in element.attrib.items() if _local(k) == "id"), None)
        if rel in targets and targets[rel][1] in archive.NameToInfo:
            tabs[element.get("name", "")] = targets[rel][1]
    # Any other worksheet part is scanned too: what it costs is bounded either way.
    for name in archive.namelist():
        if (
            name.startswith("xl/worksheets/")
            and name.endswith(".xml")
            and name not in tabs.values()
        ):
            tabs[f"part {name}"] = name
    return tabs


def _small_xml(archive: zipfile.ZipFile, part: str):
    """The elements of a small part (already bounded by the directory checks), or none."""
    if part not in archive.NameToInfo:
        return []
    try:
        with archive.open(part) as stream:
            return list(ElementTree.parse(stream).iter())
    except _DAMAGED:
        return []  # openpyxl refuses it later with its own words


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _scan_tab(archive, member, name, *, bounds: _Bounds, counts: dict, code: str):
    """Stream one worksheet: its dimension, rows and cells within the bounds, its merges."""
    is_marks = name == MARKS
    max_rows = bounds.marks_rows if is_marks else bounds.other_rows
    tab = f"The “{name}” tab" if not name.startswith("part ") else f"The file's {name}"
    fresh = "delete what you added there, or download a fresh copy of your sheet"
    # Marks: label, criteria, total; Guidance: six columns; the stamp: one.
    last_column = bounds.criteria + 2 if is_marks else 6

    def beyond(what: str) -> _Refused:
        return _Refused(
            f"{tab} reaches {what}; a sheet of {code} ({bounds.shape}) ends at column "
            f"{get_column_letter(last_column)}, row "
            f"{max_rows - SLACK_ROWS}. Please {fresh}."
        )

    def check_cell(ref: str) -> None:
        try:
            letters, row = coordinate_from_string(ref)
            column = column_index_from_string(letters)
        except (ValueError, CellCoordinatesException):
            raise _Refused(
                f"{tab} holds a cell named “{ref[:20]}”, which is not a cell; {_DOWNLOADED}."
            ) from None
        if row > max_rows or column > bounds.columns:
            raise beyond(f"cell {ref}")

    def too_many(what: str, limit: int) -> _Refused:
        return _Refused(
            f"The file holds more than {limit:,} {what}; a sheet of {code} ({bounds.shape}) "
            f"holds fewer. Please {fresh}."
        )

    # Every element counts: a cell is a few (c, v, f), the rest of a tab a few dozen.
    max_elements = 4 * bounds.cells + 10_000
    merges: list[str] = []
    row_number = depth = 0
    stack = []
    try:
        with archive.open(member) as stream:
            for event, element in ElementTree.iterparse(stream, events=("start", "end")):
                if event == "end":
                    depth -= 1
                    stack.pop()
                    # Keep nothing already read: memory stays flat whatever the file holds.
                    if depth in (1, 2) and stack:
                        stack[-1].clear()
                    continue
                depth += 1
                stack.append(element)
                counts["elements"] += 1
                if counts["elements"] > max_elements:
                    raise too_many("XML elements", max_elements)
                tag = _local(element.tag)
                if tag == "dimension":
                    ref = element.get("ref", "")
                    check_cell(ref.rpartition(":")[2])
                elif tag == "row":
                    counts["rows"] += 1
                    row_number = int(element.get("r") or row_number + 1)
                    if row_number > max_rows:
                        raise beyond(f"row {row_number:,}")
                    if counts["rows"] > bounds.rows:
                        raise too_many("rows", bounds.rows)
                elif tag == "c":
                    counts["cells"] += 1
                    if element.get("r"):
                        check_cell(element.get("r"))
                    if counts["cells"] > bounds.cells:
                        raise too_many("cells", bounds.cells)
                elif tag == "mergeCell":
                    merges.append(element.get("ref", ""))
                    if len(merges) >= _MERGES_SHOWN:
                        break
    except _DAMAGED as error:
        raise _Refused(
            f"The file could not be read as an XLSX workbook ({type(error).__name__}); "
            f"{_DOWNLOADED}."
        ) from None
    if merges and not is_marks:
        raise _Refused(
            f"{tab} has merged cells ({merges[0][:40]}); {_DOWNLOADED}, where no cells are merged."
        )
    return [_merge_error(ref, tab) for ref in merges]


def _merge_error(ref: str, tab: str) -> UploadError:
    try:
        min_col, min_row, _, _ = range_boundaries(ref)
    except (ValueError, TypeError, CellCoordinatesException):
        return UploadError(
            f"{tab} has cells merged; unmerge them so that every mark has its own cell."
        )
    if min_row is None or min_col is None:
        return UploadError(
            f"{tab} has whole rows or columns {ref} merged; unmerge them so that every mark "
            "has its own cell."
        )
    letter = get_column_letter(min_col)
    return UploadError(
        f"Row {min_row}, column {letter}: cells {ref} are merged; unmerge them so that every "
        "mark has its own cell.",
        row=min_row,
        column=letter,
    )


def _open(data: bytes):
    try:
        return load_workbook(io.BytesIO(data), data_only=False)
    except Exception as error:  # openpyxl raises many kinds for a file that is not XLSX
        raise _Refused(
            "The file could not be read as an XLSX workbook "
            f"({type(error).__name__}); upload the .xlsx file downloaded from your sheet."
        ) from None


def _read_stamp(book) -> _Stamp:
    fresh = "download a fresh copy of your sheet and enter your marks there"
    if STAMP not in book.sheetnames:
        raise _Refused(
            "The file has no stamp: it was not downloaded from a Jury sheet, or the program "
            f"that saved it dropped hidden tabs; {fresh}."
        )
    values = [row[0] for row in book[STAMP].iter_rows(min_row=2, max_col=1, values_only=True)]
    if len(values) < 2 or not all(isinstance(value, str) for value in values):
        raise _Refused(f"The file's stamp was changed; {fresh}.")
    meta_line, signature, *lines = values
    if _signature([meta_line, *lines]) != signature:
        raise _Refused(f"The file's stamp was changed; {fresh}.")
    # Signed, so written by this site; still read as untrusted, so that a stamp of another
    # version (or a leaked key) is refused with a sentence rather than a traceback.
    changed = _Refused(f"The file's stamp was changed; {fresh}.")
    meta = _stamp_json(meta_line, changed)
    if not isinstance(meta, dict):
        raise changed
    if meta.get("format") != FORMAT:
        raise _Refused(f"The file was made by another version of Jury; {fresh}.")
    exported_at = _stamp_meta_checked(meta, changed)
    cells, notes = {}, {}
    labels, codes = [], []
    for line in lines:
        label, code, version, points, note = _stamp_cell(line, changed)
        cells[(label, code)] = (version, points)
        if note is not None:
            notes[(label, code)] = note
        if label not in labels:
            labels.append(label)
        if code not in codes:
            codes.append(code)
    return _Stamp(
        meta=meta, cells=cells, labels=labels, codes=codes, exported_at=exported_at, notes=notes
    )


_META_TYPES = {"sheet": int, "juror_id": int, "contest": str, "problem": int, "exported_at": str}


def _stamp_json(line: str, changed: _Refused):
    try:
        return json.loads(line)
    except (ValueError, RecursionError):  # ValueError also for integers too long to read
        raise changed from None


def _stamp_meta_checked(meta: dict, changed: _Refused) -> datetime:
    """The time of download, once every field the identity check reads has its type."""
    for key, kind in _META_TYPES.items():
        value = meta.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise changed
    try:
        exported_at = datetime.fromisoformat(meta["exported_at"])
    except ValueError:
        raise changed from None
    if timezone.is_naive(exported_at):
        raise changed
    return exported_at


def _stamp_cell(line: str, changed: _Refused) -> tuple[str, str, int, Decimal | None, str | None]:
    """One stamped cell: label, criterion code, version, points and note as downloaded (the
    note None in a file stamped before notes were in the workbook)."""
    entry = _stamp_json(line, changed)
    if not (
        isinstance(entry, list)
        and len(entry) in (4, 5)
        and all(isinstance(part, str) for part in (entry[0], entry[1], entry[3], *entry[4:]))
        and isinstance(entry[2], int)
        and not isinstance(entry[2], bool)
    ):
        raise changed
    label, code, version, shown, *note = entry
    try:
        points = parse_points(shown)
    except ValidationError:
        raise changed from None
    return label, code, version, points, (note[0] if note else None)


def _check_identity(meta: dict, *, grid: SheetGrid, juror) -> None:
    problem = grid.sheet.problem
    if meta["juror_id"] != juror.pk:
        raise _Refused(
            "This file is another juror's sheet; upload the file downloaded from your own sheet."
        )
    if meta["contest"] != problem.contest.slug:
        raise _Refused(
            f"This file is a sheet of another contest (“{meta['contest']}”), not of "
            f"{problem.contest.name}; upload it on that contest's sheet."
        )
    if meta["problem"] != problem.number:
        raise _Refused(
            f"This file is your sheet for P{meta['problem']}, not for {problem.code}; upload "
            f"it on the P{meta['problem']} sheet."
        )
    if meta["sheet"] != grid.sheet.pk:
        raise _Refused(
            "This file belongs to an earlier sheet of yours that no longer exists; download "
            "a fresh copy."
        )


def _read_marks(worksheet, *, stamp: _Stamp, grid: SheetGrid, reading: UploadReading) -> None:
    errors = reading.errors
    # Merged cells never get here: `_check_bounds` refuses them before openpyxl reads the file.
    codes = stamp.codes
    for index, code in enumerate(codes, start=2):
        letter = get_column_letter(index)
        found = worksheet.cell(row=1, column=index).value
        if found != code:
            shown = "an empty cell" if found in (None, "") else f"“{found}”"
            errors.append(
                UploadError(
                    f"Row 1, column {letter}: expected criterion “{code}”, found {shown}; "
                    "columns must not be moved, inserted or deleted.",
                    row=1,
                    column=letter,
                )
            )
    if errors:
        return

    current = {(row.label, cell.criterion.code): cell for row in grid.rows for cell in row.cells}
    criteria = {criterion.code: criterion for criterion in grid.criteria}
    seen: dict[str, int] = {}
    for number, row in enumerate(
        worksheet.iter_rows(min_row=FIRST_ROW, max_col=len(codes) + 1), start=FIRST_ROW
    ):
        label_cell, value_cells = row[0], row[1:]
        label = "" if label_cell.value is None else str(label_cell.value).strip()
        if not label:
            if any(_filled(cell) for cell in value_cells):
                errors.append(
                    UploadError(
                        f"Row {number}, column A: the paper label is missing; rows must keep "
                        "the label they were downloaded with.",
                        row=number,
                        column="A",
                    )
                )
            continue
        if label in seen:
            errors.append(
                UploadError(
                    f"Row {number}, column A: paper {label} appears twice (rows {seen[label]} "
                    f"and {number}); keep one row per paper.",
                    row=number,
                    column="A",
                )
            )
            continue
        seen[label] = number
        if label not in stamp.labels:
            errors.append(
                UploadError(
                    f"Row {number}, column A: “{label}” is not a paper of this sheet; rows "
                    "cannot be added.",
                    row=number,
                    column="A",
                )
            )
            continue
        for code, cell in zip(codes, value_cells, strict=False):
            _read_cell(
                cell,
                number=number,
                label=label,
                criterion=criteria[code],
                stamped=stamp.cells.get((label, code)),
                now=current.get((label, code)),
                reading=reading,
            )
    for label in stamp.labels:
        if label not in seen:
            errors.append(
                UploadError(
                    f"The row of paper {label} is missing; rows must not be deleted (leave a "
                    "cell empty for a mark you have not given)."
                )
            )
    # The changes stay listed beside the errors (the preview says they wait for the errors to
    # be fixed); nothing is written while there is any error.
    reading.cells_read = True


def _read_notes(worksheet, *, stamp: _Stamp, grid: SheetGrid, reading: UploadReading) -> None:
    """The Notes tab: a note the file changes becomes a change of that cell (merged with its
    change of points, if any), checked against its stamp as the points are. A row left out
    changes nothing: a note is never blanked because its row went missing."""
    current = {(row.label, cell.criterion.code): cell for row in grid.rows for cell in row.cells}
    changes = {(change.label, change.code): change for change in reading.changes}
    seen: dict[tuple[str, str], int] = {}
    for number, row in enumerate(worksheet.iter_rows(min_row=2, max_col=3), start=2):
        label_cell, code_cell, note_cell = (*row, None, None, None)[:3]
        label = "" if label_cell is None or label_cell.value is None else str(label_cell.value)
        code = "" if code_cell is None or code_cell.value is None else str(code_cell.value)
        label, code = label.strip(), code.strip()

        def refuse(sentence: str, column: str = "C", number: int = number) -> None:
            reading.errors.append(
                UploadError(f"{NOTES} tab, row {number}: {sentence}", row=number, column=column)
            )

        if not label and not code:
            if note_cell is not None and _filled(note_cell):
                refuse(
                    "the paper and criterion are missing; keep them as they were downloaded.", "A"
                )
            continue
        key = (label, code)
        if key not in stamp.cells:
            refuse(
                f"paper {label or '(none)'}, criterion {code or '(none)'} is not a cell of this "
                "sheet; rows cannot be added or relabelled.",
                "A",
            )
            continue
        if key in seen:
            refuse(
                f"paper {label}, criterion {code} appears twice (rows {seen[key]} and {number}); "
                "keep one row per cell.",
                "A",
            )
            continue
        seen[key] = number
        if key not in stamp.notes:
            continue
        value = None if note_cell is None else note_cell.value
        if note_cell is not None and (
            note_cell.data_type == "f" or isinstance(value, (ArrayFormula, DataTableFormula))
        ):
            refuse(f"the note holds a formula ({_formula_text(value)}); type the note as text.")
            continue
        note = "" if value is None else str(value).strip()
        if note == stamp.notes[key]:
            continue
        if len(note) > NOTE_MAX_LENGTH:
            refuse(
                f"the note of paper {label}, criterion {code} is {len(note)} characters long; "
                f"shorten it to {NOTE_MAX_LENGTH} at most."
            )
            continue
        now = current.get(key)
        if now is None:
            refuse(f"paper {label} is no longer on your sheet; leave its notes as downloaded.")
            continue
        if now.version != stamp.cells[key][0]:
            refuse(
                f"the note of paper {label}, criterion {code} was changed in the app at "
                f"{_when(now.updated_at)}, after this file was downloaded at "
                f"{_when(reading.exported_at)}; download a fresh copy or change it in the app."
            )
            continue
        if note == now.note:
            continue
        change = changes.get(key)
        if change is None:
            change = SheetChange(
                row=number,
                column="C",
                label=label,
                code=code,
                old=now.points,
                new=now.points,
                version=now.version,
            )
            changes[key] = change
            reading.changes.append(change)
        change.old_note = now.note
        change.note = note


def _formula_text(value) -> str:
    if isinstance(value, ArrayFormula):
        return value.text
    if isinstance(value, DataTableFormula):
        # Its repr is an object address; say what it is instead.
        return "a data table"
    return str(value)


def _filled(cell) -> bool:
    return cell.value is not None and not (isinstance(cell.value, str) and not cell.value.strip())


def _read_cell(cell, *, number, label, criterion, stamped, now, reading: UploadReading) -> None:
    letter = cell.column_letter
    where = f"Row {number}, column {letter} (paper {label})"
    prefix = f"{where}, criterion {criterion.code}: "

    def refuse(sentence: str) -> None:
        reading.errors.append(UploadError(prefix + sentence, row=number, column=letter))

    value = cell.value
    if (
        cell.data_type == "f"
        or isinstance(value, (ArrayFormula, DataTableFormula))
        or (isinstance(value, str) and value.startswith("="))
    ):
        refuse(f"the cell holds a formula ({_formula_text(value)}); type the number itself.")
        return
    if cell.data_type == "e":
        refuse(f"the cell holds the error {value}; type a number or leave it empty.")
        return
    if isinstance(value, bool):
        refuse(f"{'TRUE' if value else 'FALSE'} is not a number of points.")
        return
    if isinstance(value, (datetime, date, time, timedelta)):
        refuse("the cell holds a date or time, not a number of points.")
        return
    try:
        points = parse_points(value)
    except ValidationError:
        refuse(f"“{value}” is text, not a number of points; type a number or leave it empty.")
        return
    stamped_version, stamped_points = stamped if stamped else (None, None)
    if stamped is None or points == stamped_points:
        # The file leaves this cell as it was downloaded: whatever the app holds now stays.
        if stamped is not None and now is not None and now.version != stamped_version:
            reading.kept.append(f"{label} {criterion.code}")
        return
    if now is None:
        refuse("this paper is no longer on your sheet; leave its row as it was downloaded.")
        return
    if now.version != stamped_version:
        refuse(
            f"the mark was changed in the app at {_when(now.updated_at)} (to "
            f"{shown_points(now.points) or 'blank'}), after this file was downloaded at "
            f"{_when(reading.exported_at)}; download a fresh copy or change it in the app."
        )
        return
    try:
        validate_points(points, criterion, where=where)
    except ValidationError as error:
        reading.errors.extend(UploadError(message, number, letter) for message in error.messages)
        return
    if points == now.points:
        return
    reading.changes.append(
        SheetChange(
            row=number,
            column=letter,
            label=label,
            code=criterion.code,
            old=now.points,
            new=points,
            version=now.version,
        )
    )
