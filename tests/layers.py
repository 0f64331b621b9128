"""The suite's layers, which database each runs on, and where the run's time went.

Every test falls in one layer, found from where it lives and what it asks for, so that a new test
lands in the right place without a marker to remember (each layer is also a marker, for `-m`):

- `browser`: tests/browser/, Playwright driving Chromium;
- `approved_outputs`: tests/test_same_output.py, every page and command held to the approved texts;
- `fuzz`: property and fuzz tests (hypothesis's `@given`);
- `own_sqlite`: marked by hand: the project started in a process of its own on a SQLite file of
  its own, whatever DATABASE_URL says (make serve, the worker's processes, the benchmarks' runs);
- `no_database`: a test that asks for no database at all;
- `database`: the rest, every test whose result could depend on the database: queries and their
  ordering, locking, constraints, transactions and savepoints, migrations, backups and restores,
  bulk writes, concurrency, the permission matrix and the crawls.

The SQLite run runs every layer. The PostgreSQL run (DATABASE_URL=postgres://…) runs `database`
only (and the few browser tests marked `on_both_databases`, whose answer the database decides) and
deselects the others: they drive the same code over the same ORM, so PostgreSQL could
only repeat their answer at their cost (the browser tests alone are a third of the suite's time).
"""

import os
from collections import defaultdict

import pytest

BROWSER, APPROVED, FUZZ, OWN_SQLITE, NO_DATABASE, DATABASE = (
    "browser",
    "approved_outputs",
    "fuzz",
    "own_sqlite",
    "no_database",
    "database",
)
LAYERS = (BROWSER, APPROVED, FUZZ, OWN_SQLITE, NO_DATABASE, DATABASE)
ONCE_ON_SQLITE = frozenset(LAYERS) - {DATABASE}
ON_BOTH_DATABASES = "on_both_databases"
# What pytest-django's fixtures for a database are called; a test asking for any of them (or
# marked django_db, or a Django TestCase) has a database.
DATABASE_FIXTURES = frozenset(
    {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback"}
    | {"live_server", "django_db_setup", "_django_db_helper"}
)


def on_postgresql() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres:", "postgresql:"))


def layer_of(item: pytest.Item) -> str:
    path = item.path.as_posix()
    if "/tests/browser/" in path:
        return BROWSER
    if path.endswith("/tests/test_same_output.py"):
        return APPROVED
    if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
        return FUZZ
    if item.get_closest_marker(OWN_SQLITE):
        return OWN_SQLITE
    if not _asks_for_a_database(item):
        return NO_DATABASE
    return DATABASE


def _asks_for_a_database(item: pytest.Item) -> bool:
    if item.get_closest_marker("django_db"):
        return True
    if DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    cls = getattr(item, "cls", None)
    # Django's own TestCase and its kin set up their database themselves.
    return cls is not None and any(base.__module__.startswith("django.test") for base in cls.mro())


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Each test gets its layer's marker (and carries its name to the controller for the time
    report); on PostgreSQL the layers that run once, on SQLite, are deselected. (Which worker
    runs which test: tests/scheduling.py.)"""
    once = []
    kept = []
    for item in items:
        layer = layer_of(item)
        item.add_marker(layer)
        item.user_properties.append(("layer", layer))
        # A browser test whose answer the database decides (saves through a dropped network,
        # a killed server) runs on PostgreSQL too.
        both = item.get_closest_marker(ON_BOTH_DATABASES) is not None
        (once if layer in ONCE_ON_SQLITE and on_postgresql() and not both else kept).append(item)
    if once:
        config.hook.pytest_deselected(items=once)
        items[:] = kept


# --- where the time went ----------------------------------------------------------------------

_seconds: dict[str, float] = defaultdict(float)
_tests: dict[str, int] = defaultdict(int)


def pytest_runtest_logreport(report):
    # On the xdist controller too: each worker's reports arrive there with their properties.
    layer = dict(report.user_properties).get("layer", "?")
    _seconds[layer] += report.duration
    if report.when == "call":
        _tests[layer] += 1


def pytest_terminal_summary(terminalreporter):
    if not _seconds:
        return
    terminalreporter.section("time per layer (seconds of test time, summed over workers)")
    for layer in sorted(_seconds, key=_seconds.get, reverse=True):
        terminalreporter.write_line(
            f"{layer:<18}{_seconds[layer]:9.1f} s  {_tests[layer]:5d} tests"
        )
    terminalreporter.write_line(f"{'all':<18}{sum(_seconds.values()):9.1f} s")
