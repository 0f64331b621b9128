"""Scanned pages of a backup being restored: each page's image is checked (a PNG of pixels
only, within bounds, of the size its row says) and staged, one at a time, in a private folder
inside SCANS_DIR; the restore moves the staged files in under fresh random names only when it
writes, and removes what it moved when it fails. A version 2 backup's images are members of its
archive (extracted member by member, never held whole in memory), a version 1 backup's are base64
inside its document. An interrupted restore's folder is `.import-*`, which prune_scans removes."""

import base64
import binascii
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from django.conf import settings
from PIL import Image, UnidentifiedImageError

from grading.backup.reader import Reader, read_fields
from grading.backup.table import LEGACY_VERSION, SCAN_PAGES
from grading.models import Paper
from grading.papers import images

MB = 1024 * 1024
_CHUNK = MB
# A page scanned at 150 dpi is a few million pixels; an image far past this is not a scanned
# page, and decoding it would take the machine's memory.
MAX_SCAN_IMAGE_PIXELS = 40_000_000
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SCAN_PAGE = SCAN_PAGES.spec()
_LEGACY_IMAGE = {"png": "text"}
_ARCHIVE_IMAGE = {"image": "text", "sha256": "text"}


def max_page_bytes() -> int:
    return settings.BACKUP_PAGE_MAX_MB * MB


def page_too_large() -> str:
    return (
        f"the image is larger than {settings.BACKUP_PAGE_MAX_MB} MB (BACKUP_PAGE_MAX_MB), more "
        "than any scanned page; it was not made by export_contest."
    )


class Staging:
    """The restore's page images: staged in a private folder (made on the first page), then
    moved into SCANS_DIR by `place`; `undo` removes what was placed, `close` the folder."""

    def __init__(self, archive):
        self.archive = archive
        self.folder: Path | None = None
        self.placed: list[Path] = []
        self._count = 0

    def _target(self) -> Path:
        if self.folder is None:
            images.scans_dir().mkdir(parents=True, exist_ok=True)
            # Inside SCANS_DIR, so that moving a page in is a rename on one file system.
            self.folder = Path(tempfile.mkdtemp(prefix=".import-restore-", dir=images.scans_dir()))
        self._count += 1
        return self.folder / f"{self._count}.png"

    def from_archive(self, r: Reader, where: str, member: str, sha256: str) -> Path | None:
        if self.archive is None:
            r.error(where, f"the image is {member} of an archive, but this backup is no archive.")
            return None
        target = self._target()
        sentence = self.archive.extract(member, target, sha256)
        if sentence:
            r.error(where, sentence)
            return None
        return target

    def from_base64(self, r: Reader, where: str, text: str) -> Path | None:
        if len(text) > max_page_bytes() * 4 // 3 + 4:
            r.error(where, page_too_large())
            return None
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            r.error(where, "the image is not base64 text.")
            return None
        target = self._target()
        target.write_bytes(data)
        return target

    def place(self, staged: Path) -> str:
        """Move a staged page into SCANS_DIR; its fresh random name."""
        name = images.random_name()
        target = images.scans_dir() / name
        os.replace(staged, target)
        self.placed.append(target)
        return name

    def undo(self) -> None:
        for path in self.placed:
            path.unlink(missing_ok=True)
        self.placed = []

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def copy_counted(source, target: Path, limit: int) -> tuple[int, str] | None:
    """Copy the stream `source` to `target` in chunks; its size and SHA-256, or None as soon
    as it passes `limit` bytes (the partial file is removed)."""
    digest, size = hashlib.sha256(), 0
    with target.open("wb") as out:
        while chunk := source.read(_CHUNK):
            size += len(chunk)
            if size > limit:
                break
            digest.update(chunk)
            out.write(chunk)
    if size > limit:
        target.unlink()
        return None
    return size, digest.hexdigest()


def read_scan_pages(
    r: Reader, document: dict, staging: Staging, papers, paper_ref, problem_ref, step=None
):
    """The document's scanned pages, each checked with its image staged ("staged": its path);
    `step()` after each page (a restore's progress)."""
    legacy = document.get("version") == LEGACY_VERSION
    scan_pages, page_keys, members = [], set(), {}
    for where, row in r.items(document, "scan_pages", ""):
        values = read_fields(
            r, row, where, SCAN_PAGE | (_LEGACY_IMAGE if legacy else _ARCHIVE_IMAGE)
        )
        paper_ref(values["paper"], where)
        problem_ref(values["problem"], where)
        paper = papers.get(values["paper"])
        if paper is not None and paper.source != Paper.Source.HUMAN:
            r.error(where, "only a human contestant's paper has scanned pages.")
        if values["position"] == 0:
            r.error(where, "a page's position starts at 1.")
        key = (values["paper"], values["problem"], values["position"])
        if key in page_keys:
            r.error(where, "this page of the paper's answer appears twice.")
        page_keys.add(key)
        staged = None
        if legacy and values["png"] is not None:
            staged = staging.from_base64(r, where, values.pop("png"))
        elif not legacy and None not in (values["image"], values["sha256"]):
            member = values["image"]
            if member in members:
                r.error(where, f"the image {member} is the image of {members[member]} too.")
            else:
                members[member] = where
                staged = staging.from_archive(r, where, member, values["sha256"])
        if staged is not None and not _scan_png(
            r, where, staged, values["width"], values["height"]
        ):
            staged.unlink()
            staged = None
        values["staged"] = staged
        scan_pages.append(values)
        if step is not None:
            step()
    return scan_pages


def _scan_png(r: Reader, where: str, path: Path, width, height) -> bool:
    """Whether the staged image is a PNG of the size the row says, holding pixels only (no
    text, EXIF or profile that could name anyone); else a sentence. Decoded from the file, one
    page at a time."""
    with path.open("rb") as stream:
        if stream.read(len(_PNG_SIGNATURE)) != _PNG_SIGNATURE:
            r.error(where, "the image is not a PNG; a scanned page is stored as PNG.")
            return False
    try:
        with Image.open(path, formats=["PNG"]) as image:
            size, info = image.size, dict(image.info)
            if size[0] * size[1] > MAX_SCAN_IMAGE_PIXELS:
                r.error(
                    where,
                    f"the image has {size[0]} × {size[1]} pixels, more than any scanned page.",
                )
                return False
            # Every chunk whole and its checksum right: WeasyPrint, once imported, makes
            # Pillow load truncated images without a word, so load() alone would not tell.
            image.verify()
        with Image.open(path, formats=["PNG"]) as image:
            image.load()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        r.error(where, "the image is a damaged PNG that cannot be read.")
        return False
    sound = True
    if (width, height) != size:
        r.error(
            where,
            f"the image has {size[0]} × {size[1]} pixels, not the {width} × {height} "
            "the page says.",
        )
        sound = False
    if info:
        r.error(
            where,
            f"the image carries metadata ({', '.join(sorted(map(str, info)))}); "
            "a scanned page holds pixels only.",
        )
        sound = False
    return sound
