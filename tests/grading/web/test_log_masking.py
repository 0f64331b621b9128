"""One-time sign-in tokens never reach a log: a real gunicorn (as scripts/serve.sh starts it)
and a real runserver (make run) serve a juror's sign-in link on a throw-away SQLite database,
and their logs show the link with its token masked."""

import os
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from grading.web.log_masking import mask
from tests import waiting

# A process of its own on a SQLite file of its own (tests/conftest.py).
pytestmark = pytest.mark.own_sqlite

ROOT = Path(__file__).resolve().parents[3]
VENV = ROOT / ".venv" / "bin"
PYTHON = str(VENV / "python") if VENV.exists() else sys.executable

# A juror with a fresh account and the path of their sign-in slip's link.
SEED = """
import django
django.setup()
from django.contrib.auth.tokens import default_token_generator
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from grading.rules import roles
from tests import factories
juror = factories.make_user("alice", roles.JUROR)
uid = urlsafe_base64_encode(force_bytes(juror.pk))
print(uid, default_token_generator.make_token(juror))
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The environment of a migrated database, and a juror's uidb64 and token."""
    folder = tmp_path_factory.mktemp("masked")
    env = {
        **{
            key: value
            for key, value in os.environ.items()
            if key not in ("DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_SETTINGS_MODULE")
        },
        "DATABASE_URL": f"sqlite:///{folder / 'jury.sqlite3'}",
        "SECRET_KEY": "a-secret-key-for-this-test-only-and-long-enough-for-the-deploy-check",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "PYTHONUNBUFFERED": "1",
        "STATIC_ROOT": str(folder / "static"),
    }
    subprocess.run([PYTHON, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    seeded = subprocess.run(
        [PYTHON, "-c", SEED],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "grading.settings"},
        check=True,
        capture_output=True,
        text=True,
    )
    uid, token = seeded.stdout.split()
    return env, folder, uid, token


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=90) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def _serving(command, env, log: Path, port: int):
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT
    )
    if waiting.until(lambda: process.poll() is None and _accepts(port), 120):
        return process
    process.kill()
    pytest.fail(f"{command[0]} did not start:\n{log.read_text()[-2000:]}")


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def _stop(process) -> None:
    process.terminate()
    process.wait(timeout=30)


def test_gunicorns_access_log_masks_the_sign_in_token(site):
    env, folder, uid, token = site
    port = _free_port()
    log = folder / "gunicorn.log"
    gunicorn = _serving(
        [
            str(VENV / "gunicorn") if VENV.exists() else "gunicorn",
            "grading.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1",
            "--access-logfile", "-", "--logger-class", "grading.web.gunicorn_logging.Logger",
        ],
        # DEBUG on, so that static files need no collectstatic: the access log is the same.
        {**env, "DEBUG": "true"},
        log,
        port,
    )  # fmt: skip
    try:
        # The link redirects to the page that asks for the password, with a referer to it.
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/accounts/sign-in/{uid}/{token}/",
            headers={"Referer": f"http://127.0.0.1:{port}/accounts/sign-in/{uid}/{token}/"},
        )
        with urllib.request.urlopen(request, timeout=90) as response:
            assert response.status == 200
    finally:
        _stop(gunicorn)
    text = log.read_text()
    lines = re.findall(r'"(GET [^"]*sign-in[^"]*)" (\d+) \S+ "([^"]*)"', text)
    assert (lines, token in text) == (
        [
            (f"GET /accounts/sign-in/{uid}/[token]/ HTTP/1.1", "302", f"http://127.0.0.1:{port}/accounts/sign-in/{uid}/[token]/"),
            (f"GET /accounts/sign-in/{uid}/set-password/ HTTP/1.1", "200", f"http://127.0.0.1:{port}/accounts/sign-in/{uid}/[token]/"),
        ],
        False,
    )  # fmt: skip


def _wait_for(log, text: str, seconds: float = 15) -> None:
    waiting.until(lambda: text in log.read_text(), seconds)


def test_runservers_request_lines_and_djangos_warnings_mask_the_sign_in_token(site):
    env, folder, uid, token = site
    port = _free_port()
    log = folder / "runserver.log"
    runserver = _serving(
        [PYTHON, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        {**env, "DEBUG": "true"},
        log,
        port,
    )
    try:
        assert _get(f"http://127.0.0.1:{port}/accounts/sign-in/{uid}/{token}/") == 200
        # A link with a segment too many is a 404, which django.request logs with its path.
        assert _get(f"http://127.0.0.1:{port}/accounts/sign-in/{uid}/{token}/more/") == 404
        # runserver writes a request's line once the answer is sent: wait for the last one.
        _wait_for(log, '/more/ HTTP/1.1" 404')
    finally:
        _stop(runserver)
    text = log.read_text()
    lines = re.findall(r'"(GET [^"]*sign-in[^"]*)" (\d+)|(Not Found: \S+)', text)
    assert (lines, token in text) == (
        [
            (f"GET /accounts/sign-in/{uid}/[token]/ HTTP/1.1", "302", ""),
            (f"GET /accounts/sign-in/{uid}/set-password/ HTTP/1.1", "200", ""),
            ("", "", f"Not Found: /accounts/sign-in/{uid}/[token]/more/"),
            (f"GET /accounts/sign-in/{uid}/[token]/more/ HTTP/1.1", "404", ""),
        ],
        False,
    )


def test_mask_keeps_the_account_and_the_set_password_step_and_masks_only_tokens():
    assert [
        mask("GET /accounts/sign-in/MQ/cv1a2b-0123456789abcdef0123456789abcdef/ HTTP/1.1"),
        mask("/accounts/sign-in/MQ/set-password/"),
        mask("/accounts/sign-in/MQ/abc-def?next=/x https://x/accounts/sign-in/Mg/t0k-en/"),
        mask("/accounts/login/?next=/contests/"),
    ] == [
        "GET /accounts/sign-in/MQ/[token]/ HTTP/1.1",
        "/accounts/sign-in/MQ/set-password/",
        "/accounts/sign-in/MQ/[token]?next=/x https://x/accounts/sign-in/Mg/[token]/",
        "/accounts/login/?next=/contests/",
    ]
