"""Restoring a contest from a backup as background jobs (`grading.jobs`), as the console does
it: the uploaded file is checked by the restore's dry run (`Job.Kind.RESTORE_PREVIEW`: its
file is what the restore would create), then restored on confirmation (`Job.Kind.RESTORE`: its
file is the sentence of what was restored). At a real olympiad's size each takes most of a
minute, longer than a request should wait.

Both read the file as `import_contest` does (`backup_open`, `contest_import`): one
transaction, nothing written on any refusal. A refusal fails the job with its sentence, and
its report (`REFUSAL`, the sentences as a JSON list) names every problem and where, for the
page to list. Neither job has a contest while it works: the contest is what it restores; a
restore done becomes the restored contest's job, in the same transaction. The backup waits in
the preview job's folder (`JOB_INPUT`) and moves to the restore's on confirmation (one
confirmation per preview: a second is the same job); it is removed once restored."""

import json
import secrets
import shutil
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.files.move import file_move_safe
from django.db import transaction

from grading.backup.archive import backup_open
from grading.backup.restore import contest_import
from grading.jobs import running as jobs
from grading.jobs.failures import ReportedFailure
from grading.models import Job
from grading.rules.refusals import WrongState

PREVIEW = "restore-preview.json"
REFUSAL = "restore-refusal.json"
RESTORED_SUFFIX = "-restored.txt"
NOT_CURRENT = "This preview is no longer current; upload the backup again."


class _DryRun(Exception):
    pass


def _input(job: Job) -> Path:
    return jobs.job_folder(job) / jobs.JOB_INPUT


def restore_preview_start(*, upload, name: str, user) -> Job:
    """Queue the check of an uploaded backup (Django's `UploadedFile`), which moves into the
    job's folder as `name`, a plain file name (a temporary file is moved, not copied); the
    organizer's alone."""
    with transaction.atomic():
        # A token of its own: two uploads are two previews, even of files of one name.
        params = {"file": name, "upload": secrets.token_hex(8)}
        job = jobs.job_start(kind=Job.Kind.RESTORE_PREVIEW, contest=None, user=user, params=params)
        target = _input(job) / params["file"]
        target.parent.mkdir(parents=True)
        if hasattr(upload, "temporary_file_path"):
            file_move_safe(upload.temporary_file_path(), target)
        else:
            with target.open("wb") as out:
                for chunk in upload.chunks():
                    out.write(chunk)
        # The job is queued when this transaction commits, with its file in place.
    return job


@transaction.atomic
def restore_start(*, preview: Job, user) -> Job:
    """Queue the restore of what the preview job `preview` checked; its backup moves to the
    restore's folder. The restore of that preview already started is returned instead of a
    second; a preview not done, or cancelled, is refused."""
    preview = Job.objects.select_for_update().get(pk=preview.pk)
    started = Job.objects.filter(kind=Job.Kind.RESTORE, params__preview=preview.pk).first()
    if started is not None:
        return started
    if preview.state == Job.State.FAILED:
        raise WrongState("This backup was refused; nothing restores from it. Upload it again.")
    if preview.state != Job.State.DONE:
        raise WrongState("This preview is not finished: wait until it is, then confirm.")
    if not _input(preview).is_dir():
        raise ValidationError(NOT_CURRENT)
    job = jobs.job_start(
        kind=Job.Kind.RESTORE, contest=None, user=user, params={"preview": preview.pk}
    )
    _input(job).parent.mkdir(parents=True, exist_ok=True)
    _input(preview).replace(_input(job))
    return job


def restore_cancel(*, preview: Job) -> None:
    """Remove the backup a preview checked: nothing will restore it."""
    shutil.rmtree(_input(preview), ignore_errors=True)


def _backup(job: Job) -> Path:
    files = sorted(_input(job).iterdir()) if _input(job).is_dir() else []
    if not files:
        raise ValidationError("The uploaded backup is no longer on the server; upload it again.")
    return files[0]


def _refused(error: ValidationError, scratch: Path, name: str) -> ReportedFailure:
    """The job's failure: one sentence, or how many; the report lists each."""
    report = scratch / REFUSAL
    report.write_text(json.dumps(error.messages, ensure_ascii=False), encoding="utf-8")
    count = len(error.messages)
    sentence = (
        error.messages[0]
        if count == 1
        else f"{name} was not restored: {count} problems, each listed below; nothing was written."
    )
    return ReportedFailure(sentence, report=report)


def restore_preview_work(job: Job, scratch: Path, progress) -> Path:
    """The work of a RESTORE_PREVIEW job: the restore done and rolled back; its file what it
    would create (`preview_read`)."""
    path = _backup(job)
    try:
        with backup_open(path) as backup, transaction.atomic():
            summary = contest_import(
                document=backup.document,
                pages=backup.pages,
                source=path.name,
                dry_run=True,
                progress=progress,
            )
            contest = summary.contest
            preview = {
                "name": contest.name,
                "slug": contest.slug,
                "state": contest.get_state_display(),
                "problems": contest.problems.count(),
                "papers": summary.papers,
                "marks": summary.marks,
                "mark_events": summary.mark_events,
                "scan_pages": summary.scan_pages,
                "users_created": summary.users_created,
            }
            raise _DryRun
    except _DryRun:
        pass
    except ValidationError as error:
        raise _refused(error, scratch, path.name) from None
    made = scratch / PREVIEW
    made.write_text(json.dumps(preview, ensure_ascii=False), encoding="utf-8")
    return made


def restore_work(job: Job, scratch: Path, progress) -> Path:
    """The work of a RESTORE job: the backup restored in one transaction, which also makes the
    job the restored contest's; its file the sentence of what was restored."""
    path = _backup(job)
    try:
        with backup_open(path) as backup, transaction.atomic():
            summary = contest_import(
                document=backup.document, pages=backup.pages, source=path.name, progress=progress
            )
            Job.objects.filter(pk=job.pk).update(contest=summary.contest)
    except ValidationError as error:
        raise _refused(error, scratch, path.name) from None
    shutil.rmtree(_input(job), ignore_errors=True)  # restored: the file's work is done
    made = scratch / f"{summary.contest.slug}{RESTORED_SUFFIX}"
    made.write_text(f"{summary}\n", encoding="utf-8")
    return made


def restore_job(pk) -> Job | None:
    """The restore preview or restore job `pk`, if there is one. One query."""
    kinds = (Job.Kind.RESTORE_PREVIEW, Job.Kind.RESTORE)
    return Job.objects.filter(pk=pk, kind__in=kinds).select_related("contest").first()


def preview_read(job: Job) -> dict | None:
    """What a done preview found the backup would create (None while it is not done)."""
    path = jobs.job_file(job) if job.state == Job.State.DONE else None
    return None if path is None else json.loads(path.read_text(encoding="utf-8"))


def refusal_read(job: Job) -> list[str]:
    """Every sentence of a failed job's refusal (its one sentence without a report)."""
    path = jobs.job_file(job) if job.state == Job.State.FAILED else None
    if path is None or path.name != REFUSAL:
        return [job.error] if job.error else []
    return json.loads(path.read_text(encoding="utf-8"))
