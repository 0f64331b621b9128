#!/usr/bin/env sh
# `make bench`: every benchmark in bench/, one line per figure (name, measured ratio, goal, met).
# Each script sets up its own throw-away data; see bench/README.md.
set -u
status=0
for script in bench/*.py; do
  [ -e "$script" ] || { echo "No benchmarks in bench/ yet."; exit 0; }
  echo "== $script"
  .venv/bin/python "$script" || status=1
done
exit "$status"
