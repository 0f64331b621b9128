"""Settings come from the environment; a value that cannot be understood stops start-up with a
sentence. Each case runs in a fresh interpreter because settings are read once at import."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

# A process of its own on a SQLite file of its own (tests/conftest.py).
pytestmark = pytest.mark.own_sqlite

ROOT = Path(__file__).resolve().parents[2]


def _load_settings(**env) -> subprocess.CompletedProcess:
    # DEBUG on unless the case says otherwise (None: not set at all), as `make run` has it.
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL")
    }
    env = {k: v for k, v in {"DEBUG": "true", **env}.items() if v is not None}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import grading.settings as s; print(s.DEBUG, s.ALLOWED_HOSTS, s.DATABASES['default']['ENGINE'])",
        ],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DEBUG": "maybe"}, "DEBUG must be one of 1/0, true/false, yes/no, on/off; got 'maybe'."),
        ({"DEBUG": "0"}, "SECRET_KEY must be set when DEBUG is off."),
        (
            {"DEBUG": "0", "SECRET_KEY": "x" * 50},
            "ALLOWED_HOSTS must list the site's host names when DEBUG is off.",
        ),
        (
            {"DATABASE_URL": "mysql://u@h/db"},
            "DATABASE_URL must be a postgres:// or sqlite:// URL.",
        ),
        ({"DATABASE_URL": "nonsense"}, "DATABASE_URL could not be understood"),
        ({"JOBS_KEEP_DAYS": "0"}, "JOBS_KEEP_DAYS must be at least 1; got 0."),
        ({"BACKUP_MAX_MB": "0"}, "BACKUP_MAX_MB must be at least 1; got 0."),
        ({"SCAN_MAX_PAGES": "0"}, "SCAN_MAX_PAGES must be at least 1; got 0."),
        (
            {"SCAN_MAX_PAGE_INCHES": "wide"},
            "SCAN_MAX_PAGE_INCHES must be a whole number; got 'wide'.",
        ),
        ({"SCAN_RENDER_MAX_PIXELS": "0"}, "SCAN_RENDER_MAX_PIXELS must be at least 1; got 0."),
        (
            {"LIVE_POLL_SECONDS": "0"},
            "LIVE_POLL_SECONDS must be a number of seconds above 0, such as 5; got '0'.",
        ),
        (
            {"LIVE_POLL_SECONDS": "soon"},
            "LIVE_POLL_SECONDS must be a number of seconds above 0, such as 5; got 'soon'.",
        ),
        (
            {"DATA_UPLOAD_MAX_NUMBER_FILES": "0"},
            "DATA_UPLOAD_MAX_NUMBER_FILES must be at least 1; got 0.",
        ),
        (
            {
                "DEBUG": "0",
                "SECRET_KEY": "x" * 50,
                "ALLOWED_HOSTS": "jury.example",
                "SECURE_HSTS_SECONDS": "soon",
            },
            "SECURE_HSTS_SECONDS must be a whole number; got 'soon'.",
        ),
    ],
)
def test_a_bad_setting_stops_start_up_with_a_sentence(env, message):
    result = _load_settings(**env)
    assert result.returncode == 1
    assert f"ImproperlyConfigured: {message}" in result.stderr


def test_debug_is_off_unless_asked_so_a_bare_start_wants_a_secret_key():
    result = _load_settings(DEBUG=None)
    assert result.returncode == 1
    assert "ImproperlyConfigured: SECRET_KEY must be set when DEBUG is off." in result.stderr


def test_with_debug_on_the_local_defaults_need_nothing_else():
    # What `make run` and the test run set (scripts/run.sh, tests/settings.py).
    result = _load_settings()
    assert (result.returncode, result.stdout.strip()) == (
        0,
        "True ['localhost', '127.0.0.1', '[::1]'] django.db.backends.sqlite3",
    )


def test_production_settings_come_from_the_environment():
    result = _load_settings(
        DEBUG="off",
        SECRET_KEY="x" * 50,
        ALLOWED_HOSTS="jury.example, www.jury.example",
        DATABASE_URL="postgres://jury:secret@db.internal:5432/jury",
    )
    assert (result.returncode, result.stdout.strip()) == (
        0,
        "False ['jury.example', 'www.jury.example'] django.db.backends.postgresql",
    )


def test_the_default_sqlite_database_runs_in_wal_mode_with_a_busy_timeout(tmp_path):
    code = (
        "import django; django.setup(); from django.db import connection; c = connection.cursor(); "
        "c.execute('PRAGMA journal_mode'); print(c.fetchone()[0]); "
        "c.execute('PRAGMA busy_timeout'); print(c.fetchone()[0])"
    )
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'jury.sqlite3'}"}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "grading.settings"},
        capture_output=True,
        text=True,
    )
    assert (result.returncode, result.stdout.split()) == (0, ["wal", "20000"])


def _production(tmp_path, code: str, **extra) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL")
    }
    env.update(
        DEBUG="false",
        SECRET_KEY="x" * 50,
        ALLOWED_HOSTS="jury.example",
        DATABASE_URL=f"sqlite:///{tmp_path / 'jury.sqlite3'}",
        DJANGO_SETTINGS_MODULE="grading.settings",
        **extra,
    )
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); " + code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


def test_production_serves_hashed_compressed_static_files_through_whitenoise(tmp_path):
    result = _production(
        tmp_path,
        "from django.conf import settings as s; "
        "print(s.MIDDLEWARE[:2]); print(s.STORAGES['staticfiles']['BACKEND'])",
    )
    assert (result.returncode, result.stdout.splitlines()) == (
        0,
        [
            "['django.middleware.security.SecurityMiddleware', "
            "'whitenoise.middleware.WhiteNoiseMiddleware']",
            "whitenoise.storage.CompressedManifestStaticFilesStorage",
        ],
    ), result.stderr


def test_background_jobs_use_the_database_backend_and_their_own_folder(tmp_path):
    result = _production(
        tmp_path,
        "from django.conf import settings as s; from django.tasks import task_backends; b = task_backends['default']; "
        "print(type(b).__module__, type(b).__name__); print(s.JOBS_DIR)",
        JOBS_DIR=str(tmp_path / "jobs"),
    )
    assert (result.returncode, result.stdout.splitlines()) == (
        0,
        ["django_tasks_db.backend DatabaseBackend", str(tmp_path / "jobs")],
    ), result.stderr


def test_the_health_url_is_answered_over_plain_http_while_pages_redirect_to_https(tmp_path):
    code = (
        "from django.core.management import call_command; call_command('migrate', verbosity=0); "
        "from django.test import Client; c = Client(HTTP_HOST='jury.example'); "
        "print(c.get('/healthz').status_code, c.get('/accounts/login/').status_code)"
    )
    result = _production(tmp_path, code)
    # 503: no worker beats here; the point is that it is not a 301 to https.
    assert (result.returncode, result.stdout.split()) == (0, ["503", "301"]), result.stderr


def test_make_serve_refuses_without_its_settings_and_names_them():
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "ALLOWED_HOSTS")}
    result = subprocess.run(
        ["bash", "scripts/serve.sh"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    lines = result.stderr.splitlines()
    assert (result.returncode, lines[0], [line.split(" (")[0] for line in lines[1:3]]) == (
        2,
        "make serve runs the site for real and needs these settings in the environment:",
        ["  - SECRET_KEY", "  - ALLOWED_HOSTS"],
    )
