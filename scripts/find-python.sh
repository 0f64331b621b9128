#!/usr/bin/env sh
# Prints the path of a Python >= 3.12, or explains what to install and exits 1.
# pyenv shims answer for versions that are installed but not selected, so each candidate
# is run, not just looked up.
#
# JURY_PYTHON chooses: a version (JURY_PYTHON=3.12 make test on a fresh clone runs the suite on
# the oldest Python the project supports), or a command or path.
works() { "$1" -c 'import sys, venv; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; }
pyenv_root=$(pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")

# first_of VERSION...: the first working python<VERSION> on the PATH or in pyenv's versions.
first_of() {
  for version in "$@"; do
    if works "python$version"; then command -v "python$version"; return 0; fi
  done
  for version in "$@"; do
    for candidate in $(ls -d "$pyenv_root"/versions/"$version"*/bin/python3 2>/dev/null | sort -r); do
      if works "$candidate"; then echo "$candidate"; return 0; fi
    done
  done
  return 1
}

if [ -n "${JURY_PYTHON:-}" ]; then
  case "$JURY_PYTHON" in
    3.[0-9]*) first_of "$JURY_PYTHON" && exit 0 ;;
    *) if works "$JURY_PYTHON"; then command -v "$JURY_PYTHON"; exit 0; fi ;;
  esac
  echo "JURY_PYTHON=$JURY_PYTHON: no Python 3.12 or newer with venv found by that name." >&2
  exit 1
fi
first_of 3.13 3.12 && exit 0
if works python3; then command -v python3; exit 0; fi
echo "Jury needs Python 3.12 or newer: install python3.12 or python3.13 (or a pyenv version) and retry." >&2
exit 1
