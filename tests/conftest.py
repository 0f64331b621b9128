import os

import pytest

from grading.rules import roles
from tests import factories

# Playwright's sync API runs an event loop in the test thread; Django then refuses ORM calls
# from that thread unless told the loop is not ours to worry about.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

# Row-lock races need a database where one connection waits on another's lock: PostgreSQL's.
# (The SQLite run checks instead that its saves begin with BEGIN IMMEDIATE; see tests/grading/marking/test_sheet.py.)
collect_ignore = (
    []
    if os.environ.get("DATABASE_URL", "").startswith(("postgres:", "postgresql:"))
    else ["grading/resolution/test_postgres_locking.py"]
)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    # Django's default SQLite test database lives in memory, and a live server's threads then
    # share the test thread's one connection: two browser requests at once (a page and its
    # image, a poll) interleave on it, and a session read can come back empty, which logs the
    # browser out mid-test. A file gives every thread its own connection, as in production.
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        name = tmp_path_factory.mktemp("database") / "test.sqlite3"
        database.setdefault("TEST", {})["NAME"] = str(name)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # The default hasher takes a tenth of a second per password by design; tests create many.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def scans_dir_outside_the_repository(settings, tmp_path_factory):
    # The demo and the scan import write page images to SCANS_DIR: never the repository's var/.
    settings.SCANS_DIR = tmp_path_factory.getbasetemp() / "scans"


@pytest.fixture
def organizer(db):
    return factories.make_user("olga", roles.ORGANIZER)


@pytest.fixture
def chair(db):
    return factories.make_user("chen", roles.CHAIR)


@pytest.fixture
def juror(db):
    return factories.make_user("alice", roles.JUROR)


@pytest.fixture
def other_juror(db):
    return factories.make_user("bob", roles.JUROR)


@pytest.fixture
def outside_juror(db):
    """A juror of another problem's group."""
    return factories.make_user("charlie", roles.JUROR)


@pytest.fixture
def contest(db, juror, other_juror, outside_juror):
    """Two problems; alice and bob grade problem 1, charlie grades problem 2."""
    contest = factories.make_contest(identities=["Team Orca", "Team Heron", "Team Lynx"])
    factories.assign(contest, [juror, other_juror], problems=[1])
    factories.assign(contest, [outside_juror], problems=[2])
    return contest
