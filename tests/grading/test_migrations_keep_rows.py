"""Migrating a database made before the house was reshaped keeps every row: the demo is loaded
and graded by the code of main's commit just before issue 20's first change, in a database of
its own, which the current code then migrates; every table holds the same rows with the same
values as before (django_migrations gains the new migrations' rows, and only those), and the
contest's backup written by the current code is the same file the old code wrote.

Both trees run in subprocesses with this test's Python, so each imports its own code: the old
one is extracted from git, and the test is skipped when git or the commit is not there (a
shallow clone). On PostgreSQL (DATABASE_URL) it runs in a database it creates and drops."""

import io
import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
import tarfile
from contextlib import closing, contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

# main's commit before issue 20's first change (`git rev-parse 34bfedc`).
BEFORE_THE_RESHAPING = "34bfedc32bbb7900ad37ebdf81021d60655ba809"
REPOSITORY = Path(__file__).resolve().parents[2]

OLD_STEPS = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("load_demo", finish_grading=True, verbosity=0)
call_command("export_contest", contest="demo", out="{out}", verbosity=0)
"""
NEW_STEPS = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("export_contest", contest="demo", out="{out}", verbosity=0)
"""


def _old_tree(target: Path) -> Path:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed, so the tree before the reshaping cannot be made.")
    found = subprocess.run(
        [git, "-C", str(REPOSITORY), "cat-file", "-e", f"{BEFORE_THE_RESHAPING}^{{commit}}"],
        capture_output=True,
    )
    if found.returncode != 0:
        pytest.skip(
            f"The commit {BEFORE_THE_RESHAPING[:7]} is not in this clone (a shallow clone?), "
            "so the database before the reshaping cannot be made."
        )
    archive = subprocess.run(
        [git, "-C", str(REPOSITORY), "archive", "--format=tar", BEFORE_THE_RESHAPING],
        capture_output=True,
        check=True,
    )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(target, filter="data")
    return target


def _run(tree: Path, steps: str, env: dict) -> None:
    done = subprocess.run(
        [sys.executable, "-c", steps], cwd=tree, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, f"{tree.name}: {done.stderr[-3000:]}"


@contextmanager
def _database(tmp_path: Path):
    """A database of the test's own: (its DATABASE_URL, a function opening a DB-API connection)."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres:", "postgresql:")):
        path = tmp_path / "before.sqlite3"
        yield f"sqlite:///{path}", lambda: sqlite3.connect(path)
        return
    import psycopg

    name = f"jury_migrations_{secrets.token_hex(4)}"
    parts = urlsplit(url)
    own = urlunsplit(parts._replace(path=f"/{name}"))
    server = urlunsplit(parts._replace(path="/postgres"))
    with closing(psycopg.connect(server, autocommit=True)) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield own, lambda: psycopg.connect(own)
    finally:
        with closing(psycopg.connect(server, autocommit=True)) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _tables(connection) -> list[str]:
    if isinstance(connection, sqlite3.Connection):
        query = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    else:
        query = "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
    return sorted(row[0] for row in connection.execute(query).fetchall())


def _rows(connect) -> dict[str, list]:
    """Every table's rows, each as its columns' names and values, in a fixed order."""
    with closing(connect()) as connection:
        snapshot = {}
        for table in _tables(connection):
            cursor = connection.execute(f'SELECT * FROM "{table}"')
            names = [column[0] for column in cursor.description]
            rows = [tuple(sorted(zip(names, row, strict=True))) for row in cursor.fetchall()]
            snapshot[table] = sorted(rows, key=repr)
        return snapshot


def test_migrating_a_database_made_before_the_reshaping_keeps_every_row(tmp_path):
    old = _old_tree(tmp_path / "before")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env |= {
        "DJANGO_SETTINGS_MODULE": "grading.settings",
        "SCANS_DIR": str(tmp_path / "scans"),
        "JOBS_DIR": str(tmp_path / "jobs"),
        "IMPORTS_DIR": str(tmp_path / "imports"),
        "CACHE_DIR": str(tmp_path / "cache"),
        "STATIC_ROOT": str(tmp_path / "static"),
    }
    with _database(tmp_path) as (url, connect):
        env["DATABASE_URL"] = url
        _run(old, OLD_STEPS.format(out=tmp_path / "before.zip"), env)
        before = _rows(connect)
        _run(REPOSITORY, NEW_STEPS.format(out=tmp_path / "after.zip"), env)
        after = _rows(connect)

    applied_before = before.pop("django_migrations")
    applied_after = after.pop("django_migrations")
    assert [row for row in applied_before if row not in applied_after] == []
    # Tables a later migration adds are not compared; every table there was holds its rows.
    assert {table: after.get(table) for table in before} == before
    assert sum(map(len, before.values())) > 1000
    assert (tmp_path / "after.zip").read_bytes() == (tmp_path / "before.zip").read_bytes()
