"""Hostile scans (tiny files claiming a 200-inch page, a huge image, a page whose drawing inflates
to hundreds of MB, thousands of pages) are refused from the PDF's structure, before any page is
rendered, with a sentence naming the file, the page where there is one, and the setting; and
what is rendered is bounded whatever size a page claims."""

import pypdfium2 as pdfium
import pytest

from grading.intake.importers.errors import ImportProblems
from grading.intake.scans import bounds, importing, reading
from grading.intake.scans.bounds import MEGABYTE
from grading.intake.scans.importing import ScanFile, scans_import
from grading.models import ScanPage
from tests import factories
from tests.grading.intake.scans import scanmaker


@pytest.fixture
def contest(db, settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    return factories.make_contest("iol", problems=2, papers=1)


@pytest.fixture
def renders(monkeypatch) -> list[int]:
    """Every page the import renders, by its index."""
    calls: list[int] = []
    real = importing.render_page

    def counted(document, index, **kwargs):
        calls.append(index)
        return real(document, index, **kwargs)

    monkeypatch.setattr(importing, "render_page", counted)
    return calls


def _refusal(contest, name: str, data: bytes) -> list[str]:
    with pytest.raises(ImportProblems) as refused:
        scans_import(contest=contest, files=[ScanFile(name, data)], dry_run=True)
    return refused.value.messages


def test_a_file_of_two_thousand_pages_is_refused_by_its_page_count_unrendered(contest, renders):
    messages = _refusal(contest, "scan-001.pdf", scanmaker.blank_pages_pdf(2000))
    assert messages == [
        "scan-001.pdf: the file has 2,000 pages; a scanned file has at most 1,000 "
        "(SCAN_MAX_PAGES). Split it into smaller files.",
    ]
    assert renders == []


def test_a_page_of_two_hundred_inches_is_refused_by_its_size_unrendered(contest, renders):
    data = scanmaker.blank_pages_pdf(1, inches=200, height_inches=200)
    assert len(data) < 1000
    messages = _refusal(contest, "scan-001.pdf", data)
    assert messages == [
        "scan-001.pdf, page 1 is 200.0 × 200.0 inches; a scanned page is at most 20 inches on "
        "its long side (SCAN_MAX_PAGE_INCHES)."
    ]
    assert renders == []


def test_an_image_of_four_hundred_megapixels_is_refused_by_its_declared_size(contest, renders):
    messages = _refusal(contest, "scan-001.pdf", scanmaker.huge_image_pdf(20_000, 20_000))
    assert messages == [
        "scan-001.pdf, page 1 holds images of 400 megapixels; a scanned page holds at most 40 "
        "(SCAN_MAX_IMAGE_MEGAPIXELS). Scan at 300 dpi."
    ]
    assert renders == []


def test_a_page_whose_drawing_inflates_to_two_hundred_megabytes_is_refused_uninflated(
    contest, renders, monkeypatch
):
    data = scanmaker.content_bomb_pdf(200)
    assert len(data) < 300_000
    # Counted, not timed: each stream is inflated only until it passes its bound.
    inflated = []
    inflated_size = bounds._inflated_size

    def counted(*args, **kwargs):
        inflated.append(inflated_size(*args, **kwargs))
        return inflated[-1]

    monkeypatch.setattr(bounds, "_inflated_size", counted)
    messages = _refusal(contest, "scan-001.pdf", data)
    assert messages == [
        "scan-001.pdf: a page's content or a font in it inflates to more than 16 MB "
        "(SCAN_MAX_STREAM_MEGABYTES); such a file is not a scan. Scan the pages again."
    ]
    assert renders == []
    assert 16 * MEGABYTE < max(inflated) <= 16 * MEGABYTE + bounds._STEP


def test_every_bound_is_a_setting(contest, settings, renders):
    settings.SCAN_MAX_PAGES = 2
    settings.SCAN_MAX_PAGE_INCHES = 8
    assert _refusal(contest, "scan-001.pdf", scanmaker.blank_pages_pdf(3)) == [
        "scan-001.pdf: the file has 3 pages; a scanned file has at most 2 (SCAN_MAX_PAGES). "
        "Split it into smaller files."
    ]
    assert _refusal(contest, "scan-002.pdf", scanmaker.blank_pages_pdf(2)) == [
        "scan-002.pdf, page 1 is 8.3 × 11.7 inches; a scanned page is at most 8 inches on its "
        "long side (SCAN_MAX_PAGE_INCHES).",
        "scan-002.pdf, page 2 is 8.3 × 11.7 inches; a scanned page is at most 8 inches on its "
        "long side (SCAN_MAX_PAGE_INCHES).",
    ]
    assert renders == []
    assert ScanPage.objects.count() == 0


def test_a_page_is_rendered_at_most_the_bound_on_its_long_side(settings):
    settings.SCAN_RENDER_MAX_PIXELS = 2500
    a4 = pdfium.PdfDocument(scanmaker.blank_pages_pdf(1))
    assert reading.render_page(a4, 0).size == (1240, 1755)
    # 20 by 10 inches passes the page bound; at 150 dpi it would be 3000 pixels wide.
    wide = pdfium.PdfDocument(scanmaker.blank_pages_pdf(1, inches=20, height_inches=10))
    assert reading.render_page(wide, 0).size == (2500, 1250)


def test_a_deflated_drawing_is_refused_even_when_its_filter_is_named_indirectly(contest, renders):
    # "/Filter 5 0 R": the check cannot tell from the dictionary that the stream is deflated.
    bomb = scanmaker.content_bomb_pdf(40).replace(b"/Filter /FlateDecode", b"/Filter 5 0 R")
    data = bomb.replace(b"xref", b"5 0 obj\n/FlateDecode\nendobj\nxref", 1)
    messages = _refusal(contest, "scan-001.pdf", data)
    assert messages == [
        "scan-001.pdf: a page's content or a font in it inflates to more than 16 MB "
        "(SCAN_MAX_STREAM_MEGABYTES); such a file is not a scan. Scan the pages again."
    ]
    assert renders == []
