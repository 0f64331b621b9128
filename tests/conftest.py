import os

import pytest
from pytest_django.plugin import blocking_manager_key

from grading.rules import roles
from tests import db_template, factories
from tests.layers import (  # noqa: F401 (the layers' hooks, tests/layers.py)
    on_postgresql,
    pytest_collection_modifyitems,
    pytest_runtest_logreport,
    pytest_terminal_summary,
)
from tests.scheduling import pytest_xdist_make_scheduler  # noqa: F401 (which worker runs what)

# Playwright's sync API runs an event loop in the test thread; Django then refuses ORM calls
# from that thread unless told the loop is not ours to worry about.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

# Row-lock races need a database where one connection waits on another's lock: PostgreSQL's.
# (The SQLite run checks instead that its saves begin with BEGIN IMMEDIATE; see tests/grading/marking/test_sheet.py.)
collect_ignore = [] if on_postgresql() else ["grading/resolution/test_postgres_locking.py"]


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory):
    """A folder the whole run shares, every pytest-xdist worker of it (each worker's own
    temporary folder is one of its folders), for what is built once per run."""
    basetemp = tmp_path_factory.getbasetemp()
    return basetemp.parent if _xdist_worker() else basetemp


@pytest.fixture(scope="session")
def django_db_setup(django_test_environment, django_db_blocker, run_dir):
    """The test database: migrated once per run and cloned for this worker (tests/db_template.py),
    instead of pytest-django's migration in every worker."""
    with django_db_blocker.unblock():
        original, _ = db_template.clone_for_worker(
            run_dir=run_dir, worker=_xdist_worker() or "main"
        )
    yield
    with django_db_blocker.unblock():
        db_template.destroy_clone(original=original)


@pytest.fixture(scope="session", autouse=True)
def var_dirs_outside_the_repository(tmp_path_factory):
    """Job files and pending uploads go to folders of this test process, and rendered PDFs to
    one cache shared by the whole run. Left at their defaults they would be the repository's
    var/, shared by every pytest-xdist worker and by the SQLite and PostgreSQL runs of
    scripts/test.sh (or of two people's runs at once): a job's file is named by its id, and two
    databases count ids alike. Tests that look at these folders still set their own (`settings`)."""
    from django.conf import settings

    basetemp = tmp_path_factory.getbasetemp()
    settings.JOBS_DIR = basetemp / "jobs"
    settings.IMPORTS_DIR = basetemp / "imports"
    # As `scans_dir_outside_the_repository` below, for module-scoped fixtures too (the shared
    # demo's page images), which are set up before any function-scoped fixture.
    settings.SCANS_DIR = basetemp / "scans"
    # The PDF cache is keyed by a hash of everything that goes into a file and written
    # atomically (grading/printing/pdf.py), as it is shared by gunicorn's workers: sharing it between
    # test processes is safe, and a printout rendered by one is read by the next. scripts/test.sh
    # gives both runs one CACHE_DIR; else the xdist workers of one run share theirs (the
    # workers' basetemps are folders of one run's folder).
    if "CACHE_DIR" not in os.environ:
        shared = basetemp.parent if _xdist_worker() else basetemp
        settings.CACHE_DIR = shared / "pdf-cache"


def pytest_sessionfinish(session):
    # In the pytest-xdist controller, or the one process of a run without workers: every clone
    # is gone or going, and nothing needs the template any more.
    if _xdist_worker() is None and hasattr(session.config, "_tmp_path_factory"):
        with session.config.stash[blocking_manager_key].unblock():
            db_template.drop_templates(run_dir=session.config._tmp_path_factory.getbasetemp())


def _xdist_worker() -> str | None:
    """This process's pytest-xdist worker name ("gw0"...), or None when pytest runs alone."""
    return os.environ.get("PYTEST_XDIST_WORKER")


@pytest.fixture(scope="session")
def pdf_cache(var_dirs_outside_the_repository):
    """The run's PDF cache (see above), for module-scoped fixtures that render printouts."""
    from django.conf import settings

    return settings.CACHE_DIR


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
