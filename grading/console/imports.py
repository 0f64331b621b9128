"""The console's imports: uploaded files wait in a private folder between the preview and the
confirmation, and go through the very importers the management commands call (a dry run for the
preview, the real run on confirmation), so that the browser and the terminal accept, refuse and
word everything alike.

Each upload gets a folder `<IMPORTS_DIR>/<token>/`, the token random and kept in the person's
session (never the files): the confirmation finds the files by it, and confirming or cancelling
removes the folder. Folders of previews never confirmed are removed after a day. A zip (AI
outputs as competition record folders, or scanned PDFs) is checked before anything is extracted
(`grading/intake/zips.py`). Importing a zip of record folders is a background job
(`Job.Kind.IMPORT_OUTPUTS`), as is every scan import (`Job.Kind.IMPORT_SCANS`): the preview of
scans reads their covers only for an upload of at most SCANS_IN_REQUEST pages, and otherwise
checks everything that needs no page rendered (`scans_survey`); the other imports are small and
run in the request."""

import json
import re
import secrets
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.utils.translation import ngettext

from grading.console.delegations import delegations_import
from grading.intake.importers import outputs_import, problemset_import
from grading.intake.importers.errors import ImportProblems
from grading.intake.importers.human_scores import human_scores_import
from grading.intake.scans.importing import scans_import, scans_survey
from grading.intake.scheme_files import schemes_read
from grading.intake.schemes import scheme_load
from grading.intake.zips import extract_records_zip, extract_scans_zip
from grading.jobs import running as jobs
from grading.models import Job
from rubrics.models import Contest

PROBLEMSET, SCHEMES, OUTPUTS, HUMAN_SCORES = "problemset", "schemes", "outputs", "human-scores"
# Delegations: `delegation, contestant code[, country]` rows (grading/console/delegations.py).
DELEGATIONS = "delegations"
# Scanned human papers (grading/scans/): PDFs and an optional page map, staged like the others.
SCANS = "scans"
KINDS = (PROBLEMSET, SCHEMES, OUTPUTS, HUMAN_SCORES, DELEGATIONS, SCANS)
# The preview renders and reads the covers of this many pages at most (about 0.12 s a page on two
# busy cores, bench/scans.py); a larger upload's preview reads the files' structure only, and
# its covers are read by the job.
SCANS_IN_REQUEST = 20
TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,64}$")
# In a job's input folder: what was staged (the paths, the system's name).
STAGED_FILE = "staged.json"
STALE_AFTER_SECONDS = 24 * 3600


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
            unzip = {OUTPUTS: extract_records_zip, SCANS: extract_scans_zip}.get(kind)
            if unzip and name.lower().endswith(".zip"):
                staged.zip = True
                staged.paths += [str(path.relative_to(staged.folder)) for path in unzip(target)]
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


# --- preview and confirmation -----------------------------------------------------------------


@dataclass
class Preview:
    """What a dry run says: the summary line, its detail lines, and for schemes the criteria."""

    line: str
    details: list[str] = field(default_factory=list)
    schemes: list = field(default_factory=list)  # grading.intake.schemes.SchemeSpec


def _text(path: Path) -> str:
    """A CSV's text, read as the CSV commands read it (import_human_scores)."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ValidationError(f"{path.name} is not UTF-8 text; save it as UTF-8 CSV.") from None


def _run(staged: Staged, contest: Contest, *, dry_run: bool, progress=None, user=None) -> Preview:
    files = staged.files()
    if staged.kind == SCANS:
        # Only previewed here: the import itself is always a job (confirm, scans_job_work).
        return _scans_preview(staged, contest, user=user)
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
    if staged.kind == DELEGATIONS:
        path = files[0]
        summary = delegations_import(
            contest=contest, text=_text(path), name=path.name, actor=user, dry_run=dry_run
        )
        return Preview(summary.line(), summary.detail_lines())
    raise ValueError(staged.kind)


def _plan_lines(plan) -> list[str]:
    return [
        f"{code}, problem {number}: {ngettext('%d page', '%d pages', pages) % pages}."
        for code, number, pages in plan
    ]


def _scans_preview(staged: Staged, contest: Contest, *, user) -> Preview:
    """The scans' preview, bounded whatever was uploaded: the import's checks that need no page
    rendered; then, for an upload of at most SCANS_IN_REQUEST pages, the whole dry run (covers
    read, codes and pages per answer)."""
    files = staged.files()
    pdfs, page_map = (files[:-1], files[-1]) if staged.page_map else (files, None)
    survey = scans_survey(contest=contest, files=pdfs, page_map=page_map, actor=user)
    staged.pages = survey.pages
    if survey.pages > SCANS_IN_REQUEST:
        return Preview(survey.line())
    summary = scans_import(contest=contest, files=pdfs, page_map=page_map, actor=user, dry_run=True)
    return Preview(summary.line(), _plan_lines(summary.plan))


def preview(staged: Staged, contest: Contest, *, user=None) -> Preview:
    """The importer's dry run: nothing written; ValidationError with every sentence."""
    return _run(staged, contest, dry_run=True, user=user)


def confirm(staged: Staged, contest: Contest, *, user) -> Preview | Job:
    """Import the staged files (in one transaction: nothing written on any error), then remove
    them. A zip of record folders and every scan import become a background job instead, which
    the returned Job is; its files move to the job's folder and are removed with it."""
    if staged.kind == OUTPUTS and staged.zip:
        return _as_job(staged, contest, user=user, kind=Job.Kind.IMPORT_OUTPUTS, what="AI outputs")
    if staged.kind == SCANS:
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
    # SQL because the ORM runs only on the registered connections (`DATABASES` aliases), and
    # this one is private to the import, made so that its autocommit cannot touch theirs.
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
