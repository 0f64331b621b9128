"""Restoring a contest from a backup in the organizer's console: upload, the dry run's preview,
then one transaction on confirmation, each by a background job that the page follows (the
requests answer at once, restoring nothing themselves); a damaged file or an existing slug is
refused with the restore's own sentences and nothing is written. The upload's bound is
BACKUP_MAX_MB, named in its refusal; a backup written before the archive (gzipped JSON) still
restores."""

import contextlib
import io
import random
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from PIL import Image

from grading.backup.archive import backup_write
from grading.backup.export import contest_document
from grading.jobs import running as jobs
from grading.models import Job, Mark, MarkEvent, Paper, Resolution, ScanPage, Sheet
from grading.papers import images
from rubrics.models import Contest, Criterion, Problem
from tests.grading import scenario
from tests.grading.backup.backup_helpers import rewrite_archive, rewritten_document
from tests.grading.backup.version1 import version1_bytes, version1_document


@pytest.fixture(autouse=True)
def private_folder(settings, tmp_path):
    """Where the uploaded backups wait: the jobs' folders."""
    settings.JOBS_DIR = tmp_path / "jobs"
    return settings.JOBS_DIR


@pytest.fixture
def client(organizer):
    client = Client()
    client.force_login(organizer)
    return client


@pytest.fixture
def backup(db, tmp_path) -> bytes:
    """The scenario's contest as export_contest writes it."""
    graded = scenario.build("chiara")  # not the chair fixture's chen
    path = tmp_path / "written.zip"
    backup_write(contest=graded["contest"], path=path)
    return path.read_bytes()


def _counts() -> tuple[int, ...]:
    return (
        Contest.objects.count(),
        Problem.objects.count(),
        Criterion.objects.count(),
        Paper.objects.count(),
        Sheet.objects.count(),
        Mark.objects.count(),
        MarkEvent.objects.count(),
    )


def _forget(slug: str) -> None:
    # Mark.criterion and Resolution.criterion are PROTECT: they go before their contest.
    Mark.objects.filter(sheet__problem__contest__slug=slug).delete()
    Resolution.objects.filter(criterion__problem__contest__slug=slug).delete()
    Contest.objects.filter(slug=slug).delete()


def _upload(client, content: bytes, name="iol.zip"):
    return client.post(reverse("console:restore"), {"file": SimpleUploadedFile(name, content)})


def _run(job: Job) -> Job:
    """The job run as the task worker runs it (a refusal fails the job, which the page says,
    and rises to the worker, which logs it)."""
    with contextlib.suppress(ValidationError):
        jobs.job_run(job_id=job.pk, worker_id="")
    job.refresh_from_db()
    return job


def _checked(client, content: bytes, name="iol.zip"):
    """The upload, answered at once with the page following its preview job; the job run;
    then the page as it reads once the job is done: (the page, the job)."""
    answer = _upload(client, content, name)
    job = Job.objects.get(kind=Job.Kind.RESTORE_PREVIEW, state=Job.State.QUEUED)
    assert (answer.status_code, answer.url) == (
        302,
        f"{reverse('console:restore')}?job={job.pk}#restore-job",
    )
    _run(job)
    return client.get(reverse("console:restore"), {"job": job.pk}), job


def _confirmed(client, preview: Job, **extra):
    """The confirmation, answered at once; its restore job (if it started one) run."""
    answer = client.post(reverse("console:restore_confirm"), {"job": preview.pk, **extra})
    job = Job.objects.filter(kind=Job.Kind.RESTORE, params__preview=preview.pk).first()
    return answer, (_run(job) if job is not None else None)


def test_a_backup_is_previewed_then_restored_with_the_same_counts(client, backup, private_folder):
    before = _counts()
    _forget("iol")
    emptied = _counts()
    assert emptied[0] == before[0] - 1

    preview, job = _checked(client, backup)
    assert (job.state, job.contest, preview.context["errors"], preview.context["refusal"]) == (
        Job.State.DONE,
        None,
        [],
        [],
    )
    summary = preview.context["preview"]
    assert (
        summary["slug"],
        summary["problems"],
        summary["papers"],
        summary["marks"],
        summary["scan_pages"],
        summary["users_created"],
    ) == ("iol", 2, 3, 30, 0, [])
    assert preview.content.decode().count('id="restore-confirm"') == 1
    assert _counts() == emptied  # the dry run wrote nothing

    answer, restore = _confirmed(client, job)
    assert answer.url == f"{reverse('console:restore')}?job={restore.pk}#restore-job"
    assert (restore.state, restore.contest.slug) == (Job.State.DONE, "iol")
    assert _counts() == before
    # The page following the job, once restored, loads the contest's page with the sentence.
    done = client.get(reverse("console:restore_job", args=[restore.pk]), HTTP_HX_REQUEST="true")
    assert done["HX-Redirect"] == reverse("console:contest", args=["iol"])
    page = client.get(done["HX-Redirect"])
    assert [str(m) for m in page.context["messages"]] == [
        "Restored Contest iol (iol): 3 papers, 30 marks, 30 mark events."
    ]
    # The uploaded backup is gone; the restore's record stays, the contest's job now.
    assert [p.name for p in Path(private_folder).rglob("*.zip")] == []
    assert list(Job.objects.filter(contest__slug="iol", kind=Job.Kind.RESTORE)) == [restore]
    # A second confirmation of the preview is that same restore, not a second one.
    again, same = _confirmed(client, job)
    assert (again.url, same) == (answer.url, restore)


def test_the_requests_answer_with_jobs_and_the_job_restores_the_same_bytes(
    client, backup, tmp_path, django_assert_max_num_queries
):
    """Neither the upload nor the confirmation reads the backup: each starts a job in a few
    queries (at a real olympiad's size each took most of a minute in the request); the job
    restores what import_contest restores from the same file, to the byte."""
    _forget("iol")
    emptied = _counts()
    with django_assert_max_num_queries(15):
        answer = _upload(client, backup)
    assert answer.status_code == 302
    preview = Job.objects.get(kind=Job.Kind.RESTORE_PREVIEW)
    assert (preview.state, preview.contest, _counts()) == (Job.State.QUEUED, None, emptied)
    _run(preview)
    with django_assert_max_num_queries(15):
        answer = client.post(reverse("console:restore_confirm"), {"job": preview.pk})
    restore = Job.objects.get(kind=Job.Kind.RESTORE)
    assert (answer.status_code, restore.state, _counts()) == (302, Job.State.QUEUED, emptied)
    # While it waits, the page follows it.
    following = client.get(reverse("console:restore_job", args=[restore.pk]))
    assert 'hx-trigger="every 2s"' in following.content.decode()
    assert following.context["status"].sentence.startswith("Waiting for the task worker")

    _run(restore)

    by_the_job = tmp_path / "by-the-job.zip"
    backup_write(contest=Contest.objects.get(slug="iol"), path=by_the_job)
    # The same file restored by import_contest exports to the same bytes.
    _forget("iol")
    uploaded = tmp_path / "iol.zip"
    uploaded.write_bytes(backup)
    call_command("import_contest", str(uploaded), verbosity=0)
    by_the_command = tmp_path / "by-the-command.zip"
    backup_write(contest=Contest.objects.get(slug="iol"), path=by_the_command)
    assert by_the_job.read_bytes() == by_the_command.read_bytes()
    # Progress went by marks: each checked, then written, and the file read and the rest.
    assert (restore.done, restore.total) == (2 * 30 + 2, 2 * 30 + 2)


def test_the_contests_page_links_to_the_restore(client):
    page = client.get(reverse("console:index"))
    assert reverse("console:restore") in page.content.decode()


def test_a_contest_already_here_is_refused_with_the_restores_sentence(client, backup):
    before = _counts()
    refused, job = _checked(client, backup)
    sentence = (
        "A contest with the slug “iol” already exists in this database; import_contest "
        "restores only into a database without it. Delete it first or restore into "
        "another database."
    )
    assert (job.state, job.error, refused.context["refusal"]) == (
        Job.State.FAILED,
        sentence,
        [sentence],
    )
    assert 'id="restore-confirm"' not in refused.content.decode()
    assert _counts() == before
    # Confirming a refused preview restores nothing either.
    answer, restore = _confirmed(client, job)
    assert (answer.status_code, answer.context["errors"], restore, _counts()) == (
        409,
        ["This backup was refused; nothing restores from it. Upload it again."],
        None,
        before,
    )


def test_a_restore_refused_when_it_runs_writes_nothing_and_is_retried(client, backup, tmp_path):
    """The preview passed, but the contest came back another way before the confirmation: the
    restore job refuses with the restore's sentence, writes nothing, and its retry restores
    once that copy is gone."""
    _forget("iol")
    _, preview = _checked(client, backup)
    uploaded = tmp_path / "iol.zip"
    uploaded.write_bytes(backup)
    call_command("import_contest", str(uploaded), verbosity=0)
    restored = _counts()

    _, restore = _confirmed(client, preview)

    assert (restore.state, restore.contest, _counts()) == (Job.State.FAILED, None, restored)
    page = client.get(reverse("console:restore"), {"job": restore.pk})
    assert page.context["refusal"] == [
        "A contest with the slug “iol” already exists in this database; import_contest "
        "restores only into a database without it. Delete it first or restore into "
        "another database."
    ]
    assert 'class="job-retry"' in page.content.decode()
    _forget("iol")
    answer = client.post(reverse("console:restore_retry", args=[restore.pk]))
    retry = Job.objects.get(retry_of=restore)
    assert answer.url == f"{reverse('console:restore')}?job={retry.pk}#restore-job"
    assert (_run(retry).state, retry.contest.slug, _counts()) == (
        Job.State.DONE,
        "iol",
        restored,
    )


def test_a_damaged_backup_is_refused_with_every_sentence_and_nothing_written(
    client, backup, private_folder, tmp_path
):
    _forget("iol")
    before = _counts()
    path = tmp_path / "iol.zip"
    path.write_bytes(backup)
    document = rewritten_document(path)
    document["contest"]["max_total"] = "lots"
    document["papers"][0]["identity"] = None
    rewrite_archive(path, document=document)
    refused, job = _checked(client, path.read_bytes())
    assert refused.context["refusal"][:4] == [
        "iol.zip, contest.max_total: “lots” is not a number.",
        "iol.zip, contest: max_total: This field cannot be null.",
        "iol.zip, papers[0].identity: expected text; got null.",
        "iol.zip, papers[0]: identity: This field cannot be null.",
    ]
    count = len(refused.context["refusal"])
    assert job.error == (
        f"iol.zip was not restored: {count} problems, each listed below; nothing was written."
    )
    assert "iol.zip, contest.max_total: “lots” is not a number." in refused.content.decode()
    for content, name, sentence in (
        (b"\x1f\x8bgarbage", "iol.json.gz", "iol.json.gz looks gzipped but cannot be unpacked."),
        (b"PK\x03\x04garbage", "iol.zip", "iol.zip: not a zip archive, or a damaged one."),
    ):
        Job.objects.all().delete()
        refused, _ = _checked(client, content, name=name)
        assert refused.context["refusal"] == [sentence]
    assert _counts() == before
    # A confirmation naming no preview goes back to the upload.
    stale = client.post(reverse("console:restore_confirm"), {"job": "12345"}, follow=True)
    assert [str(m) for m in stale.context["messages"]] == [
        "This preview is no longer current; upload the backup again."
    ]
    assert _counts() == before


def test_a_cancelled_preview_writes_nothing_and_leaves_no_file(client, backup, private_folder):
    _forget("iol")
    before = _counts()
    _, job = _checked(client, backup)
    assert len(list(Path(private_folder).rglob("iol.zip"))) == 1
    client.post(reverse("console:restore_confirm"), {"job": job.pk, "cancel": ""})
    assert (_counts(), list(Path(private_folder).rglob("iol.zip"))) == (before, [])
    # Confirmed after its cancellation, it says so and restores nothing.
    refused, restore = _confirmed(client, job)
    assert (refused.context["errors"], restore, _counts()) == (
        ["This preview is no longer current; upload the backup again."],
        None,
        before,
    )


def _noise_png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    images.save_png(
        Image.frombytes("L", (width, height), random.Random(1).randbytes(width * height)), out
    )
    return out.getvalue()


def test_the_upload_bound_is_backup_max_mb_named_in_its_refusal_and_scans_restore(
    client, settings, tmp_path, private_folder
):
    """The bound was the console imports' 50 MB (IMPORT_UPLOAD_MAX_BYTES), not a backup's
    setting: a contest with many scanned pages could be backed up but not restored here."""
    settings.SCANS_DIR = tmp_path / "scans"
    settings.SCANS_DIR.mkdir()
    settings.IMPORT_UPLOAD_MAX_BYTES = 100  # not the restore's bound
    # Past this, Django streams the upload to a temporary file rather than memory.
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024
    graded = scenario.build("chiara")
    human = Paper.objects.create(
        contest=graded["contest"], source=Paper.Source.HUMAN, identity="C7"
    )
    page = _noise_png(1100, 1100)  # about 1.2 MB: noise does not compress
    name = images.random_name()
    (settings.SCANS_DIR / name).write_bytes(page)
    ScanPage.objects.create(
        paper=human,
        problem=graded["contest"].problems.get(number=1),
        position=1,
        image=name,
        width=1100,
        height=1100,
    )
    path = tmp_path / "iol.zip"
    backup_write(contest=graded["contest"], path=path)
    _forget("iol")
    settings.BACKUP_MAX_MB = 1

    refused = _upload(client, path.read_bytes())

    assert (refused.status_code, refused.context["errors"]) == (
        413,
        [
            f"The upload is {int(refused.wsgi_request.META['CONTENT_LENGTH']) // 1024:,} KB; "
            "a backup file is at most 1 MB (BACKUP_MAX_MB)."
        ],
    )
    settings.BACKUP_MAX_MB = 2
    preview, job = _checked(client, path.read_bytes())
    assert (preview.context["refusal"], preview.context["preview"]["scan_pages"]) == ([], 1)
    _confirmed(client, job)
    restored = ScanPage.objects.get(paper__identity="C7")
    assert ((settings.SCANS_DIR / restored.image).read_bytes(), restored.image != name) == (
        page,
        True,
    )


def test_a_backup_written_before_the_archive_still_restores_here(
    client, backup, private_folder, tmp_path
):
    contest = Contest.objects.get(slug="iol")
    old = version1_bytes(version1_document(*contest_document(contest=contest)), compress=True)
    before = _counts()
    _forget("iol")
    preview, job = _checked(client, old, name="iol.json.gz")
    assert (preview.context["refusal"], preview.context["preview"]["papers"]) == ([], 3)
    _confirmed(client, job)
    assert _counts() == before


def test_jurors_and_the_chair_get_a_404(backup):
    people = list(User.objects.filter(username__in=["alice", "chiara"]).order_by("username"))
    assert [(p.username, p.groups.get().name) for p in people] == [
        ("alice", "juror"),
        ("chiara", "chair"),
    ]
    for person in people:
        client = Client()
        client.force_login(person)
        assert client.get(reverse("console:restore")).status_code == 404
        assert _upload(client, backup).status_code == 404
        assert client.post(reverse("console:restore_confirm")).status_code == 404
        assert client.get(reverse("console:restore_job", args=[1])).status_code == 404
