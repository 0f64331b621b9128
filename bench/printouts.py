"""The whole contest's printouts as a background job, through the real task worker, against the
same rendering done by the `render_papers` command.

A throw-away SQLite database (a file in a temporary folder, shared with the worker process)
with the demo contest (six AI systems × five problems, and four scanned human papers). The
worker (`manage.py jobs_worker`, its default one-second polling) runs beside this process as
`make serve` runs it. Each round renders
from an empty PDF cache:

- command: `render_papers --bundle` and `render_papers --bundle --criteria`, in this process,
  the rendering the job's zip holds (every paper of every problem, single and bundled);
- job: from `job_start` (the job queued) until the job reads done: the worker's polling,
  rendering, progress writes and the zip included.

printouts_job_vs_render_papers: the job's best round against the command's best, rounds
alternating. Goal <= 1.2x.

Run: .venv/bin/python bench/printouts.py   (prints: name  ratio  goal  met/not met)"""

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

ROUNDS = 2
GOAL = 1.2
START_TIMEOUT = 120
JOB_TIMEOUT = 900


def main() -> None:
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

    from grading.models import Job
    from grading.services import jobs
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
        while not jobs.alive_worker_ids():
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
