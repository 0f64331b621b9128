"""Starting a command: `manage.py check` of this project against the same command in a bare
`django-admin startproject` project on the same venv. Every management command, worker start and
test process pays this start (the settings, the apps, the URL conf), so heavy libraries
(WeasyPrint, pandas, scipy, matplotlib, openpyxl) load where they are used, not at the start.

- startup_check_vs_bare_project: best of a few alternating runs of each. Goal <= 3x.

Run: .venv/bin/python bench/startup.py   (prints: name  ratio  goal  met/not met)"""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 5
GOAL = 3.0


def best_time(args: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(args, cwd=cwd, check=True, stdout=subprocess.DEVNULL, env=ENVIRONMENT)
    return time.perf_counter() - started


# Commands start from compiled modules, as after the first run on any machine: where the shell
# says PYTHONDONTWRITEBYTECODE, every run of this project would compile its few hundred modules
# again (0.6 s), while Django's own come compiled from their install, which is not what an
# organizer's command waits on.
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENVIRONMENT.setdefault("DEBUG", "true")  # the local key and hosts (DEBUG is off by default)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        bare = Path(folder)
        admin = Path(sys.executable).with_name("django-admin")
        subprocess.run([str(admin), "startproject", "bare", str(bare)], check=True)
        ours, theirs = [], []
        # The warm-up: each side's modules compiled once, untimed.
        best_time([sys.executable, "manage.py", "check"], ROOT)
        best_time([sys.executable, "manage.py", "check"], bare)
        for _ in range(ROUNDS):  # alternating, so that a busy moment costs both alike
            ours.append(best_time([sys.executable, "manage.py", "check"], ROOT))
            theirs.append(best_time([sys.executable, "manage.py", "check"], bare))
    ratio = min(ours) / min(theirs)
    met = "met" if ratio <= GOAL else "not met"
    print(f"startup_check_vs_bare_project  {ratio:.2f}x  goal <= {GOAL:g}x  {met}")
    print(f"# manage.py check: {min(ours):.2f} s here, {min(theirs):.2f} s bare", file=sys.stderr)


if __name__ == "__main__":
    main()
