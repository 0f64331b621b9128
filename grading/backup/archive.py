"""The backup file (version 2): a zip archive holding each scanned page's PNG as its own member,
`pages/000001.png` and on in the order of the document's "scan_pages" (a neutral index: never a
stored name, identity or anything of the paper), then the document of rows as `backup.json`.

Both ways go member by member: export copies each page from SCANS_DIR in chunks, hashing it on
the way (the document carries each page's SHA-256, so a restore verifies it), and restore
extracts one member at a time (grading.backup.pages) and reads the document's marks row by row
from its member (grading.backup.stream). Members carry a fixed time stamp and mode
and come in a fixed order, so that exporting a restored contest gives the same bytes. Every
bound (BACKUP_MAX_MB, BACKUP_JSON_MAX_MB, BACKUP_MAX_MEMBERS, BACKUP_PAGE_MAX_MB) is refused
by name, before writing and before reading; a backup file of version 1 (one JSON document,
grading.backup.legacy) is still read."""

import hashlib
import os
import re
import secrets
import stat
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError

from grading.backup import legacy, stream
from grading.backup.export import contest_document
from grading.backup.pages import copy_counted, max_page_bytes, page_too_large
from rubrics.models import Contest

MB = 1024 * 1024
_CHUNK = MB
DOCUMENT = "backup.json"
_PAGE = re.compile(r"pages/[0-9]{6,9}\.png")
# 1980-01-01, the earliest time a zip can say: the same in every backup.
_WHEN = (1980, 1, 1, 0, 0, 0)
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def _mb(size: int) -> str:
    return f"{size / MB:.1f} MB"


def _member(name: str, *, deflate: bool) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_WHEN)
    # PNGs are compressed already; the document is text.
    info.compress_type = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    info.create_system = 3
    info.external_attr = (stat.S_IFREG | 0o600) << 16
    return info


def _refuse_export(contest: Contest, held: str, bound: str, setting: str) -> ValidationError:
    return ValidationError(
        f"The backup of {contest.name} would hold {held}, more than the {bound} that "
        f"import_contest reads back ({setting}); nothing was written. Set {setting} higher, "
        "here and wherever the backup will be restored."
    )


def backup_write(*, contest: Contest, path: Path) -> dict:
    """Write the contest's backup archive to `path`; returns the document written. A backup
    past a bound that restoring applies is refused with nothing written (a file that cannot be
    restored is no backup): the archive is written beside `path` and renamed only when whole."""
    document, sources = contest_document(contest=contest)
    sizes = [source.stat().st_size for source in sources]
    if len(sources) + 1 > settings.BACKUP_MAX_MEMBERS:
        raise _refuse_export(
            contest,
            f"{len(sources) + 1:,} files",
            f"{settings.BACKUP_MAX_MEMBERS:,} files",
            "BACKUP_MAX_MEMBERS",
        )
    if sizes and max(sizes) > max_page_bytes():
        raise _refuse_export(
            contest,
            f"a page image of {_mb(max(sizes))}",
            f"{settings.BACKUP_PAGE_MAX_MB} MB",
            "BACKUP_PAGE_MAX_MB",
        )
    if sum(sizes) > settings.BACKUP_MAX_MB * MB:
        raise _refuse_export(
            contest, _mb(sum(sizes)), f"{settings.BACKUP_MAX_MB} MB", "BACKUP_MAX_MB"
        )
    partial = path.with_name(f".{path.name}.{secrets.token_hex(8)}.partial")
    try:
        with zipfile.ZipFile(partial, "w") as archive:
            for row, source in zip(document["scan_pages"], sources, strict=True):
                with (
                    source.open("rb") as stream,
                    archive.open(_member(row["image"], deflate=False), "w") as out,
                ):
                    row["sha256"] = _copy(stream, out)
            data = legacy.json_bytes(document)
            if len(data) > legacy.max_json_bytes():
                raise _refuse_export(
                    contest,
                    f"a document of {_mb(len(data))}",
                    f"{settings.BACKUP_JSON_MAX_MB} MB",
                    "BACKUP_JSON_MAX_MB",
                )
            if sum(sizes) + len(data) > settings.BACKUP_MAX_MB * MB:
                raise _refuse_export(
                    contest,
                    _mb(sum(sizes) + len(data)),
                    f"{settings.BACKUP_MAX_MB} MB",
                    "BACKUP_MAX_MB",
                )
            archive.writestr(_member(DOCUMENT, deflate=True), data)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return document


def _copy(stream, out) -> str:
    digest = hashlib.sha256()
    while chunk := stream.read(_CHUNK):
        digest.update(chunk)
        out.write(chunk)
    return digest.hexdigest()


@dataclass
class Backup:
    """A backup file opened: its document, and its page images' archive (None for version 1)."""

    document: object
    pages: "ArchivePages | None"


class ArchivePages:
    """The page members of an opened archive, extracted one by one."""

    def __init__(self, name: str, archive: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo]):
        self.name = name
        self.archive = archive
        self.members = members
        self.extracted = 0

    def extract(self, member: str, target: Path, sha256: str) -> str | None:
        """Write the member to `target`, checked against its SHA-256; None, or the sentence."""
        info = self.members.get(member)
        if info is None:
            return f"the archive holds no {member}."
        try:
            with self.archive.open(info) as stream:
                copied = copy_counted(stream, target, max_page_bytes())
        except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError):
            target.unlink(missing_ok=True)
            return f"{member} cannot be extracted (a damaged archive)."
        if copied is None:
            return page_too_large()
        # Checked on the headers already; counted again, as written, in case they lie.
        self.extracted += copied[0]
        if self.extracted > settings.BACKUP_MAX_MB * MB:
            return (
                f"the archive's files come to more than {settings.BACKUP_MAX_MB} MB once "
                "extracted (BACKUP_MAX_MB); such an archive is refused."
            )
        if copied[1] != sha256:
            return f"{member} is not the image the page names (its SHA-256 differs)."
        return None


def _refuse(name: str, sentence: str) -> ValidationError:
    return ValidationError(f"{name}: {sentence}")


def _checked_members(name: str, archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """The archive's members by name, every bound and name checked before anything is read:
    as the console's other zips, one that escapes its folder, links or is encrypted is refused."""
    infos = archive.infolist()
    if len(infos) > settings.BACKUP_MAX_MEMBERS:
        raise _refuse(
            name,
            f"the archive holds {len(infos):,} files; a backup holds at most "
            f"{settings.BACKUP_MAX_MEMBERS:,} (BACKUP_MAX_MEMBERS).",
        )
    total = sum(info.file_size for info in infos)
    if total > settings.BACKUP_MAX_MB * MB:
        raise _refuse(
            name,
            f"the archive's files come to {_mb(total)} once extracted; a backup is at most "
            f"{settings.BACKUP_MAX_MB} MB (BACKUP_MAX_MB).",
        )
    members = {}
    for info in infos:
        mode = info.external_attr >> 16
        if info.filename != DOCUMENT and not _PAGE.fullmatch(info.filename):
            raise _refuse(
                name,
                f"“{info.filename}” is not a file export_contest writes (backup.json, "
                "pages/000001.png, …); such an archive is refused.",
            )
        if stat.S_ISLNK(mode):
            raise _refuse(
                name, f"“{info.filename}” is a symbolic link; such an archive is refused."
            )
        if info.flag_bits & 0x1:
            raise _refuse(name, f"“{info.filename}” is encrypted; such an archive is refused.")
        if info.filename in members:
            raise _refuse(name, f"“{info.filename}” appears twice in the archive.")
        members[info.filename] = info
    if DOCUMENT not in members:
        raise _refuse(name, f"the archive holds no {DOCUMENT}; it was not made by export_contest.")
    if members[DOCUMENT].file_size > legacy.max_json_bytes():
        raise legacy.too_large(f"{name}'s {DOCUMENT}", "holds")
    return members


def _document(name: str, archive: zipfile.ZipFile, info: zipfile.ZipInfo):
    """The archive's document, its marks read row by row from the member each time they are
    walked (`grading.backup.stream`), refused past its bound whatever its header says."""
    where = f"{name}'s {DOCUMENT}"
    return stream.document_read(
        lambda: stream.counted(archive.open(info), where),
        where,
        damaged=f"{name}: {DOCUMENT} cannot be extracted (a damaged archive).",
    )


@contextmanager
def backup_open(path: Path):
    """Open a backup file, version 2 (the archive) or 1 (plain or gzipped JSON), as a Backup;
    refuses with a sentence naming the file. The archive stays open while the block runs."""
    try:
        with path.open("rb") as stream:
            magic = stream.read(4)
    except FileNotFoundError:
        raise ValidationError(f"There is no file {path}.") from None
    except IsADirectoryError:
        raise ValidationError(f"{path} is a folder, not a backup file.") from None
    if magic not in _ZIP_MAGIC:
        yield Backup(document=legacy.legacy_read(path, magic), pages=None)
        return
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        raise _refuse(path.name, "not a zip archive, or a damaged one.") from None
    with archive:
        members = _checked_members(path.name, archive)
        document = _document(path.name, archive, members.pop(DOCUMENT))
        yield Backup(document=document, pages=ArchivePages(path.name, archive, members))


def backup_read(path: Path):
    """The backup's document alone, whole (its pages' images stay in the file)."""
    with backup_open(path) as backup:
        return stream.materialized(backup.document)
