"""Scanned human papers: the project's rendering of a scanned PDF page into the image a juror
sees, against bare pypdfium2 on the same page; and the grading sheet with 200 human papers
against 20, the sheet page's scaling goal (bench/sheet.py).

Pages are rendered once, at import (`grading.scans.reading.render_page`, then masked and stored
by `grading.scans.images`); the pages and the printouts serve the stored PNG. So the figures
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
from _throwaway import throwaway_database

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
    from PIL import Image, ImageDraw

    rng = random.Random(7)
    image = Image.new("L", (1240, 1754), 246)
    draw = ImageDraw.Draw(image)
    for line in range(40):
        y = 140 + line * 40
        x = 90
        while x < 1120:
            width = rng.randint(20, 90)
            draw.line(
                [(x, y + rng.randint(-6, 6)), (x + width, y + rng.randint(-6, 6))],
                fill=rng.randint(20, 80),
                width=3,
            )
            x += width + rng.randint(12, 30)
    buffer = io.BytesIO()
    image.save(buffer, format="PDF", resolution=150)
    return buffer.getvalue()


def _median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


def render_figures(folder: Path) -> list[tuple[str, float, float]]:
    import pypdfium2 as pdfium

    from grading.scans.images import masked, save_png
    from grading.scans.reading import RENDER_DPI, render_page

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
        save_png(masked(render_page(document, 0)), folder / "project.png")

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


def main() -> None:
    with throwaway_database() as workdir, tempfile.TemporaryDirectory() as folder:
        figures = render_figures(Path(folder)) + sheet_figure(workdir)
    for name, ratio, goal in figures:
        met = "met" if ratio <= goal else "not met"
        print(f"{name}  {ratio:.2f}x  <={goal:g}x  {met}")


if __name__ == "__main__":
    main()
