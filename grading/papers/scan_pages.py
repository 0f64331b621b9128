"""Reads of human papers' scanned pages (`ScanPage`) for the pages that show them: the juror's
sheet, the paper page, the page images and the printouts. Each function runs one query."""

from pathlib import Path

from django.conf import settings

from grading.models import ScanPage


def scan_pages(*, problem, paper_ids) -> dict[int, list[ScanPage]]:
    """The scanned pages of each of `paper_ids` for `problem`, in their order; papers without
    pages are left out (an AI paper, or a human paper with no answer to this problem)."""
    pages: dict[int, list[ScanPage]] = {}
    for page in ScanPage.objects.filter(problem=problem, paper_id__in=paper_ids).order_by(
        "paper_id", "position"
    ):
        pages.setdefault(page.paper_id, []).append(page)
    return pages


def paper_scan_pages(*, problem, paper) -> list[ScanPage]:
    return scan_pages(problem=problem, paper_ids=[paper.pk]).get(paper.pk, [])


def scan_file(page: ScanPage) -> Path | None:
    """The stored image of `page`, or None if it is missing or its recorded path would lead out
    of SCANS_DIR (a row edited by hand must not open another file)."""
    root = Path(settings.SCANS_DIR).resolve()
    path = (root / page.image).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return None
    return path
