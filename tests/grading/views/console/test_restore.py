"""Restoring a contest from a backup in the organizer's console: upload, the dry run's preview,
then one transaction on confirmation; a damaged file or an existing slug is refused with the
restore's own sentences and nothing is written."""

import gzip
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from grading.backup.export import backup_dumps, contest_export
from grading.models import Mark, MarkEvent, Paper, Resolution, Sheet
from grading.views.console import restore as restore_views
from rubrics.models import Contest, Criterion, Problem
from tests.grading import scenario


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
def backup(db) -> bytes:
    """The scenario's contest as export_contest writes it (gzipped)."""
    world = scenario.build("chiara")  # not the chair fixture's chen
    return backup_dumps(contest_export(contest=world["contest"]), compress=True)


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


def _upload(client, content: bytes, name="iol.json.gz"):
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
    client, backup, private_folder
):
    _forget("iol")
    before = _counts()
    document = json.loads(gzip.decompress(backup))
    document["contest"]["max_total"] = "lots"
    document["papers"][0]["identity"] = None
    refused = _upload(client, backup_dumps(document, compress=True))
    assert (refused.status_code, refused.context["errors"][:4]) == (
        422,
        [
            "iol.json.gz, contest.max_total: “lots” is not a number.",
            "iol.json.gz, contest: max_total: This field cannot be null.",
            "iol.json.gz, papers[0].identity: expected text; got null.",
            "iol.json.gz, papers[0]: identity: This field cannot be null.",
        ],
    )
    assert "iol.json.gz, contest.max_total: “lots” is not a number." in refused.content.decode()
    not_gzip = _upload(client, b"\x1f\x8bgarbage")
    assert not_gzip.context["errors"] == ["iol.json.gz looks gzipped but cannot be unpacked."]
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


def test_a_file_over_the_upload_limit_is_refused(client, backup, monkeypatch):
    monkeypatch.setattr(restore_views, "MAX_UPLOAD_BYTES", 100)
    refused = _upload(client, backup)
    assert (refused.status_code, refused.context["errors"]) == (
        413,
        [f"“iol.json.gz” is {len(backup) // 1024:,} KB; a backup file is at most 0 MB."],
    )


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
