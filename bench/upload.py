"""Hostile XLSX uploads: each variant of a juror's own downloaded sheet that fits within the
upload limit (a merge of AA1:AZ40000, a merge of the whole sheet A1:XFD1048576, a million dense
plain cells, 100,000 bogus rows) against accepting a normal upload of the same sheet, upload →
preview both, through Django's test client on a throw-away SQLite database with DEBUG off.

Times are medians of interleaved rounds; the ratio is the worst variant's. Memory is the growth
of the process's peak RSS (VmHWM, reset once the files are built; ru_maxrss elsewhere) over all hostile uploads, measured after the normal
uploads have warmed the process up.

Run: .venv/bin/python bench/upload.py   (prints: name  figure  goal  met/not met)"""

import contextlib
import resource
import statistics
import sys
import time
from pathlib import Path

# bench/ is on the path when a script runs, as Python puts its folder first.
from _throwaway import throwaway_database

ROUNDS = 7
PAPERS = 30
CRITERIA = (
    ("A1", "assignment", "4"),
    ("A2", "assignment", "4"),
    ("A3", "assignment", "4"),
    ("T1", "theory", "4"),
    ("T2", "theory", "4"),
)
RATIO_GOAL = 2.0
RSS_GOAL_MB = 50


def _reset_peak() -> None:
    # Building the hostile files raised the peak; on Linux "5" starts it again from now.
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _peak_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    with throwaway_database():
        _run()


def _run() -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client
    from django.urls import reverse

    from grading.marking.views import MAX_UPLOAD_BYTES
    from tests import factories
    from tests.xlsx_files import bogus_rows, merged, rows, with_marks

    juror = factories.make_user("bench-juror", "juror")
    contest = factories.make_contest("bench-upload", problems=1, papers=PAPERS, criteria=CRITERIA)
    factories.assign(contest, [juror])
    client = Client(HTTP_HOST="localhost")
    client.force_login(juror)
    response = client.get(reverse("sheet_xlsx", args=[contest.slug, 1]))
    assert response.status_code == 200
    normal = response.content
    from grading.models import Sheet

    key = f"sheet-upload:{Sheet.objects.get(juror=juror).pk}"
    first = 3 + PAPERS
    variants = {
        "merge AA1:AZ40000": with_marks(normal, merged("AA1:AZ40000")),
        "merge A1:XFD1048576": with_marks(normal, merged("A1:XFD1048576")),
        "1 M dense cells": with_marks(normal, rows(range(first, first + 1000), 1000)),
        "100,000 bogus rows": with_marks(normal, bogus_rows(first, 100_000)),
    }
    for name, data in variants.items():
        assert len(data) <= MAX_UPLOAD_BYTES, (name, len(data))
    url = reverse("sheet_xlsx_upload", args=[contest.slug, 1])

    def upload(data: bytes) -> tuple[float, dict]:
        start = time.perf_counter()
        response = client.post(url, {"file": SimpleUploadedFile("sheet.xlsx", data)})
        assert response.status_code == 302, response.status_code
        preview = client.get(response["Location"])
        elapsed = time.perf_counter() - start
        assert preview.status_code == 200
        return elapsed, client.session[key]

    for _ in range(3):  # warm up
        _, pending = upload(normal)
        assert pending["errors"] == [], pending["errors"]
    import gc

    gc.collect()
    _reset_peak()
    rss_before = _peak_mb()
    normal_times = []
    times = {name: [] for name in variants}
    for _ in range(ROUNDS):
        normal_times.append(upload(normal)[0])
        for name, data in variants.items():
            elapsed, pending = upload(data)
            assert pending["errors"] and not pending["changes"], name
            times[name].append(elapsed)
    rss_growth = _peak_mb() - rss_before

    normal_ms = statistics.median(normal_times) * 1000
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    print(
        f"# normal upload {normal_ms:.1f} ms ({PAPERS} papers × {len(CRITERIA)} criteria); "
        + ", ".join(
            f"{name} {ms:.1f} ms ({len(variants[name]) // 1024} KB)" for name, ms in medians.items()
        )
        + f"; medians of {ROUNDS}",
        file=sys.stderr,
    )
    worst = max(medians.values()) / normal_ms
    met = "met" if worst <= RATIO_GOAL else "not met"
    print(f"xlsx_hostile_refusal_vs_normal_upload  {worst:.2f}x  <={RATIO_GOAL:g}x  {met}")
    met = "met" if rss_growth <= RSS_GOAL_MB else "not met"
    print(f"xlsx_hostile_rss_growth_mb  {rss_growth:.0f}  <={RSS_GOAL_MB}  {met}")


if __name__ == "__main__":
    main()
