"""The test database, migrated once per run and cloned for each pytest-xdist worker.

Migrating takes a worker most of twenty seconds on a loaded machine, and each database's run has
several workers. The first worker to get here migrates a template database (on SQLite a file, on
PostgreSQL a database), under a lock that the run's workers share; every worker, the first
included, then works on a clone of it: a file copy on SQLite, CREATE DATABASE … TEMPLATE on
PostgreSQL (Django's own `clone_test_db`, which its parallel test runner uses).

The template lives as long as the run's temporary folder says it was made in this run (a marker
file there), so a template left on a PostgreSQL server by an interrupted run is never mistaken for
a fresh one: it is migrated anew."""

import fcntl
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def _locked(path: Path):
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _point_at(connection, name: str) -> None:
    from django.conf import settings

    connection.close()
    settings.DATABASES[connection.alias]["NAME"] = name
    connection.settings_dict["NAME"] = name


def _template_name(connection, run_dir: Path) -> str:
    if connection.vendor == "sqlite":
        # A file, never SQLite's shared in-memory test database: a live server's threads would
        # share the test thread's one connection, and two browser requests at once (a page and
        # its image, a poll) interleave on it; a session read can come back empty, which logs the
        # browser out mid-test. With a file every thread has its own connection, as in production.
        return str(run_dir / "test-template.sqlite3")
    return f"test_{connection.settings_dict['NAME']}_template"


def clone_for_worker(*, run_dir: Path, worker: str, verbosity: int = 0) -> tuple[str, str]:
    """Give this process its own migrated test database; returns (the database's name before,
    the clone's name), for `destroy_clone`."""
    from django.db import connection

    creation = connection.creation
    original = connection.settings_dict["NAME"]
    marker = run_dir / f"db-template-{connection.vendor}.name"
    with _locked(run_dir / f"db-template-{connection.vendor}.lock"):
        if marker.exists():
            _point_at(connection, marker.read_text())
        else:
            test = connection.settings_dict.setdefault("TEST", {})
            test["NAME"] = _template_name(connection, run_dir)
            # Migrates, and points the settings at the template.
            creation.create_test_db(verbosity=verbosity, autoclobber=True)
            connection.close()
            marker.write_text(connection.settings_dict["NAME"])
        creation.clone_test_db(suffix=worker, verbosity=verbosity, keepdb=False)
    clone = creation.get_test_db_clone_settings(worker)["NAME"]
    _point_at(connection, clone)
    return original, clone


def destroy_clone(*, original: str, verbosity: int = 0) -> None:
    from django.db import connection

    connection.creation.destroy_test_db(original, verbosity=verbosity)


def drop_templates(*, run_dir: Path, verbosity: int = 0) -> None:
    """Drop the templates this run made (called once the workers are done), so that none is left
    on a PostgreSQL server that outlives the run."""
    from django.db import connection

    marker = run_dir / f"db-template-{connection.vendor}.name"
    if marker.exists():
        connection.creation._destroy_test_db(marker.read_text(), verbosity)
        marker.unlink()
