"""Backups carry human papers' scanned pages: each page's PNG travels as its own member of the
archive (as base64 in a version 1 backup) and comes back byte for byte under a fresh name; a
backup from before scans restores; an image that is not a scanned page's PNG is refused with a
sentence and nothing is written, in either version."""

import base64
import hashlib
import io
import json
import random
import zipfile

import pytest

# As in the running site: WeasyPrint, once imported, makes Pillow load truncated images quietly.
import weasyprint  # noqa: F401
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from PIL import Image, PngImagePlugin

from grading.backup.export import contest_document, contest_export
from grading.backup.restore import contest_import
from grading.intake.labels import paper_labels_ensure
from grading.models import Paper, ScanPage
from grading.papers import images
from rubrics.models import Contest
from tests.grading.backup.backup_helpers import (
    forget_everything,
    rewrite_archive,
    rewritten_document,
)
from tests.grading.backup.version1 import version1_document


def _png(width: int, height: int, seed: int) -> bytes:
    """A page as the scan import stores it: grey pixels only, saved by images.save_png."""
    noise = random.Random(seed).randbytes(width * height)
    page = Image.frombytes("L", (width, height), noise)
    out = io.BytesIO()
    images.save_png(page, out)
    return out.getvalue()


def _stored() -> dict[str, bytes]:
    folder = images.scans_dir()
    return {p.name: p.read_bytes() for p in folder.glob("*.png")} if folder.exists() else {}


@pytest.fixture
def scans_dir(settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    settings.SCANS_DIR.mkdir()
    return settings.SCANS_DIR


@pytest.fixture
def scanned(contest, scans_dir):
    """A human contestant with two pages for problem 1 and one for problem 2, beside the
    contest's AI papers."""
    human = Paper.objects.create(contest=contest, source=Paper.Source.HUMAN, identity="C204")
    paper_labels_ensure(contest=contest)
    problems = {p.number: p for p in contest.problems.all()}
    for seed, (number, position) in enumerate([(1, 1), (1, 2), (2, 1)]):
        name = images.random_name()
        (scans_dir / name).write_bytes(_png(40 + seed, 60, seed))
        ScanPage.objects.create(
            paper=human,
            problem=problems[number],
            position=position,
            image=name,
            width=40 + seed,
            height=60,
        )
    return contest


def _pages() -> list[tuple]:
    return [
        (page.paper.identity, page.problem.number, page.position, page.width, page.height)
        for page in ScanPage.objects.select_related("paper", "problem").order_by(
            "paper__identity", "problem__number", "position"
        )
    ]


def _page_bytes() -> list[bytes]:
    return [
        (images.scans_dir() / name).read_bytes()
        for name in ScanPage.objects.order_by(
            "paper__identity", "problem__number", "position"
        ).values_list("image", flat=True)
    ]


def test_scanned_pages_come_back_byte_for_byte_under_fresh_names(scanned, tmp_path):
    pages, page_bytes = _pages(), _page_bytes()
    names_before = set(ScanPage.objects.values_list("image", flat=True))
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest="test", out=str(first), verbosity=0)
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)

    out = io.StringIO()
    call_command("import_contest", str(first), stdout=out)

    assert ", 3 scanned pages" in out.getvalue()
    assert _pages() == pages
    assert _page_bytes() == page_bytes
    names_after = set(ScanPage.objects.values_list("image", flat=True))
    assert names_after.isdisjoint(names_before)
    assert all(name.endswith(".png") and name[:-4].isalpha() for name in names_after)
    second = tmp_path / "again.zip"
    call_command("export_contest", contest="test", out=str(second), verbosity=0)
    assert second.read_bytes() == first.read_bytes()


def test_the_backup_holds_each_pages_image_as_a_neutral_member_not_its_stored_name(
    scanned, tmp_path
):
    path = tmp_path / "backup.zip"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        members = [archive.read(name) for name in names[:-1]]
        document = json.loads(archive.read("backup.json"))
        dates = {info.date_time for info in archive.infolist()}
    page = document["scan_pages"][0]
    assert {key: value for key, value in page.items() if key != "sha256"} == {
        "paper": "C204",
        "problem": 1,
        "position": 1,
        "width": 40,
        "height": 60,
        "created_at": page["created_at"],
        "image": "pages/000001.png",
    }
    assert (names, members, dates) == (
        ["pages/000001.png", "pages/000002.png", "pages/000003.png", "backup.json"],
        _page_bytes(),
        {(1980, 1, 1, 0, 0, 0)},
    )
    assert [row["sha256"] for row in document["scan_pages"]] == [
        hashlib.sha256(data).hexdigest() for data in _page_bytes()
    ]
    stored_names = ScanPage.objects.values_list("image", flat=True)
    text = json.dumps(document)
    assert [name for name in stored_names if name in text] == []


def test_a_backup_made_before_scans_were_backed_up_still_restores(scanned):
    document = contest_export(contest=scanned)
    del document["scan_pages"]  # as export_contest wrote it before
    forget_everything()
    summary = contest_import(document=document)
    assert summary.papers == 4
    assert ScanPage.objects.count() == 0
    assert Paper.objects.get(identity="C204").source == Paper.Source.HUMAN


def test_an_export_refuses_a_page_whose_image_is_missing(scanned, scans_dir):
    name = ScanPage.objects.get(problem__number=2).image
    (scans_dir / name).unlink()
    with pytest.raises(ValidationError) as caught:
        contest_export(contest=scanned)
    assert caught.value.messages == [
        "The image of page 1 of C204's answer to problem 2 is missing from SCANS_DIR "
        f"({name}); put the file back or import the scans again before backing up."
    ]


def _with_metadata() -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "C204")
    out = io.BytesIO()
    Image.new("L", (40, 60), 200).save(out, format="PNG", pnginfo=info)
    return out.getvalue()


def _jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("L", (40, 60), 200).save(out, format="JPEG")
    return out.getvalue()


@pytest.mark.parametrize(
    ("png", "sentence"),
    [
        (
            lambda: base64.b64encode(_jpeg()).decode(),
            "the image is not a PNG; a scanned page is stored as PNG.",
        ),
        (lambda: "not base64!", "the image is not base64 text."),
        (
            lambda: "A" * (20 * 1024 * 1024 * 4 // 3 + 8),
            "the image is larger than 20 MB (BACKUP_PAGE_MAX_MB), more than any scanned page; "
            "it was not made by export_contest.",
        ),
        (
            lambda: base64.b64encode(_png(40, 61, 0)).decode(),
            "the image has 40 × 61 pixels, not the 40 × 60 the page says.",
        ),
        (
            lambda: base64.b64encode(_with_metadata()).decode(),
            "the image carries metadata (Comment); a scanned page holds pixels only.",
        ),
        (
            lambda: base64.b64encode(_png(40, 60, 0)[:-30]).decode(),
            "the image is a damaged PNG that cannot be read.",
        ),
    ],
    ids=["jpeg", "not-base64", "too-large", "wrong-size", "metadata", "truncated"],
)
def test_a_version_1_backup_whose_page_image_is_not_a_scanned_pages_png_is_refused(
    scanned, scans_dir, tmp_path, png, sentence
):
    document = version1_document(*contest_document(contest=scanned))
    document["scan_pages"][0]["png"] = png()
    path = tmp_path / "backup.json"
    path.write_text(json.dumps(document))
    forget_everything()
    files_before = _stored()

    with pytest.raises(CommandError) as caught:
        call_command("import_contest", str(path), verbosity=0)

    assert str(caught.value) == f"Nothing was imported:\n  - backup.json, scan_pages[0]: {sentence}"
    assert Contest.objects.count() == 0
    assert _stored() == files_before
    # Nor is the restore's staging folder left behind.
    assert sorted(p.name for p in scans_dir.iterdir()) == sorted(files_before)


def test_a_page_image_with_more_pixels_than_any_scan_is_refused(scanned, tmp_path):
    out = io.BytesIO()
    Image.new("1", (8000, 6000), 1).save(out, format="PNG")  # 48 million pixels, a few kB
    document = version1_document(*contest_document(contest=scanned))
    document["scan_pages"][0] |= {"png": base64.b64encode(out.getvalue()).decode()}
    forget_everything()
    with pytest.raises(ValidationError) as caught:
        contest_import(document=document)
    assert caught.value.messages == [
        "The backup, scan_pages[0]: the image has 8000 × 6000 pixels, more than any scanned page."
    ]


def test_pages_of_unknown_papers_ai_papers_or_twice_the_same_position_are_refused(scanned):
    document = version1_document(*contest_document(contest=scanned))
    first, second, third = document["scan_pages"]
    second["position"] = 1
    third["paper"] = "Team Orca"
    document["scan_pages"].append(first | {"paper": "C999", "position": 0})
    forget_everything()
    with pytest.raises(ValidationError) as caught:
        contest_import(document=document)
    assert caught.value.messages == [
        "The backup, scan_pages[1]: this page of the paper's answer appears twice.",
        "The backup, scan_pages[2]: only a human contestant's paper has scanned pages.",
        "The backup, scan_pages[3]: the paper is not in the file's list of papers.",
        "The backup, scan_pages[3]: a page's position starts at 1.",
    ]


@pytest.mark.parametrize("version", [1, 2])
def test_images_written_before_the_database_refuses_the_file_are_removed(
    scanned, scans_dir, tmp_path, version
):
    path = tmp_path / "backup.zip"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    document, sources = contest_document(contest=scanned)
    if version == 1:
        path = tmp_path / "backup.json"
        document = version1_document(document, sources)
    else:
        document = rewritten_document(path)
    # Two papers with one label: the database refuses it once the pages' images are written.
    document["papers"][1]["labels"]["1"] = document["papers"][0]["labels"]["1"]
    if version == 1:
        path.write_text(json.dumps(document))
    else:
        rewrite_archive(path, document=document)
    forget_everything()
    files_before = _stored()
    with pytest.raises(CommandError, match="contradicts itself"):
        call_command("import_contest", str(path), verbosity=0)
    # Nor is the restore's staging folder left behind.
    assert (_stored(), sorted(p.name for p in scans_dir.iterdir())) == (
        files_before,
        sorted(files_before),
    )


def test_a_dry_run_writes_no_page_image(scanned, tmp_path):
    path = tmp_path / "backup.zip"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    forget_everything()
    files_before = _stored()
    call_command("import_contest", str(path), dry_run=True, verbosity=0)
    assert _stored() == files_before
    assert ScanPage.objects.count() == 0
