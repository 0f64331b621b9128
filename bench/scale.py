"""The real size of an olympiad: the same contest at 25 and at 255 contestants' scanned papers
(plus six AI systems each), 5 problems of 15 criteria, 40 jurors, 2 jurors a paper and 3 on
problem 3, built the organizer's way (bench/_scale_build.py: people, delegations, languages and
juror facts through the console's services and the documented commands, 2–4 handwritten pages
an answer, about 4 % blank answers, some upside-down piles behind covers, the solver's
assignment under those facts, a seeded calibration round, about 100 appeals at 255) in one
throw-away SQLite database (bench/_throwaway.py), and every step a person waits on measured at
both sizes:

- the scan import (`import_scans`, every page rendered, masked and stored);
- the pages in the resolution phase (a juror's sheet of problem 1, the comparison of problem 1,
  the chair's queue, the results, the discussion of an open cell) and, once the provisional
  results are published and the leaders have appealed, the appeals queue, the results again
  and the group calibration page of problem 1: through Django's WSGI handler with DEBUG off, as
  bench/pages.py times them, sizes and pages taking turns, medians;
- with `--printouts`, the whole contest's printouts (`render_papers --bundle`, every paper of
  every problem, from an empty cache) in a process of its own: its time and peak RSS;
- the backup (`export_contest`, then `import_contest` into a fresh database), each in a process
  of its own as bench/backup.py runs them: peak RSS;
- 40 jurors autosaving through gunicorn on a copy of this contest's database taken when its
  grading opened, each on their own sheet of it (bench/load.py's jurors, phases and check).

Goals (the issue's): the pages a person waits on stay flat, at most 2.5× from 25 to 255 (the
comparison, the queue, the results, the discussion, the calibration page); a juror's sheet, the
appeals queue (it lists every appeal: about 10 at 25 contestants, 100 at 255) and the scan
import grow with the papers, within 1.05 × the ratio of papers (10.71× for 25 → 255); the
printouts within 10× at 25 → 255 (scaled with the papers for other sizes) and their workers
within 1 GB; the restore within 200 MB at the large size, the export within bench/backup.py's
300 MB; the autosave's p95 within bench/load.py's 5× the lone juror's median, polling within
1.2×. A closing table lists every figure at both sizes with its ratio.

Run: .venv/bin/python bench/scale.py [--papers 25,255] [--printouts] [--skip-load]
(prints: name  measured  goal  met/not met, then the closing table)"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

# bench/ is on the path when a script runs, as Python puts its folder first.
import _scale_build
import backup
from _scale_autosave import autosave_run, autosave_snapshot
from _throwaway import ROOT, throwaway_database

ROUNDS = 9
# Linear in the papers; the 5 % above it leaves room for measurement noise only.
MARGIN = 1.05
# The goal for the pages a person waits on, whatever the sizes: flat, within 2.5×.
FLAT_GOAL = 2.5
# The goal for the whole contest's printouts: at most 10× from 25 to 255 papers.
PRINTOUTS_GOAL = 10.0
PRINTOUTS_RSS_GOAL_MB = 1024
BACKUP_RSS_GOAL_MB = backup.GOAL_MB
# The goal for a restore at the real size.
RESTORE_RSS_GOAL_MB = 200
# The pages timed in the resolution phase, and after the provisional results and the appeals;
# the sheet grows with the papers (a juror grades more of them), every other page is flat.
RESOLUTION_PAGES = (
    "sheet_page", "comparison_page", "chair_queue", "results_page", "discussion_page",
)  # fmt: skip
PROVISIONAL_PAGES = ("appeals_queue", "results_provisional_page", "group_calibration_page")
# Pages that list what grows with the contest, every row of it: a juror's sheet (their papers)
# and the appeals queue (every appeal, about 10 at 25 contestants and 100 at 255, with 8 queries
# at both sizes). They are held to linear growth, the other pages to flat.
GROWING = {"sheet_page", "appeals_queue"}
# The closing table: (figure, at the small size, at the large size, ratio, goal, met).
TABLE: list[tuple[str, str, str, str, str, bool]] = []

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
    try:
        with throwaway_database() as workdir:
            failed = contest_figures(args, small, large, workdir)
    finally:
        closing_table(small, large)
    note(f"scale.py took {time.perf_counter() - started:.0f} s")
    # As bench/load.py: a lost or duplicated write or a server error is a bug, not slowness.
    sys.exit(1 if failed else 0)


def report(lines: list[tuple]) -> None:
    """Each step's figures as soon as it is measured, so that a run cut short keeps them."""
    for name, measured, goal, met in lines:
        print(f"{name}  {measured}  {goal}  {'met' if met else 'not met'}", flush=True)


def note(text: str) -> None:
    print(f"# {text}", file=sys.stderr, flush=True)


def ratio_line(name: str, large: float, small: float, goal: float, unit: str = "ms") -> tuple:
    """The figure's line, and its row in the closing table."""
    ratio = large / small
    TABLE.append(
        (name, f"{small:,.0f} {unit}", f"{large:,.0f} {unit}", f"{ratio:.2f}x", f"<={goal:.2f}x",
         ratio <= goal)
    )  # fmt: skip
    return (name, f"{ratio:.2f}x", f"<={goal:.2f}x", ratio <= goal)


def closing_table(small: int, large: int) -> None:
    """Every figure at both sizes with its ratio and whether its goal is met, as a Markdown
    table (for the issue's note)."""
    print(f"\n| figure | {small} | {large} | ratio | goal | |", flush=True)
    print("| --- | --- | --- | --- | --- | --- |")
    for name, at_small, at_large, ratio, goal, met in TABLE:
        print(
            f"| {name} | {at_small} | {at_large} | {ratio} | {goal} | {'met' if met else 'not met'} |"
        )
    print(f"\n{sum(not row[-1] for row in TABLE)} of {len(TABLE)} figures not met.", flush=True)


def contest_figures(args, small: int, large: int, workdir: Path) -> bool:
    """Build both contests and report every figure; True when the autosave lost a write."""
    from django.conf import settings

    from grading.console.contest_life import contest_resolution_open

    settings.SCANS_DIR = workdir / "scans"
    settings.CACHE_DIR = workdir / "cache"
    # No password is ever typed (the clients log in with force_login or a session made as it
    # makes one): the fast hasher keeps slow hashes out of the set-up.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    schemes = _scale_build.widened_schemes(workdir / "schemes")
    organizer, chair = _scale_build.organizer_and_chair()
    contests, steps, plans = {}, {}, {}
    for size in (small, large):

        def snapshot(contest, size=size):
            plans[size] = autosave_snapshot(contest, workdir / f"autosave-{size}.sqlite3")

        contests[size], steps[size] = _scale_build.build(
            size, organizer=organizer, chair=chair, schemes=schemes, workdir=workdir,
            on_grading_open=snapshot,
        )  # fmt: skip
        step = steps[size]
        note(
            f"{size} papers (+6 AI systems): set-up {step['set_up']:.1f} s; scan import "
            f"{step['scan_import']:.1f} s ({step['pages']} handwritten pages, {step['blank']} "
            f"blank answers, {step['covered']} files behind covers, {step['upside_down']} of "
            f"them upside down); people {step['people']:.1f} s ({step['delegations']} "
            f"delegations); assignment {step['assignment']:.1f} s ({step['assignment_summary']}); "
            f"calibration round {step['calibration']:.1f} s; grading {step['grading']:.1f} s "
            f"({step['marks']:,} marks)"
        )
    linear = MARGIN * large / small
    report(
        [
            ratio_line(
                f"scan_import_{large}_vs_{small}_papers",
                steps[large]["scan_import"],
                steps[small]["scan_import"],
                linear,
                unit="s",
            ),
        ]
    )
    urls = {}
    for size, contest in contests.items():
        contest_resolution_open(contest=contest, actor=chair)
        urls[size] = _resolution_urls(contest, chair)
    report(page_figures(urls, RESOLUTION_PAGES, small, large, linear))
    for size, contest in contests.items():
        started = time.perf_counter()
        appeals = _scale_build.provisional_with_appeals(
            contest, size, chair=chair, organizer=organizer
        )
        note(
            f"{size} papers: open cells decided, provisional results published and {appeals} "
            f"appeals filed in {time.perf_counter() - started:.1f} s"
        )
        urls[size] = _provisional_urls(contest, chair)
    report(page_figures(urls, PROVISIONAL_PAGES, small, large, linear))
    env = _child_env(workdir)
    report(backup_figures(env, workdir, small, large))
    # The slowest steps last: the autosave (its own servers), then the printouts.
    failed = False
    if not args.skip_load:
        lines, failed = load_figures(workdir, plans, small, large, args.load_seconds)
        report(lines)
    if args.printouts:
        report(printout_figures(env, workdir, small, large))
    return failed


def _resolution_urls(contest, chair) -> dict[str, tuple]:
    """(user, URL) of the pages timed in the resolution phase: a juror's sheet of problem 1
    (the first of its group), the comparison of problem 1, the queue, the results and the
    discussion of an open cell."""
    from django.urls import reverse

    from grading.models import PaperLabel, Sheet

    p1 = contest.problems.get(number=1)
    sheet = Sheet.objects.filter(problem=p1).order_by("juror__username").first()
    paper, criterion = next(
        cell for cell in _scale_build.open_cells(contest) if p1.criteria.filter(pk=cell[1]).exists()
    )
    label = PaperLabel.objects.get(paper_id=paper, problem=p1).label
    code = p1.criteria.get(pk=criterion).code
    return {
        "sheet_page": (sheet.juror, reverse("sheet", args=[contest.slug, 1])),
        "comparison_page": (chair, reverse("comparison", args=[contest.slug, 1])),
        "chair_queue": (chair, reverse("chair_queue", args=[contest.slug])),
        "results_page": (chair, reverse("results", args=[contest.slug])),
        "discussion_page": (chair, reverse("discussion", args=[contest.slug, 1, label, code])),
    }


def _provisional_urls(contest, chair) -> dict[str, tuple]:
    """(user, URL) of the pages timed once the leaders have appealed: the chair's appeals
    queue, the provisional results and the group calibration page of problem 1."""
    from django.urls import reverse

    number = _scale_build.CALIBRATION_PROBLEM
    return {
        "appeals_queue": (chair, reverse("appeal_queue", args=[contest.slug])),
        "results_provisional_page": (chair, reverse("results", args=[contest.slug])),
        "group_calibration_page": (
            chair,
            reverse("calibration_jurors", args=[contest.slug, number]),
        ),
    }


def page_figures(urls: dict, pages: tuple, small: int, large: int, linear: float) -> list[tuple]:
    """Each page's median time at both sizes (sizes and pages taking turns, after a warm-up);
    its line against the flat goal, or the linear one for a page that grows with the papers."""
    from django.test import Client

    clients = {}
    for user in {user for by_page in urls.values() for user, _ in by_page.values()}:
        clients[user.pk] = Client(HTTP_HOST="localhost")
        clients[user.pk].force_login(user)
    for by_page in urls.values():
        for user, url in by_page.values():  # the warm-up: templates compiled, caches filled
            response = clients[user.pk].get(url)
            assert response.status_code == 200, (url, response.status_code)
    times = {(page, size): [] for page in pages for size in urls}
    for _ in range(ROUNDS):
        for page in pages:
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
        f"pages (median of {ROUNDS}): "
        + "; ".join(
            f"{page} {ms[(page, small)]:.0f} ms at {small}, {ms[(page, large)]:.0f} ms at {large}"
            for page in pages
        )
    )
    return [
        ratio_line(
            f"{page}_{large}_vs_{small}_papers",
            ms[(page, large)],
            ms[(page, small)],
            linear if page in GROWING else FLAT_GOAL,
        )
        for page in pages
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
    TABLE.append(
        ("printouts_peak_rss_mb", f"{rss[small]:.0f} MB", f"{rss[large]:.0f} MB",
         f"{rss[large] / rss[small]:.2f}x", f"<={PRINTOUTS_RSS_GOAL_MB} MB at {large}",
         rss[large] <= PRINTOUTS_RSS_GOAL_MB)
    )  # fmt: skip
    return [
        ratio_line(
            f"printouts_{large}_vs_{small}_papers", seconds[large], seconds[small], goal, unit="s"
        ),
        (
            f"printouts_peak_rss_mb_at_{large}",
            f"{rss[large]:.0f}MB",
            f"<={PRINTOUTS_RSS_GOAL_MB}MB",
            rss[large] <= PRINTOUTS_RSS_GOAL_MB,
        ),
    ]


def backup_figures(env: dict, workdir: Path, small: int, large: int) -> list[tuple]:
    lines, mb = [], {}
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
        mb[size] = {"export": export_mb, "import": import_mb}
        note(
            f"backup at {size} papers: archive {archive.stat().st_size / 2**20:.0f} MB; export "
            f"{export_s:.1f} s, {export_mb:.0f} MB; restore {import_s:.1f} s, {import_mb:.0f} MB"
        )
    for name, goal in (("export", BACKUP_RSS_GOAL_MB), ("import", RESTORE_RSS_GOAL_MB)):
        at_large = mb[large][name]
        lines.append(
            (f"backup_{name}_peak_rss_mb_at_{large}", f"{at_large:.0f}MB", f"<={goal}MB",
             at_large <= goal)
        )  # fmt: skip
        TABLE.append(
            (f"backup_{name}_peak_rss_mb", f"{mb[small][name]:.0f} MB", f"{at_large:.0f} MB",
             f"{at_large / mb[small][name]:.2f}x", f"<={goal} MB at {large}", at_large <= goal)
        )  # fmt: skip
    return lines


# ---- the 40 jurors' autosave on the contest's own sheets --------------------------------------


def load_figures(
    workdir: Path, plans: dict, small: int, large: int, seconds: float
) -> tuple[list[tuple], bool]:
    """The autosave at each size, on that size's own sheets; every figure's line at each size,
    and the closing table's rows."""
    measured, failed = {}, False
    for size in (small, large):
        measured[size], lost = autosave_run(
            workdir / f"autosave-{size}.sqlite3", plans[size], seconds, workdir / f"load-{size}"
        )
        failed |= lost
    lines = []
    prefix = f"autosave_{_scale_build.JURORS}_jurors_"
    for index, (name, _, goal) in enumerate(measured[large]):
        ratio = name.endswith(("_p50", "_not"))
        values = {size: measured[size][index][1] for size in (small, large)}
        for size in (small, large):
            value = values[size]
            met = value <= goal
            shown = f"{value:.2f}x" if ratio else str(value)
            goal_text = f"<={goal:g}x" if ratio else "==0"
            lines.append((f"{prefix}{name}_at_{size}", shown, goal_text, met))
        shown = {size: f"{values[size]:.2f}x" if ratio else str(values[size]) for size in values}
        TABLE.append(
            (prefix + name, shown[small], shown[large], "", f"<={goal:g}x" if ratio else "==0",
             all(v <= goal for v in values.values()))
        )  # fmt: skip
    return lines, failed


if __name__ == "__main__":
    main()
