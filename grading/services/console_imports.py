"""The console's imports: uploaded files wait in a private folder between the preview and the
confirmation, and go through the very importers the management commands call (a dry run for the
preview, the real run on confirmation), so that the browser and the terminal accept, refuse and
word everything alike.

Each upload gets a folder `<IMPORTS_DIR>/<token>/`, the token random and kept in the person's
session (never the files): the confirmation finds the files by it, and confirming or cancelling
removes the folder. Folders of previews never confirmed are removed after a day. A zip (AI
outputs as competition record folders) is checked before anything is extracted: its member
count, its size once extracted (counted again while writing, since the header may lie), and every
path, which must stay inside its folder. Importing a zip of record folders is a background job
(`Job.Kind.IMPORT_OUTPUTS`), as are scans of more than SCANS_IN_REQUEST pages
(`Job.Kind.IMPORT_SCANS`); the other imports are small and run in the request."""

import json
import re
import secrets
import shutil
import stat
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction

from grading.importers import outputs_import, problemset_import
from grading.importers.errors import ImportProblems
from grading.importers.human_scores import human_scores_import
from grading.models import Job
from grading.scans.importing import scans_import
from grading.services import jobs
from rubrics.models import Contest
from rubrics.schemes import scheme_load, schemes_read

PROBLEMSET, SCHEMES, OUTPUTS, HUMAN_SCORES = "problemset", "schemes", "outputs", "human-scores"
# Scanned human papers (grading/scans/): PDFs and an optional page map, staged like the others.
SCANS = "scans"
KINDS = (PROBLEMSET, SCHEMES, OUTPUTS, HUMAN_SCORES, SCANS)
# Every page is rendered and read twice (preview, then import): a few seconds for this many.
SCANS_IN_REQUEST = 40
TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,64}$")
# In a job's input folder: what was staged (the paths, the system's name).
STAGED_FILE = "staged.json"
STALE_AFTER_SECONDS = 24 * 3600
# Files a zip from a Mac or Windows carries beside the real ones.
_JUNK = ("__MACOSX", ".DS_Store", "Thumbs.db")


@dataclass
class Upload:
    """One uploaded file: its name as the person's computer gave it, and its content's chunks."""

    name: str
    chunks: object  # an iterable of bytes (Django's UploadedFile.chunks())


@dataclass
class Staged:
    """Files waiting for a confirmation: what the session keeps (`to_session`)."""

    token: str
    kind: str
    contest: str
    paths: list[str] = field(default_factory=list)  # relative to the folder
    system: str = ""
    zip: bool = False
    page_map: bool = False  # scans: the last path is the page map
    pages: int = 0  # scans: the answer pages the preview found

    def to_session(self) -> dict:
        return dict(self.__dict__)

    @classmethod
    def from_session(cls, value) -> "Staged | None":
        if not isinstance(value, dict) or not TOKEN.match(str(value.get("token", ""))):
            return None
        try:
            return cls(**value)
        except TypeError:
            return None

    @property
    def folder(self) -> Path:
        return Path(settings.IMPORTS_DIR) / self.token

    def files(self) -> list[Path]:
        return [self.folder / path for path in self.paths]


def safe_name(name: str) -> str:
    """The file's own name, without any folder the browser sent along."""
    name = PurePosixPath(name.replace("\\", "/")).name.strip()
    if name in ("", ".", ".."):
        return "upload"
    return name


def sweep_stale() -> None:
    root = Path(settings.IMPORTS_DIR)
    if not root.is_dir():
        return
    limit = time.time() - STALE_AFTER_SECONDS
    for child in root.iterdir():
        try:
            if child.is_dir() and child.stat().st_mtime < limit:
                shutil.rmtree(child, ignore_errors=True)
        except OSError:
            continue


def stage(*, kind: str, contest: Contest, uploads: list[Upload], system: str = "") -> Staged:
    """Keep the uploads in a new private folder; ImportProblems if a zip is refused (nothing
    kept then). Each file goes to its own numbered subfolder under its own name, so that the
    importers' sentences name it as the person knows it."""
    sweep_stale()
    staged = Staged(
        token=secrets.token_urlsafe(24), kind=kind, contest=contest.slug, system=system.strip()
    )
    staged.folder.mkdir(parents=True, mode=0o700)
    try:
        for number, upload in enumerate(uploads, start=1):
            name = safe_name(upload.name)
            # Scheme files share one folder, as `load_schemes` reads them.
            target = staged.folder / ("schemes" if kind == SCHEMES else str(number)) / name
            if target.exists():
                raise ImportProblems([f"{name}: two uploaded files have this name."])
            target.parent.mkdir(exist_ok=True)
            with target.open("wb") as out:
                for chunk in upload.chunks:
                    out.write(chunk)
            if kind == OUTPUTS and name.lower().endswith(".zip"):
                staged.zip = True
                staged.paths += [
                    str(path.relative_to(staged.folder)) for path in _extract_zip(target)
                ]
                target.unlink()
            else:
                staged.paths.append(str(target.relative_to(staged.folder)))
    except BaseException:
        shutil.rmtree(staged.folder, ignore_errors=True)
        raise
    return staged


def discard(staged: Staged | None) -> None:
    if staged is not None:
        shutil.rmtree(staged.folder, ignore_errors=True)


# --- zips -------------------------------------------------------------------------------------


def _member_path(info: zipfile.ZipInfo) -> PurePosixPath | None:
    """The member's path inside the zip, or None for one that would escape its folder."""
    name = info.filename.replace("\\", "/")
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or re.match(r"^[A-Za-z]:", name):
        return None
    return path


def _is_junk(path: PurePosixPath) -> bool:
    return any(part in _JUNK or part.startswith("._") for part in path.parts)


def _extract_zip(archive: Path) -> list[Path]:
    """Extract `archive` next to itself into a folder named after it; return what to import:
    the folder that holds the record folders (the zip's single top folder when it has one), or
    else the files in it. Every refusal is a sentence naming the zip; nothing is extracted
    before the whole list is checked."""
    name = archive.name
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError):
        raise ImportProblems([f"{name}: not a zip file, or a damaged one."]) from None
    with zf:
        infos = zf.infolist()
        problems = []
        if len(infos) > settings.IMPORT_ZIP_MAX_MEMBERS:
            problems.append(
                f"{name}: the zip holds {len(infos):,} files; at most "
                f"{settings.IMPORT_ZIP_MAX_MEMBERS:,} are accepted."
            )
        total = sum(info.file_size for info in infos)
        if total > settings.IMPORT_ZIP_MAX_BYTES:
            problems.append(
                f"{name}: the zip's files come to {total // (1024 * 1024):,} MB once extracted; "
                f"at most {settings.IMPORT_ZIP_MAX_BYTES // (1024 * 1024):,} MB are accepted."
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
        written = 0
        for info, path in members:
            target = root.joinpath(*path.parts)
            if not target.resolve().is_relative_to(root.resolve()):
                raise ImportProblems(
                    [f"{name}: “{info.filename}” points outside the zip's folder."]
                )
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with zf.open(info) as source, target.open("wb") as out:
                    while chunk := source.read(1024 * 1024):
                        written += len(chunk)
                        if written > settings.IMPORT_ZIP_MAX_BYTES:
                            raise ImportProblems(
                                [
                                    f"{name}: the zip's files come to more than "
                                    f"{settings.IMPORT_ZIP_MAX_BYTES // (1024 * 1024):,} MB once "
                                    "extracted; such a zip is refused."
                                ]
                            )
                        out.write(chunk)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError):
                raise ImportProblems(
                    [f"{name}: “{info.filename}” cannot be extracted (a damaged or encrypted zip)."]
                ) from None
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


# --- preview and confirmation -----------------------------------------------------------------


@dataclass
class Preview:
    """What a dry run says: the summary line, its detail lines, and for schemes the criteria."""

    line: str
    details: list[str] = field(default_factory=list)
    schemes: list = field(default_factory=list)  # rubrics.schemes.SchemeSpec


def _text(path: Path) -> str:
    """A CSV's text, read as the CSV commands read it (import_human_scores)."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ValidationError(f"{path.name} is not UTF-8 text; save it as UTF-8 CSV.") from None


def _run(staged: Staged, contest: Contest, *, dry_run: bool, progress=None, user=None) -> Preview:
    files = staged.files()
    if staged.kind == SCANS:
        summary = scans_import(
            contest=contest,
            files=files[:-1] if staged.page_map else files,
            page_map=files[-1] if staged.page_map else None,
            actor=user,
            progress=progress,
            dry_run=dry_run,
        )
        if dry_run:
            staged.pages = summary.pages
        return Preview(
            summary.line(),
            [
                f"{code}, problem {number}: {pages} page{'' if pages == 1 else 's'}."
                for code, number, pages in summary.plan
            ],
        )
    if staged.kind == PROBLEMSET:
        summary = problemset_import(
            contest_slug=contest.slug, paths=files, dry_run=dry_run, progress=progress
        )
        verb = "would change" if dry_run else "changed"
        return Preview(
            summary.line(), [f"Task {external_id} {verb}." for external_id in summary.tasks_changed]
        )
    if staged.kind == SCHEMES:
        folder = staged.folder / "schemes"
        summary = scheme_load(contest=contest, directory=folder, dry_run=dry_run)
        specs = schemes_read(contest=contest, directory=folder) if dry_run else []
        return Preview(str(summary), [str(change) for change in summary.problems], specs)
    if staged.kind == OUTPUTS:
        summary = outputs_import(
            contest_slug=contest.slug,
            paths=files,
            system=staged.system or None,
            dry_run=dry_run,
            progress=progress,
        )
        return Preview(summary.line(), [system.line() for system in summary.systems])
    if staged.kind == HUMAN_SCORES:
        path = files[0]
        result = human_scores_import(
            contest=contest, text=_text(path), name=path.name, dry_run=dry_run
        )
        return Preview(
            str(result), [f"{score.contestant}: {score.total}" for score in result.scores]
        )
    raise ValueError(staged.kind)


def preview(staged: Staged, contest: Contest, *, user=None) -> Preview:
    """The importer's dry run: nothing written; ValidationError with every sentence."""
    return _run(staged, contest, dry_run=True, user=user)


def confirm(staged: Staged, contest: Contest, *, user) -> Preview | Job:
    """Import the staged files (in one transaction: nothing written on any error), then remove
    them. A zip of record folders becomes a background job instead, which the returned Job is;
    its files move to the job's folder and are removed with it."""
    if staged.kind == OUTPUTS and staged.zip:
        return _as_job(staged, contest, user=user, kind=Job.Kind.IMPORT_OUTPUTS, what="AI outputs")
    if staged.kind == SCANS and staged.pages > SCANS_IN_REQUEST:
        return _as_job(
            staged, contest, user=user, kind=Job.Kind.IMPORT_SCANS, what="scanned papers"
        )
    try:
        return _run(staged, contest, dry_run=False, user=user)
    finally:
        discard(staged)


def _as_job(staged: Staged, contest: Contest, *, user, kind: str, what: str) -> Job:
    with transaction.atomic():
        job = jobs.job_start(kind=kind, contest=contest, user=user)
        target = jobs.job_folder(job) / jobs.JOB_INPUT
        if target.exists():
            raise ValidationError(
                f"An import of {what} is already waiting or running for this contest; "
                "wait for it to finish, then upload again."
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        (staged.folder / STAGED_FILE).write_text(json.dumps(staged.to_session()))
        staged.folder.replace(target)
        # The job is queued when this transaction commits, with its files in place.
    return job


PROGRESS_EVERY_SECONDS = 0.25


def _write_progress(side, job_id: int, done: int, total: int) -> None:
    with side.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Job._meta.db_table} SET done = %s, total = %s WHERE id = %s",
            [done, total, job_id],
        )


class _SideProgress:
    """The import's progress, written where the job's page can read it while the import's
    transaction is still open: on PostgreSQL through a second connection in autocommit (the
    import's own writes, the job's row among them, are invisible outside until the commit);
    on SQLite, which has one writer at a time, through the job's own callback, seen at the
    commit."""

    def __init__(self, job: Job, progress):
        self.job_id = job.pk
        self.progress = progress
        self.total = 0
        self.last = 0.0
        self.side = (
            connections.create_connection(DEFAULT_DB_ALIAS)
            if connection.vendor == "postgresql"
            else None
        )

    def __call__(self, done: int, total: int) -> None:
        self.total = total
        if self.side is None:
            self.progress(done, total)
            return
        now = time.monotonic()
        if done < total and now - self.last < PROGRESS_EVERY_SECONDS:
            return
        self.last = now
        _write_progress(self.side, self.job_id, done, total)

    def counted(self, items, total, description):
        """The importers' `progress` hook: yields `items`, counting them here."""
        self(0, total)
        for done, item in enumerate(items, start=1):
            yield item
            self(done, total)

    def close(self) -> None:
        if self.side is not None:
            self.side.close()


def _staged_input(job: Job, what: str) -> tuple[Path, Staged]:
    """The job's input folder and what the preview staged there; a sentence if it is gone."""
    input_folder = jobs.job_folder(job) / jobs.JOB_INPUT
    try:
        staged = Staged(**json.loads((input_folder / STAGED_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        raise ValidationError(
            f"The uploaded {what} of this import are no longer there; upload them again."
        ) from None
    return input_folder, staged


def outputs_job_work(job: Job, scratch: Path, progress) -> Path:
    """The work of an IMPORT_OUTPUTS job: the importer on the files in the job's input folder
    (as the preview staged them), progress by solution written; the file it makes is the
    import's report."""
    input_folder, staged = _staged_input(job, "files")
    side = _SideProgress(job, progress)
    try:
        summary = outputs_import(
            contest_slug=job.contest.slug,
            paths=[input_folder / path for path in staged.paths],
            system=staged.system or None,
            progress=side.counted,
        )
    finally:
        side.close()
    progress(side.total, side.total)
    report = scratch / f"{job.contest.slug}-outputs-import.txt"
    report.write_text(
        "\n".join([summary.line(), *(system.line() for system in summary.systems)]) + "\n",
        encoding="utf-8",
    )
    return report


def scans_job_work(job: Job, scratch: Path, progress) -> Path:
    """The work of an IMPORT_SCANS job: the scan import on the PDFs (and page map) in the job's
    input folder, as the preview staged them, progress by page read; its report (the
    organizer's alone: it names contestants by their codes) is the file it makes."""
    input_folder, staged = _staged_input(job, "scans")
    files = [input_folder / path for path in staged.paths]
    side = _SideProgress(job, progress)
    try:
        summary = scans_import(
            contest=job.contest,
            files=files[:-1] if staged.page_map else files,
            page_map=files[-1] if staged.page_map else None,
            actor=job.requested_by,
            progress=side.counted,
        )
    except ImportProblems as error:
        # The job's page is the chair's to read as well, and the sentences name contestants'
        # codes: the count only, and the way to read them.
        count = len(error.messages)
        raise ValidationError(
            f"Nothing was imported: the scans no longer pass the import's checks ({count} "
            f"problem{'' if count == 1 else 's'}; the contest changed since the preview). "
            "Upload them again to read the problems in the preview."
        ) from None
    finally:
        side.close()
    progress(side.total, side.total)
    report = scratch / f"{job.contest.slug}-scans-import.txt"
    report.write_text(
        "\n".join(
            [
                summary.line(),
                *(
                    f"{code}, problem {number}: {pages} page{'' if pages == 1 else 's'}."
                    for code, number, pages in summary.plan
                ),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    return report
