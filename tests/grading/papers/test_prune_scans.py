"""prune_scans: what an interrupted or undone import leaves in SCANS_DIR goes (temporary
.import-* folders, page images no ScanPage names), once it is an hour old; the pages in use,
recent files and other files stay; --dry-run lists and removes nothing."""

import io
import os
import time

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from grading.intake.scans.importing import ScanFile, scans_import
from grading.models import ScanPage
from grading.papers import images
from tests import factories
from tests.grading.intake.scans import scanmaker

HOURS_AGO = time.time() - 2 * 3600


class _Undone(Exception):
    pass


@pytest.fixture
def scans_dir(settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    return settings.SCANS_DIR


@pytest.fixture
def contest(db):
    return factories.make_contest("iol", problems=2, papers=1)


def _age(path, when=HOURS_AGO):
    os.utime(path, (when, when))


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _import(contest, code: str) -> None:
    pages = [*scanmaker.answer_pages(code, 1, 1), *scanmaker.answer_pages(code, 2, 1)]
    page_map = ScanFile(
        "map.csv",
        f"file,problem,first_page,last_page\n{code}.pdf,1,1,1\n{code}.pdf,2,2,2\n".encode(),
    )
    scans_import(
        contest=contest, files=[ScanFile(f"{code}.pdf", scanmaker.as_pdf(pages))], page_map=page_map
    )


@pytest.fixture
def leftovers(contest, scans_dir):
    """Two pages in use; the two images of an import undone by its caller's transaction; an
    interrupted import's folder; and young or foreign files that must stay."""
    _import(contest, "C101")
    in_use = set(ScanPage.objects.values_list("image", flat=True))
    with pytest.raises(_Undone), transaction.atomic():
        _import(contest, "C102")
        raise _Undone
    orphans = {path.name for path in scans_dir.glob("*.png")} - in_use
    assert len(in_use) == 2 and len(orphans) == 2  # the undone import's files stayed behind
    for path in scans_dir.glob("*.png"):
        _age(path)
    interrupted = scans_dir / ".import-abcdef"
    interrupted.mkdir()
    (interrupted / "page.png").write_bytes(b"x" * 10)
    _age(interrupted / "page.png")
    _age(interrupted)
    running = scans_dir / ".import-running"
    running.mkdir()
    (running / "page.png").write_bytes(b"x")
    young = scans_dir / (images.random_name())
    young.write_bytes(b"young")
    notes = scans_dir / "README.txt"
    notes.write_text("kept")
    _age(notes)
    return {"in_use": in_use, "orphans": orphans, "young": young.name}


def test_a_dry_run_lists_what_would_go_and_removes_nothing(leftovers, scans_dir):
    before = _files(scans_dir)
    out = io.StringIO()
    call_command("prune_scans", dry_run=True, stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[:-1] == [
        "Would remove the folder .import-abcdef/",
        *(f"Would remove the image {name}" for name in sorted(leftovers["orphans"])),
    ]
    assert lines[-1].startswith("Would remove 1 temporary folder and 2 unused images (")
    assert _files(scans_dir) == before


def test_pruning_removes_old_temporary_folders_and_images_no_page_names(leftovers, scans_dir):
    out = io.StringIO()
    call_command("prune_scans", stdout=out)
    assert out.getvalue().startswith("Removed 1 temporary folder and 2 unused images (")
    assert _files(scans_dir) == sorted(
        [*leftovers["in_use"], leftovers["young"], "README.txt", ".import-running/page.png"]
    )
    # Every page still shows: its image is there.
    for page in ScanPage.objects.all():
        assert (scans_dir / page.image).is_file()
    out = io.StringIO()
    call_command("prune_scans", stdout=out)
    assert out.getvalue().startswith("Removed 0 temporary folders and 0 unused images (")


def test_older_than_zero_takes_the_young_leftovers_too(leftovers, scans_dir):
    call_command("prune_scans", older_than=0, verbosity=0)
    assert _files(scans_dir) == sorted([*leftovers["in_use"], "README.txt"])


def test_a_missing_scans_folder_is_nothing_to_prune(scans_dir, db):
    out = io.StringIO()
    call_command("prune_scans", stdout=out)
    assert out.getvalue().startswith("Removed 0 temporary folders and 0 unused images (0.0 MB)")


def test_a_negative_age_is_refused_with_a_sentence(scans_dir, db):
    with pytest.raises(CommandError, match="--older-than is a number of minutes, 0 or more."):
        call_command("prune_scans", older_than=-1)
