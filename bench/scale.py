"""The real size of an olympiad: the same contest at 25 and at 255 contestants' scanned papers
(plus six AI systems each), 5 problems of 15 criteria, 40 jurors, 2 jurors a paper and 3 on
problem 3, built through the documented commands (bench/_scale_build.py) in one throw-away
SQLite database (bench/_throwaway.py), and every step a person waits on measured at both sizes:

- the scan import (`import_scans`, every page rendered, masked and stored);
- the pages (a juror's sheet of problem 1, the comparison of problem 1, the chair's queue, the
  results, the discussion of an open cell): through Django's WSGI handler with DEBUG off, as
  bench/pages.py times them, sizes and pages taking turns, medians;
- with `--printouts`, the whole contest's printouts (`render_papers --bundle`, every paper of
  every problem, from an empty cache) in a process of its own: its time and peak RSS;
- the backup (`export_contest`, then `import_contest` into a fresh database), each in a process
  of its own as bench/backup.py runs them: peak RSS;
- 40 jurors autosaving through gunicorn: bench/load.py's measure (SQLite), each juror's sheet as
  long as one of this contest's (two jurors of eight a paper), at each size.

Goals: time at the large size against the small one within 1.05 × the ratio of papers (linear,
5 % for noise: 10.71× for 25 → 255, as bench/pages.py's 10.5× for 10×); the printouts within
the issue's 10× at 25 → 255 (scaled with the papers for other sizes) and their workers within
1 GB; the backup within bench/backup.py's 300 MB; the autosave's p95 within bench/load.py's 5×
the lone juror's median.

Run: .venv/bin/python bench/scale.py [--papers 25,255] [--printouts] [--skip-load]
(prints: name  measured  goal  met/not met)"""

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# bench/ is on the path when a script runs, as Python puts its folder first.
import _scale_build
import backup
import load
from _throwaway import ROOT, throwaway_database

ROUNDS = 9
# Linear in the papers; the 5 % above it leaves room for measurement noise only.
MARGIN = 1.05
# The goal for the whole contest's printouts: at most 10× from 25 to 255 papers.
PRINTOUTS_GOAL = 10.0
PRINTOUTS_RSS_GOAL_MB = 1024
BACKUP_RSS_GOAL_MB = backup.GOAL_MB
PAGES = ("sheet_page", "comparison_page", "chair_queue", "results_page", "discussion_page")

# `manage.py <args>` in a child process; prints the seconds, the process's own peak RSS
# (bench/backup.py's measure) and its largest child's (render_papers' worker processes), in kB.
# The children's figure is `ru_maxrss`, which Linux carries over from the parent at the fork:
# an upper bound of the worker's own.
_CHILD = (
    backup.PEAK_RSS_KB
    + """
import os, resource, sys, time
sys.path.insert(0, os.environ["JURY_ROOT"])
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")
os.environ.setdefault("DEBUG", "true")  # the local key and hosts (DEBUG is off by default)
import django
django.setup()
from django.core.management import call_command
started = time.perf_counter()
call_command(*sys.argv[1:], verbosity=0)
seconds = time.perf_counter() - started
print(seconds, peak_rss_kb(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", default="25,255", help="the two sizes, small,large")
    parser.add_argument(
        "--printouts",
        action="store_true",
        help="also the whole contest's PDFs (about 15 minutes more at 255 papers on 2 cores)",
    )
    parser.add_argument("--skip-load", action="store_true", help="no 40 jurors autosaving")
    parser.add_argument("--load-seconds", type=float, default=20, help="bench/load.py --seconds")
    args = parser.parse_args()
    small, large = sorted(int(n) for n in args.papers.split(","))
    started = time.perf_counter()
    with throwaway_database() as workdir:
        failed = contest_figures(args, small, large, workdir)
    note(f"scale.py took {time.perf_counter() - started:.0f} s")
    # As bench/load.py: a lost or duplicated write or a server error is a bug, not slowness.
    sys.exit(1 if failed else 0)


def report(lines: list[tuple]) -> None:
    """Each step's figures as soon as it is measured, so that a run cut short keeps them."""
    for name, measured, goal, met in lines:
        print(f"{name}  {measured}  {goal}  {'met' if met else 'not met'}", flush=True)


def note(text: str) -> None:
    print(f"# {text}", file=sys.stderr, flush=True)


def ratio_line(name: str, large: float, small: float, goal: float) -> tuple:
    ratio = large / small
    return (name, f"{ratio:.2f}x", f"<={goal:.2f}x", ratio <= goal)


def contest_figures(args, small: int, large: int, workdir: Path) -> bool:
    """Build both contests and report every figure; True when the autosave lost a write."""
    from django.conf import settings

    settings.SCANS_DIR = workdir / "scans"
    settings.CACHE_DIR = workdir / "cache"
    # The 41 users' passwords are never used (the clients log in with force_login): the fast
    # hasher keeps 41 slow hashes out of the set-up.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    schemes = _scale_build.widened_schemes(workdir / "schemes")
    jurors, chair = _scale_build.jurors_and_chair()
    contests, steps = {}, {}
    for size in (small, large):
        contests[size], steps[size] = _scale_build.build(
            size, jurors=jurors, schemes=schemes, workdir=workdir
        )
        note(
            f"{size} papers (+6 AI systems): set-up {steps[size]['set_up']:.1f} s, scan import "
            f"{steps[size]['scan_import']:.1f} s ({size * 5} pages), assignments and grading "
            f"{steps[size]['grading']:.1f} s ({steps[size]['marks']:,} marks)"
        )
    goal = MARGIN * large / small
    report(
        [
            ratio_line(
                f"scan_import_{large}_vs_{small}_papers",
                steps[large]["scan_import"],
                steps[small]["scan_import"],
                goal,
            )
        ]
    )
    report(page_figures(contests, chair, small, large, goal))
    env = _child_env(workdir)
    report(backup_figures(env, workdir, small, large))
    # The slowest steps last: the autosave (its own databases and servers), then the printouts.
    failed = False
    if not args.skip_load:
        lines, failed = load_figures(small, large, args.load_seconds)
        report(lines)
    if args.printouts:
        report(printout_figures(env, workdir, small, large))
    return failed


def _page_urls(contest, chair) -> dict[str, str]:
    """The URLs of the pages timed: a juror's sheet of problem 1 (the first of its group), the
    comparison of problem 1, the queue, the results and the discussion of an open cell."""
    from django.urls import reverse

    from grading.models import Mark, PaperLabel, Sheet

    p1 = contest.problems.get(number=1)
    sheet = Sheet.objects.filter(problem=p1).order_by("juror__username").first()
    cell = _open_cell(Mark.objects.filter(sheet__problem=p1))
    label = PaperLabel.objects.get(paper_id=cell[0], problem=p1).label
    code = p1.criteria.get(pk=cell[1]).code
    return {
        "sheet_page": (sheet.juror, reverse("sheet", args=[contest.slug, 1])),
        "comparison_page": (chair, reverse("comparison", args=[contest.slug, 1])),
        "chair_queue": (chair, reverse("chair_queue", args=[contest.slug])),
        "results_page": (chair, reverse("results", args=[contest.slug])),
        "discussion_page": (
            chair,
            reverse("discussion", args=[contest.slug, 1, label, code]),
        ),
    }


def _open_cell(marks) -> tuple[int, int]:
    """(paper id, criterion id) of the first cell whose jurors disagree."""
    seen: dict[tuple[int, int], set] = {}
    for paper, criterion, points in marks.values_list("paper", "criterion", "points"):
        seen.setdefault((paper, criterion), set()).add(points)
    return next(key for key, values in sorted(seen.items()) if len(values) > 1)


def page_figures(contests: dict, chair, small: int, large: int, goal: float) -> list[tuple]:
    from django.test import Client

    from grading.console.contest_life import contest_resolution_open

    urls = {}
    for size, contest in contests.items():
        contest_resolution_open(contest=contest, actor=chair)
        urls[size] = _page_urls(contest, chair)
    clients = {}
    for user in {user for pages in urls.values() for user, _ in pages.values()}:
        clients[user.pk] = Client(HTTP_HOST="localhost")
        clients[user.pk].force_login(user)
    for pages in urls.values():
        for user, url in pages.values():  # the warm-up: templates compiled, caches filled
            response = clients[user.pk].get(url)
            assert response.status_code == 200, (url, response.status_code)
    times = {(page, size): [] for page in PAGES for size in urls}
    for _ in range(ROUNDS):
        for page in PAGES:
            for size in (small, large):
                user, url = urls[size][page]
                client = clients[user.pk]
                # As bench/pages.py: the WSGI handler, not `client.get`, which keeps every
                # template context alive.
                environ = client._base_environ(PATH_INFO=url, REQUEST_METHOD="GET")
                start = time.perf_counter()
                response = client.handler(environ)
                times[(page, size)].append(time.perf_counter() - start)
                assert response.status_code == 200
                del response
    ms = {key: statistics.median(values) * 1000 for key, values in times.items()}
    note(
        "pages (median of "
        f"{ROUNDS}): "
        + "; ".join(
            f"{page} {ms[(page, small)]:.0f} ms at {small}, {ms[(page, large)]:.0f} ms at {large}"
            for page in PAGES
        )
    )
    return [
        ratio_line(f"{page}_{large}_vs_{small}_papers", ms[(page, large)], ms[(page, small)], goal)
        for page in PAGES
    ]


def _child_env(workdir: Path) -> dict:
    from django.conf import settings

    return {
        **os.environ,
        "JURY_ROOT": str(ROOT),
        "DJANGO_SETTINGS_MODULE": "grading.settings",
        "DATABASE_URL": f"sqlite:///{settings.DATABASES['default']['NAME']}",
        "SCANS_DIR": str(settings.SCANS_DIR),
    }


def _run(env: dict, *args: str) -> tuple[float, float, float]:
    """Seconds, peak RSS in MB and its largest child's peak RSS in MB of `manage.py <args>`."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, *args], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        sys.exit(f"{args[0]} failed:\n{done.stderr[-3000:]}")
    seconds, own, children = done.stdout.split()[-3:]
    return float(seconds), int(own) / 1024, int(children) / 1024


def printout_figures(env: dict, workdir: Path, small: int, large: int) -> list[tuple]:
    seconds, rss = {}, {}
    for size in (small, large):
        out = workdir / f"printouts-{size}"
        # An empty cache of its own: every PDF rendered.
        cache = {**env, "CACHE_DIR": str(workdir / f"printouts-cache-{size}")}
        seconds[size], own, worker = _run(
            cache, "render_papers", "--contest", f"scale-{size}", "--bundle", "--out", str(out)
        )
        rss[size] = max(own, worker)
        note(
            f"printouts at {size} papers: {len(list(out.rglob('*.pdf')))} PDFs in "
            f"{seconds[size]:.0f} s; peak RSS {own:.0f} MB (command), {worker:.0f} MB (largest "
            "worker process)"
        )
    goal = PRINTOUTS_GOAL * (large / small) / (255 / 25)
    return [
        ratio_line(f"printouts_{large}_vs_{small}_papers", seconds[large], seconds[small], goal),
        (
            f"printouts_peak_rss_mb_at_{large}",
            f"{rss[large]:.0f}MB",
            f"<={PRINTOUTS_RSS_GOAL_MB}MB",
            rss[large] <= PRINTOUTS_RSS_GOAL_MB,
        ),
    ]


def backup_figures(env: dict, workdir: Path, small: int, large: int) -> list[tuple]:
    lines = []
    for size in (small, large):
        archive = workdir / f"scale-{size}.zip"
        export_s, export_mb, _ = _run(
            env, "export_contest", "--contest", f"scale-{size}", "--out", str(archive)
        )
        target = env | {
            "DATABASE_URL": f"sqlite:///{workdir / f'restored-{size}.sqlite3'}",
            "SCANS_DIR": str(workdir / f"restored-scans-{size}"),
        }
        _run(target, "migrate")
        import_s, import_mb, _ = _run(target, "import_contest", str(archive))
        note(
            f"backup at {size} papers: archive {archive.stat().st_size / 2**20:.0f} MB; export "
            f"{export_s:.1f} s, {export_mb:.0f} MB; restore {import_s:.1f} s, {import_mb:.0f} MB"
        )
        for name, mb in (("export", export_mb), ("import", import_mb)):
            lines.append(
                (
                    f"backup_{name}_peak_rss_mb_at_{size}",
                    f"{mb:.0f}MB",
                    f"<={BACKUP_RSS_GOAL_MB}MB",
                    mb <= BACKUP_RSS_GOAL_MB,
                )
            )
    return lines


def load_figures(small: int, large: int, seconds: float) -> tuple[list[tuple], bool]:
    """bench/load.py's SQLite run at each size, its figure lines renamed with the size; and
    whether a write was lost or duplicated or the server failed."""
    lines, failed = [], False
    for size in (small, large):
        # A juror's sheet here: two jurors of eight grade each of the size's papers and the
        # six AI systems (three of eight on problem 3; the sheet of problem 1 is timed).
        per_sheet = -(-(size + 6) * 2 // (_scale_build.JURORS // _scale_build.PROBLEMS))
        args = argparse.Namespace(
            jurors=_scale_build.JURORS, papers=per_sheet, seconds=seconds, think=0.5,
            max_saves=1000, single_saves=300, workers=2, threads=4, poll_interval=5.0,
        )  # fmt: skip
        with tempfile.TemporaryDirectory(prefix="jury-scale-load-") as folder:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                failed |= load.run_backend(
                    "sqlite", f"sqlite:///{folder}/load.sqlite3", args, Path(folder) / "run"
                )
        for line in out.getvalue().splitlines():
            name, measured, goal, *met = line.split()
            name = name.replace("load_sqlite_", f"autosave_{_scale_build.JURORS}_jurors_")
            lines.append((f"{name}_at_{size}", measured, goal, met == ["met"]))
        note(f"autosave at {size} papers: {per_sheet} papers on each juror's sheet")
    return lines, failed


if __name__ == "__main__":
    main()
