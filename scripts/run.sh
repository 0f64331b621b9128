#!/usr/bin/env sh
# `make run`: the development server and, beside it, the task worker that runs background jobs
# (the whole contest's printouts). Stopping the server (Ctrl+C) stops the worker too.
set -u
PY=.venv/bin/python
PORT=${PORT:-8000}
# DEBUG is off by default (grading/settings.py); the development server runs with it on: the
# local key, localhost only, static files served by runserver. Both processes inherit it.
export DEBUG=true

$PY manage.py jobs_worker &
worker=$!
# On any exit, Ctrl+C included: stop the worker (it finishes nothing half-way: a job it was
# running shows as interrupted and can be retried).
trap 'kill "$worker" 2>/dev/null; wait "$worker" 2>/dev/null' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

$PY manage.py runserver "127.0.0.1:$PORT"
