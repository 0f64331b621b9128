"""A short run of bench/sessions.py: gunicorn on a throw-away SQLite database, two discussion
sessions of three jurors for a few seconds, each member's page following the moves as live.js
does; every move is seen by every member and the server answers every request."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


# A process of its own on a SQLite file of its own (tests/conftest.py).
@pytest.mark.own_sqlite
def test_sessions_benchmark_runs_and_every_member_follows_every_move():
    done = subprocess.run(
        [
            *(sys.executable, "bench/sessions.py", "--seconds", "8", "--sessions", "2"),
            *("--jurors-per-session", "3", "--move-every", "2"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()}
    assert figures["sessions_follow_missed"] == ["0", "==0", "met"]
    assert figures["sessions_server_errors"] == ["0", "==0", "met"]
    moves = re.search(r"(\d+) moves in (\d+) sessions, (\d+) follows", done.stderr)
    assert int(moves.group(2)) == 2
    assert int(moves.group(3)) == 3 * int(moves.group(1)) > 0
