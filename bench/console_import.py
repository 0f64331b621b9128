"""Importing 46 competition record folders through the console (the browser path) against the
`import_outputs` command.

A throw-away SQLite database with the application's settings, DEBUG off. Each round imports
into a fresh contest made from the demo's problem set (five problems); the 46 record folders are
made from the demo's three (`grading/demo/data/outputs/0*`), each with its own team name and
answers shuffled per folder, so that every folder is a new system (46 papers, 552 solutions).

- command: `call_command("import_outputs", "--contest", slug, <records folder>)`;
- console: the organizer's upload of the folders' zip (made once, before the rounds) through
  Django's test client: the upload, its extraction and preview (the importer's dry run), the
  confirmation that starts the job, and the job run by the worker's function (`job_run`).

console_import_46_records_vs_command: the console's best round against the command's best,
rounds alternating. Goal <= 1.5x.

Run: .venv/bin/python bench/console_import.py   (prints: name  ratio  goal  met/not met)"""

import io
import json
import random
import shutil
import sys
import time
import zipfile
from pathlib import Path

# bench/ is on the path when a script runs, as Python puts its folder first.
from _throwaway import ROOT, throwaway_database

ROUNDS = 7
GOAL = 1.5
RECORDS = 46
DEMO = ROOT / "grading" / "demo" / "data"


def make_records(folder: Path) -> Path:
    """46 record folders in `folder / "records"`, from the demo's three."""
    sources = sorted(path for path in (DEMO / "outputs").iterdir() if path.is_dir())
    records = folder / "records"
    rng = random.Random(46)
    for number in range(1, RECORDS + 1):
        source = sources[number % len(sources)]
        target = records / f"{number:02d}_team-{number:02d}"
        target.mkdir(parents=True)
        metadata = json.loads((source / "metadata.json").read_text(encoding="utf-8"))
        metadata["team"] = f"Team {number:02d}"
        (target / "metadata.json").write_text(json.dumps(metadata), encoding="utf-8")
        rows = json.loads((source / "predictions.json").read_text(encoding="utf-8"))
        for row in rows:
            try:
                answers = json.loads(row["pred"])
            except ValueError:  # the demo keeps a few defective answers as they came
                continue
            if isinstance(answers, list):
                rng.shuffle(answers)
                row["pred"] = json.dumps(answers, ensure_ascii=False)
        (target / "predictions.json").write_text(
            json.dumps(rows, ensure_ascii=False), encoding="utf-8"
        )
    return records


def zip_of(records: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(records.rglob("*")):
            if path.is_file():
                archive.write(path, str(path.relative_to(records.parent)))
    return buffer.getvalue()


def main() -> None:
    with throwaway_database() as workdir:
        _run(workdir)


def _run(workdir: Path) -> None:
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    from grading.intake.importers import problemset_import
    from grading.jobs import running as jobs
    from grading.models import Job, Paper, Solution
    from grading.rules import roles
    from tests import factories

    settings.IMPORTS_DIR = workdir / "imports"
    settings.JOBS_DIR = workdir / "jobs"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ALLOWED_HOSTS = ["testserver"]
    records = make_records(workdir)
    archive = zip_of(records)
    organizer = factories.make_user("olga", roles.ORGANIZER)
    client = Client()
    client.force_login(organizer)
    problem_set = [DEMO / "test.csv", DEMO / "solution.csv"]
    counter = iter(range(1000))

    def fresh_contest() -> str:
        slug = f"round{next(counter)}"
        problemset_import(contest_slug=slug, paths=problem_set)
        return slug

    def check(slug: str) -> None:
        papers = Paper.objects.filter(contest__slug=slug).count()
        solutions = Solution.objects.filter(paper__contest__slug=slug).count()
        if papers != RECORDS or not solutions:
            raise SystemExit(f"{slug}: {papers} papers, {solutions} solutions imported.")

    def command_round() -> float:
        slug = fresh_contest()
        start = time.perf_counter()
        call_command("import_outputs", "--contest", slug, str(records), verbosity=0)
        elapsed = time.perf_counter() - start
        check(slug)
        return elapsed

    def console_round() -> float:
        slug = fresh_contest()
        upload = io.BytesIO(archive)
        upload.name = "records.zip"
        start = time.perf_counter()
        preview = client.post(reverse("console:import_outputs", args=[slug]), {"file": upload})
        if preview.status_code != 200:
            raise SystemExit(f"The preview failed: {preview.status_code}")
        token = preview.content.decode().split('name="token" value="')[1].split('"')[0]
        confirmed = client.post(reverse("console:import_confirm", args=[slug]), {"token": token})
        job = Job.objects.get(contest__slug=slug)
        if confirmed.status_code != 302:
            raise SystemExit(f"The confirmation failed: {confirmed.status_code}")
        jobs.job_run(job_id=job.pk, worker_id="bench")
        elapsed = time.perf_counter() - start
        check(slug)
        return elapsed

    command_round()  # warm-up: imports, templates, the first queries
    console_round()
    command_times, console_times = [], []
    for _ in range(ROUNDS):
        command_times.append(command_round())
        console_times.append(console_round())
    best_command, best_console = min(command_times), min(console_times)
    ratio = best_console / best_command
    print(
        f"# {RECORDS} record folders, {Solution.objects.count() // (2 * ROUNDS + 2)} solutions "
        f"each round; zip {len(archive) // 1024} KB; command best {best_command:.2f} s "
        f"({', '.join(f'{t:.2f}' for t in command_times)}), console best {best_console:.2f} s "
        f"({', '.join(f'{t:.2f}' for t in console_times)})",
        file=sys.stderr,
    )
    print(
        f"console_import_46_records_vs_command  {ratio:.2f}x  <= {GOAL}x  "
        f"{'met' if ratio <= GOAL else 'not met'}"
    )
    shutil.rmtree(workdir / "imports", ignore_errors=True)


if __name__ == "__main__":
    main()
