import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import ngettext

from grading.models import ScanPage
from grading.papers import images

# An import moves its pages into SCANS_DIR before its transaction commits, and a restore writes
# them there first too: a file younger than this may belong to one still running.
DEFAULT_MINUTES = 60


@dataclass
class Pruned:
    folders: list[Path] = field(default_factory=list)
    images: list[Path] = field(default_factory=list)
    bytes: int = 0


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(child.stat().st_size for child in path.rglob("*") if child.is_file())
    return path.stat().st_size


def scans_prune(*, older_than_minutes: int = DEFAULT_MINUTES, dry_run: bool = False) -> Pruned:
    """Remove from SCANS_DIR what nothing uses: the `.import-*` folders an interrupted import
    left, and page images (PNG) that no ScanPage names (an import or restore rolled back after
    writing them). Only what is older than `older_than_minutes`; `dry_run` removes nothing."""
    root = images.scans_dir()
    pruned = Pruned()
    if not root.is_dir():
        return pruned
    limit = time.time() - older_than_minutes * 60
    named = set(ScanPage.objects.values_list("image", flat=True))
    for child in sorted(root.iterdir()):
        try:
            old = child.lstat().st_mtime < limit
        except OSError:
            continue
        if child.is_dir() and not child.is_symlink() and child.name.startswith(".import-"):
            if old:
                pruned.folders.append(child)
        elif child.is_dir() and not child.is_symlink():
            for path in sorted(child.rglob("*.png")):
                relative = str(path.relative_to(root))
                if path.is_file() and relative not in named and path.stat().st_mtime < limit:
                    pruned.images.append(path)
        elif child.is_file() and child.suffix == ".png" and child.name not in named and old:
            pruned.images.append(child)
    for path in [*pruned.folders, *pruned.images]:
        pruned.bytes += _size(path)
        if not dry_run:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
    return pruned


class Command(BaseCommand):
    help = (
        "Remove from SCANS_DIR what no scanned page uses: temporary .import-* folders that an "
        "interrupted scan import left, and page images no ScanPage names (an import or a "
        "restore undone after writing them). Only what is older than --older-than minutes "
        f"(default {DEFAULT_MINUTES}), so that an import still running keeps its files. "
        "--dry-run lists what would go and removes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="List, remove nothing.")
        parser.add_argument(
            "--older-than",
            type=int,
            default=DEFAULT_MINUTES,
            metavar="MINUTES",
            help=f"Only what was last changed this many minutes ago or more "
            f"(default {DEFAULT_MINUTES}).",
        )

    def handle(self, *args, dry_run, older_than, verbosity, **options):
        if older_than < 0:
            raise CommandError("--older-than is a number of minutes, 0 or more.")
        pruned = scans_prune(older_than_minutes=older_than, dry_run=dry_run)
        root = images.scans_dir()
        if dry_run or verbosity >= 2:
            verb = "Would remove" if dry_run else "Removed"
            for path in pruned.folders:
                self.stdout.write(f"{verb} the folder {path.relative_to(root)}/")
            for path in pruned.images:
                self.stdout.write(f"{verb} the image {path.relative_to(root)}")
        if verbosity >= 1:
            verb = "Would remove" if dry_run else "Removed"
            folders, files = len(pruned.folders), len(pruned.images)
            self.stdout.write(
                self.style.SUCCESS(
                    f"{verb} "
                    f"{ngettext('%d temporary folder', '%d temporary folders', folders) % folders} "
                    f"and {ngettext('%d unused image', '%d unused images', files) % files} "
                    f"({pruned.bytes / (1024 * 1024):.1f} MB) from {root}."
                )
            )
