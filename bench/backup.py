"""A whole contest's backup and restore with many scanned pages: `export_contest` and
`import_contest`, each in its own process, on a contest of PAPERS human papers × 5 problems ×
PAGES pages of a 150 dpi handwriting-like A4 page (about 24 kB each, drawn from a pool of
distinct pages; the issue's contest has about 19 kB a page). Each process reports its peak
resident memory (VmHWM, as `ru_maxrss` would count this process's own); the goal is that both stay within 300 MB whatever the number of
pages, which a backup that held every page in memory (as base64 in one JSON document) did not.
The restore goes into a second, freshly migrated database and SCANS_DIR, and its pages are
checked byte for byte against the originals.

By default 255 × 5 × 2 pages (the issue's contest, 2,550 pages, about 2 minutes, so that `make
bench` stays within its 10 minutes); `bench/backup.py 255 6` runs the 7,650 pages of the goal
(about 7 minutes on two busy cores, nearly all of it the restore decoding every page to check it).

Run: .venv/bin/python bench/backup.py [papers] [pages]   (prints: name  MB  goal  met/not met)"""

import hashlib
import io
import os
import random
import subprocess
import sys
import time
from pathlib import Path

# bench/ is on the path when a script runs, as Python puts its folder first.
from _handwriting import handwritten_page
from _throwaway import ROOT, throwaway_database

PAPERS = 255
PAGES = 2
POOL = 40
GOAL_MB = 300
# A4 at 150 dpi, as the scan import renders it (bench/scans.py).
WIDTH, HEIGHT = 1240, 1754

# The peak resident memory of the process that runs it, in kB. VmHWM, not `ru_maxrss`: Linux
# carries a parent's `ru_maxrss` into a child across fork and exec, so a child started by a
# process holding 240 MB reports at least 240 MB; VmHWM belongs to the child's own memory.
PEAK_RSS_KB = """
def peak_rss_kb():
    try:
        with open("/proc/self/status") as status:
            return int(status.read().split("VmHWM:")[1].split()[0])
    except (OSError, IndexError):
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
"""
# Run in a child process: the command, then its own peak resident memory in kB.
_CHILD = (
    PEAK_RSS_KB
    + """
import os, sys
sys.path.insert(0, os.environ["JURY_ROOT"])
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")
os.environ.setdefault("DEBUG", "true")  # the local key and hosts (DEBUG is off by default)
import django
django.setup()
from django.core.management import call_command
call_command(*sys.argv[1:], verbosity=0)
print(peak_rss_kb())
"""
)


def _page(seed: int) -> bytes:
    """An A4 page of handwriting-like strokes, stored as the scan import stores it."""
    from grading.papers import images
    from rubrics.models import SCAN_MASK_PERCENT

    image = handwritten_page(random.Random(seed))
    out = io.BytesIO()
    images.save_png(images.masked(image, percent=SCAN_MASK_PERCENT), out)
    return out.getvalue()


def _build(scans: Path, papers: int, pages: int) -> int:
    """The contest with its pages in `scans`; their total size in bytes."""
    from grading.intake.labels import paper_labels_ensure
    from grading.models import Paper, ScanPage
    from grading.papers import images
    from tests import factories

    contest = factories.make_contest("bench", problems=5, papers=0)
    for number in range(papers):
        Paper.objects.create(contest=contest, identity=f"C{number:03d}", source=Paper.Source.HUMAN)
    paper_labels_ensure(contest=contest)
    pool = [_page(seed) for seed in range(POOL)]
    rows, total = [], 0
    for index, (paper, problem) in enumerate(
        (paper, problem) for paper in contest.papers.all() for problem in contest.problems.all()
    ):
        for position in range(1, pages + 1):
            data = pool[(index * pages + position) % POOL]
            name = images.random_name()
            (scans / name).write_bytes(data)
            total += len(data)
            rows.append(
                ScanPage(
                    paper=paper,
                    problem=problem,
                    position=position,
                    image=name,
                    width=WIDTH,
                    height=HEIGHT,
                )
            )
    ScanPage.objects.bulk_create(rows, batch_size=1000)
    return total


def _run(env: dict, *args: str) -> tuple[float, float]:
    """Peak resident memory in MB and seconds of `manage.py <args>` in its own process."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, *args], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        sys.exit(f"{args[0]} failed:\n{done.stderr[-3000:]}")
    return int(done.stdout.split()[-1]) / 1024, time.perf_counter() - start


def _digests(folder: Path) -> list[str]:
    return sorted(hashlib.sha256(path.read_bytes()).hexdigest() for path in folder.glob("*.png"))


def main() -> None:
    papers = int(sys.argv[1]) if len(sys.argv) > 1 else PAPERS
    pages = int(sys.argv[2]) if len(sys.argv) > 2 else PAGES
    with throwaway_database() as workdir:
        from django.conf import settings

        scans = workdir / "scans"
        scans.mkdir()
        settings.SCANS_DIR = scans
        total = _build(scans, papers, pages)
        base = {**os.environ, "JURY_ROOT": str(ROOT), "DJANGO_SETTINGS_MODULE": "grading.settings"}
        source = base | {
            "DATABASE_URL": f"sqlite:///{settings.DATABASES['default']['NAME']}",
            "SCANS_DIR": str(scans),
        }
        archive = workdir / "bench-backup.zip"
        export_mb, export_s = _run(
            source, "export_contest", "--contest", "bench", "--out", str(archive)
        )
        target = source | {
            "DATABASE_URL": f"sqlite:///{workdir / 'restored.sqlite3'}",
            "SCANS_DIR": str(workdir / "restored-scans"),
        }
        _run(target, "migrate")
        import_mb, import_s = _run(target, "import_contest", str(archive))
        if _digests(workdir / "restored-scans") != _digests(scans):
            sys.exit("The restored pages differ from the originals.")
        size = archive.stat().st_size
    count = papers * 5 * pages
    print(
        f"# {papers} papers × 5 problems × {pages} pages = {count:,} pages of "
        f"{total / count / 1024:.0f} kB on average, {total / 2**20:.0f} MB in all; archive "
        f"{size / 2**20:.0f} MB; export {export_s:.0f} s, import {import_s:.0f} s",
        file=sys.stderr,
    )
    for name, measured in (
        ("backup_export_peak_rss_mb", export_mb),
        ("backup_import_peak_rss_mb", import_mb),
    ):
        met = "met" if measured <= GOAL_MB else "not met"
        print(f"{name}  {measured:.0f}MB  <={GOAL_MB}MB  {met}")


if __name__ == "__main__":
    main()
