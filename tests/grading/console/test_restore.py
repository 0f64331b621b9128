"""Restoring a contest from a backup in the organizer's console: upload, the dry run's preview,
then one transaction on confirmation; a damaged file or an existing slug is refused with the
restore's own sentences and nothing is written. The upload's bound is BACKUP_MAX_MB, named in
its refusal; a backup written before the archive (gzipped JSON) still restores."""

import io
import random
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from PIL import Image

from grading.backup.archive import backup_write
from grading.backup.export import contest_document
from grading.console.views import restore as restore_views
from grading.models import Mark, MarkEvent, Paper, Resolution, ScanPage, Sheet
from grading.papers import images
from rubrics.models import Contest, Criterion, Problem
from tests.grading import scenario
from tests.grading.backup.backup_helpers import rewrite_archive, rewritten_document
from tests.grading.backup.version1 import version1_bytes, version1_document


@pytest.fixture(autouse=True)
def private_folder(settings, tmp_path):
    settings.IMPORTS_DIR = tmp_path / "imports"
    return settings.IMPORTS_DIR


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


def test_a_backup_is_previewed_then_restored_with_the_same_counts(client, backup, private_folder):
    before = _counts()
    _forget("iol")
    emptied = _counts()
    assert emptied[0] == before[0] - 1

    preview = _upload(client, backup)
    assert preview.status_code == 200
    assert preview.context["errors"] == []
    summary = preview.context["preview"]
    assert (
        summary["contest"].slug,
        summary["problems"],
        summary["papers"],
        summary["marks"],
        summary["scan_pages"],
        summary["users_created"],
    ) == ("iol", 2, 3, 30, 0, [])
    assert _counts() == emptied  # the dry run wrote nothing
    token = client.session[restore_views.SESSION_KEY]["token"]
    assert sorted(p.name for p in Path(private_folder).iterdir()) == [token]

    done = client.post(reverse("console:restore_confirm"), {"token": token}, follow=True)
    assert done.redirect_chain == [(reverse("console:contest", args=["iol"]), 302)]
    assert [str(m) for m in done.context["messages"]] == [
        "Restored Contest iol (iol): 3 papers, 30 marks, 30 mark events."
    ]
    assert _counts() == before
    assert list(Path(private_folder).iterdir()) == []
    assert restore_views.SESSION_KEY not in client.session


def test_the_contests_page_links_to_the_restore(client):
    page = client.get(reverse("console:index"))
    assert reverse("console:restore") in page.content.decode()


def test_a_contest_already_here_is_refused_with_the_restores_sentence(client, backup):
    before = _counts()
    refused = _upload(client, backup)
    assert (refused.status_code, refused.context["errors"]) == (
        422,
        [
            "A contest with the slug “iol” already exists in this database; import_contest "
            "restores only into a database without it. Delete it first or restore into "
            "another database."
        ],
    )
    assert _counts() == before


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
    refused = _upload(client, path.read_bytes())
    assert (refused.status_code, refused.context["errors"][:4]) == (
        422,
        [
            "iol.zip, contest.max_total: “lots” is not a number.",
            "iol.zip, contest: max_total: This field cannot be null.",
            "iol.zip, papers[0].identity: expected text; got null.",
            "iol.zip, papers[0]: identity: This field cannot be null.",
        ],
    )
    assert "iol.zip, contest.max_total: “lots” is not a number." in refused.content.decode()
    not_gzip = _upload(client, b"\x1f\x8bgarbage", name="iol.json.gz")
    assert not_gzip.context["errors"] == ["iol.json.gz looks gzipped but cannot be unpacked."]
    not_zip = _upload(client, b"PK\x03\x04garbage")
    assert not_zip.context["errors"] == ["iol.zip: not a zip archive, or a damaged one."]
    assert _counts() == before
    assert list(Path(private_folder).iterdir()) == []
    # Nothing staged: a confirmation finds no current preview.
    stale = client.post(reverse("console:restore_confirm"), {"token": "x" * 32}, follow=True)
    assert [str(m) for m in stale.context["messages"]] == [
        "This preview is no longer current; upload the backup again."
    ]
    assert _counts() == before


def test_a_cancelled_preview_writes_nothing_and_leaves_no_file(client, backup, private_folder):
    _forget("iol")
    before = _counts()
    _upload(client, backup)
    token = client.session[restore_views.SESSION_KEY]["token"]
    client.post(reverse("console:restore_confirm"), {"token": token, "cancel": ""})
    assert (_counts(), list(Path(private_folder).iterdir())) == (before, [])


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
    preview = _upload(client, path.read_bytes())
    assert (preview.context["errors"], preview.context["preview"]["scan_pages"]) == ([], 1)
    token = client.session[restore_views.SESSION_KEY]["token"]
    client.post(reverse("console:restore_confirm"), {"token": token})
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
    preview = _upload(client, old, name="iol.json.gz")
    assert (preview.context["errors"], preview.context["preview"]["papers"]) == ([], 3)
    token = client.session[restore_views.SESSION_KEY]["token"]
    client.post(reverse("console:restore_confirm"), {"token": token})
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
