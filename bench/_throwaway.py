"""The throw-away database the benchmarks run on: a SQLite file in a temporary folder with the
application's own settings (WAL, immediate transactions), migrated, DEBUG off so that queries
are not recorded. Not a benchmark itself (`scripts/bench.sh` runs only the others)."""

import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def throwaway_database():
    """Django set up on a fresh database for the `with` block; removed afterwards."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")
    os.environ.setdefault("DEBUG", "true")  # the local key and hosts (DEBUG is off by default)
    os.environ.pop("DATABASE_URL", None)
    workdir = Path(tempfile.mkdtemp(prefix="jury-bench-"))
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = workdir / "bench.sqlite3"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    settings.DEBUG = False
    try:
        yield workdir
    finally:
        from django.db import connections

        connections.close_all()
        shutil.rmtree(workdir, ignore_errors=True)
