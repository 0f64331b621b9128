"""Backups written by earlier releases restore, and exporting what they restored gives the same
document again: so the export of a contest is the same as the release that wrote the file.

The files in tests/fixtures/backups/ were written by those releases' own export_contest, on the
demo contest (`manage.py load_demo --finish-grading`): `demo-34bfedc.zip` by main at 34bfedc
(version 2, the archive), `demo-e7b6ba3.json.gz` by main at e7b6ba3, the last release before
the archive (version 1, each page's PNG as base64 in the document)."""

import base64
import gzip
import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command

from grading.backup.export import page_member
from grading.models import ScanPage

BACKUPS = Path(__file__).resolve().parents[2] / "fixtures" / "backups"


@pytest.fixture
def scans_dir(settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    return settings.SCANS_DIR


def _restored_and_exported_again(path: Path, tmp_path: Path) -> Path:
    call_command("import_contest", str(path), verbosity=0)
    again = tmp_path / "again.zip"
    call_command("export_contest", contest="demo", out=str(again), verbosity=0)
    return again


def test_the_demo_backup_written_by_main_restores_and_exports_to_the_same_bytes(
    db, scans_dir, tmp_path
):
    written = BACKUPS / "demo-34bfedc.zip"

    again = _restored_and_exported_again(written, tmp_path)

    assert again.read_bytes() == written.read_bytes()
    assert ScanPage.objects.count() == 20


def test_the_demo_backup_written_before_the_archive_restores_with_every_row_and_page(
    db, scans_dir, tmp_path
):
    written = BACKUPS / "demo-e7b6ba3.json.gz"
    old = json.loads(gzip.decompress(written.read_bytes()))

    again = _restored_and_exported_again(written, tmp_path)

    with zipfile.ZipFile(again) as archive:
        document = json.loads(archive.read("backup.json"))
        images = {name: archive.read(name) for name in archive.namelist() if name != "backup.json"}
    # The same document but for the version, where each page's image lives and what that
    # release did not write.
    pages = []
    for index, row in enumerate(old["scan_pages"], start=1):
        png = base64.b64decode(row["png"])
        member = page_member(index)
        assert images.pop(member) == png
        pages.append(
            {k: v for k, v in row.items() if k != "png"}
            | {"image": member, "sha256": hashlib.sha256(png).hexdigest()}
        )
    # That release did not record the problems a contestant left blank: none are.
    papers = [{"blank_problems": []} | paper for paper in old["papers"]]
    assert (document, images) == (old | {"version": 2, "papers": papers, "scan_pages": pages}, {})
    assert len(pages) == 20
