#!/usr/bin/env sh
# The whole check, as `make test` runs it: lint, migrations in step with the models, then the
# full pytest suite on SQLite and again on a throw-away PostgreSQL started here.
set -u
PY=.venv/bin/python

run_pytest() {
  # pytest exits 5 when it collected no test: that must fail, not pass silently.
  $PY -m pytest "$@"
  rc=$?
  if [ "$rc" -eq 5 ]; then echo "pytest collected no tests: failing." >&2; return 1; fi
  return "$rc"
}

echo "== ruff"
$PY -m ruff check . || exit 1
$PY -m ruff format --check . || exit 1

echo "== the map of imports (import-linter)"
.venv/bin/lint-imports --no-cache || exit 1

echo "== migrations in step with the models"
# DEBUG on, as for pytest (tests/settings.py): a check needs no SECRET_KEY.
DEBUG=true $PY manage.py makemigrations --check --dry-run || exit 1

echo "== pytest on SQLite"
run_pytest -p no:cacheprovider || exit 1

echo "== pytest on PostgreSQL"
. scripts/postgres.sh
if postgres_start; then
  DATABASE_URL="$PG_URL" run_pytest -p no:cacheprovider
  rc=$?
  postgres_stop
  exit "$rc"
fi
echo "PostgreSQL binaries (initdb, pg_ctl) were not found: the PostgreSQL run is skipped;" \
     "the SQLite run above counts. Install Debian's postgresql package to run it." >&2
exit 0
