"""The task worker's render processes die with it: a real `manage.py jobs_worker` on a file
SQLite database renders a contest's printouts in its pool, is stopped (SIGTERM, as a supervisor
does) or killed (SIGKILL, as the kernel's OOM killer does), and no render process outlives it.
Processes are read from /proc."""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from grading.jobs import processes
from tests import waiting

ROOT = Path(__file__).resolve().parents[3]
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").exists() else sys.executable

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc"),
    # A process of its own on a SQLite file of its own (tests/conftest.py).
    pytest.mark.own_sqlite,
]

# Enough papers that the printouts take far longer than the test waits for the processes to go.
SEED = """
import django
django.setup()
from grading.rules import roles
from grading.models import Job
from grading.jobs import running as jobs
from tests import factories
chair = factories.make_user("chen", roles.CHAIR)
contest = factories.make_contest("long", problems=2, papers=30)
jobs.job_start(kind=Job.Kind.PRINTOUTS, contest=contest, user=chair)
"""


def _env(folder: Path) -> dict:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_SETTINGS_MODULE")
    }
    return {
        **env,
        "DATABASE_URL": f"sqlite:///{folder / 'jury.sqlite3'}",
        "JOBS_DIR": str(folder / "jobs"),
        "CACHE_DIR": str(folder / "cache"),
        "DEBUG": "false",
        "SECRET_KEY": "test",
        "ALLOWED_HOSTS": "127.0.0.1",
    }


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """A migrated database with a contest of 60 papers whose printouts are queued."""
    folder = tmp_path_factory.mktemp("seeded")
    env = _env(folder)
    subprocess.run([PYTHON, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run(
        [PYTHON, "-c", SEED],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "grading.settings"},
        check=True,
    )
    return folder / "jury.sqlite3"


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _worker_with_render_processes(seeded: Path, folder: Path):
    shutil.copyfile(seeded, folder / "jury.sqlite3")
    worker = subprocess.Popen(
        [PYTHON, "manage.py", "jobs_worker", "--no-reload", "--no-startup-delay"],
        cwd=ROOT,
        env=_env(folder),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    # One look at the worker's processes, kept: a second look could fall between two pools
    # of a printout job, when no render process is up for a moment.
    seen: list[int] = []

    def rendering() -> bool:
        seen[:] = _render_processes(worker.pid)
        return worker.poll() is not None or _rendering(worker.pid, seen)

    waiting.until(rendering, 180)
    assert (worker.poll(), _rendering(worker.pid, seen)) == (None, True)
    return worker, list(seen)


def _render_processes(pid: int) -> list[int]:
    # The pool's processes: forks of the worker, with its command line, or (the print pool
    # starts them from a fork server) multiprocessing's fork server, its resource tracker and
    # the server's forks. The worker also runs short-lived tools, such as the compiler ctypes
    # asks where a library is: those are not render processes.
    command = _command(pid)
    return [
        child
        for child in processes.descendants(pid)
        if _command(child) == command or b"multiprocessing" in _command(child)
    ]


def _rendering(pid: int, found: list[int]) -> bool:
    """Whether a render process is among `found`: a fork of the worker itself, or a process
    below its fork server (the fork server and the resource tracker are the worker's own
    children and render nothing)."""
    command = _command(pid)
    return any(_parent(child) != pid or _command(child) == command for child in found)


def _command(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def _in_session(session: int) -> list[int]:
    """The living processes of a session (the worker was started as its leader)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2 :].split()[3]) == session and _alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def _gone_within(pids: list[int], seconds: float) -> list[int]:
    waiting.until(lambda: not any(_alive(pid) for pid in pids), seconds)
    return [pid for pid in pids if _alive(pid)]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_worker_stopped_or_killed_mid_render_leaves_no_render_process_behind(
    seeded, tmp_path, stop
):
    worker, children = _worker_with_render_processes(seeded, tmp_path)
    try:
        worker.send_signal(stop)
        worker.wait(timeout=20)
        # Those seen rendering, and whatever else the worker had started since (a later pool's
        # processes): every process of the worker's session.
        assert _gone_within([*children, *_in_session(worker.pid)], 10) == []
    finally:
        if worker.poll() is None:
            worker.kill()
        for pid in children:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


# In a process of its own: the test process's other children (a browser) are not to be ended.
IGNORING_SIGTERM = """
import subprocess, sys
from grading.jobs import processes
child = subprocess.Popen([sys.executable, "-c", "import signal, time; "
    "signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"],
    stdout=subprocess.PIPE)
child.stdout.readline()
print(processes.terminate_children(grace=0.5) == [child.pid], child.wait(timeout=5))
"""


def test_terminate_children_kills_a_child_that_ignores_sigterm_after_the_grace_period():
    result = subprocess.run(
        [sys.executable, "-c", IGNORING_SIGTERM], cwd=ROOT, capture_output=True, text=True
    )
    assert (result.stdout, result.stderr) == (f"True {-signal.SIGKILL}\n", "")
