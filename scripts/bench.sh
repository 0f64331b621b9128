#!/usr/bin/env sh
# `make bench`: every benchmark in bench/, one line per figure (name, measured ratio, goal, met).
# Each script sets up its own throw-away data; see bench/README.md. Sizes are the scripts'
# defaults, chosen so that the whole run fits in 10 minutes on two cores.
set -u
status=0
started=$(date +%s)
for script in bench/*.py; do
  [ -e "$script" ] || { echo "No benchmarks in bench/ yet."; exit 0; }
  case "$(basename "$script")" in _*) continue ;; esac  # helpers, not benchmarks
  # The real size takes about 35 minutes more on two busy cores, most of it building the
  # 255-contestant contest (bench/README.md); opt in with BENCH_SCALE=1.
  if [ "$(basename "$script")" = scale.py ] && [ "${BENCH_SCALE:-0}" != 1 ]; then
    echo "# $script skipped (BENCH_SCALE=1 runs it)" >&2
    continue
  fi
  echo "== $script"
  script_started=$(date +%s)
  .venv/bin/python "$script" || status=1
  echo "# $script took $(( $(date +%s) - script_started )) s" >&2
done
echo "# make bench took $(( $(date +%s) - started )) s" >&2
exit "$status"
