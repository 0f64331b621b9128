"""The stamp of an uploaded sheet: the very hidden tab that ties the file to the juror's sheet
and says what each cell held at the download, signed so that an edited stamp is refused rather
than trusted, and read as untrusted all the same."""

import json
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils import timezone

from grading.marking.selectors import SheetGrid
from grading.marking.xlsx import FORMAT, STAMP, stamp_signature
from grading.marking.xlsx_bounds import FileRefused
from rubrics.validators import parse_points


@dataclass
class Stamp:
    meta: dict
    cells: dict[tuple[str, str], tuple[int, Decimal | None]]
    labels: list[str]
    codes: list[str]
    exported_at: datetime
    # The notes as downloaded; empty for a file stamped before notes were in the workbook.
    notes: dict[tuple[str, str], str] = field(default_factory=dict)


def read_stamp(book) -> Stamp:
    fresh = "download a fresh copy of your sheet and enter your marks there"
    if STAMP not in book.sheetnames:
        raise FileRefused(
            "The file has no stamp: it was not downloaded from a Jury sheet, or the program "
            f"that saved it dropped hidden tabs; {fresh}."
        )
    values = [row[0] for row in book[STAMP].iter_rows(min_row=2, max_col=1, values_only=True)]
    if len(values) < 2 or not all(isinstance(value, str) for value in values):
        raise FileRefused(f"The file's stamp was changed; {fresh}.")
    meta_line, signature, *lines = values
    if stamp_signature([meta_line, *lines]) != signature:
        raise FileRefused(f"The file's stamp was changed; {fresh}.")
    # Signed, so written by this site; still read as untrusted, so that a stamp of another
    # version (or a leaked key) is refused with a sentence rather than a traceback.
    changed = FileRefused(f"The file's stamp was changed; {fresh}.")
    meta = _stamp_json(meta_line, changed)
    if not isinstance(meta, dict):
        raise changed
    if meta.get("format") != FORMAT:
        raise FileRefused(f"The file was made by another version of Jury; {fresh}.")
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
    return Stamp(
        meta=meta, cells=cells, labels=labels, codes=codes, exported_at=exported_at, notes=notes
    )


_META_TYPES = {"sheet": int, "juror_id": int, "contest": str, "problem": int, "exported_at": str}


def _stamp_json(line: str, changed: FileRefused):
    try:
        return json.loads(line)
    except (ValueError, RecursionError):  # ValueError also for integers too long to read
        raise changed from None


def _stamp_meta_checked(meta: dict, changed: FileRefused) -> datetime:
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


def _stamp_cell(
    line: str, changed: FileRefused
) -> tuple[str, str, int, Decimal | None, str | None]:
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


def check_identity(meta: dict, *, grid: SheetGrid, juror) -> None:
    problem = grid.sheet.problem
    if meta["juror_id"] != juror.pk:
        raise FileRefused(
            "This file is another juror's sheet; upload the file downloaded from your own sheet."
        )
    if meta["contest"] != problem.contest.slug:
        raise FileRefused(
            f"This file is a sheet of another contest (“{meta['contest']}”), not of "
            f"{problem.contest.name}; upload it on that contest's sheet."
        )
    if meta["problem"] != problem.number:
        raise FileRefused(
            f"This file is your sheet for P{meta['problem']}, not for {problem.code}; upload "
            f"it on the P{meta['problem']} sheet."
        )
    if meta["sheet"] != grid.sheet.pk:
        raise FileRefused(
            "This file belongs to an earlier sheet of yours that no longer exists; download "
            "a fresh copy."
        )
