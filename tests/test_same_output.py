"""Issue 20 reshapes the code (modules moved into per-feature packages, devices removed, one
error handler) and changes no output. This test holds it to that: it extracts the tree of the
commit before the reshaping, runs tests/snapshot_outputs.py on it and on this tree (each in its
own process, with its own fresh database), and compares what every role's pages, the downloads
and the commands put out, on the demo and on a generated contest of 20 papers.

A difference fails the test, naming each page or command whose output changed with a short diff.
A change meant to be seen (a fixed typo, a reworded refusal) is then a difference the issue's
closing note accounts for, and BEFORE moves to the commit that made it."""

import difflib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

# main's last commit before issue 20's reshaping began: the outputs every later tree must give.
BEFORE = "34bfedc"
ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).resolve().with_name("snapshot_outputs.py")
DIFF_LINES = 12
SHOWN = 25


def tree_before(folder: Path) -> Path:
    """The files of BEFORE, as `git archive BEFORE | tar -x -C folder` extracts them."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the tree before the reshaping cannot be extracted.")
    found = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", f"{BEFORE}^{{commit}}"], capture_output=True
    )
    if found.returncode != 0:
        pytest.skip(
            f"Commit {BEFORE} is not in this clone (a shallow clone?): "
            f"`git fetch --unshallow` brings it, and this comparison with it."
        )
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", BEFORE], capture_output=True, check=True
    ).stdout
    folder.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


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


def differences(before: dict, now: dict) -> list[str]:
    """One entry per key whose output differs: its name and a short unified diff."""
    found = []
    for key in sorted(before.keys() | now.keys()):
        if key not in now:
            found.append(f"{key}: no longer there")
        elif key not in before:
            found.append(f"{key}: new")
        elif before[key] != now[key]:
            diff = difflib.unified_diff(
                record_lines(before[key]), record_lines(now[key]), "before", "now", n=1, lineterm=""
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
    reason="both trees run on SQLite files of their own, whatever DATABASE_URL says: the "
    "SQLite run of the suite has compared them already",
)
def test_every_page_export_and_command_gives_the_same_output_as_before_the_reshaping(
    tmp_path,
):
    trees = {"before": tree_before(tmp_path / "tree-before"), "now": ROOT}
    # Side by side: each run is one process, mostly waiting on its own pages.
    with ThreadPoolExecutor(2) as pool:
        runs = {name: pool.submit(snapshot, root, tmp_path / name) for name, root in trees.items()}
    before, now = runs["before"].result(), runs["now"].result()

    # The crawl and the commands must have reached what they are meant to compare.
    counts = role_counts(before)
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
        assert key in before, key
    assert before["demo chair GET /contests/demo/results/"]["status"] == 200

    changed = differences(before, now)
    report = "\n".join(changed[:SHOWN])
    if len(changed) > SHOWN:
        report += f"\n… and {len(changed) - SHOWN} more: " + ", ".join(
            entry.split(":\n")[0] for entry in changed[SHOWN:]
        )
    assert not changed, f"{len(changed)} outputs differ from {BEFORE}'s:\n{report}"
