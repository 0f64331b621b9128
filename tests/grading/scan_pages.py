"""Human papers with scanned pages, for the tests of what jurors see of them: ScanPage rows and
small PNGs under a temporary SCANS_DIR, written as the scan import stores them (upright, no
metadata, a random file name), without going through the import itself."""

import io
import secrets
from pathlib import Path

from django.conf import settings
from PIL import Image, ImageDraw

from grading.intake.labels import paper_labels_ensure
from grading.models import Paper, ScanPage
from tests import factories


def page_png(number: int, *, width: int = 300, height: int = 420) -> bytes:
    """A small white page with a dark band per line of "writing" and the page number drawn as
    that many squares, so that two pages differ in their pixels."""
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    for line in range(6):
        top = 70 + line * 50
        draw.rectangle((20, top, width - 20 - 15 * line, top + 8), fill=40)
    for square in range(number):
        draw.rectangle((20 + square * 22, height - 40, 36 + square * 22, height - 24), fill=0)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def add_scans(paper: Paper, problem, count: int, *, size=(300, 420)) -> list[ScanPage]:
    """`count` pages of `paper`'s answer to `problem`, stored under settings.SCANS_DIR."""
    root = Path(settings.SCANS_DIR)
    root.mkdir(parents=True, exist_ok=True)
    pages = []
    for position in range(1, count + 1):
        name = f"{secrets.token_hex(16)}.png"
        (root / name).write_bytes(page_png(position, width=size[0], height=size[1]))
        pages.append(
            ScanPage.objects.create(
                paper=paper,
                problem=problem,
                position=position,
                image=name,
                width=size[0],
                height=size[1],
            )
        )
    return pages


def add_human_papers(contest, codes: list[str], *, pages: int = 2) -> list[Paper]:
    """A human paper per contestant code, labelled in every problem, with `pages` scanned pages
    for each problem."""
    papers = [
        Paper.objects.create(contest=contest, identity=code, source=Paper.Source.HUMAN)
        for code in codes
    ]
    paper_labels_ensure(contest=contest)
    for paper in papers:
        for problem in contest.problems.all():
            add_scans(paper, problem, pages)
    return papers


def human_contest(slug: str, juror, codes: list[str], *, pages: int):
    """A contest of one problem whose papers are the human contestants `codes`, each answer
    `pages` scanned pages, every paper assigned to `juror`: the browser tests' contest of
    scans. The caller points settings.SCANS_DIR at a temporary folder first."""
    contest = factories.make_contest(slug, problems=1, identities=["placeholder"])
    Paper.objects.filter(contest=contest).delete()
    add_human_papers(contest, codes, pages=pages)
    factories.assign(contest, [juror])
    return contest
