"""Every page, download and command gives the approved output: the outputs of the commit before
issue 20's reshaping (34bfedc), as tests/snapshot_outputs.py recorded them from that tree, and
since then every change meant to be seen, approved one by one.

The test runs tests/snapshot_outputs.py on this tree (in its own process, with its own fresh
database) and compares what every role's pages, the downloads and the commands put out, on the
demo and on a generated contest of 20 papers, with tests/fixtures/outputs_approved.json.gz. A
difference fails the test, naming each page or command whose output changed with a short diff.

A change meant to be seen (a new page, a reworded refusal) is approved by writing the file anew:

    .venv/bin/python tests/snapshot_outputs.py . "$(mktemp -d)" tests/fixtures/outputs_approved.json.gz

and committed with the change, which says what it changed. (Until issue 20 ended, the test ran the
script on the tree of 34bfedc too and compared the two: the approved file is that run's output,
which its last commit, c20a1b9, gave unchanged.)"""

import difflib
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).resolve().with_name("snapshot_outputs.py")
APPROVED = ROOT / "tests" / "fixtures" / "outputs_approved.json.gz"
DIFF_LINES = 12
SHOWN = 25


def snapshot(root: Path, work: Path) -> dict:
    out = work / "snapshot.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(root), str(work), str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, f"The snapshot of {root} failed:\n{done.stderr[-4000:]}"
    return json.loads(out.read_text())


def record_lines(record) -> list[str]:
    if isinstance(record, str):
        return record.splitlines()
    head = [f"status {record['status']}"]
    head += [f"{name}: {value}" for name, value in record["headers"].items()]
    return head + record["body"].splitlines()


def differences(approved: dict, now: dict) -> list[str]:
    """One entry per key whose output differs: its name and a short unified diff."""
    found = []
    for key in sorted(approved.keys() | now.keys()):
        if key not in now:
            found.append(f"{key}: no longer there")
        elif key not in approved:
            found.append(f"{key}: new")
        elif approved[key] != now[key]:
            diff = difflib.unified_diff(
                record_lines(approved[key]),
                record_lines(now[key]),
                "approved",
                "now",
                n=1,
                lineterm="",
            )
            lines = list(diff)[2:]
            shown = "\n".join(f"    {line[:160]}" for line in lines[:DIFF_LINES])
            more = (
                f"\n    … {len(lines) - DIFF_LINES} more lines" if len(lines) > DIFF_LINES else ""
            )
            found.append(f"{key}:\n{shown}{more}")
    return found


def role_counts(outputs: dict) -> dict[str, int]:
    counts: dict[str, int] = {}
    for key in outputs:
        if " GET " in key:
            role = key.split(" GET ")[0]
            counts[role] = counts.get(role, 0) + 1
    return counts


@pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="the script runs on a SQLite file of its own, whatever DATABASE_URL says: the "
    "SQLite run of the suite has compared it already",
)
def test_every_page_export_and_command_gives_the_approved_output(tmp_path):
    approved = json.loads(gzip.decompress(APPROVED.read_bytes()))
    now = snapshot(ROOT, tmp_path / "now")

    # The crawl and the commands must have reached what they are meant to compare.
    counts = role_counts(now)
    for role, least in {
        "demo organizer": 200,
        "demo chair": 200,
        "demo juror1": 100,
        "demo anonymous": 300,
        "generated organizer": 10,
        "generated chair": 50,
        "generated juror1": 10,
    }.items():
        assert counts.get(role, 0) >= least, (role, counts)
    for key in (
        "demo chair GET /contests/demo/results.xlsx",
        "demo command export_results --format csv --long",
        "demo command export_contest",
        "generated command export_results --format xlsx",
    ):
        assert key in now, key
    assert now["demo chair GET /contests/demo/results/"]["status"] == 200

    changed = differences(approved, now)
    report = "\n".join(changed[:SHOWN])
    if len(changed) > SHOWN:
        report += f"\n… and {len(changed) - SHOWN} more: " + ", ".join(
            entry.split(":\n")[0] for entry in changed[SHOWN:]
        )
    assert not changed, (
        f"{len(changed)} outputs differ from the approved ones ({APPROVED.name}; the module's "
        f"docstring says how to approve a change meant to be seen):\n{report}"
    )
