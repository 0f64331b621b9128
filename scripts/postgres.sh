# Sourced by scripts/test.sh and scripts/bench.sh: a throw-away PostgreSQL cluster on a free
# loopback port, run as the `postgres` user when we are root (initdb refuses root), removed by
# postgres_stop, which the EXIT trap also calls so that a failing run still stops it.
PG_BIN=""
for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
  [ -x "$dir/initdb" ] && PG_BIN="$dir" && break
done
if [ -z "$PG_BIN" ] && command -v initdb >/dev/null 2>&1; then PG_BIN=$(dirname "$(command -v initdb)"); fi

PG_DIR=""
PG_URL=""
# The same server through its Unix socket in PG_DIR: what the tests use, a round trip per query
# cheaper than the loopback's TCP (the benchmarks keep PG_URL, as a server elsewhere would be).
PG_SOCKET_URL=""

_as_pg() {
  if [ "$(id -u)" = "0" ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}

postgres_start() {
  [ -n "$PG_BIN" ] || return 1
  PG_DIR=$(mktemp -d /tmp/jury-pg.XXXXXX)
  [ "$(id -u)" = "0" ] && chown postgres "$PG_DIR"
  port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  trap postgres_stop EXIT INT TERM
  _as_pg "'$PG_BIN/initdb' -D '$PG_DIR/data' -U jury -A trust --no-sync -E UTF8 >'$PG_DIR/initdb.log' 2>&1" \
    || { echo "initdb failed:"; cat "$PG_DIR/initdb.log"; return 1; }
  _as_pg "'$PG_BIN/pg_ctl' -D '$PG_DIR/data' -l '$PG_DIR/server.log' -w -o \"-p $port -k '$PG_DIR' -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200\" start >/dev/null" \
    || { echo "PostgreSQL did not start:"; cat "$PG_DIR/server.log"; return 1; }
  PG_URL="postgres://jury@127.0.0.1:$port/postgres"
  PG_SOCKET_URL="postgres://jury@$(printf %s "$PG_DIR" | sed 's#/#%2F#g'):$port/postgres"
  echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
}

postgres_stop() {
  if [ -n "$PG_DIR" ] && [ -d "$PG_DIR" ]; then
    _as_pg "'$PG_BIN/pg_ctl' -D '$PG_DIR/data' -m fast -w stop >/dev/null 2>&1"
    rm -rf "$PG_DIR"
    PG_DIR=""
  fi
}
