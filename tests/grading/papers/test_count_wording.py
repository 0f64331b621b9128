"""prune_scans words its counts in the singular for one and the plural otherwise."""

import io
import os
import time

import pytest
from django.core.management import call_command

from grading.papers import images


@pytest.fixture
def scans_dir(settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    settings.SCANS_DIR.mkdir()
    return settings.SCANS_DIR


def _leave(scans_dir, *, folders: int, images_left: int) -> None:
    """Leftovers of interrupted imports, two hours old."""
    two_hours_ago = time.time() - 2 * 3600
    paths = [scans_dir / f".import-{n}" for n in range(folders)]
    for path in paths:
        path.mkdir()
    for _ in range(images_left):
        paths.append(scans_dir / images.random_name())
        paths[-1].write_bytes(b"")
    for path in paths:
        os.utime(path, (two_hours_ago, two_hours_ago))


@pytest.mark.parametrize(
    ("folders", "images_left", "counts"),
    [
        (2, 1, "2 temporary folders and 1 unused image"),
        (1, 2, "1 temporary folder and 2 unused images"),
    ],
)
def test_prune_scans_counts_folders_and_images(db, scans_dir, folders, images_left, counts):
    _leave(scans_dir, folders=folders, images_left=images_left)
    out = io.StringIO()
    call_command("prune_scans", stdout=out)
    assert out.getvalue() == f"Removed {counts} (0.0 MB) from {images.scans_dir()}.\n"
