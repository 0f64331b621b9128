"""What bounds the work on an uploaded sheet before openpyxl builds anything: the zip's directory
and a streamed read of each tab refuse a file no sheet of the problem could be."""

import io
import posixpath
import zipfile
import zlib
from dataclasses import dataclass
from xml.etree import ElementTree

from django.utils.translation import ngettext
from openpyxl.utils import column_index_from_string, get_column_letter
from openpyxl.utils.cell import coordinate_from_string, range_boundaries
from openpyxl.utils.exceptions import CellCoordinatesException

from grading.marking.selectors import SheetGrid
from grading.marking.sheets import NOTE_MAX_LENGTH
from grading.marking.xlsx import FIRST_ROW, MARKS


@dataclass
class UploadError:
    message: str
    row: int | None = None
    column: str | None = None


class FileRefused(Exception):
    """The file as a whole cannot be read; its message is the one error shown."""


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
DOWNLOADED = "upload the .xlsx file downloaded from your sheet"
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
            f"{ngettext('%d paper', '%d papers', papers) % papers} × "
            f"{ngettext('%d criterion', '%d criteria', criteria) % criteria}"
        ),
    )


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def check_bounds(data: bytes, *, grid: SheetGrid) -> list[UploadError]:
    """Refuse, from the zip's directory and a streamed read of each tab, a file that no sheet
    of this problem could be; the merged cells of the Marks tab, if any, as errors."""
    bounds = _bounds(grid)
    code = grid.sheet.problem.code
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as error:
        raise FileRefused(
            "The file could not be read as an XLSX workbook "
            f"({type(error).__name__}); {DOWNLOADED}."
        ) from None
    with archive:
        parts = archive.infolist()
        if len(parts) > MAX_PARTS:
            raise FileRefused(
                f"The file holds {len(parts):,} parts; a sheet's workbook holds a dozen or "
                f"so. Please {DOWNLOADED}."
            )
        total = sum(part.file_size for part in parts)
        if total > bounds.unpacked:
            raise FileRefused(
                f"The file unpacks to {_mb(total)}; a sheet of {code} ({bounds.shape}) "
                f"unpacks to less than {_mb(bounds.unpacked)}. Please {DOWNLOADED}."
            )
        for part in parts:
            if part.file_size > _RATIO_FROM_BYTES and part.file_size > MAX_PACKING_RATIO * max(
                part.compress_size, 1
            ):
                raise FileRefused(
                    f"Part {part.filename} of the file is packed "
                    f"{part.file_size // max(part.compress_size, 1):,} times smaller than "
                    f"its content, which no sheet is. Please {DOWNLOADED}."
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

    def beyond(what: str) -> FileRefused:
        return FileRefused(
            f"{tab} reaches {what}; a sheet of {code} ({bounds.shape}) ends at column "
            f"{get_column_letter(last_column)}, row "
            f"{max_rows - SLACK_ROWS}. Please {fresh}."
        )

    def check_cell(ref: str) -> None:
        try:
            letters, row = coordinate_from_string(ref)
            column = column_index_from_string(letters)
        except (ValueError, CellCoordinatesException):
            raise FileRefused(
                f"{tab} holds a cell named “{ref[:20]}”, which is not a cell; {DOWNLOADED}."
            ) from None
        if row > max_rows or column > bounds.columns:
            raise beyond(f"cell {ref}")

    def too_many(what: str, limit: int) -> FileRefused:
        return FileRefused(
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
        raise FileRefused(
            f"The file could not be read as an XLSX workbook ({type(error).__name__}); "
            f"{DOWNLOADED}."
        ) from None
    if merges and not is_marks:
        raise FileRefused(
            f"{tab} has merged cells ({merges[0][:40]}); {DOWNLOADED}, where no cells are merged."
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
