"""The console's zips, checked before anything is extracted: the member count, the size once
extracted (counted again while writing, since the header may lie), and every path, which must
stay inside its folder; symbolic links are refused. A zip of AI outputs' record folders
(`extract_records_zip`) and a zip of scanned PDFs (`extract_scans_zip`) share the checks, each
with its bounds."""

import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.conf import settings

from grading.intake.importers.errors import ImportProblems

# Files a zip from a Mac or Windows carries beside the real ones.
_JUNK = ("__MACOSX", ".DS_Store", "Thumbs.db")


def _member_path(info: zipfile.ZipInfo) -> PurePosixPath | None:
    """The member's path inside the zip, or None for one that would escape its folder."""
    name = info.filename.replace("\\", "/")
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or re.match(r"^[A-Za-z]:", name):
        return None
    return path


def _is_junk(path: PurePosixPath) -> bool:
    return any(part in _JUNK or part.startswith("._") for part in path.parts)


@dataclass(frozen=True)
class ZipBounds:
    """How many files a zip may hold and how large they may come to once extracted; with the
    settings' names when the refusal should name them."""

    members: int
    size: int
    members_setting: str = ""
    size_setting: str = ""


def _named(setting: str) -> str:
    return f" ({setting})" if setting else ""


def _outputs_bounds() -> ZipBounds:
    return ZipBounds(settings.IMPORT_ZIP_MAX_MEMBERS, settings.IMPORT_ZIP_MAX_BYTES)


def _scans_bounds() -> ZipBounds:
    return ZipBounds(
        settings.DATA_UPLOAD_MAX_NUMBER_FILES,
        settings.SCAN_UPLOAD_MAX_BYTES,
        "DATA_UPLOAD_MAX_NUMBER_FILES",
        "SCAN_UPLOAD_MAX_BYTES",
    )


def extract_records_zip(archive: Path) -> list[Path]:
    """Extract `archive` next to itself into a folder named after it; return what to import:
    the folder that holds the record folders (the zip's single top folder when it has one), or
    else the files in it."""
    return _records_in(_unpack_zip(archive, _outputs_bounds()))


def extract_scans_zip(archive: Path) -> list[Path]:
    """The files of a zip of scanned PDFs, extracted next to it, from every folder of it, in
    the order of their paths."""
    root = _unpack_zip(archive, _scans_bounds())
    return sorted(
        (path for path in root.rglob("*") if path.is_file()),
        key=lambda path: path.relative_to(root).parts,
    )


def _unpack_zip(archive: Path, bounds: ZipBounds) -> Path:
    """Extract `archive` next to itself into a folder named after it, and return the folder.
    Every refusal is a sentence naming the zip; nothing is extracted before the whole list is
    checked, and the size is counted again while writing, since a zip's header may lie."""
    name = archive.name
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError):
        raise ImportProblems([f"{name}: not a zip file, or a damaged one."]) from None
    with zf:
        infos = zf.infolist()
        problems = []
        if len(infos) > bounds.members:
            problems.append(
                f"{name}: the zip holds {len(infos):,} files; at most "
                f"{bounds.members:,} are accepted{_named(bounds.members_setting)}."
            )
        total = sum(info.file_size for info in infos)
        if total > bounds.size:
            problems.append(
                f"{name}: the zip's files come to {total // (1024 * 1024):,} MB once extracted; "
                f"at most {bounds.size // (1024 * 1024):,} MB are accepted"
                f"{_named(bounds.size_setting)}."
            )
        members = []
        for info in infos:
            path = _member_path(info)
            if path is None:
                problems.append(
                    f"{name}: “{info.filename}” points outside the zip's folder; "
                    "such a zip is refused."
                )
                continue
            if stat.S_ISLNK(info.external_attr >> 16):
                problems.append(
                    f"{name}: “{info.filename}” is a symbolic link; such a zip is refused."
                )
                continue
            if info.is_dir() or _is_junk(path):
                continue
            members.append((info, path))
        if problems:
            raise ImportProblems(problems)
        if not members:
            raise ImportProblems([f"{name}: the zip holds no files."])
        root = archive.parent / (archive.stem or "records")
        resolved_root = root.resolve()
        folders = set()
        written = 0
        for info, path in members:
            target = root.joinpath(*path.parts)
            if not target.resolve().is_relative_to(resolved_root):
                raise ImportProblems(
                    [f"{name}: “{info.filename}” points outside the zip's folder."]
                )
            if target.parent not in folders:  # once a folder, not once a file
                target.parent.mkdir(parents=True, exist_ok=True)
                folders.add(target.parent)
            try:
                with zf.open(info) as source, target.open("wb") as out:
                    while chunk := source.read(1024 * 1024):
                        written += len(chunk)
                        if written > bounds.size:
                            raise ImportProblems(
                                [
                                    f"{name}: the zip's files come to more than "
                                    f"{bounds.size // (1024 * 1024):,} MB once extracted"
                                    f"{_named(bounds.size_setting)}; such a zip is refused."
                                ]
                            )
                        out.write(chunk)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError):
                raise ImportProblems(
                    [f"{name}: “{info.filename}” cannot be extracted (a damaged or encrypted zip)."]
                ) from None
    return root


def _records_in(root: Path) -> list[Path]:
    # A zip made by compressing the `records` folder itself holds one top folder.
    while True:
        children = list(root.iterdir())
        if (
            len(children) == 1
            and children[0].is_dir()
            and not (root / "predictions.json").exists()
            and not (children[0] / "predictions.json").exists()
        ):
            root = children[0]
            continue
        if (root / "predictions.json").exists() or any(
            (child / "predictions.json").is_file() for child in children
        ):
            return [root]
        # No record folder: the zip's files (submission CSVs, raw JSONL) each by its shape.
        return sorted(children)
