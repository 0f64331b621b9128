"""Background jobs: work a person starts from a page and waits on, run by the task worker.

A `Job` row is what the pages show (state, progress done/total, a sentence on failure, the
finished file); a `django.tasks` task (`run_job` below, on the database backend) is how
the work reaches the worker process (`manage.py jobs_worker`). Each kind of job is one work
function, registered by its part (`register_work`): it gets the job, a private working folder and a progress callback, and
returns the file it made in that folder. A new kind (an import, an export) adds a `Job.Kind`, a
work function and its access rule; starting, progress, failure, retry and download are shared.

Nothing is lost when a worker dies mid-job: a job works in `<JOBS_DIR>/<id>/.work/`, which a new
run empties first, and its file reaches its final name by one rename at the very end, so a
finished file is always whole. A job left "running" by a worker that stopped beating
(`WorkerHeartbeat`) is shown as interrupted and can be retried, as a failed one can; running the
same job again is safe (a job already done is left as it is). A finished job's folder is removed
JOBS_KEEP_DAYS after it finished (`jobs_prune`, run by the worker daily); its row stays."""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.tasks import task
from django.utils import timezone
from django.utils.translation import ngettext

from grading.jobs.failures import ReportedFailure, failure_sentence
from grading.jobs.progress_note import note_progress, noted_progress, take_noted_progress
from grading.jobs.worker_liveness import alive_worker_ids
from grading.models import Job
from grading.rules import access
from grading.rules.refusals import NotAllowed, WrongState

logger = logging.getLogger(__name__)

# A progress write at most this often, and always for the last step: a job of thousands of small
# steps should not spend its time writing its own progress.
PROGRESS_EVERY_SECONDS = 0.25

Progress = Callable[[int, int], None]
Work = Callable[[Job, Path, Progress], Path]


# Each kind of job's work function, registered by the part that does the work (in its AppConfig's
# `ready()`): printing, imports and exports start jobs through this module, so it imports none of
# them.
_WORK: dict[str, Work] = {}


def register_work(kind: str, work: Work) -> None:
    """Make `work` the work function of the jobs of `kind` (a `Job.Kind`)."""
    _WORK[kind] = work


# --- what the pages show ----------------------------------------------------------------------


@dataclass(frozen=True)
class JobStatus:
    """A job as a person reads it. `state` is the stored state, except that a running job whose
    worker has stopped beating reads "interrupted"."""

    job: Job
    state: str
    label: str
    sentence: str
    percent: int
    finished: bool
    can_retry: bool
    can_download: bool


def job_status(job: Job, *, alive: set[str]) -> JobStatus:
    state, label = job.state, job.get_state_display()
    noted = noted_progress(job_folder(job)) if job.state == Job.State.RUNNING else None
    if noted is not None:
        # Progress made inside the work's own transaction, not in the row yet (`job_run`).
        job.done, job.total = noted
    if job.state == Job.State.RUNNING and job.worker_id not in alive:
        state, label = "interrupted", "Interrupted"
    percent = int(100 * job.done / job.total) if job.total else 0
    # Done, but its file was pruned (jobs_prune) or lost: the row stays as the record.
    removed = state == Job.State.DONE and job_file(job) is None
    if state == Job.State.QUEUED:
        sentence = (
            "Waiting for the task worker to pick it up."
            if alive
            else "Waiting for the task worker, and none is running: start it with "
            "`manage.py jobs_worker` (make run and make serve start one)."
        )
    elif state == Job.State.RUNNING:
        unit = {
            Job.Kind.IMPORT_OUTPUTS: "solutions imported",
            Job.Kind.IMPORT_SCANS: "scanned pages read",
            Job.Kind.BUNDLE: "papers laid out",
            Job.Kind.ASSIGNMENT: "problems solved",
            Job.Kind.ASSIGNMENT_CONFIRM: (
                "problems saved"
                if job.params.get("preview")
                else "steps done (each problem solved, then saved)"
            ),
            Job.Kind.RESTORE_PREVIEW: "steps done (pages and marks checked, marks written)",
            Job.Kind.RESTORE: "steps done (pages and marks checked, marks written)",
        }.get(job.kind, "files made")
        sentence = f"{job.done} of {job.total} {unit}." if job.total else "Starting."
    elif removed:
        label, sentence = "File removed", _removed_sentence(job)
    elif state == Job.State.DONE and job.kind == Job.Kind.IMPORT_OUTPUTS:
        sentence = "Imported; the report says what each system got."
    elif state == Job.State.DONE and job.kind == Job.Kind.IMPORT_SCANS:
        sentence = "Imported; the report says how many pages each answer got."
    elif state == Job.State.DONE and job.kind == Job.Kind.ASSIGNMENT:
        sentence = "Solved; the preview is below, and nothing is saved until you confirm it."
    elif state == Job.State.DONE and job.kind == Job.Kind.RESTORE_PREVIEW:
        sentence = "Checked; the preview is below, and nothing is restored until you confirm it."
    elif state == Job.State.DONE and job.kind in (Job.Kind.ASSIGNMENT_CONFIRM, Job.Kind.RESTORE):
        # Its file is what was saved (restored), said as the confirmation says it.
        sentence = job_file(job).read_text(encoding="utf-8").strip()
    elif state == Job.State.DONE:
        sentence = "Ready to download."
    elif state == Job.State.FAILED:
        sentence = job.error
    else:
        sentence = (
            f"The task worker stopped after {job.done} of {job.total} files; nothing it "
            "finished is lost. Retry to finish the job."
        )
    return JobStatus(
        job=job,
        state=state,
        label=label,
        sentence=sentence,
        percent=percent,
        finished=state in (Job.State.DONE, Job.State.FAILED, "interrupted"),
        can_retry=state in (Job.State.FAILED, "interrupted"),
        can_download=(state == Job.State.DONE and not removed)
        or (state == Job.State.FAILED and job_file(job) is not None),
    )


def _removed_sentence(job: Job) -> str:
    """Why a done job offers no file: pruned after JOBS_KEEP_DAYS (`jobs_prune`), or lost
    otherwise (removed by hand, a JOBS_DIR not on persistent storage)."""
    days = settings.JOBS_KEEP_DAYS
    pruned = job.finished_at and job.finished_at < timezone.now() - timedelta(days=days)
    gone = (
        f"was removed after {ngettext('%d day', '%d days', days) % days}, as every finished job's "
        "file is"
        if pruned
        else "is no longer on the server"
    )
    if job.kind in (Job.Kind.IMPORT_OUTPUTS, Job.Kind.IMPORT_SCANS):
        # Starting an import again would import again: the import stands, only its report went.
        return f"Imported; its report {gone}."
    if job.kind == Job.Kind.ASSIGNMENT_CONFIRM:
        # The assignments stand; only the sentence of what was saved went.
        return f"Saved; its record {gone}."
    if job.kind in (Job.Kind.RESTORE_PREVIEW, Job.Kind.RESTORE):
        return f"Its record {gone}; a restore done stands."
    return f"The file {gone}; start the job again on the jobs page to make it anew."


def contest_jobs(contest, *, limit: int = 20) -> list[JobStatus]:
    """The contest's latest jobs, newest first, in two queries. A reader's own bundle is not
    among them: it is theirs alone (`access.may_fetch_bundle_job`)."""
    alive = alive_worker_ids()
    jobs = (
        Job.objects.filter(contest=contest)
        .exclude(kind=Job.Kind.BUNDLE)
        .select_related("contest", "requested_by")[:limit]
    )
    return [job_status(job, alive=alive) for job in jobs]


# --- files ------------------------------------------------------------------------------------


# The subfolder of a job's folder holding what it works from (an import's files), kept by runs
# and moved to a retry.
JOB_INPUT = "input"


def job_folder(job: Job) -> Path:
    return Path(settings.JOBS_DIR) / str(job.pk)


def job_file(job: Job) -> Path | None:
    """The finished file, if the job is done (or failed with a report) and its file is there."""
    if job.state not in (Job.State.DONE, Job.State.FAILED) or not job.result_path:
        return None
    path = Path(settings.JOBS_DIR) / job.result_path
    return path if path.is_file() else None


@dataclass
class PruneStats:
    jobs: int = 0  # folders of finished jobs
    orphans: int = 0  # folders of jobs no longer in the database (deleted in the admin)
    bytes: int = 0


# How old a folder of no job must be before it is removed (see jobs_prune).
ORPHAN_AFTER = timedelta(hours=1)


def jobs_prune(*, older_than: timedelta, dry_run: bool = False) -> PruneStats:
    """Remove the folders of jobs that finished (done or failed) more than `older_than` ago, and
    those of jobs no longer in the database (deleted in the admin); never a waiting or running
    job's. The Job rows stay, as the record of who asked for what; a done job whose file is gone
    reads so (`job_status`). Safe at any time, and files that vanish meanwhile are fine: the task
    worker runs it about once a day (`prune_jobs` by hand)."""
    stats = PruneStats()
    root = Path(settings.JOBS_DIR)
    try:
        folders = {
            int(path.name): path for path in root.iterdir() if path.name.isdigit() and path.is_dir()
        }
    except FileNotFoundError:
        return stats
    now = timezone.now()
    cutoff = now - older_than
    # A folder of no job serves nobody, but it is not taken for one until ORPHAN_AFTER old: an
    # import writes its job's folder inside the transaction that creates the row
    # (console_imports._as_job), so a new job's row may not be visible yet.
    orphan_cutoff = (now - ORPHAN_AFTER).timestamp()
    rows = {
        pk: (state, finished_at)
        for pk, state, finished_at in Job.objects.filter(pk__in=list(folders)).values_list(
            "pk", "state", "finished_at"
        )
    }
    for pk, folder in sorted(folders.items()):
        if pk in rows:
            state, finished_at = rows[pk]
            finished = state in (Job.State.DONE, Job.State.FAILED) and finished_at is not None
            if not finished or finished_at >= cutoff:
                continue
        try:
            if pk not in rows and folder.stat().st_mtime >= orphan_cutoff:
                continue
            size = _folder_bytes(folder)
        except FileNotFoundError:
            continue
        if not dry_run:
            try:
                shutil.rmtree(folder, onexc=_vanished_is_fine)
            except OSError:
                # One folder it may not remove must not stop the others (nor the worker).
                logger.exception("The folder of job %s could not be removed", pk)
                continue
        if pk in rows:
            stats.jobs += 1
        else:
            stats.orphans += 1
        stats.bytes += size
    return stats


def _vanished_is_fine(function, path, error: BaseException) -> None:
    if not isinstance(error, FileNotFoundError):
        raise error


def _folder_bytes(folder: Path) -> int:
    size = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file():
                size += path.stat().st_size
        except FileNotFoundError:
            pass
    return size


# --- writes -----------------------------------------------------------------------------------


def may_start(user, kind: str, problem=None) -> bool:
    if kind == Job.Kind.BUNDLE:
        return problem is not None and access.may_read_problem(user, problem)
    if kind == Job.Kind.PRINTOUTS:
        return access.may_run_jobs(user)
    if kind in (Job.Kind.IMPORT_OUTPUTS, Job.Kind.IMPORT_SCANS):
        # The scans' report names contestants by their codes: the organizer's alone.
        return access.may_run_contest(user)
    if kind in (Job.Kind.BACKUP, Job.Kind.RESTORE_PREVIEW, Job.Kind.RESTORE):
        # The backup holds every paper's identity: the organizer's alone, as export_contest
        # and import_contest.
        return access.may_run_contest(user)
    if kind in (Job.Kind.RESULTS, Job.Kind.JURY_EVALUATIONS):
        return access.may_read_results(user)
    # Assigning is setting the contest up: the organizer's, as the console's page.
    assigning = (Job.Kind.ASSIGNMENT, Job.Kind.ASSIGNMENT_CONFIRM)
    return kind in assigning and access.may_run_contest(user)


START_REFUSAL = "Only the organizer and the chair start this job."
START_REFUSALS = {
    Job.Kind.IMPORT_OUTPUTS: "Only the organizer imports a contest's outputs.",
    Job.Kind.IMPORT_SCANS: "Only the organizer imports scanned papers.",
    Job.Kind.BACKUP: "Only the organizer backs a contest up: the backup names every AI system.",
    Job.Kind.BUNDLE: "Only the jurors of a problem, the chair and the organizer print its papers.",
    Job.Kind.ASSIGNMENT: "Only the organizer assigns papers to jurors.",
    Job.Kind.ASSIGNMENT_CONFIRM: "Only the organizer assigns papers to jurors.",
    Job.Kind.RESTORE_PREVIEW: "Only the organizer restores a contest from a backup.",
    Job.Kind.RESTORE: "Only the organizer restores a contest from a backup.",
}
# The kinds a person starts from the jobs page (an import starts from its own confirmation).
STARTED_FROM_PAGE = (
    Job.Kind.PRINTOUTS,
    Job.Kind.RESULTS,
    Job.Kind.JURY_EVALUATIONS,
    Job.Kind.BACKUP,
)


@transaction.atomic
def job_start(
    *,
    kind: str,
    contest,
    user,
    problem=None,
    with_criteria: bool = False,
    params: dict | None = None,
) -> Job:
    """Queue a job of `kind` for `contest` on `user`'s behalf (a bundle: of `problem`, with
    marking pages or not), asked with `params`. The same job still waiting or running for the
    contest (a bundle: the same user's of the same papers) is returned instead of a second."""
    access.require(may_start(user, kind, problem), START_REFUSALS.get(kind, START_REFUSAL))
    alive = alive_worker_ids()
    same = {}
    if kind == Job.Kind.BUNDLE:
        same = {"requested_by": user, "problem": problem, "with_criteria": with_criteria}
    for pending in Job.objects.select_for_update().filter(
        contest=contest, kind=kind, state__in=[Job.State.QUEUED, Job.State.RUNNING], **same
    ):
        # Compared here rather than in SQL: JSON equality is not the same on every database.
        if pending.params != (params or {}):
            continue
        if job_status(pending, alive=alive).state != "interrupted":
            return pending
    job = Job.objects.create(
        kind=kind,
        contest=contest,
        requested_by=user,
        problem=problem,
        with_criteria=with_criteria,
        params=params or {},
    )
    _enqueue(job)
    return job


@transaction.atomic
def job_retry(*, job: Job, user) -> Job:
    """A new job doing what a failed or interrupted `job` did; the old one stays on record."""
    access.require(
        may_start(user, job.kind, job.problem), START_REFUSALS.get(job.kind, START_REFUSAL)
    )
    job = Job.objects.select_for_update().get(pk=job.pk)
    if not job_status(job, alive=alive_worker_ids()).can_retry:
        raise WrongState(
            "Only a failed or interrupted job can be retried; this one is "
            f"{job.get_state_display().lower()}."
        )
    if job.state == Job.State.RUNNING:
        # Interrupted: say so on record, so that the old row no longer reads as running.
        job.state = Job.State.FAILED
        job.error = "The task worker stopped before the job finished; it was retried."
        job.finished_at = timezone.now()
        job.save(update_fields=["state", "error", "finished_at"])
    retry = Job.objects.create(
        kind=job.kind,
        contest=job.contest,
        requested_by=user,
        problem=job.problem,
        with_criteria=job.with_criteria,
        params=job.params,
        retry_of=job,
    )
    # What the job works from (an import's uploaded files) goes to the retry.
    if (job_folder(job) / JOB_INPUT).is_dir():
        job_folder(retry).mkdir(parents=True, exist_ok=True)
        (job_folder(job) / JOB_INPUT).replace(job_folder(retry) / JOB_INPUT)
    shutil.rmtree(job_folder(job), ignore_errors=True)
    _enqueue(retry)
    return retry


@task(takes_context=True)
def run_job(context, job_id: int) -> str:
    """The one task of the task worker (`django.tasks` on the database backend; `manage.py
    jobs_worker`): run the job `job_id` and return its final state. The row says what to do, so
    the pages, the worker and the tests share one path."""
    worker_ids = context.task_result.worker_ids
    return job_run(job_id=job_id, worker_id=worker_ids[-1] if worker_ids else "")


def _enqueue(job: Job) -> None:
    # After the commit, so that a worker never looks for a row it cannot see yet.
    transaction.on_commit(lambda: run_job.enqueue(job_id=job.pk))


def job_run(*, job_id: int, worker_id: str) -> str:
    """Run job `job_id` (the task's body). Safe to run twice: a job already done is left as it
    is, and an unfinished one starts over in an emptied working folder. Returns the job's
    final state."""
    job = Job.objects.select_related("contest").get(pk=job_id)
    if job.state == Job.State.DONE and job_file(job):
        return job.state
    work = _WORK[job.kind]
    folder = job_folder(job)
    scratch = folder / ".work"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    Job.objects.filter(pk=job.pk).update(
        state=Job.State.RUNNING,
        worker_id=worker_id,
        started_at=timezone.now(),
        done=0,
        total=0,
        error="",
        result_path="",
        names_identities=False,
    )
    last_write = 0.0
    # The transactions open around the work (a test's own), to tell those the work opens.
    outside = len(transaction.get_connection().atomic_blocks)

    def progress(done: int, total: int) -> None:
        nonlocal last_write
        now = time.monotonic()
        if done < total and now - last_write < PROGRESS_EVERY_SECONDS:
            return
        last_write = now
        if len(transaction.get_connection().atomic_blocks) > outside:
            # Inside the work's own transaction (a service that saves all or nothing), a write
            # of the row would be seen only at its commit: the pages read a note meanwhile.
            note_progress(job_folder(job), done, total)
        else:
            Job.objects.filter(pk=job.pk).update(done=done, total=total)

    try:
        made = work(job, scratch, progress)
        final = folder / made.name
        made.replace(final)
    except Exception as error:
        logger.exception("Job %s (%s) failed", job.pk, job.kind)
        report = ""
        if isinstance(error, ReportedFailure) and error.report.is_file():
            error.report.replace(folder / error.report.name)
            report = str((folder / error.report.name).relative_to(Path(settings.JOBS_DIR)))
        Job.objects.filter(pk=job.pk).update(
            state=Job.State.FAILED,
            error=failure_sentence(job, error),
            finished_at=timezone.now(),
            result_path=report,
            **take_noted_progress(job_folder(job)),
        )
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    Job.objects.filter(pk=job.pk).update(
        state=Job.State.DONE,
        result_path=str(final.relative_to(Path(settings.JOBS_DIR))),
        finished_at=timezone.now(),
        **take_noted_progress(job_folder(job)),
    )
    shutil.rmtree(scratch, ignore_errors=True)
    return Job.State.DONE


def job_for_reader(*, user, contest, pk: int) -> Job:
    """The job, for someone who may see the contest's jobs, or a bundle for the one who asked
    for it; `NotAllowed` otherwise, a job that is not there alike (views turn it into a 404
    so that outsiders learn nothing)."""
    job = (
        Job.objects.select_related("contest", "requested_by", "problem__contest")
        .filter(pk=pk, contest=contest)
        .first()
    )
    if job is not None and job.kind == Job.Kind.BUNDLE:
        if access.may_fetch_bundle_job(user, job):
            return job
    elif job is not None and access.may_run_jobs(user):
        return job
    raise NotAllowed("Only the organizer and the chair see the contest's jobs.")
