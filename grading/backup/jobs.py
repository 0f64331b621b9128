"""The contest's backup as a background job (`grading.jobs`): the very file `manage.py
export_contest` writes."""

from pathlib import Path

from grading.backup.archive import backup_write
from grading.models import Job


def backup_build(job: Job, scratch: Path, progress) -> Path:
    """The contest's backup archive, as `export_contest --out <slug>-backup.zip`."""
    progress(0, 1)
    path = scratch / f"{job.contest.slug}-backup.zip"
    backup_write(contest=job.contest, path=path)
    progress(1, 1)
    return path
