"""Scanned human papers: the project's rendering of a scanned PDF page into the image a juror
sees, against bare pypdfium2 on the same page; and the grading sheet with 200 human papers
against 20, the sheet page's scaling goal (bench/sheet.py).

Pages are rendered once, at import (`grading.intake.scans.reading.render_page`, then masked and stored
by `grading.papers.images`); the pages and the printouts serve the stored PNG. So the figures
compare, on one synthetic scanned A4 page (a 150 dpi grey image in a PDF, as a scanner writes
it), rendered at the import's resolution:
- the project's render (`render_page`) against pypdfium2's own `page.render(...).to_pil()`;
- the whole stored image (render, mask band, a bare copy without metadata, PNG) against
  pypdfium2's render saved as PNG by Pillow.
Each figure is the median of interleaved runs. The sheet's figure is bench/sheet.py's measure
(a throw-away SQLite database, Django's test client, DEBUG off, medians of interleaved rounds)
on papers that each have two scanned pages: the selected paper's pane shows its pages.

Run: .venv/bin/python bench/scans.py   (prints: name  ratio  goal  met/not met)"""

import io
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

# bench/ is on the path when a script runs, as Python puts its folder first.
from _handwriting import handwritten_page
from _throwaway import ROOT, throwaway_database

RENDER_ROUNDS = 25
RENDER_GOAL = 1.2
PAGE_SIZES = (20, 200)
PAGE_ROUNDS = 11
# bench/sheet.py's goal: linear would be 10×; the 5 % above it leaves room for noise only.
PAGE_GOAL = 10.5
CRITERIA = (
    ("A1", "assignment", "4"),
    ("A2", "assignment", "4"),
    ("A3", "assignment", "4"),
    ("T1", "theory", "4"),
    ("T2", "theory", "4"),
)


def scanned_pdf() -> bytes:
    """One A4 page as a scanner writes it: a grey 150 dpi image of handwriting-like strokes."""
    image = handwritten_page(random.Random(7))
    buffer = io.BytesIO()
    image.save(buffer, format="PDF", resolution=150)
    return buffer.getvalue()


def _median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


def render_figures(folder: Path) -> list[tuple[str, float, float]]:
    import pypdfium2 as pdfium

    from grading.intake.scans.reading import RENDER_DPI, render_page
    from grading.papers.images import masked, save_png
    from rubrics.models import SCAN_MASK_PERCENT

    document = pdfium.PdfDocument(scanned_pdf())

    def bare_render():
        page = document[0]
        try:
            return page.render(scale=RENDER_DPI / 72, grayscale=True).to_pil()
        finally:
            page.close()

    def project_render():
        return render_page(document, 0)

    def bare_png():
        bare_render().save(folder / "bare.png", format="PNG")

    def project_png():
        save_png(
            masked(render_page(document, 0), percent=SCAN_MASK_PERCENT), folder / "project.png"
        )

    pairs = {"render": (project_render, bare_render), "stored": (project_png, bare_png)}
    times = {name: ([], []) for name in pairs}
    for function in (bare_render, project_render, bare_png, project_png):
        function()  # warm up
    for _ in range(RENDER_ROUNDS):
        for name, (project, bare) in pairs.items():
            for function, bucket in ((bare, times[name][1]), (project, times[name][0])):
                start = time.perf_counter()
                function()
                bucket.append(time.perf_counter() - start)
    medians = {name: (_median_ms(p), _median_ms(b)) for name, (p, b) in times.items()}
    print(
        "# one scanned A4 page at the import's resolution: "
        + ", ".join(
            f"{name} {project:.1f} ms (bare pypdfium2 {bare:.1f} ms)"
            for name, (project, bare) in medians.items()
        )
        + f" (median of {RENDER_ROUNDS})",
        file=sys.stderr,
    )
    return [
        ("scan_page_render_vs_bare_pdfium", _ratio(medians["render"]), RENDER_GOAL),
        ("scan_page_stored_png_vs_bare_pdfium_png", _ratio(medians["stored"]), RENDER_GOAL),
    ]


def _ratio(pair: tuple[float, float]) -> float:
    project, bare = pair
    return project / bare


def sheet_figure(folder: Path) -> list[tuple[str, float, float]]:
    from django.conf import settings
    from django.test import Client

    from grading.models import Paper
    from tests import factories
    from tests.grading.scan_pages import add_human_papers

    settings.SCANS_DIR = folder / "scans"
    juror = factories.make_user("bench-juror", "juror")
    urls = {}
    for size in PAGE_SIZES:
        contest = factories.make_contest(
            f"scan-{size}", problems=1, identities=["placeholder"], criteria=CRITERIA
        )
        Paper.objects.filter(contest=contest).delete()
        add_human_papers(contest, [f"C{size}-{n:04d}" for n in range(size)], pages=2)
        factories.assign(contest, [juror])
        urls[size] = f"/contests/{contest.slug}/p1/sheet/"
    client = Client(HTTP_HOST="localhost")
    client.force_login(juror)
    for url in urls.values():
        response = client.get(url)  # warm up (and the sheets' first visit)
        assert response.status_code == 200 and b"data-scan-viewer" in response.content
    page_times = {size: [] for size in PAGE_SIZES}
    for _ in range(PAGE_ROUNDS):
        for size, url in urls.items():
            start = time.perf_counter()
            response = client.get(url)
            page_times[size].append(time.perf_counter() - start)
            assert response.status_code == 200
    page_ms = {size: _median_ms(times) for size, times in page_times.items()}
    small, large = PAGE_SIZES
    print(
        "# sheet page of human papers: "
        + ", ".join(f"{size} papers {ms:.0f} ms" for size, ms in page_ms.items())
        + f" (median of {PAGE_ROUNDS}, {len(CRITERIA)} criteria)",
        file=sys.stderr,
    )
    return [
        (f"sheet_page_{large}_vs_{small}_human_papers", page_ms[large] / page_ms[small], PAGE_GOAL)
    ]


# Hostile scans (tests/grading/intake/scans/scanmaker.py makes them, each under 200 KB on disk) against
# one ordinary scanned page read as the import reads it: the refusal in at most HOSTILE_GOAL ×
# its time, and at most HOSTILE_RSS_GOAL_MB above the process's idle peak memory.
HOSTILE = ("page_200_inches", "image_196_megapixels", "content_200_mb", "pages_2000")
HOSTILE_GOAL = 2.0
HOSTILE_RSS_GOAL_MB = 100


def _hostile_pdf(kind: str) -> bytes:
    from tests.grading.intake.scans import scanmaker

    return {
        "page_200_inches": lambda: scanmaker.blank_pages_pdf(1, inches=200, height_inches=200),
        "image_196_megapixels": lambda: scanmaker.huge_image_pdf(14_000, 14_000, real=True),
        "content_200_mb": lambda: scanmaker.content_bomb_pdf(200),
        "pages_2000": lambda: scanmaker.blank_pages_pdf(2000),
        "normal": scanned_pdf,
    }[kind]()


def _hostile_child(kind: str) -> None:
    """In a fresh process (so that its peak memory is this case's alone): what the import does
    first with the file on disk (open it, check its bounds) and, for the normal page, then read
    it (render, look for a cover). Prints seconds and KB of peak memory above idle."""
    import os
    import resource

    import django

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")
    os.environ.setdefault("DEBUG", "true")  # the local key and hosts (DEBUG is off by default)
    django.setup()
    from grading.intake.scans.bounds import pdf_bound_problems
    from grading.intake.scans.reading import find_cover, open_pdf, render_page

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scan-001.pdf"
        path.write_bytes(_hostile_pdf(kind))
        idle = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        document = open_pdf(path)
        problems = pdf_bound_problems(document, name=path.name, source=path)
        if kind == "normal":
            assert problems == []
            find_cover(render_page(document, 0))
        else:
            assert len(problems) == 1, problems
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{seconds} {peak - idle}")


def hostile_figures() -> list[tuple[str, float, float, str]]:
    import subprocess

    def run(kind: str) -> tuple[float, float]:
        out = subprocess.run(
            [sys.executable, __file__, "--hostile", kind],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        return float(out[0]), int(out[1]) / 1024

    normal = statistics.median(run("normal")[0] for _ in range(5))
    figures = []
    for kind in HOSTILE:
        seconds, rss_mb = min(run(kind) for _ in range(3))
        print(
            f"# hostile scan {kind}: refused in {seconds * 1000:.1f} ms, {rss_mb:.1f} MB above "
            f"idle (an ordinary page read in {normal * 1000:.1f} ms)",
            file=sys.stderr,
        )
        figures.append((f"scan_refused_{kind}_vs_normal_page", seconds / normal, HOSTILE_GOAL, "x"))
        figures.append((f"scan_refused_{kind}_mb_above_idle", rss_mb, HOSTILE_RSS_GOAL_MB, " MB"))
    return figures


def main() -> None:
    if sys.argv[1:2] == ["--hostile"]:
        _hostile_child(sys.argv[2])
        return
    figures = [(*figure, "x") for figure in render_figures_and_sheet()] + hostile_figures()
    for name, ratio, goal, unit in figures:
        met = "met" if ratio <= goal else "not met"
        print(f"{name}  {ratio:.2f}{unit}  <={goal:g}{unit}  {met}")


def render_figures_and_sheet() -> list[tuple[str, float, float]]:
    with throwaway_database() as workdir, tempfile.TemporaryDirectory() as folder:
        return render_figures(Path(folder)) + sheet_figure(workdir)


if __name__ == "__main__":
    main()
