#!/usr/bin/env sh
# The whole check, as `make test` runs it: lint, migrations in step with the models, then the
# pytest suite on SQLite and on a throw-away PostgreSQL started here, one after the other: every
# layer on SQLite, the database layer on PostgreSQL (tests/layers.py says which is which and why).
#
# Each run has TEST_WORKERS pytest-xdist workers (default: the number of cores). Why one after
# the other: side by side, twice as many workers as cores (and Chromium, and the PostgreSQL
# server) shared the cores, and on 2 cores the pair took 1,090-1,280 s where the two runs alone
# took 603 s (SQLite) and 328 s (PostgreSQL). Every worker has its own test database (a clone of
# one migrated once per run, tests/db_template.py), temporary folders, live server port and
# Chromium (tests/conftest.py); `--dist loadgroup` keeps a module's tests on one worker when they
# share what the module builds once (tests/scheduling.py says how). Each run prints its ten
# slowest tests and its time per layer; both must pass.
set -u
PY=.venv/bin/python
WORKERS=${TEST_WORKERS:-$(nproc 2>/dev/null || echo 2)}

echo "== ruff"
$PY -m ruff check . || exit 1
$PY -m ruff format --check . || exit 1

echo "== the map of imports (import-linter)"
.venv/bin/lint-imports --no-cache || exit 1

echo "== migrations in step with the models"
# DEBUG on, as for pytest (tests/settings.py): a check needs no SECRET_KEY.
DEBUG=true $PY manage.py makemigrations --check --dry-run || exit 1

# One PDF cache for both runs and all their workers: it is keyed by a hash of what goes into
# each file and written atomically (grading/printing/pdf.py), so a printout rendered by one is
# read by the others.
CACHE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/jury-pdf-cache.XXXXXX")
export CACHE_DIR

# run_pytest TITLE ARGS...: one run on TEST_WORKERS pytest-xdist workers; exit status 5 (no
# test collected) must fail, not pass silently.
run_pytest() {
  title=$1
  shift
  echo "== pytest on $title"
  $PY -m pytest -p no:cacheprovider -n "$WORKERS" --dist loadgroup --durations=10 "$@"
  rc=$?
  if [ "$rc" -eq 5 ]; then echo "pytest on $title collected no tests: failing." >&2; return 1; fi
  [ "$rc" -eq 0 ] || echo "pytest on $title failed (exit $rc)." >&2
  return "$rc"
}

. scripts/postgres.sh
cleanup() {
  postgres_stop
  rm -rf "$CACHE_DIR"
}
# (Set again after postgres_start, which sets traps of its own.)
trap cleanup EXIT
trap 'exit 130' INT TERM

status=0
run_pytest SQLite || status=1
if postgres_start; then
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  (DATABASE_URL="$PG_SOCKET_URL" && export DATABASE_URL && run_pytest PostgreSQL) || status=1
else
  echo "PostgreSQL binaries (initdb, pg_ctl) were not found: the PostgreSQL run is skipped;" \
       "the SQLite run above counts. Install Debian's postgresql package to run it." >&2
fi
exit "$status"
