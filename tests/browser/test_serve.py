"""`make serve` itself: scripts/serve.sh with DEBUG off (gunicorn, the task worker, WhiteNoise)
on a free port, with a throw-away SQLite database, STATIC_ROOT, job and cache folders. Chromium
logs in and walks the organizer's pages: every stylesheet, script and font comes with a hashed
name, compressed, under the strict Content-Security-Policy, with no console error; the whole
contest's printouts are made by the real worker and downloaded; /healthz answers 200.

The stack starts once for the module (collectstatic compresses every file: a minute or more on
a busy machine) and is stopped with SIGTERM as a supervisor would, which must stop every process
it started. A task worker that stops (cleanly or killed) is started again while the site keeps
serving, and /healthz says so meanwhile."""

import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

from grading.jobs import processes
from tests import waiting
from tests.factories import PASSWORD

# A process of its own on a SQLite file of its own (tests/conftest.py).
pytestmark = [pytest.mark.browser, pytest.mark.own_sqlite]

ROOT = Path(__file__).resolve().parents[2]
HASHED = re.compile(r"/static/.+\.[0-9a-f]{12}\.(css|js|woff2|svg|png)$")
START_TIMEOUT = 420
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)

# A small contest and its people, made with the suite's factories in the served database.
SEED = """
import django
django.setup()
from grading.rules import roles
from tests import factories
organizer = factories.make_user("olga", roles.ORGANIZER)
juror = factories.make_user("alice", roles.JUROR)
contest = factories.make_contest("served", problems=1, papers=2, identities=["Orca", "Heron"])
factories.assign(contest, [juror], problems=[1])
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _health(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return 0, b""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve")
    port = _free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        # tests/conftest.py lets Playwright's thread use the ORM; no deployment may.
        if key
        not in ("DEBUG", "DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_SETTINGS_MODULE")
    }
    env.update(
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="false",
        DATABASE_URL=f"sqlite:///{folder / 'jury.sqlite3'}",
        STATIC_ROOT=str(folder / "static"),
        JOBS_DIR=str(folder / "jobs"),
        CACHE_DIR=str(folder / "cache"),
        PORT=str(port),
        WEB_CONCURRENCY="1",
    )
    python = str(ROOT / ".venv" / "bin" / "python")
    python = python if os.path.exists(python) else sys.executable
    subprocess.run(
        [python, "manage.py", "migrate", "--no-input", "-v0"], cwd=ROOT, env=env, check=True
    )
    subprocess.run(
        [python, "-c", SEED],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "grading.settings"},
        check=True,
    )
    log = (folder / "serve.log").open("w")
    process = subprocess.Popen(
        ["bash", "scripts/serve.sh"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        up = waiting.until(
            lambda: _health(url)[0] == 200 or process.poll() is not None, START_TIMEOUT
        )
        if not up or process.poll() is not None:
            pytest.fail(
                f"make serve did not come up (exit {process.returncode}):\n"
                + (folder / "serve.log").read_text()[-3000:]
            )
        yield url, folder, process.pid
    finally:
        # The worker runs in a session of its own (serve.sh ends its process group whole).
        started = processes.descendants(process.pid)
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
        # SIGTERM to the script stops gunicorn and the worker with it: nothing is left behind.
        leftovers = subprocess.run(
            ["pgrep", "-s", str(process.pid)], capture_output=True, text=True
        ).stdout.split()
        assert (leftovers, [pid for pid in started if _alive(pid)]) == ([], [])


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _workers(serve_pid: int) -> list[int]:
    """The pids of the task workers make serve runs (nice execs the worker's python)."""
    found = []
    for pid in processes.descendants(serve_pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"jobs_worker" in command and b"nice" not in command[0]:
            found.append(pid)
    return found


@pytest.fixture
def watched(page):
    """The page, and what it saw: console errors, page errors, and every response."""
    seen = {"errors": [], "responses": []}
    page.on(
        "console",
        lambda message: message.type == "error" and seen["errors"].append(message.text),
    )
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    page.on("response", lambda response: seen["responses"].append(response))
    return page, seen


def test_make_serve_serves_the_site_with_hashed_compressed_static_files_under_the_csp(
    served, watched
):
    url, folder, _ = served
    page, seen = watched

    assert _health(url) == (200, b'{"status": "ok", "database": "ok", "worker": "ok"}')

    page.goto(f"{url}/accounts/login/")
    page.fill("#id_username", "olga")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/")

    home = page.goto(f"{url}/")
    assert (home.status, home.headers["content-security-policy"]) == (200, CSP)
    assert page.locator("h1").inner_text() == "Welcome, olga"
    # The stylesheet applies: a rule of site.css is in effect (not the browser's default).
    assert page.evaluate("getComputedStyle(document.querySelector('main')).display") != ""

    for path in ("/contests/served/results/", "/contests/served/analysis/"):
        assert page.goto(f"{url}{path}").status == 200

    # The whole contest's printouts, made by the real task worker, followed through htmx.
    page.goto(f"{url}/contests/served/printouts/")
    page.click("#job-start button")
    page.wait_for_url(re.compile(r".*/contests/served/jobs/\d+/$"))
    page.locator("a.job-download").wait_for(timeout=180_000)
    assert page.locator(".job-state").inner_text() == "Ready"
    with page.expect_download() as download_info:
        page.click("a.job-download")
    download = download_info.value
    saved = folder / download.suggested_filename
    download.save_as(saved)
    assert (download.suggested_filename, len(zipfile.ZipFile(saved).namelist())) == (
        "served-printouts.zip",
        6,
    )

    static = [r for r in seen["responses"] if "/static/" in r.url]
    kinds = {r.url.rsplit(".", 1)[-1] for r in static}
    assert {"css", "js", "woff2"} <= kinds, kinds
    assert [(r.url, r.status) for r in static if r.status != 200 or not HASHED.search(r.url)] == []
    text_files = [r for r in static if r.url.endswith((".css", ".js"))]
    assert {r.headers.get("content-encoding") for r in text_files} <= {"gzip", "br"}
    assert {r.headers.get("cache-control") for r in static} == {
        "max-age=315360000, public, immutable"
    }
    assert [(r.url, r.status) for r in seen["responses"] if r.status >= 400] == []
    assert seen["errors"] == []


def test_a_stopped_task_worker_is_started_again_while_the_site_keeps_serving(served):
    url, folder, serve_pid = served
    assert waiting.until(lambda: _health(url)[0] == 200, 60)
    (first,) = _workers(serve_pid)

    # Stopped cleanly (a deploy, a crash that still ran its cleanup): /healthz says so at once,
    # and the site answers while the worker is down.
    os.kill(first, signal.SIGTERM)
    status, body = waiting.until(lambda: (lambda h: h if h[0] == 503 else None)(_health(url)), 20)
    assert (status, re.fullmatch(rb'\{"status": "failing", "database": "ok", '
            rb'"worker": "stopped \d+ s ago"\}', body) is not None) == (503, True)  # fmt: skip
    with urllib.request.urlopen(f"{url}/accounts/login/", timeout=30) as response:
        assert response.status == 200
    assert waiting.until(lambda: _health(url)[0] == 200, 90)
    (second,) = _workers(serve_pid)

    # Killed (the kernel's OOM killer): started again, with a longer pause.
    os.kill(second, signal.SIGKILL)
    third = waiting.until(lambda: [pid for pid in _workers(serve_pid) if pid != second], 60)
    assert (len({first, second, *third}), waiting.until(lambda: _health(url)[0] == 200, 90)) == (
        3,
        True,
    )
    restarts = re.findall(
        r"make serve: the task worker stopped.*", (folder / "serve.log").read_text()
    )
    assert restarts == [
        "make serve: the task worker stopped (exit 0); starting it again in 1 s.",
        "make serve: the task worker stopped (exit 137); starting it again in 2 s.",
    ]


def test_make_serves_access_log_masks_one_time_sign_in_tokens(served):
    url, folder, _ = served
    with urllib.request.urlopen(f"{url}/accounts/sign-in/MQ/abc123-0123456789/", timeout=30):
        pass
    # gunicorn writes the access line once the response has gone: it may come a moment later.
    line = re.compile(r'"GET (/accounts/sign-in/\S*) HTTP')
    assert waiting.until(lambda: line.search((folder / "serve.log").read_text()), 30)
    log = (folder / "serve.log").read_text()
    assert (line.findall(log), "abc123-0123" in log) == (
        ["/accounts/sign-in/MQ/[token]/"],
        False,
    )
