"""Pruning finished jobs' files: a done or failed job's folder goes JOBS_KEEP_DAYS after the job
finished, and the folder of a job deleted in the admin once it is an hour old; a waiting or
running job's folder, a recent one and anything not named as a job stay. The jobs stay on record
and say their file was removed. `prune_jobs` does it by hand, the task worker's heartbeat thread daily."""

import html
import logging
import os
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from grading.jobs import running as jobs
from grading.jobs.management.commands.jobs_worker import PRUNE_EVERY_SECONDS, HeartbeatThread
from grading.models import Job, WorkerHeartbeat
from tests import factories

DAYS = 24 * 3600


@pytest.fixture
def jobs_dir(settings, tmp_path):
    settings.JOBS_DIR = tmp_path / "jobs"
    settings.JOBS_KEEP_DAYS = 30
    settings.JOBS_DIR.mkdir()
    return settings.JOBS_DIR


@pytest.fixture
def contest(db):
    return factories.make_contest("small", problems=1, papers=1)


def _job(contest, *, state, finished_days_ago=None, kind=Job.Kind.PRINTOUTS, size=0, user=None):
    """A job in `state` with its folder: a finished file of `size` bytes when it is done, an
    import's input (what a failed job keeps for its retry) otherwise."""
    finished_at = (
        None if finished_days_ago is None else timezone.now() - timedelta(days=finished_days_ago)
    )
    job = Job.objects.create(
        kind=kind, contest=contest, requested_by=user, state=state, finished_at=finished_at
    )
    folder = jobs.job_folder(job)
    if state == Job.State.DONE:
        folder.mkdir()
        (folder / "small-printouts.zip").write_bytes(b"x" * size)
        job.result_path = f"{job.pk}/small-printouts.zip"
        job.save(update_fields=["result_path"])
    else:
        (folder / jobs.JOB_INPUT).mkdir(parents=True)
        (folder / jobs.JOB_INPUT / "outputs.zip").write_bytes(b"x" * size)
    return job


def _age(path, seconds):
    when = time.time() - seconds
    os.utime(path, (when, when))


def _left(jobs_dir) -> list[str]:
    return sorted(path.name for path in jobs_dir.iterdir())


@pytest.fixture
def prunable(contest, jobs_dir):
    """Two finished jobs old enough to prune (2 MB), a deleted job's folder (0.3 MB), and what
    must stay: a recent job, a waiting and a running one (the running one re-runs a job that had
    finished long ago), a deleted job's folder made a moment ago, and a folder of no job."""
    old_done = _job(contest, state=Job.State.DONE, finished_days_ago=31, size=1_500_000)
    old_failed = _job(contest, state=Job.State.FAILED, finished_days_ago=40, size=500_000)
    recent = _job(contest, state=Job.State.DONE, finished_days_ago=29, size=100)
    queued = _job(contest, state=Job.State.QUEUED, size=100)
    running = _job(contest, state=Job.State.RUNNING, finished_days_ago=90, size=100)
    deleted = _job(contest, state=Job.State.DONE, size=300_000)
    young_deleted = _job(contest, state=Job.State.FAILED, size=100)
    Job.objects.filter(pk__in=[deleted.pk, young_deleted.pk]).delete()
    _age(jobs.job_folder(deleted), 2 * 3600)
    (jobs_dir / "notes").mkdir()
    _age(jobs_dir / "notes", 400 * DAYS)
    return {
        "pruned": [str(old_done.pk), str(old_failed.pk), str(deleted.pk)],
        "kept": [str(job.pk) for job in (recent, queued, running, young_deleted)] + ["notes"],
    }


def test_finished_jobs_folders_go_after_the_days_kept_and_deleted_jobs_folders_after_an_hour(
    prunable, jobs_dir
):
    stats = jobs.jobs_prune(older_than=timedelta(days=30))
    assert stats == jobs.PruneStats(jobs=2, orphans=1, bytes=2_300_000)
    assert _left(jobs_dir) == sorted(prunable["kept"])
    # The jobs stay on record, as they were.
    assert sorted(Job.objects.values_list("state", flat=True)) == [
        Job.State.DONE,
        Job.State.DONE,
        Job.State.FAILED,
        Job.State.QUEUED,
        Job.State.RUNNING,
    ]
    assert jobs.jobs_prune(older_than=timedelta(days=30)) == jobs.PruneStats()


def test_a_dry_run_removes_nothing_and_reports_what_a_prune_would(prunable, jobs_dir):
    before = sorted(str(path.relative_to(jobs_dir)) for path in jobs_dir.rglob("*"))
    stats = jobs.jobs_prune(older_than=timedelta(days=30), dry_run=True)
    assert stats == jobs.PruneStats(jobs=2, orphans=1, bytes=2_300_000)
    assert sorted(str(path.relative_to(jobs_dir)) for path in jobs_dir.rglob("*")) == before
    assert jobs.jobs_prune(older_than=timedelta(days=30)) == stats


def test_pruning_without_a_jobs_folder_yet_removes_nothing(db, settings, tmp_path):
    settings.JOBS_DIR = tmp_path / "never-made"
    assert jobs.jobs_prune(older_than=timedelta(days=1)) == jobs.PruneStats()


def test_a_pruned_job_says_its_file_was_removed_and_offers_no_download(contest, jobs_dir, chair):
    job = _job(contest, state=Job.State.DONE, finished_days_ago=31, size=10, user=chair)
    client = Client()
    client.force_login(chair)
    page_url = reverse("job", args=[contest.slug, job.pk])
    download_url = reverse("job_download", args=[contest.slug, job.pk])
    assert "Download the printouts (zip)" in client.get(page_url).content.decode()

    jobs.jobs_prune(older_than=timedelta(days=30))

    status = jobs.job_status(job, alive=set())
    assert (status.state, status.label, status.sentence, status.finished, status.can_download) == (
        Job.State.DONE,
        "File removed",
        "The file was removed after 30 days, as every finished job's file is; start the job "
        "again on the jobs page to make it anew.",
        True,
        False,
    )
    for url in (page_url, reverse("job_progress", args=[contest.slug, job.pk])):
        body = html.unescape(client.get(url).content.decode())
        assert (status.sentence in body, download_url in body, "hx-trigger" in body) == (
            True,
            False,
            False,
        )
    listing = client.get(reverse("jobs", args=[contest.slug])).content.decode()
    assert ("File removed" in listing, download_url in listing) == (True, False)
    assert client.get(download_url).status_code == 404


def test_an_imports_removed_report_leaves_the_import_standing_and_a_lost_file_says_so(
    contest, jobs_dir
):
    report = _job(contest, state=Job.State.DONE, finished_days_ago=31, kind=Job.Kind.IMPORT_SCANS)
    lost = _job(contest, state=Job.State.DONE, finished_days_ago=2)
    jobs.jobs_prune(older_than=timedelta(days=30))
    (jobs.job_folder(lost) / "small-printouts.zip").unlink()  # removed by hand
    assert [jobs.job_status(job, alive=set()).sentence for job in (report, lost)] == [
        "Imported; its report was removed after 30 days, as every finished job's file is.",
        "The file is no longer on the server; start the job again on the jobs page to make it "
        "anew.",
    ]


def test_prune_jobs_keeps_jobs_keep_days_by_default_and_says_what_it_removed(
    prunable, jobs_dir, settings
):
    settings.JOBS_KEEP_DAYS = 35  # the failed job, 40 days old, goes; the done one, 31, stays
    out = StringIO()
    call_command("prune_jobs", "--dry-run", stdout=out)
    assert out.getvalue() == (
        "Would delete the files of 1 job finished 35 days ago or more and 1 folder of deleted "
        f"jobs (0.8 MB) in {jobs_dir}.\n"
    )
    out = StringIO()
    call_command("prune_jobs", "--days", "30", stdout=out)
    assert out.getvalue() == (
        "Deleted the files of 2 jobs finished 30 days ago or more and 1 folder of deleted jobs "
        f"(2.3 MB) in {jobs_dir}.\n"
    )
    assert _left(jobs_dir) == sorted(prunable["kept"])
    with pytest.raises(CommandError, match="--days must be 0 or more, not -1."):
        call_command("prune_jobs", "--days", "-1")


def test_the_workers_heart_prunes_at_its_first_beat_and_then_once_a_day(contest, jobs_dir):
    heartbeat = HeartbeatThread("pruning")
    first = _job(contest, state=Job.State.DONE, finished_days_ago=31)
    heartbeat.tick(1000.0)
    assert (jobs.job_folder(first).exists(), WorkerHeartbeat.objects.count()) == (False, 1)

    second = _job(contest, state=Job.State.FAILED, finished_days_ago=31)
    heartbeat.tick(1000.0 + PRUNE_EVERY_SECONDS - 1)
    assert jobs.job_folder(second).exists()
    heartbeat.tick(1000.0 + PRUNE_EVERY_SECONDS)
    assert jobs.job_folder(second).exists() is False


def test_a_failed_prune_is_logged_and_the_heart_beats_on(contest, jobs_dir, monkeypatch, caplog):
    def broken(**kwargs):
        raise PermissionError("Permission denied: 'jobs/7'")

    monkeypatch.setattr(jobs, "jobs_prune", broken)
    heartbeat = HeartbeatThread("pruning")
    with caplog.at_level(logging.ERROR):
        heartbeat.tick(1000.0)
    assert [record.getMessage() for record in caplog.records] == [
        "Finished jobs' files could not be pruned"
    ]
    assert WorkerHeartbeat.objects.filter(worker_id="pruning").count() == 1
    # Tried again the next day, not at every beat.
    assert heartbeat.prune_due == 1000.0 + PRUNE_EVERY_SECONDS


def test_a_folder_that_cannot_be_removed_is_logged_and_the_others_still_go(
    contest, jobs_dir, monkeypatch, caplog
):
    stuck = _job(contest, state=Job.State.DONE, finished_days_ago=31, size=10)
    other = _job(contest, state=Job.State.FAILED, finished_days_ago=31, size=20)
    remove = jobs.shutil.rmtree

    def rmtree(path, ignore_errors=False, onexc=None):
        # As shutil.rmtree does when a file may not be removed.
        if path != jobs.job_folder(stuck):
            return remove(path, ignore_errors=ignore_errors, onexc=onexc)
        error = PermissionError(f"Permission denied: '{path}'")
        if ignore_errors:
            return None
        if onexc is None:
            raise error
        return onexc(os.rmdir, path, error)

    monkeypatch.setattr(jobs.shutil, "rmtree", rmtree)
    with caplog.at_level(logging.ERROR):
        stats = jobs.jobs_prune(older_than=timedelta(days=30))
    assert stats == jobs.PruneStats(jobs=1, bytes=20)
    assert (jobs.job_folder(stuck).exists(), jobs.job_folder(other).exists()) == (True, False)
    assert [record.getMessage() for record in caplog.records] == [
        f"The folder of job {stuck.pk} could not be removed"
    ]
