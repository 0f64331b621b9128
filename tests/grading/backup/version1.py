"""Version 1 backup files for the tests that check such a file still restores and is refused
where it is wrong: the document export_contest wrote before the archive (each page's PNG as
base64 in place of its archive member's name), made here from the current document and the
pages' stored files. The application itself only reads them (grading.backup.legacy); real files
written by that release are in tests/fixtures/backups/."""

import base64
import gzip
from pathlib import Path

from grading.backup.legacy import json_bytes
from grading.backup.table import LEGACY_VERSION


def version1_document(document: dict, sources: list[Path]) -> dict:
    """The version 1 document of a contest (`grading.backup.export.contest_document`)."""
    pages = [
        {**_without_image(row), "png": base64.b64encode(source.read_bytes()).decode("ascii")}
        for row, source in zip(document["scan_pages"], sources, strict=True)
    ]
    return document | {"version": LEGACY_VERSION, "scan_pages": pages}


def _without_image(row: dict) -> dict:
    return {key: value for key, value in row.items() if key not in ("image", "sha256")}


def version1_bytes(document: dict, *, compress: bool = False) -> bytes:
    """A version 1 document as export_contest wrote it, gzipped when `compress` (time stamp
    zeroed, so that equal contests gave equal files)."""
    data = json_bytes(document)
    return gzip.compress(data, mtime=0) if compress else data
