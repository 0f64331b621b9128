#!/usr/bin/env sh
# The whole check, as `make test` runs it: lint, migrations in step with the models, then the
# pytest suite on SQLite and on a throw-away PostgreSQL started here, side by side: every layer
# on SQLite, the database layer on PostgreSQL (tests/layers.py says which is which and why).
#
# Why side by side, each on pytest-xdist workers: one after the other on one core each, the two
# runs took most of an hour. Each run has TEST_WORKERS processes (default: the number of cores),
# so while both run the cores are shared by twice as many processes, and when the shorter run
# ends the longer one has them all. Every worker has its own test database (a clone of one
# migrated once per run, tests/db_template.py), temporary folders, live server port and Chromium
# (tests/conftest.py); `--dist loadgroup` keeps a module's tests on one worker when they share
# what the module builds once (tests/scheduling.py says how). Each run writes its own log (with its ten
# slowest tests and its time per layer), printed whole when it ends; both must pass.
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

RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/jury-test.XXXXXX")
# One PDF cache for both runs and all their workers: it is keyed by a hash of what goes into
# each file and written atomically (grading/printing/pdf.py), so a printout rendered by one is read by
# the others.
export CACHE_DIR="$RUN_DIR/pdf-cache"

# run_pytest NAME ARGS...: pytest with its output in $RUN_DIR/NAME.log, its process id in
# $RUN_DIR/NAME.pid and its exit status in $RUN_DIR/NAME.rc; meant to be started in the
# background.
run_pytest() {
  name=$1
  shift
  $PY -m pytest -p no:cacheprovider -n "$WORKERS" --dist loadgroup --durations=10 "$@" >"$RUN_DIR/$name.log" 2>&1 &
  echo $! >"$RUN_DIR/$name.pid"
  wait $!
  echo $? >"$RUN_DIR/$name.rc"
}

# report NAME TITLE: print a finished run's log; fail unless its pytest passed. pytest exits 5
# when it collected no test: that must fail, not pass silently.
report() {
  echo "== pytest on $2"
  cat "$RUN_DIR/$1.log"
  rc=$(cat "$RUN_DIR/$1.rc" 2>/dev/null || echo 1)
  if [ "$rc" -eq 5 ]; then echo "pytest on $2 collected no tests: failing." >&2; return 1; fi
  [ "$rc" -eq 0 ] || echo "pytest on $2 failed (exit $rc)." >&2
  return "$rc"
}

. scripts/postgres.sh
postgres_started=0
postgres_start && postgres_started=1
# postgres_start's traps replaced by ours: the folder goes too, and on Ctrl-C, which the
# background runs ignore (sh starts them so), both pytest processes are stopped (their xdist
# workers end with them).
cleanup() {
  postgres_stop
  rm -rf "$RUN_DIR"
}
stop_runs() {
  trap - INT TERM
  for pid_file in "$RUN_DIR"/*.pid; do
    [ -f "$pid_file" ] && kill "$(cat "$pid_file")" 2>/dev/null
  done
  wait
  exit 130
}
trap cleanup EXIT
trap stop_runs INT TERM

if [ "$postgres_started" -eq 1 ]; then
  (DATABASE_URL="$PG_SOCKET_URL" && export DATABASE_URL && run_pytest postgres) &
  postgres_pid=$!
fi
run_pytest sqlite &
sqlite_pid=$!

status=0
wait "$sqlite_pid"
report sqlite SQLite || status=1
if [ "$postgres_started" -eq 1 ]; then
  wait "$postgres_pid"
  report postgres PostgreSQL || status=1
else
  echo "PostgreSQL binaries (initdb, pg_ctl) were not found: the PostgreSQL run is skipped;" \
       "the SQLite run above counts. Install Debian's postgresql package to run it." >&2
fi
exit "$status"
