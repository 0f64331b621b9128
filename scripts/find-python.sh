#!/usr/bin/env sh
# Prints the path of a Python >= 3.12, or explains what to install and exits 1.
# pyenv shims answer for versions that are installed but not selected, so each candidate
# is run, not just looked up.
works() { "$1" -c 'import sys, venv; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; }

for candidate in python3.13 python3.12; do
  if works "$candidate"; then command -v "$candidate"; exit 0; fi
done
pyenv_root=$(pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")
for candidate in $(ls -d "$pyenv_root"/versions/3.13*/bin/python3 "$pyenv_root"/versions/3.12*/bin/python3 2>/dev/null | sort -r); do
  if works "$candidate"; then echo "$candidate"; exit 0; fi
done
if works python3; then command -v python3; exit 0; fi
echo "Jury needs Python 3.12 or newer: install python3.12 or python3.13 (or a pyenv version) and retry." >&2
exit 1
