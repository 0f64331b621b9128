"""An uploaded sheet read back: the file is compared with its stamp (what each cell held at
download) and with the current marks, never trusted on its own. Like every output module this
one works on what selectors return and never queries."""

import io
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils import timezone
from openpyxl import load_workbook
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula

from grading.marking.marks import decided_by_chair
from grading.marking.selectors import SheetGrid
from grading.marking.sheets import NOTE_MAX_LENGTH, SheetChange
from grading.marking.xlsx import FIRST_ROW, MARKS, NOTES
from grading.marking.xlsx_bounds import DOWNLOADED, FileRefused, UploadError, check_bounds
from grading.marking.xlsx_stamp import Stamp, check_identity, read_stamp
from grading.rules.domain import points_or_blank, points_text
from rubrics.validators import parse_points, validate_points


def _when(moment: datetime | None) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M") if moment else "earlier"


@dataclass
class HeldCell:
    """A cell the file changes that is not written: the app changed it too since the download
    (neither side wins; the juror settles it in the app), or the chair decided it. `tab`, `row`
    and `column` are where the file holds it (the Notes tab's column C for a note)."""

    tab: str
    row: int
    column: str
    label: str
    code: str
    file: str
    app: str
    reason: str

    def to_session(self) -> dict:
        return asdict(self)


@dataclass
class UploadReading:
    """What an uploaded file would do: the changes, the errors that stop it, the cells it
    changes that are held back (`held`), the cells the app already holds as the file says
    (`already`: an earlier upload of the same file wrote them), and the cells the app changed
    after the download that the file leaves alone (`kept`)."""

    changes: list[SheetChange] = field(default_factory=list)
    errors: list[UploadError] = field(default_factory=list)
    held: list[HeldCell] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    exported_at: datetime | None = None
    # Whether every cell was read, so that `changes` is all the file would change once its
    # errors are fixed; False when the file was refused before its cells (no stamp, moved columns).
    cells_read: bool = False


def read_sheet_upload(
    *, data: bytes, grid: SheetGrid, juror, decided: dict[tuple[str, str], Decimal] | None = None
) -> UploadReading:
    """Compare an uploaded workbook with its stamp and with the current marks of `grid`.

    Each cell is judged against what it held at the download: left as it was, it changes
    nothing, whatever the app holds now; changed to what the app holds now, there is nothing to
    change; changed while the app changed it too, or on a cell in `decided` (label, code → the
    chair's points), it is held and shown; any other change is written on confirmation."""
    reading = UploadReading()
    try:
        merged = check_bounds(data, grid=grid)
        if merged:
            reading.errors.extend(merged)
            return reading
        book = _open(data)
        stamp = read_stamp(book)
        check_identity(stamp.meta, grid=grid, juror=juror)
        reading.exported_at = stamp.exported_at
        if MARKS not in book.sheetnames:
            raise FileRefused(
                f"The file has no “{MARKS}” tab; upload the workbook as it was downloaded."
            )
        current_codes = [criterion.code for criterion in grid.criteria]
        if stamp.codes != current_codes:
            raise FileRefused(
                f"The grading scheme of {grid.sheet.problem.code} changed since this file was "
                f"downloaded at {_when(reading.exported_at)}; download a fresh copy."
            )
    except FileRefused as refusal:
        reading.errors.append(UploadError(str(refusal)))
        return reading
    _read_marks(book[MARKS], stamp=stamp, grid=grid, reading=reading, decided=decided or {})
    if NOTES in book.sheetnames and stamp.notes and reading.cells_read:
        _read_notes(book[NOTES], stamp=stamp, grid=grid, reading=reading)
    return reading


def _open(data: bytes):
    try:
        return load_workbook(io.BytesIO(data), data_only=False)
    except Exception as error:  # openpyxl raises many kinds for a file that is not XLSX
        raise FileRefused(
            "The file could not be read as an XLSX workbook "
            f"({type(error).__name__}); {DOWNLOADED}."
        ) from None


def _read_marks(
    worksheet, *, stamp: Stamp, grid: SheetGrid, reading: UploadReading, decided: dict
) -> None:
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
                decided=decided.get((label, code)),
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


def _read_notes(worksheet, *, stamp: Stamp, grid: SheetGrid, reading: UploadReading) -> None:
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
        if note == now.note:
            reading.already.append(f"{label} {code} (note)")
            continue
        if now.note != stamp.notes[key]:
            reading.held.append(
                HeldCell(
                    tab=NOTES,
                    row=number,
                    column="C",
                    label=label,
                    code=code,
                    file=note,
                    app=now.note,
                    reason=_changed_in_app(
                        "the note",
                        downloaded=f"“{stamp.notes[key]}”" if stamp.notes[key] else "no note",
                        app=f"“{now.note}”" if now.note else "no note",
                        now=now,
                        exported_at=reading.exported_at,
                    ),
                )
            )
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


def _read_cell(
    cell, *, number, label, criterion, stamped, now, reading: UploadReading, decided
) -> None:
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
    if _reconfirms(now, points, stamped_version):
        # A reopened mark, downloaded since it reopened and kept in the file: the juror
        # re-confirms it by uploading it (`mark_set` clears the reopening).
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
        return
    if stamped is None or points == stamped_points:
        # The file leaves this cell as it was downloaded: whatever the app holds now stays.
        if stamped is not None and now is not None and now.version != stamped_version:
            reading.kept.append(f"{label} {criterion.code}")
        return
    if now is None:
        refuse("this paper is no longer on your sheet; leave its row as it was downloaded.")
        return
    if points == now.points:
        # Already in the app as the file says: this file (or one like it) was confirmed before.
        reading.already.append(f"{label} {criterion.code}")
        return
    try:
        validate_points(points, criterion, where=where)
    except ValidationError as error:
        reading.errors.extend(UploadError(message, number, letter) for message in error.messages)
        return

    def hold(reason: str) -> None:
        reading.held.append(
            HeldCell(
                tab=MARKS,
                row=number,
                column=letter,
                label=label,
                code=criterion.code,
                file=points_text(points),
                app=points_or_blank(now.points),
                reason=reason,
            )
        )

    if now.points != stamped_points:
        # Judged by points, not version: a note changed in the app since is no conflict with
        # the file's points (the write keeps that note).
        hold(
            _changed_in_app(
                "the mark",
                downloaded=points_or_blank(stamped_points),
                app=points_or_blank(now.points),
                now=now,
                exported_at=reading.exported_at,
            )
        )
        return
    if decided is not None:
        hold(decided_by_chair(criterion.code, decided))
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


def _reconfirms(now, points, stamped_version) -> bool:
    """Whether the file's value re-confirms a reopened mark: the same points as the app holds,
    in a file downloaded at the mark's current version (after it reopened)."""
    return (
        now is not None
        and now.reopened
        and points is not None
        and points == now.points
        and stamped_version == now.version
    )


def _changed_in_app(
    what: str, *, downloaded: str, app: str, now, exported_at: datetime | None
) -> str:
    return (
        f"Changed in the app too since the download ({downloaded} at the download, {app} in "
        f"the app at {_when(now.updated_at)}; the file was downloaded at {_when(exported_at)}): "
        f"{what} stays as the app has it; change it there if the file is right."
    )
