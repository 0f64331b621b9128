"""The benchmarks' measure of a command's peak memory (bench/backup.py's PEAK_RSS_KB, which
bench/scale.py uses too) counts the child's own memory, not the process that started it: Linux
carries `ru_maxrss` from a parent into its child across fork and exec."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARENT_MB = 256


def test_a_child_started_by_a_large_process_reports_its_own_peak_memory(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import backup

    # This process holds PARENT_MB more, every page touched, before it starts the child.
    held = bytearray(PARENT_MB * 2**20)
    for offset in range(0, len(held), 4096):
        held[offset] = 1
    done = subprocess.run(
        [sys.executable, "-c", backup.PEAK_RSS_KB + "print(peak_rss_kb())"],
        capture_output=True,
        text=True,
        check=True,
    )
    child_mb = int(done.stdout) / 1024
    del held
    # A bare interpreter takes some 10 MB; `ru_maxrss` would have said more than PARENT_MB.
    assert child_mb < PARENT_MB / 4, child_mb
