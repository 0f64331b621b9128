#!/usr/bin/env bash
# `make serve`: the site as it runs for a real jury. DEBUG off; the deploy checks; migrations
# applied; static files collected (hashed, compressed: WhiteNoise serves them); then gunicorn
# and the task worker side by side. A task worker that stops is started again (after 1 s,
# doubling to 60 s while it keeps stopping, back to 1 s once it has run for 5 minutes): the site
# keeps serving meanwhile and /healthz says the worker is down. If gunicorn stops, the worker is
# stopped and the script exits with an error, so that a supervisor (systemd, a container)
# restarts the pair.
#
# Needs SECRET_KEY and ALLOWED_HOSTS; reads every other setting from the environment as the
# README's Configuration table says (DATABASE_URL for PostgreSQL). BIND (default
# 127.0.0.1:$PORT, PORT default 8000) is where gunicorn listens: behind a TLS proxy on the same
# machine, keep it on the loopback. WEB_CONCURRENCY gunicorn processes (default 2), 4 threads each.
set -u
PY=.venv/bin/python
export DEBUG=false

missing=()
[ -n "${SECRET_KEY:-}" ] || missing+=("SECRET_KEY (a long random string, e.g. from: $PY -c 'import secrets; print(secrets.token_urlsafe(50))')")
[ -n "${ALLOWED_HOSTS:-}" ] || missing+=("ALLOWED_HOSTS (the site's host names, comma-separated, e.g. jury.example.org)")
if [ ${#missing[@]} -gt 0 ]; then
  echo "make serve runs the site for real and needs these settings in the environment:" >&2
  for item in "${missing[@]}"; do echo "  - $item" >&2; done
  echo "For a trial on this machine over plain HTTP also set SECURE_SSL_REDIRECT=false (see the README's production section)." >&2
  exit 2
fi

$PY manage.py check --deploy || exit 1
$PY manage.py migrate --no-input || exit 1
$PY manage.py collectstatic --no-input --verbosity 0 || exit 1

# The worker renders on every core; at a lower priority, so that pages (a juror's autosave)
# stay quick while the whole contest's printouts are being made. Each run is a process group of
# its own, ended whole once the worker has gone, so that nothing it started outlives it.
child=
pause=
end_worker() {
  # The worker ends its render processes itself (SIGTERM); the group's SIGKILL is for a worker
  # that could not.
  if [ -n "$child" ]; then
    kill -TERM "$child" 2>/dev/null
    wait "$child" 2>/dev/null
    kill -KILL -- "-$child" 2>/dev/null
  fi
  if [ -n "$pause" ]; then kill "$pause" 2>/dev/null; fi
  exit 0
}
supervise_worker() {
  local delay=1 started rc
  trap end_worker TERM
  while :; do
    started=$SECONDS
    setsid nice -n 10 $PY manage.py jobs_worker --no-reload --verbosity "${WORKER_VERBOSITY:-1}" &
    child=$!
    wait "$child"
    rc=$?
    kill -KILL -- "-$child" 2>/dev/null
    child=
    if (( SECONDS - started >= ${WORKER_STEADY_SECONDS:-300} )); then delay=1; fi
    echo "make serve: the task worker stopped (exit $rc); starting it again in $delay s." >&2
    sleep "$delay" &
    pause=$!
    wait "$pause"
    pause=
    delay=$(( delay * 2 > 60 ? 60 : delay * 2 ))
  done
}
supervise_worker &
worker=$!
.venv/bin/gunicorn grading.wsgi \
  --bind "${BIND:-127.0.0.1:${PORT:-8000}}" \
  --workers "${WEB_CONCURRENCY:-2}" --threads 4 \
  --access-logfile - --logger-class grading.web.gunicorn_logging.Logger \
  --forwarded-allow-ips "${FORWARDED_ALLOW_IPS:-127.0.0.1}" &
web=$!

stop() {
  kill "$worker" "$web" 2>/dev/null
  wait "$worker" "$web" 2>/dev/null
}
trap 'stop; exit 143' TERM
trap 'stop; exit 130' INT

# gunicorn stopping (or a signal) ends the site; the worker's supervisor never stops on its own.
wait "$web"
rc=$?
stop
echo "make serve: gunicorn stopped (exit $rc), so the site was stopped too." >&2
exit $(( rc == 0 ? 1 : rc ))
