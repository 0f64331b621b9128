"""The task worker outlives a locked database: a real `manage.py jobs_worker` on a file SQLite
database whose busy timeout is one second, while another connection holds the write lock (as a
long write does) until both the worker's look for jobs and its heartbeat have run into it. It is
still running afterwards and runs the next job."""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests import waiting

# A process of its own on a SQLite file of its own (tests/conftest.py).
pytestmark = pytest.mark.own_sqlite

ROOT = Path(__file__).resolve().parents[3]
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").exists() else sys.executable

SEED = """
import django
django.setup()
from grading.rules import roles
from tests import factories
factories.make_user("chen", roles.CHAIR)
factories.make_contest("locked", problems=1, papers=1)
"""
QUEUE = """
import django
django.setup()
from django.contrib.auth.models import User
from grading.models import Job
from grading.jobs import running as jobs
from rubrics.models import Contest
jobs.job_start(kind=Job.Kind.PRINTOUTS, contest=Contest.objects.get(slug="locked"),
               user=User.objects.get(username="chen"))
"""


@pytest.fixture
def database(tmp_path):
    env = {
        **{
            key: value
            for key, value in os.environ.items()
            if key not in ("DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_SETTINGS_MODULE")
        },
        # A busy timeout of one second: the lock below outlasts it many times over.
        "DATABASE_URL": f"sqlite:///{tmp_path / 'jury.sqlite3'}?timeout=1",
        "JOBS_DIR": str(tmp_path / "jobs"),
        "CACHE_DIR": str(tmp_path / "cache"),
        "DEBUG": "false",
        "SECRET_KEY": "test",
        "ALLOWED_HOSTS": "127.0.0.1",
    }
    subprocess.run([PYTHON, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    script_env = {**env, "DJANGO_SETTINGS_MODULE": "grading.settings"}
    subprocess.run([PYTHON, "-c", SEED], cwd=ROOT, env=script_env, check=True)
    return tmp_path / "jury.sqlite3", env, script_env


def _read(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path, timeout=30) as connection:
        return connection.execute(sql).fetchall()


def _locked_until(path: Path, condition, seconds: float) -> bool:
    """Hold the database's write lock until `condition()` (at most `seconds`), and say whether
    it came. The lock is what the test is about: it is held on purpose, for as long as it takes
    the worker to run into it, rather than for a guessed time."""
    locker = sqlite3.connect(path, isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        return waiting.until(condition, seconds)
    finally:
        locker.execute("ROLLBACK")
        locker.close()


def test_the_worker_waits_out_a_locked_database_and_then_runs_the_next_job(database):
    path, env, script_env = database
    log = path.parent / "worker.log"
    worker = subprocess.Popen(
        [PYTHON, "manage.py", "jobs_worker", "--no-reload", "--no-startup-delay"],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    try:
        beats = "SELECT count(*) FROM grading_workerheartbeat"
        assert waiting.until(lambda: _read(path, beats) == [(1,)], 120), log.read_text()[-3000:]
        # Locked while it looks for jobs (every second) and beats (every five): until both
        # have met the lock (their warnings are in the log), past its busy timeout.
        met = (
            "The database is locked: the worker tries to take the next job again",
            "The database is locked: the heartbeat is written later",
        )
        assert _locked_until(
            path, lambda: all(warning in log.read_text() for warning in met), 60
        ), log.read_text()[-3000:]
        # Its last beat was before the lock; it beats on once the lock is gone.
        seen = "SELECT seen_at FROM grading_workerheartbeat"
        stale = _read(path, seen)
        assert (worker.poll(), waiting.until(lambda: _read(path, seen) != stale, 30)) == (
            None,
            True,
        )
        subprocess.run([PYTHON, "-c", QUEUE], cwd=ROOT, env=script_env, check=True)
        done = "SELECT state FROM grading_job"
        assert waiting.until(lambda: _read(path, done) == [("done",)], 180), log.read_text()[-3000:]
        assert worker.poll() is None
    finally:
        worker.terminate()
        worker.wait(timeout=30)
