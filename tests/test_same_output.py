"""Every page, download and command gives the approved output: the outputs of the commit before
issue 20's reshaping (34bfedc), as tests/snapshot_outputs.py recorded them from that tree, and
since then every change meant to be seen, approved one by one.

The outputs come in parts (snapshot_outputs.PARTS: each role's pages on the demo, the anonymous
visitor's, the demo's commands, the refused posts, the generated contest of 20 papers, every
command's help), each a test of its own: it runs tests/snapshot_outputs.py for its part on this
tree (in its own process, with its own fresh database) and compares the text with the part's
approved text, tests/approved/<part>.txt. A difference fails the test, naming each page or
command whose output changed with a short diff.

A change meant to be seen (a new page, a reworded refusal) is approved by writing the texts anew,
every part's or one part's:

    .venv/bin/python tests/snapshot_outputs.py --approve
    .venv/bin/python tests/snapshot_outputs.py --approve --part demo-chair

and committed with the change, which says what it changed (the texts' diff shows it). The
anonymous visitor's part and the refused posts read the URLs the roles reached from their approved
texts: --approve records the roles' parts first."""

import difflib
import subprocess
import sys
from pathlib import Path

import pytest

from tests.snapshot_outputs import APPROVED, PARTS, text_records

SCRIPT = Path(__file__).resolve().with_name("snapshot_outputs.py")
DIFF_LINES = 12
SHOWN = 25

# What each part must have reached for its comparison to mean something: pages a role reached
# at least, and outputs it must hold.
LEAST_PAGES = {
    "demo-organizer": {"demo organizer": 200},
    "demo-chair": {"demo chair": 200},
    "demo-juror1": {"demo juror1": 100},
    "demo-anonymous": {"demo anonymous": 300},
    "generated": {"generated organizer": 10, "generated chair": 50, "generated juror1": 10},
}
HOLDS = {
    "demo-chair": ["demo chair GET /contests/demo/results.xlsx"],
    "demo-commands": [
        "demo build load_demo --finish-grading",
        "demo command export_results --format csv --long",
        "demo command export_contest",
        "demo command render_papers --problem 1",
    ],
    "generated": ["generated build", "generated command export_results --format xlsx"],
    "help": ["command assign_jurors --help", "command load_demo --help"],
    "demo-posts": [
        "demo chair POST /contests/demo/finalize/ {}",
        "demo juror1 POST /contests/demo/p1/sheet/submit/ {}",
    ],
}


def snapshot(part: str, work: Path, demo_cache: Path) -> dict[str, str]:
    out = work / f"{part}.txt"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--part", part, "--out", str(out), "--work", str(work)]
        + ["--demo-cache", str(demo_cache)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, f"The snapshot of {part} failed:\n{done.stderr[-4000:]}"
    return text_records(out.read_text(encoding="utf-8"))


def differences(approved: dict[str, str], now: dict[str, str]) -> list[str]:
    """One entry per key whose output differs: its name and a short unified diff."""
    found = []
    for key in sorted(approved.keys() | now.keys()):
        if key not in now:
            found.append(f"{key}: no longer there")
        elif key not in approved:
            found.append(f"{key}: new")
        elif approved[key] != now[key]:
            diff = difflib.unified_diff(
                approved[key].split("\n"), now[key].split("\n"), "approved", "now", n=1, lineterm=""
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


@pytest.fixture(scope="session")
def demo_cache(run_dir):
    """Where the run's parts share the demo: built by the first, on whichever worker, and copied
    by the others (snapshot_outputs.build_demo)."""
    return run_dir / "snapshot-demo"


# (On the SQLite run only, as tests/layers.py has it: the script runs on a SQLite file of its own,
# whatever DATABASE_URL says.)
@pytest.mark.parametrize("part", PARTS)
def test_every_page_export_and_command_gives_the_approved_output(part, tmp_path, demo_cache):
    approved_file = APPROVED / f"{part}.txt"
    approved = text_records(approved_file.read_text(encoding="utf-8"))
    now = snapshot(part, tmp_path, demo_cache)

    # The crawl and the commands must have reached what they are meant to compare.
    counts = role_counts(now)
    for role, least in LEAST_PAGES.get(part, {}).items():
        assert counts.get(role, 0) >= least, (role, counts)
    for key in HOLDS.get(part, []):
        assert key in now, key
    if part == "demo-chair":
        assert now["demo chair GET /contests/demo/results/"].startswith("status 200\n")

    changed = differences(approved, now)
    report = "\n".join(changed[:SHOWN])
    if len(changed) > SHOWN:
        report += f"\n… and {len(changed) - SHOWN} more: " + ", ".join(
            entry.split(":\n")[0] for entry in changed[SHOWN:]
        )
    assert not changed, (
        f"{len(changed)} outputs of {part} differ from the approved ones "
        f"(tests/approved/{approved_file.name}; the module's docstring says how to approve a "
        f"change meant to be seen):\n{report}"
    )


def test_every_approved_text_belongs_to_a_part():
    assert sorted(path.stem for path in APPROVED.glob("*.txt")) == sorted(PARTS)
