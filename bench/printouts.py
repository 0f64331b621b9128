"""The whole contest's printouts: how they scale with the number of papers and how much memory
they take, and the job through the real task worker against the `render_papers` command.

Scale (`--scale`, run first): the printouts job's work (`jobs.job_run`, as the worker runs it,
PRINT_WORKERS processes) on a contest of one problem of five criteria at 25 and at 255 papers,
nine in ten of them human papers of two scanned pages each (a 1240 × 1754 grey 150 dpi page,
different for every page), each size in a fresh process on a fresh throw-away database and an
empty cache. Measured: the job's time, and the peak resident memory of the largest process
(the job's own and each pool worker's, sampled every 0.1 s from /proc) and of all of them
together, and (on standard error) the CPU time all of them took, which tells the work from the
load of a shared machine. At 255 papers, also a juror's bundle of 130 papers asked for through the page (Django's
test client): it must answer before gunicorn's 30 s timeout (it is made by a job).

- printouts_255_vs_25_papers: time at 255 against time at 25. Goal <= 10x.
- printouts_peak_worker_rss_255_papers: the largest process's peak, in MB. Goal <= 1024.
- juror_bundle_130_papers_request: the request's time, in seconds. Goal <= 30.

Job against command: a throw-away SQLite database (a file in a temporary folder, shared with
the worker process) with the demo contest (six AI systems × five problems, and four scanned
human papers). The worker (`manage.py jobs_worker`, its default one-second polling) runs beside
this process as `make serve` runs it. Each round renders from an empty PDF cache:

- command: `render_papers --bundle` and `render_papers --bundle --criteria`, in this process,
  the rendering the job's zip holds (every paper of every problem, single and bundled);
- job: from `job_start` (the job queued) until the job reads done: the worker's polling,
  rendering, progress writes and the zip included.

printouts_job_vs_render_papers: the job's best round against the command's best, rounds
alternating. Goal <= 1.2x.

Run: .venv/bin/python bench/printouts.py [--scale] [--sizes 25,100]   (prints: name  ratio  goal
met/not met; --scale runs the scale figures only; --sizes measures another pair, for a quicker
run, its goal scaled as 10x is to 255 against 25)"""

import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _handwriting import handwritten_page  # noqa: E402 (bench/ is on the path only now)

ROUNDS = 2
GOAL = 1.2
START_TIMEOUT = 120
JOB_TIMEOUT = 900


SCALE_SIZES = (25, 255)
SCALE_GOAL = 10
RSS_GOAL_MB = 1024
BUNDLE_PAPERS = 130
REQUEST_GOAL_S = 30
HUMAN_SHARE = 0.9
PAGES = 2


def _descendants(root: int) -> dict[int, tuple[int, int]]:
    """(resident memory in bytes, CPU time in clock ticks) of `root` and every process below it
    (the pool's workers are the forkserver's children), from /proc."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry.name)] = (
                    int(fields[1]),
                    int(fields[21]),
                    int(fields[11]) + int(fields[12]),
                )
            except (OSError, IndexError, ValueError):
                continue
    page = os.sysconf("SC_PAGE_SIZE")
    family, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, *_) in parents.items():
            if ppid == parent and pid not in family:
                family.add(pid)
                frontier.append(pid)
    return {pid: (parents[pid][1] * page, parents[pid][2]) for pid in family if pid in parents}


def _page_png(rng) -> bytes:
    import io

    image = handwritten_page(rng, lines=36, top=160, spacing=42)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def scale_round(size: int) -> None:
    """One size, in this (fresh) process: prints `seconds peak_process_mb peak_total_mb
    request_seconds cpu_seconds` on standard output."""
    import random
    import secrets as tokens
    import threading

    from _throwaway import throwaway_database

    with throwaway_database() as workdir:
        from django.conf import settings
        from django.test import Client
        from django.urls import reverse

        from grading.intake.labels import paper_labels_ensure
        from grading.jobs import running as jobs
        from grading.models import Assignment, GradingGroup, Job, Paper, ScanPage
        from tests import factories

        settings.SCANS_DIR = workdir / "scans"
        settings.CACHE_DIR = workdir / "cache"
        settings.JOBS_DIR = workdir / "jobs"
        settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
        humans = round(size * HUMAN_SHARE)
        contest = factories.make_contest(
            "scale", problems=1, papers=size - humans,
            criteria=(("A1", "assignment", "4"), ("A2", "assignment", "4"),
                      ("A3", "assignment", "4"), ("T1", "theory", "4"), ("T2", "theory", "4")),
            identities=[f"System {n}" for n in range(size - humans)],
        )  # fmt: skip
        for n in range(humans):  # one by one: Paper.save draws each public code
            Paper.objects.create(contest=contest, identity=f"C-{n:04d}", source=Paper.Source.HUMAN)
        paper_labels_ensure(contest=contest)
        problem = contest.problems.get()
        settings.SCANS_DIR.mkdir(parents=True)
        rng, rows = random.Random(size), []
        for paper in Paper.objects.filter(contest=contest, source=Paper.Source.HUMAN):
            for position in range(1, PAGES + 1):
                name = f"{tokens.token_hex(16)}.png"
                (settings.SCANS_DIR / name).write_bytes(_page_png(rng))
                rows.append(ScanPage(paper=paper, problem=problem, position=position,
                                     image=name, width=1240, height=1754))  # fmt: skip
        ScanPage.objects.bulk_create(rows)
        chair = factories.make_user("bench-chair", "chair")
        job = Job.objects.create(kind=Job.Kind.PRINTOUTS, contest=contest, requested_by=chair)

        peaks = {"process": 0, "total": 0}
        # Each process's CPU time as last sampled: what the job costs whatever else the machine
        # runs (a worker's last tenth of a second before it ends is missed).
        ticks = {pid: cpu for pid, (_, cpu) in _descendants(os.getpid()).items()}
        ticks_before = sum(ticks.values())
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                family = _descendants(os.getpid())
                rss = [memory for memory, _ in family.values()]
                peaks["process"] = max(peaks["process"], max(rss, default=0))
                peaks["total"] = max(peaks["total"], sum(rss))
                ticks.update({pid: cpu for pid, (_, cpu) in family.items()})
                stop.wait(0.1)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        started = time.perf_counter()
        state = jobs.job_run(job_id=job.pk, worker_id="bench")
        elapsed = time.perf_counter() - started
        stop.set()
        sampler.join()
        cpu = (sum(ticks.values()) - ticks_before) / os.sysconf("SC_CLK_TCK")
        if state != Job.State.DONE:
            raise SystemExit(f"The printouts job did not finish: {state}")

        mb = 1024 * 1024
        print(
            f"# job {elapsed:.1f} s ({cpu:.1f} s of CPU), peaks {peaks['process'] / mb:.0f} MB",
            file=sys.stderr,
        )
        request = 0.0
        if size >= BUNDLE_PAPERS:
            juror = factories.make_user("bench-juror", "juror")
            GradingGroup.objects.get_or_create(problem=problem)[0].jurors.add(juror)
            chosen = Paper.objects.filter(contest=contest).order_by("?")[:BUNDLE_PAPERS]
            Assignment.objects.bulk_create(
                Assignment(paper=paper, problem=problem, juror=juror) for paper in chosen
            )
            client = Client(HTTP_HOST="localhost")
            client.force_login(juror)
            started = time.perf_counter()
            response = client.get(
                reverse("problem_pdf_bundle", args=["scale", 1]) + "?criteria=1", secure=True
            )
            request = time.perf_counter() - started
            if response.status_code != 302:
                raise SystemExit(f"The juror's bundle answered {response.status_code}.")
        print(
            f"{elapsed:.2f} {peaks['process'] / mb:.0f} {peaks['total'] / mb:.0f} {request:.2f} "
            f"{cpu:.2f}"
        )


def scale_figures(sizes: tuple[int, int] = SCALE_SIZES) -> list[tuple[str, float, float, str]]:
    results = {}
    for size in sizes:
        python = ROOT / ".venv" / "bin" / "python"
        out = subprocess.run(
            [str(python if python.exists() else sys.executable), __file__, "--scale-round", str(size)],
            cwd=ROOT, capture_output=True, text=True, check=True,
            env={**os.environ, "DEBUG": "false", "SECRET_KEY": secrets.token_urlsafe(50),
                 "ALLOWED_HOSTS": "localhost"},
        ).stdout.split()  # fmt: skip
        seconds, process_mb, total_mb, request, cpu = (float(value) for value in out[-5:])
        results[size] = (seconds, process_mb, total_mb, request)
        print(
            f"# {size} papers ({round(size * HUMAN_SHARE)} human, {PAGES} scanned pages each): "
            f"printouts job {seconds:.1f} s ({cpu:.1f} s of CPU in all its processes), peak "
            f"process {process_mb:.0f} MB, all processes {total_mb:.0f} MB",
            file=sys.stderr,
        )
    small, large = sizes
    return [
        (f"printouts_{large}_vs_{small}_papers", results[large][0] / results[small][0],
         SCALE_GOAL * large / SCALE_SIZES[1] * SCALE_SIZES[0] / small, "x"),
        (f"printouts_peak_worker_rss_{large}_papers", results[large][1], RSS_GOAL_MB, " MB"),
        (f"juror_bundle_{BUNDLE_PAPERS}_papers_request", results[large][3], REQUEST_GOAL_S, " s"),
    ]  # fmt: skip


def main() -> None:
    if sys.argv[1:2] == ["--scale-round"]:
        scale_round(int(sys.argv[2]))
        return
    sizes = SCALE_SIZES
    if "--sizes" in sys.argv[1:]:
        small, large = sys.argv[sys.argv.index("--sizes") + 1].split(",")
        sizes = (int(small), int(large))
    for name, value, goal, unit in scale_figures(sizes):
        met = "met" if value <= goal else "not met"
        print(f"{name}  {value:.2f}{unit}  <={goal:g}{unit}  {met}")
    if "--scale" in sys.argv[1:]:
        return
    job_against_command()


def job_against_command() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="jury-bench-printouts-"))
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE")},
        "DJANGO_SETTINGS_MODULE": "grading.settings",
        # As in production (make serve): DEBUG off, so that neither process records queries.
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "localhost",
        "DATABASE_URL": f"sqlite:///{workdir / 'bench.sqlite3'}",
        "JOBS_DIR": str(workdir / "jobs"),
        "CACHE_DIR": str(workdir / "worker-cache"),
    }
    os.environ.update(env)
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from grading.jobs import running as jobs
    from grading.jobs import worker_liveness
    from grading.models import Job
    from rubrics.models import Contest

    call_command("migrate", verbosity=0)
    call_command("load_demo", verbosity=0)
    contest = Contest.objects.get(slug="demo")
    chair = get_user_model().objects.get(username="chair")

    python = ROOT / ".venv" / "bin" / "python"
    worker = subprocess.Popen(
        [str(python if python.exists() else sys.executable), "manage.py", "jobs_worker"]
        + ["--no-reload", "--verbosity", "0"],
        cwd=ROOT,
        env=env,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not worker_liveness.alive_worker_ids():
            if worker.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("The task worker did not start.")
            time.sleep(0.2)

        def command_round() -> float:
            settings.CACHE_DIR = workdir / "command-cache"
            shutil.rmtree(settings.CACHE_DIR, ignore_errors=True)
            out = workdir / "command-out"
            shutil.rmtree(out, ignore_errors=True)
            started = time.perf_counter()
            for flags in ([], ["--criteria"]):
                call_command(
                    "render_papers", "--contest", "demo", "--bundle", "--out", str(out), *flags,
                    verbosity=0,
                )  # fmt: skip
            return time.perf_counter() - started

        def job_round() -> float:
            shutil.rmtree(workdir / "worker-cache", ignore_errors=True)
            started = time.perf_counter()
            job = jobs.job_start(kind=Job.Kind.PRINTOUTS, contest=contest, user=chair)
            deadline = time.monotonic() + JOB_TIMEOUT
            while True:
                job.refresh_from_db()
                if job.state == Job.State.DONE:
                    break
                if job.state == Job.State.FAILED or time.monotonic() > deadline:
                    raise SystemExit(f"The job did not finish: {job.state} {job.error}")
                time.sleep(0.05)
            elapsed = time.perf_counter() - started
            print(f"# job: {job.total} PDFs in {elapsed:.1f} s", file=sys.stderr)
            return elapsed

        command_times, job_times = [], []
        for _ in range(ROUNDS):
            command_times.append(command_round())
            job_times.append(job_round())
        command, job = min(command_times), min(job_times)
        ratio = job / command
        print(
            f"# render_papers (both variants) best {command:.2f} s of "
            f"{', '.join(f'{t:.2f}' for t in command_times)}; job best {job:.2f} s of "
            f"{', '.join(f'{t:.2f}' for t in job_times)}",
            file=sys.stderr,
        )
        met = "met" if ratio <= GOAL else "not met"
        print(f"printouts_job_vs_render_papers  {ratio:.2f}x  <={GOAL:g}x  {met}")
    finally:
        worker.terminate()
        worker.wait(timeout=60)
        from django.db import connections

        connections.close_all()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
