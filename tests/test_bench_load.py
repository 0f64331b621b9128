"""A short run of bench/load.py: gunicorn on a throw-away SQLite database, four jurors saving for
three seconds (then three more with each polling its inbox's stamp), and the script's own check that every acknowledged save is in the database."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


# A process of its own on a SQLite file of its own (tests/conftest.py).
@pytest.mark.own_sqlite
def test_load_benchmark_runs_and_loses_no_acknowledged_save():
    done = subprocess.run(
        [
            *(sys.executable, "bench/load.py", "--seconds", "3", "--jurors", "4"),
            *("--poll-interval", "0.5", "--sqlite-only"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()}
    assert figures["load_sqlite_lost_writes"] == ["0", "==0", "met"]
    assert figures["load_sqlite_duplicated_writes"] == ["0", "==0", "met"]
    assert figures["load_sqlite_server_errors"] == ["0", "==0", "met"]
    # The phase with the live pages' polling ran and was measured against the one without.
    assert figures["load_sqlite_p95_polling_vs_not"][1] == "<=1.2x"
    polls = re.search(r"(\d+) polls .*?answers ([^\n]*)", done.stderr)
    assert int(polls.group(1)) >= 4 * 4
    assert set(re.findall(r"(\d{3}): \d+", polls.group(2))) <= {"200", "304"}
