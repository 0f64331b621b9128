"""The demo's human contestants: answer sheets written as text, printed to PDF (WeasyPrint),
"scanned" (rasterised with pypdfium2, each page a little askew, one pile fed upside down) with
the contest's answer-sheet covers on top of each answer, and imported through the real scan
import, `grading.intake.scans.importing.scans_import`, exactly as an organizer's scanned PDFs are.

Speed: `load_demo` runs in `make run` and in the tests. Pages are rasterised at a low resolution
(DPI) and the scanned PDFs state a higher one (STATED_DPI), as a scan of a smaller sheet would,
so that the import, which renders every page at its own resolution, makes images of the same
size as ours (about 830 × 1170 pixels, legible on screen) rather than enlarging them; the
printed PDFs come from the printouts' cache once rendered."""

import io
import math
import re

import pypdfium2 as pdfium
from django.template.loader import render_to_string
from PIL import Image

from grading.intake.scans.importing import ScanFile, ScanSummary, scans_import
from grading.papers.items import item_labels
from grading.printing import covers, pdf
from rubrics.models import Contest, Task

# Dots per inch of the demo's scans: enough for 14-point writing and the cover's QR code.
DPI = 100
# What the scans say they are: the import's rendering resolution (grading.intake.scans.reading).
STATED_DPI = 150
TEMPLATE = "grading/demo/pdf/answer_sheets.html"

# Contestant codes (what a cover's QR code carries; never a name) and how much of each answer
# they get right, so that the written answers follow the marks the demo's jurors give.
HUMANS = {
    "C-0417": 0.9,
    "C-0582": 0.7,
    "C-0736": 0.5,
    "C-0921": 0.2,
}
# This contestant's pile went through the scanner upside down: the covers' QR codes say so and
# the import turns the pages back.
UPSIDE_DOWN = "C-0736"


def _accepted(answer) -> str:
    """The first accepted answer of an item (a list of accepted answers, or one string)."""
    if isinstance(answer, list):
        return str(answer[0]) if answer else ""
    return str(answer)


def _slip(text: str) -> str:
    """A plausible mistake: a sentence loses its last word, a word its last letter changes."""
    words = text.split()
    if len(words) > 1:
        return " ".join(words[:-1])
    if not text:
        return "?"
    return text[:-1] + ("e" if text[-1] != "e" else "a")


def _written(task: Task, quality: float, seed: int) -> list[tuple[str, str]]:
    """(item label, what the contestant wrote) for every item of the task."""
    labels = item_labels(task.query, task.item_count)
    items = []
    for index, (label, answer) in enumerate(zip(labels, task.answers, strict=False)):
        text = _accepted(answer)
        sentences = re.split(r"(?<=\.)\s+", text)
        if len(sentences) > 2:
            # An explanation: the better the contestant, the more of the rules written down.
            kept = max(1, math.ceil(len(sentences) * quality))
            text = " ".join(sentences[:kept])
        elif (index * 7 + seed * 3) % 10 >= quality * 10:
            text = _slip(text)
        items.append((label, text))
    return items


def answer_sheets_html(contest: Contest) -> str:
    """Every contestant's answer to every problem, a page each, with the code box at the top
    (the band the scan import paints over)."""
    problems = list(contest.problems.order_by("number").prefetch_related("tasks"))
    sheets = []
    for seed, (code, quality) in enumerate(HUMANS.items()):
        for problem in problems:
            tasks = sorted(problem.tasks.all(), key=lambda task: task.number)
            sheets.append(
                {
                    "code": code,
                    "problem": problem,
                    "tasks": [
                        (task.number, _written(task, quality, seed + problem.number))
                        for task in tasks
                    ],
                }
            )
    return render_to_string(
        TEMPLATE,
        {"sheets": sheets, "contest_name": contest.name, "font_url": pdf.FONT_DIR.as_uri()},
    )


def _pages(data: bytes) -> list[Image.Image]:
    document = pdfium.PdfDocument(data)
    try:
        images = []
        for index in range(len(document)):
            page = document[index]
            try:
                bitmap = page.render(scale=DPI / 72, grayscale=True)
                images.append(bitmap.to_pil().convert("L"))
            finally:
                page.close()
        return images
    finally:
        document.close()


def _askew(image: Image.Image, degrees: float, *, smooth: bool = True) -> Image.Image:
    # Bilinear for the writing; the cover's QR code reads as well from the cheaper nearest.
    resample = Image.Resampling.BILINEAR if smooth else Image.Resampling.NEAREST
    return image.rotate(degrees, resample=resample, fillcolor=255)


def _scan_pdf(images: list[Image.Image]) -> bytes:
    buffer = io.BytesIO()
    images[0].save(
        buffer, format="PDF", save_all=True, append_images=images[1:], resolution=float(STATED_DPI)
    )
    return buffer.getvalue()


def demo_scans(contest: Contest) -> list[ScanFile]:
    """One scanned PDF per contestant, "scan-001.pdf" on (numbers, never codes or names): the
    cover of each problem followed by the contestant's answer to it."""
    codes = list(HUMANS)
    problem_count = contest.problems.count()
    # Through the printouts' cache: the same demo gives the same HTML, so WeasyPrint, the
    # slowest step, runs once per machine rather than on every load.
    cover_pages = _pages(pdf.cached_pdf(covers.covers_html(contest=contest, codes=codes)))
    answer_pages = _pages(pdf.cached_pdf(answer_sheets_html(contest)))
    files = []
    for number, code in enumerate(codes):
        pile = []
        for offset in range(problem_count):
            index = number * problem_count + offset
            # A hand-fed sheet is never quite straight: a degree or so, one way or the other.
            tilt = ((index * 5) % 7 - 3) * 0.35
            pile += [
                _askew(cover_pages[index], tilt / 2, smooth=False),
                _askew(answer_pages[index], tilt),
            ]
        if code == UPSIDE_DOWN:
            pile = [page.transpose(Image.Transpose.ROTATE_180) for page in pile]
        files.append(ScanFile(f"scan-{number + 1:03d}.pdf", _scan_pdf(pile)))
    return files


def demo_scans_import(contest: Contest) -> ScanSummary:
    """The demo's scanned papers into the contest, through the organizers' scan import."""
    return scans_import(contest=contest, files=demo_scans(contest))
