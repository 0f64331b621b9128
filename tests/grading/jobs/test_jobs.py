"""Background jobs: the whole contest's printouts made by the task worker, followed on a page
that refreshes itself, downloaded through an access check; a failure says why and is retried;
a worker killed mid-job loses nothing; /healthz reads the database and the worker's heartbeat.

Most tests run the task on Django's ImmediateBackend (the task runs when the job's transaction
commits); one runs the real database backend's worker (`jobs_worker --batch`) on whichever
database the suite runs on (SQLite, PostgreSQL)."""

import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from asgiref.local import Local
from django.core.management import call_command
from django.core.signals import setting_changed
from django.tasks import task_backends
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from grading.jobs import running as jobs
from grading.jobs import worker_liveness
from grading.models import Job, WorkerHeartbeat
from grading.printing import printouts
from tests import factories, waiting

ROOT = Path(__file__).resolve().parents[3]
IMMEDIATE = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}


def _reset_task_backends(*, setting, **kwargs):
    # django.tasks caches its backends like database connections; a test that changes TASKS
    # must get the backend it asked for (and the next test the configured one again).
    if setting == "TASKS":
        task_backends.__dict__.pop("settings", None)
        task_backends._settings = None
        task_backends._connections = Local(task_backends.thread_critical)


setting_changed.connect(_reset_task_backends)


@pytest.fixture(autouse=True)
def folders(settings, tmp_path):
    settings.JOBS_DIR = tmp_path / "jobs"
    settings.CACHE_DIR = tmp_path / "cache"
    return tmp_path


@pytest.fixture
def immediate(settings):
    settings.TASKS = IMMEDIATE


@pytest.fixture
def small(db, juror):
    """One problem, two papers: six files (a bundle and two papers, without and with the
    marking pages), quick to render."""
    contest = factories.make_contest("small", problems=1, papers=2, identities=["Orca", "Heron"])
    factories.assign(contest, [juror], problems=[1])
    return contest


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _start(client, contest, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("job_start", args=[contest.slug]))
    job = Job.objects.get(contest=contest, retry_of=None)
    assert response.status_code == 302
    assert response["Location"] == reverse("job", args=[contest.slug, job.pk])
    return job


def _zip_names(data: bytes) -> list[str]:
    return sorted(zipfile.ZipFile(io.BytesIO(data)).namelist())


def _expected_names(contest, tmp_path) -> list[str]:
    """What `render_papers --bundle` writes, without and with `--criteria`, as the zip's paths."""
    names = []
    for folder, flags in (("without-marking-pages", []), ("with-marking-pages", ["--criteria"])):
        out = tmp_path / "command" / folder
        call_command(
            "render_papers", "--contest", contest.slug, "--bundle", "--out", str(out), *flags,
            verbosity=0,
        )  # fmt: skip
        names += [f"{contest.slug}-printouts/{folder}/{path.name}" for path in out.iterdir()]
    return sorted(names)


def _download(client, job) -> bytes:
    response = client.get(reverse("job_download", args=[job.contest.slug, job.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="{job.contest.slug}-printouts.zip"'
    )
    return b"".join(response.streaming_content)


# --- making, following and downloading the printouts -----------------------------------------


def test_the_chair_makes_the_whole_contests_printouts_and_downloads_the_zip(
    immediate, small, chair, folders, django_capture_on_commit_callbacks
):
    client = _client(chair)
    job = _start(client, small, django_capture_on_commit_callbacks)
    job.refresh_from_db()
    assert (job.state, job.done, job.total, job.error) == (Job.State.DONE, 6, 6, "")

    page = client.get(reverse("job", args=[small.slug, job.pk])).content.decode()
    assert "Download the printouts (zip)" in page

    data = _download(client, job)
    assert _zip_names(data) == _expected_names(small, folders)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert {archive.read(name)[:5] for name in archive.namelist()} == {b"%PDF-"}
    # The working folder is gone; only the finished file is kept.
    assert [p.name for p in (folders / "jobs" / str(job.pk)).iterdir()] == ["small-printouts.zip"]


def test_the_organizer_sees_the_contests_jobs_and_starting_twice_gives_the_same_job(
    small, organizer, chair, django_capture_on_commit_callbacks
):
    # The database backend without a worker: the job stays queued.
    first = _start(_client(organizer), small, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        again = _client(chair).post(reverse("job_start", args=[small.slug]))
    assert again["Location"] == reverse("job", args=[small.slug, first.pk])
    assert Job.objects.count() == 1
    assert DBTaskResult.objects.count() == 1

    page = _client(organizer).get(reverse("jobs", args=[small.slug])).content.decode()
    assert "Waiting for the worker" in page
    status = _client(chair).get(reverse("job", args=[small.slug, first.pk])).content.decode()
    assert (
        "Waiting for the task worker, and none is running: start it with "
        "`manage.py jobs_worker` (make run and make serve start one)." in status
    )


def test_jurors_and_visitors_cannot_see_start_or_download_jobs(
    immediate, small, juror, chair, django_capture_on_commit_callbacks
):
    job = _start(_client(chair), small, django_capture_on_commit_callbacks)
    slug = small.slug
    urls = [
        ("get", reverse("jobs", args=[slug])),
        ("post", reverse("job_start", args=[slug])),
        ("get", reverse("job", args=[slug, job.pk])),
        ("get", reverse("job_progress", args=[slug, job.pk])),
        ("post", reverse("job_retry", args=[slug, job.pk])),
        ("get", reverse("job_download", args=[slug, job.pk])),
    ]
    as_juror = [getattr(_client(juror), method)(url).status_code for method, url in urls]
    assert as_juror == [404] * len(urls)
    anonymous = [getattr(Client(), method)(url) for method, url in urls]
    assert [(r.status_code, r["Location"].split("?")[0]) for r in anonymous] == [
        (302, reverse("login"))
    ] * len(urls)
    assert Job.objects.count() == 1


def test_a_job_of_another_contest_is_not_found_under_this_one(
    immediate, small, chair, django_capture_on_commit_callbacks
):
    job = _start(_client(chair), small, django_capture_on_commit_callbacks)
    other = factories.make_contest("other", problems=1, papers=1)
    response = _client(chair).get(reverse("job_download", args=[other.slug, job.pk]))
    assert response.status_code == 404


def test_the_progress_partial_polls_every_two_seconds_until_the_job_is_finished(
    small, chair, folders
):
    job = Job.objects.create(kind=Job.Kind.PRINTOUTS, contest=small, requested_by=chair)
    url = reverse("job_progress", args=[small.slug, job.pk])
    WorkerHeartbeat.objects.create(
        worker_id="w1", started_at=timezone.now(), seen_at=timezone.now()
    )
    Job.objects.filter(pk=job.pk).update(state=Job.State.RUNNING, worker_id="w1", done=3, total=8)
    running = _client(chair).get(url)
    assert running["Cache-Control"] == "no-store"
    body = running.content.decode()
    assert f'hx-get="{url}" hx-trigger="every 2s" hx-swap="outerHTML"' in body
    assert "3 of 8 files made." in body
    assert '<progress max="100" value="37"' in body

    Job.objects.filter(pk=job.pk).update(state=Job.State.DONE, done=8, result_path="x.zip")
    (folders / "jobs").mkdir()
    (folders / "jobs" / "x.zip").write_bytes(b"PK")
    done = _client(chair).get(url).content.decode()
    assert ("hx-trigger" in done, "Download the printouts (zip)" in done) == (False, True)


def test_the_jobs_page_runs_the_same_queries_for_one_job_or_many(
    small, chair, django_assert_num_queries
):
    client = _client(chair)
    url = reverse("jobs", args=[small.slug])

    def count() -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as context:
            assert client.get(url).status_code == 200
        return len(context.captured_queries)

    Job.objects.create(kind=Job.Kind.PRINTOUTS, contest=small, requested_by=chair)
    one = count()
    for _ in range(6):
        Job.objects.create(
            kind=Job.Kind.PRINTOUTS, contest=small, requested_by=chair, state=Job.State.FAILED
        )
    with django_assert_num_queries(one):
        assert client.get(url).status_code == 200


# --- exports of the whole contest: the results and the backup --------------------------------


def _start_kind(client, contest, kind, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("job_start", args=[contest.slug]), {"kind": kind})
    job = Job.objects.get(contest=contest, kind=kind, retry_of=None)
    assert (response.status_code, response["Location"]) == (
        302,
        reverse("job", args=[contest.slug, job.pk]),
    )
    job.refresh_from_db()
    return job


def _file(client, job) -> tuple[str, bytes]:
    response = client.get(reverse("job_download", args=[job.contest.slug, job.pk]))
    assert response.status_code == 200
    name = re.fullmatch(r'attachment; filename="(.+)"', response["Content-Disposition"])[1]
    return name, b"".join(response.streaming_content)


def _page_exports(client, contest) -> dict[str, bytes]:
    """The results page's four downloads, by their file names."""
    files = {}
    for table in ("wide", "long"):
        for fmt in ("csv", "xlsx"):
            response = client.get(
                reverse("results_export", args=[contest.slug, fmt]),
                {"table": table} if table == "long" else {},
            )
            assert response.status_code == 200
            name = re.fullmatch(r'attachment; filename="(.+)"', response["Content-Disposition"])
            files[name[1]] = response.content
    return files


def _sheets(data: bytes) -> list[list[tuple]]:
    import openpyxl

    book = openpyxl.load_workbook(io.BytesIO(data))
    return [list(sheet.iter_rows(values_only=True)) for sheet in book.worksheets]


def _same_files(job_zip: bytes, page: dict[str, bytes]) -> None:
    with zipfile.ZipFile(io.BytesIO(job_zip)) as archive:
        assert sorted(archive.namelist()) == sorted(page)
        for name, content in page.items():
            if name.endswith(".csv"):
                assert archive.read(name) == content, name
            else:  # an XLSX's bytes hold its time of writing: its cells are compared
                assert _sheets(archive.read(name)) == _sheets(content), name


@pytest.mark.parametrize("final", [False, True])
def test_the_chair_exports_the_results_as_a_job_with_the_results_pages_four_tables(
    immediate, small, chair, final, django_capture_on_commit_callbacks
):
    from rubrics.models import Contest

    if final:
        Contest.objects.filter(pk=small.pk).update(state=Contest.State.FINAL)
        small.refresh_from_db()
    client = _client(chair)
    job = _start_kind(client, small, "results", django_capture_on_commit_callbacks)
    assert (job.state, job.done, job.total, job.error) == (Job.State.DONE, 4, 4, "")
    page = client.get(reverse("job", args=[small.slug, job.pk])).content.decode()
    assert "Download the results (zip of CSV and XLSX)" in page

    name, data = _file(client, job)
    assert name == "small-results.zip"
    page_files = _page_exports(client, small)
    _same_files(data, page_files)
    # The systems are named once the contest is final, and not before.
    wide = zipfile.ZipFile(io.BytesIO(data)).read("small-results-wide.csv").decode("utf-8-sig")
    assert ("Orca" in wide, "identity" in wide.splitlines()[0]) == (final, final)


def test_a_results_export_made_while_final_is_not_the_chairs_to_download_once_reopened(
    immediate, small, chair, organizer, django_capture_on_commit_callbacks
):
    from rubrics.models import Contest

    def set_state(state):
        Contest.objects.filter(pk=small.pk).update(state=state)

    set_state(Contest.State.RESOLUTION)
    unnamed = _start_kind(_client(chair), small, "results", django_capture_on_commit_callbacks)
    set_state(Contest.State.FINAL)
    Job.objects.filter(pk=unnamed.pk).update(retry_of=unnamed)  # out of _start_kind's way
    named = _start_kind(_client(chair), small, "results", django_capture_on_commit_callbacks)
    assert (unnamed.names_identities, named.names_identities) == (False, True)
    # Reopened: the contest's identities are the organizer's again, and so is the named file.
    set_state(Contest.State.RESOLUTION)

    def answers(user):
        client = _client(user)
        return [
            client.get(reverse("job_download", args=[small.slug, job.pk])).status_code
            for job in (unnamed, named)
        ]

    assert (answers(chair), answers(organizer)) == ([200, 403], [200, 200])
    refused = _client(chair).get(reverse("job_download", args=[small.slug, named.pk]))
    assert refused.content.decode().count("names the AI systems, and the contest is not final") == 1
    pages = [
        _client(chair).get(reverse(name, args=args)).content.decode()
        for name, args in (("job", [small.slug, named.pk]), ("jobs", [small.slug]))
    ]
    assert [page.count(f"/jobs/{named.pk}/file/") for page in pages] == [0, 0]
    # Final again: the chair may read identities, and the file with them.
    set_state(Contest.State.FINAL)
    assert answers(chair) == [200, 200]


def test_the_organizer_backs_the_contest_up_as_a_job_as_export_contest_does(
    immediate, small, organizer, folders, django_capture_on_commit_callbacks
):
    client = _client(organizer)
    job = _start_kind(client, small, "backup", django_capture_on_commit_callbacks)
    assert (job.state, job.done, job.total) == (Job.State.DONE, 1, 1)
    name, data = _file(client, job)
    assert name == "small-backup.zip"
    command = folders / "command.zip"
    call_command("export_contest", "--contest", "small", "--out", str(command), verbosity=0)
    assert data == command.read_bytes()
    document = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("backup.json"))
    assert "Orca" in {paper["identity"] for paper in document["papers"]}


def test_only_the_organizer_backs_a_contest_up_and_unknown_kinds_are_refused(
    immediate, small, organizer, chair, juror, django_capture_on_commit_callbacks
):
    url = reverse("job_start", args=[small.slug])
    assert _client(chair).post(url, {"kind": "backup"}).status_code == 403
    assert _client(juror).post(url, {"kind": "backup"}).status_code == 404
    assert _client(juror).post(url, {"kind": "results"}).status_code == 404
    # An import starts from its own confirmation, never from the jobs page.
    for kind in ("import_outputs", "nonsense"):
        assert _client(organizer).post(url, {"kind": kind}).status_code == 400
    assert not Job.objects.exists()
    # The page offers the backup to the organizer only.
    jobs_url = reverse("jobs", args=[small.slug])
    as_chair = _client(chair).get(jobs_url).content.decode()
    as_organizer = _client(organizer).get(jobs_url).content.decode()
    assert ('value="backup"' in as_chair, 'value="backup"' in as_organizer) == (False, True)
    assert ('value="results"' in as_chair, 'value="results"' in as_organizer) == (True, True)


def test_the_chair_cannot_download_the_organizers_backup_which_names_the_systems(
    immediate, small, organizer, chair, django_capture_on_commit_callbacks
):
    job = _start_kind(_client(organizer), small, "backup", django_capture_on_commit_callbacks)
    url = reverse("job_download", args=[small.slug, job.pk])
    assert _client(chair).get(url).status_code == 403
    assert _client(organizer).get(url).status_code == 200
    # Neither the job's page nor the list offers the chair the file.
    pages = {
        who: "".join(
            client.get(reverse(name, args=args)).content.decode()
            for name, args in (
                ("jobs", [small.slug]),
                ("job", [small.slug, job.pk]),
                ("job_progress", [small.slug, job.pk]),
            )
        )
        for who, client in (("chair", _client(chair)), ("organizer", _client(organizer)))
    }
    assert (url in pages["chair"], url in pages["organizer"]) == (False, True)


def test_the_jobs_page_is_titled_jobs_lists_every_kind_and_the_console_links_it(
    small, organizer, chair
):
    for kind in (Job.Kind.PRINTOUTS, Job.Kind.IMPORT_OUTPUTS, Job.Kind.RESULTS, Job.Kind.BACKUP):
        Job.objects.create(kind=kind, contest=small, requested_by=organizer)
    page = _client(chair).get(reverse("jobs", args=[small.slug])).content.decode()
    assert "<title>Jobs · " in page and "<h1>Jobs" in page
    kinds = re.findall(r'<td class="job-kind">([^<]+)</td>', page)
    assert sorted(kinds) == [
        "Backup of the whole contest",
        "Import of AI outputs",
        "Printouts of the whole contest",
        "Results exports (CSV and XLSX)",
    ]
    console = _client(organizer).get(reverse("console:contest", args=[small.slug]))
    assert f'href="{reverse("jobs", args=[small.slug])}">jobs</a>' in console.content.decode()


# --- failures, retries and interruptions ----------------------------------------------------


def test_a_contest_with_nothing_to_print_fails_with_a_sentence_and_offers_a_retry(
    immediate, chair, django_capture_on_commit_callbacks, db
):
    empty = factories.make_contest("empty", problems=1, papers=0)
    job = _start(_client(chair), empty, django_capture_on_commit_callbacks)
    job.refresh_from_db()
    sentence = (
        "Contest Contest empty has no paper to print yet: import the AI systems' outputs and "
        "select the papers for the jury first."
    )
    assert (job.state, job.error) == (Job.State.FAILED, sentence)
    page = _client(chair).get(reverse("job", args=[empty.slug, job.pk])).content.decode()
    assert sentence.replace("'", "&#x27;") in page
    assert reverse("job_retry", args=[empty.slug, job.pk]) in page


def test_an_unexpected_error_is_told_in_a_sentence_and_the_retry_is_a_new_job(
    immediate, small, chair, monkeypatch, django_capture_on_commit_callbacks
):
    def disk_full(*args, **kwargs):
        raise OSError("No space left on device")

    monkeypatch.setattr(printouts.pdf_batch, "render_jobs", disk_full)
    job = _start(_client(chair), small, django_capture_on_commit_callbacks)
    job.refresh_from_db()
    assert (job.state, job.error) == (
        Job.State.FAILED,
        "The printouts of the whole contest stopped on an unexpected error (OSError: No space "
        "left on device). Retry; if it fails again, the task worker's log has the details.",
    )
    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        response = _client(chair).post(reverse("job_retry", args=[small.slug, job.pk]))
    retry = Job.objects.get(retry_of=job)
    assert response["Location"] == reverse("job", args=[small.slug, retry.pk])
    retry.refresh_from_db()
    assert (retry.state, retry.done, retry.total) == (Job.State.DONE, 6, 6)


def test_a_finished_job_cannot_be_retried(
    immediate, small, chair, django_capture_on_commit_callbacks
):
    job = _start(_client(chair), small, django_capture_on_commit_callbacks)
    response = _client(chair).post(reverse("job_retry", args=[small.slug, job.pk]), follow=True)
    assert "Only a failed or interrupted job can be retried; this one is ready." in (
        response.content.decode()
    )
    assert Job.objects.count() == 1


def test_running_the_task_twice_leaves_the_finished_file_as_it_was(small, chair, folders):
    job = Job.objects.create(kind=Job.Kind.PRINTOUTS, contest=small, requested_by=chair)
    assert jobs.job_run(job_id=job.pk, worker_id="w1") == Job.State.DONE
    job.refresh_from_db()
    path = jobs.job_file(job)
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    assert jobs.job_run(job_id=job.pk, worker_id="w2") == Job.State.DONE
    job.refresh_from_db()
    assert ((path.read_bytes(), path.stat().st_mtime_ns), job.worker_id) == (before, "w1")


class Killed(BaseException):
    """What a SIGKILL looks like from inside: nothing after it runs, no except clause."""


def test_a_worker_killed_mid_job_loses_nothing_and_the_retry_finishes_the_job(
    immediate, small, chair, folders, monkeypatch, django_capture_on_commit_callbacks
):
    job = Job.objects.create(kind=Job.Kind.PRINTOUTS, contest=small, requested_by=chair)
    real_render_jobs = printouts.pdf_batch.render_jobs

    def killed_after_three(render, *, workers, progress):
        seen = 0

        def tick(job):
            nonlocal seen
            progress(job)
            seen += 1
            if seen == 3:
                raise Killed

        return real_render_jobs(render, workers=1, progress=tick)

    monkeypatch.setattr(printouts.pdf_batch, "render_jobs", killed_after_three)
    # Every step's progress written, so that the count read back does not depend on how fast
    # the machine renders (the throttle skips writes closer than PROGRESS_EVERY_SECONDS).
    monkeypatch.setattr(jobs, "PROGRESS_EVERY_SECONDS", 0)
    WorkerHeartbeat.objects.create(
        worker_id="w1", started_at=timezone.now(), seen_at=timezone.now()
    )
    with pytest.raises(Killed):
        jobs.job_run(job_id=job.pk, worker_id="w1")
    monkeypatch.undo()
    job.refresh_from_db()
    assert (job.state, job.done, job.total) == (Job.State.RUNNING, 3, 6)
    # No file under its final name: only the working folder, which a new run empties.
    assert [p.name for p in jobs.job_folder(job).iterdir()] == [".work"]
    assert jobs.job_file(job) is None
    cached = sorted((folders / "cache" / "pdf").rglob("*.pdf"))
    assert len(cached) == 3

    # While the worker still beats, the job reads as running; once it stops, as interrupted.
    WorkerHeartbeat.objects.update(seen_at=timezone.now())
    status = jobs.job_status(job, alive=worker_liveness.alive_worker_ids())
    assert (status.state, status.can_retry) == (Job.State.RUNNING, False)
    WorkerHeartbeat.objects.update(seen_at=timezone.now() - timedelta(minutes=1))
    status = jobs.job_status(job, alive=worker_liveness.alive_worker_ids())
    assert (status.state, status.can_retry, status.sentence) == (
        "interrupted",
        True,
        "The task worker stopped after 3 of 6 files; nothing it finished is lost. "
        "Retry to finish the job.",
    )
    # A new start does not wait on the dead job.
    with django_capture_on_commit_callbacks(execute=True):
        _client(chair).post(reverse("job_retry", args=[small.slug, job.pk]))
    retry = Job.objects.get(retry_of=job)
    retry.refresh_from_db()
    job.refresh_from_db()
    assert (retry.state, retry.done, job.state) == (Job.State.DONE, 6, Job.State.FAILED)
    assert not jobs.job_folder(job).exists()
    # The three files finished before the kill came from the cache: three more were rendered.
    assert len(sorted((folders / "cache" / "pdf").rglob("*.pdf"))) == 6
    data = _download(_client(chair), retry)
    assert _zip_names(data) == _expected_names(small, folders)


# --- the real worker ----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_database_backends_worker_runs_a_queued_job(juror, chair):
    contest = factories.make_contest("real", problems=1, papers=2)
    job = jobs.job_start(kind=Job.Kind.PRINTOUTS, contest=contest, user=chair)
    (queued,) = DBTaskResult.objects.all()
    assert (queued.status, queued.task_path, queued.args_kwargs) == (
        "READY",
        "grading.jobs.running.run_job",
        {"args": [], "kwargs": {"job_id": job.pk}},
    )
    out = io.StringIO()
    call_command(
        "jobs_worker", "--batch", "--no-reload", "--no-startup-delay", "--worker-id", "test-w",
        stdout=out,
    )  # fmt: skip
    queued.refresh_from_db()
    job.refresh_from_db()
    assert (queued.status, queued.worker_ids) == ("SUCCESSFUL", ["test-w"])
    assert (job.state, job.worker_id, job.done, job.total) == (Job.State.DONE, "test-w", 6, 6)
    assert zipfile.ZipFile(jobs.job_file(job)).testzip() is None
    # A worker that stops cleanly says so in its heartbeat: it is no longer alive.
    assert (
        WorkerHeartbeat.objects.get().stopped_at is not None,
        worker_liveness.alive_worker_ids(),
    ) == (
        True,
        set(),
    )


# --- /healthz ---------------------------------------------------------------------------------


def _health(client=None):
    response = (client or Client()).get("/healthz")
    return response.status_code, json.loads(response.content)


def test_health_is_503_when_no_worker_ever_beat(db):
    assert _health() == (
        503,
        {
            "status": "failing",
            "database": "ok",
            "worker": "never seen: start manage.py jobs_worker",
        },
    )


def test_health_is_200_with_a_fresh_heartbeat_and_503_once_it_is_stale(db):
    now = timezone.now()
    beat = WorkerHeartbeat.objects.create(worker_id="w", started_at=now, seen_at=now)
    assert _health() == (200, {"status": "ok", "database": "ok", "worker": "ok"})
    beat.seen_at = now - timedelta(seconds=95)
    beat.save()
    status, body = _health()
    seconds = re.fullmatch(r"last seen (\d+) s ago", body["worker"])
    # At least the 95 s given (a slow machine adds the time the request took).
    assert (status, body["status"], int(seconds[1]) >= 95) == (503, "failing", True)


def test_the_workers_heartbeat_thread_beats_and_stops(db, settings, monkeypatch):
    from grading.jobs.management.commands.jobs_worker import HeartbeatThread

    heartbeat = HeartbeatThread("beating")
    heartbeat.start()
    first = WorkerHeartbeat.objects.get(worker_id="beating").seen_at
    heartbeat.stop()
    stopped = WorkerHeartbeat.objects.get(worker_id="beating").stopped_at
    assert (first <= stopped <= timezone.now(), worker_liveness.alive_worker_ids()) == (True, set())


def test_health_is_503_and_says_when_the_worker_stopped_cleanly_and_200_once_another_beats(db):
    now = timezone.now()
    WorkerHeartbeat.objects.create(
        worker_id="old", started_at=now, seen_at=now, stopped_at=now - timedelta(seconds=7)
    )
    status, body = _health()
    seconds = re.fullmatch(r"stopped (\d+) s ago", body["worker"])
    assert (status, body["status"], int(seconds[1]) >= 7) == (503, "failing", True)
    # The supervisor's new run beats: healthy again, whatever the stopped row says.
    worker_liveness.heartbeat_beat(worker_id="new", started_at=timezone.now())
    assert _health() == (200, {"status": "ok", "database": "ok", "worker": "ok"})


def test_health_answers_without_a_log_in_and_is_never_cached(db):
    response = Client().get("/healthz")
    assert (response["Content-Type"], "no-cache" in response["Cache-Control"]) == (
        "application/json",
        True,
    )


def test_health_is_503_when_the_database_cannot_be_reached():
    # A fresh interpreter whose database is a closed port: nothing else is needed to answer.
    code = (
        "import django; django.setup(); from django.test import Client; "
        "r = Client(HTTP_HOST='localhost').get('/healthz'); print(r.status_code); "
        "print(r.content.decode())"
    )
    env = {
        **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
        "DATABASE_URL": "postgres://nobody:nothing@127.0.0.1:1/none",
        "DJANGO_SETTINGS_MODULE": "grading.settings",
    }
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    status, body = result.stdout.splitlines()
    assert (status, json.loads(body)) == (
        "503",
        {
            "status": "failing",
            "database": "unreachable (OperationalError)",
            "worker": "unknown (the database is unreachable)",
        },
    ), result.stderr


# --- make run ---------------------------------------------------------------------------------


@pytest.mark.own_sqlite
def test_make_run_starts_the_worker_beside_the_server_and_ctrl_c_stops_both(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # A shell without DEBUG: scripts/run.sh turns it on itself (the migrate before it is
    # `make demo`'s, which sets DEBUG on its own command lines).
    env = {
        **{
            k: v
            for k, v in os.environ.items()
            if k not in ("DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_SETTINGS_MODULE")
        },
        "DATABASE_URL": f"sqlite:///{tmp_path / 'run.sqlite3'}",
        "JOBS_DIR": str(tmp_path / "jobs"),
        "CACHE_DIR": str(tmp_path / "cache"),
        "PORT": str(port),
    }
    python = ROOT / ".venv" / "bin" / "python"
    subprocess.run(
        [str(python if python.exists() else sys.executable), "manage.py", "migrate", "-v0"],
        cwd=ROOT,
        env={**env, "DEBUG": "true"},
        check=True,
    )
    log = tmp_path / "run.log"
    # As a terminal starts it: with Ctrl+C's signal at its default. make test runs pytest in the
    # background, where sh ignores SIGINT, and what is ignored is inherited: sh could not trap it
    # and runserver would never see it (the worker, which sets its own handler, would).
    as_in_a_terminal = (
        "import os, signal; signal.signal(signal.SIGINT, signal.SIG_DFL); "
        "os.execvp('sh', ['sh', 'scripts/run.sh'])"
    )
    with log.open("w") as output:
        process = subprocess.Popen(
            [sys.executable, "-c", as_in_a_terminal],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        # The server answers and the worker beats: both were started.
        body = waiting.until(
            lambda: _served_health(port) or (process.poll() is not None and "make run ended"), 180
        )
        assert body == {"status": "ok", "database": "ok", "worker": "ok"}, log.read_text()
        # Ctrl+C in a terminal reaches the whole foreground process group.
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            # Which process did not stop, and what the server and the worker said last.
            still = subprocess.run(
                ["ps", "-o", "pid,ppid,stat,args", "-s", str(process.pid)],
                capture_output=True,
                text=True,
            ).stdout
            tail = log.read_text(errors="replace")[-3000:]
            pytest.fail(f"make run did not stop on Ctrl+C:\n{still}\n{tail}")
        # The children stop on their own signal; on a loaded machine that can take a moment.
        waiting.until(lambda: not _session_members(process.pid), 20)
        assert _session_members(process.pid) == []
    finally:
        if process.poll() is None or _session_members(process.pid):
            os.killpg(process.pid, signal.SIGKILL)


def _served_health(port: int) -> dict | None:
    """/healthz's answer when the site answers 200 (up, its database and worker too), else None."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            return json.loads(response.read())
    except OSError:
        return None


def _session_members(session: int) -> list[str]:
    """The processes still in the session `make run` started in (pgrep -s)."""
    return subprocess.run(
        ["pgrep", "-s", str(session)], capture_output=True, text=True
    ).stdout.split()
