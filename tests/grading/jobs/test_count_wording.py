"""Pruning jobs words its counts in the singular for one and the plural otherwise: the command's
summary and the sentence of a job whose file was removed."""

import os
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from grading.jobs import running as jobs
from grading.models import Job
from tests import factories


@pytest.fixture
def jobs_dir(settings, tmp_path):
    settings.JOBS_DIR = tmp_path / "jobs"
    settings.JOBS_DIR.mkdir()
    return settings.JOBS_DIR


@pytest.fixture
def contest(db):
    return factories.make_contest("small", problems=1, papers=1)


def _done_job(contest, *, finished_days_ago: int) -> Job:
    job = Job.objects.create(
        kind=Job.Kind.PRINTOUTS,
        contest=contest,
        state=Job.State.DONE,
        finished_at=timezone.now() - timedelta(days=finished_days_ago),
    )
    folder = jobs.job_folder(job)
    folder.mkdir()
    (folder / "small-printouts.zip").write_bytes(b"")
    job.result_path = f"{job.pk}/small-printouts.zip"
    job.save(update_fields=["result_path"])
    return job


def _deleted_jobs_folders(contest, count: int) -> None:
    """Folders of jobs deleted in the admin two hours ago."""
    two_hours_ago = time.time() - 2 * 3600
    for _ in range(count):
        job = _done_job(contest, finished_days_ago=0)
        folder = jobs.job_folder(job)
        job.delete()
        os.utime(folder, (two_hours_ago, two_hours_ago))


@pytest.mark.parametrize(
    ("old_jobs", "folders", "counts"),
    [
        (1, 2, "1 job finished 30 days ago or more and 2 folders"),
        (2, 1, "2 jobs finished 30 days ago or more and 1 folder"),
    ],
)
def test_prune_jobs_counts_the_jobs_and_the_folders(contest, jobs_dir, old_jobs, folders, counts):
    for _ in range(old_jobs):
        _done_job(contest, finished_days_ago=31)
    _deleted_jobs_folders(contest, folders)
    out = StringIO()
    call_command("prune_jobs", "--days", "30", stdout=out)
    assert out.getvalue() == (
        f"Deleted the files of {counts} of deleted jobs (0.0 MB) in {jobs_dir}.\n"
    )


@pytest.mark.parametrize(("days", "kept"), [(1, "1 day"), (2, "2 days")])
def test_a_pruned_job_says_how_many_days_files_are_kept(contest, jobs_dir, settings, days, kept):
    settings.JOBS_KEEP_DAYS = days
    job = _done_job(contest, finished_days_ago=days + 1)
    jobs.jobs_prune(older_than=timedelta(days=days))
    assert jobs.job_status(job, alive=set()).sentence == (
        f"The file was removed after {kept}, as every finished job's file is; start the job "
        "again on the jobs page to make it anew."
    )
