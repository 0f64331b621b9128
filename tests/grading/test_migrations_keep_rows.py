"""Migrating a database made before the house was reshaped keeps every row: the demo is loaded
and graded by the code of main's commit just before issue 20's first change, in a database of
its own, which the current code then migrates; every table holds the same rows with the same
values as before (in the columns it had: the columns later migrations add hold null or their
default), the rows added are only those of what later migrations add (their rows in
django_migrations, the new models' content types and permissions, the new roles' groups and the
roles' permissions on the new models), and the contest's backup written by the current code is
the same file the old code wrote.

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


# What the migrations after that commit add: issue 21's delegations, provisional results and
# appeals (models, with their admin permissions; the team leader's role) and two columns, which
# hold null in the rows there were; issue 22's jurors' facts, moves and language help (models;
# the language specialist's role) and two columns, which hold their defaults; issue 23's
# calibration rounds, scheme versions and comment bank (models) and three columns: every mark
# and problem is of scheme version 1, and no mark is reopened.
ADDED_MODELS = (
    "appeal",
    "appealcriterion",
    "appealdeadlinechange",
    "appealevening",
    "appealevent",
    "appealmeeting",
    "appealtables",
    "assignmentmove",
    "banknote",
    "calibrationmark",
    "calibrationmarkevent",
    "calibrationpaper",
    "calibrationround",
    "calibrationsheet",
    "conflictruling",
    "declaredconflict",
    "delegation",
    "discussionsession",
    "helprequest",
    "jurorlanguage",
    "jurorprofile",
    "provisionalresult",
    "referencemark",
    "referencemarkevent",
    "schemeversion",
    "seed",
    "sessionmember",
    "sessionoutcome",
)
ADDED_ROLES = ["leader", "specialist"]
ADDED_COLUMNS = {
    "grading_paper": {"delegation_id": ["None"], "answer_language": ["''"]},
    "rubrics_contest": {
        "appeals_deadline": ["None"],
        "working_language": ["'English'"],
        # Contests made before the scan mask was a setting keep theirs: 12 % of every page
        # (a decimal, which SQLite's numeric column holds as the integer it equals).
        "scan_mask_percent": [
            "Decimal('12.0')"
            if os.environ.get("DATABASE_URL", "").startswith(("postgres:", "postgresql:"))
            else "12"
        ],
        "scan_mask_pages": ["'every'"],
    },
    "grading_mark": {"reopened_by_id": ["None"], "scheme_version": ["1"]},
    # A change written before the sheet kept its changes' keys has none (issue 33).
    "grading_markevent": {"change_key": ["None"]},
    "rubrics_problem": {"scheme_version": ["1"]},
}
# The organizer holds every permission of the project's models, the chair the view ones.
ADDED_GROUP_PERMISSIONS = len(ADDED_MODELS) * 5


def _columns(rows: list) -> set[str]:
    return {name for row in rows for name, _ in row}


def _added(before: dict, after: dict) -> tuple[dict, dict, dict]:
    """What the migration added: each table's rows that were not there (as {column: value}),
    each table's new columns with the values they hold, and the rows there were that are gone
    or changed in the columns they had."""
    rows, columns, lost = {}, {}, {}
    for table, old_rows in before.items():
        kept = _columns(old_rows)
        new_rows = after.get(table, [])
        projected = [tuple(item for item in row if item[0] in kept) for row in new_rows]
        # By their repr: PostgreSQL's JSON columns come back as dicts, which no set holds.
        there, were = set(map(repr, projected)), set(map(repr, old_rows))
        if gone := [row for row in old_rows if repr(row) not in there]:
            lost[table] = gone
        added = [
            dict(row) for row, old in zip(new_rows, projected, strict=True) if repr(old) not in were
        ]
        if added:
            rows[table] = added
        for name in sorted(_columns(new_rows) - kept) if old_rows else ():
            columns.setdefault(table, {})[name] = sorted(
                {repr(dict(row)[name]) for row in new_rows}
            )
    return rows, columns, lost


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

    # Tables a later migration adds are not compared; every table there was holds its rows.
    rows, columns, lost = _added(before, after)
    assert lost == {}
    assert columns == ADDED_COLUMNS
    content_types = {row["id"]: row["model"] for row in rows.pop("django_content_type")}
    permissions = {row["id"] for row in rows["auth_permission"]}
    assert (sorted(content_types.values()), [row["name"] for row in rows.pop("auth_group")]) == (
        sorted(ADDED_MODELS),
        ADDED_ROLES,
    )
    assert sorted(
        row["content_type_id"] in content_types for row in rows.pop("auth_permission")
    ) == [True] * (4 * len(ADDED_MODELS))
    granted = rows.pop("auth_group_permissions")
    assert [row["permission_id"] in permissions for row in granted] == [
        True
    ] * ADDED_GROUP_PERMISSIONS
    assert sorted(rows) == ["django_migrations"]
    assert sum(map(len, before.values())) > 1000
    assert (tmp_path / "after.zip").read_bytes() == (tmp_path / "before.zip").read_bytes()
