"""A human paper's scanned pages in its printout, each image made into a PDF once and reused.

Putting every page image into the printout's HTML made WeasyPrint decode and re-encode it for
each file that holds it (the paper alone and in its bundle, without and with the marking page:
four times per page for the whole contest) and kept every image of a bundle in memory at once.
Instead the HTML holds, where each page goes, an empty slot of the image's printed size named by
the image's SHA-256 (so that a changed image changes the printout's cache key). After WeasyPrint
lays the text out, each slot's position is read from the page's anchors and the image's own
one-page PDF, rendered once and cached by that hash, is drawn there by pdfium as a form XObject.

Runs in worker processes: plain paths and numbers in, no Django, no database."""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from pathlib import Path

# An A4 page's content box in the printout's stylesheet (templates/grading/pdf/paper.html):
# 210 mm less 17 mm each side; the first scanned page sits under the header.
CONTENT_WIDTH_MM = 176.0
FIRST_PAGE_HEIGHT_MM = 228.0
NEXT_PAGE_HEIGHT_MM = 255.0
# WeasyPrint's resolution for an image without one: 96 pixels to the inch.
PX_PER_MM = 96 / 25.4
POINTS_PER_PX = 0.75
SLOT_PREFIX = "scan-"


@dataclass(frozen=True)
class ScanSlot:
    """Where one stored page image goes: its hash (the slot's anchor and cache key), its file
    and its printed size, the image's natural size scaled down to fit the page as CSS
    `max-width: 100%; max-height: …` would."""

    digest: str
    path: str
    width_mm: float
    height_mm: float


def _png_size(head: bytes) -> tuple[int, int]:
    # Stored pages are PNGs (grading/scans/): the width and height are the IHDR's first fields.
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ValueError("A stored scanned page is not a PNG.")
    return struct.unpack(">II", head[16:24])


def scan_slot(path: Path | None, *, position: int) -> ScanSlot | None:
    """The slot for the stored image at `path`, the `position`-th (from 0) page of its answer;
    None when the file is gone, so that the printout says so in its place."""
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    width, height = _png_size(data[:24])
    width_mm, height_mm = width / PX_PER_MM, height / PX_PER_MM
    limit = FIRST_PAGE_HEIGHT_MM if position == 0 else NEXT_PAGE_HEIGHT_MM
    scale = min(1.0, CONTENT_WIDTH_MM / width_mm, limit / height_mm)
    return ScanSlot(
        digest=hashlib.sha256(data).hexdigest(),
        path=str(path),
        width_mm=round(width_mm * scale, 3),
        height_mm=round(height_mm * scale, 3),
    )


def image_html(*, width_px: int, height_px: int, data_url: str) -> str:
    """A page exactly the image's size holding only the image: what WeasyPrint renders once per
    image. The image keeps its pixels; the slot it is drawn into scales it."""
    return (
        '<!doctype html><html><head><meta charset="utf-8"><style>'
        f"@page {{ size: {width_px}px {height_px}px; margin: 0 }}"
        f"html, body {{ margin: 0 }} img {{ display: block; width: {width_px}px; "
        f'height: {height_px}px }}</style></head><body><img src="{data_url}" alt=""></body></html>'
    )


def png_size(path: Path) -> tuple[int, int]:
    with path.open("rb") as file:
        return _png_size(file.read(24))


@dataclass(frozen=True)
class Placement:
    """One image to draw: on page `index`, its top-left corner at (x, y) CSS px from the
    page's top-left (WeasyPrint's anchor), `width_mm` × `height_mm`, from the PDF `image`."""

    index: int
    x: float
    y: float
    width_mm: float
    height_mm: float
    image: str


def place_images(pdf_bytes: bytes, placements: list[Placement], out) -> None:
    """Draw each cached image PDF on its page of `pdf_bytes` and save to `out` (a path or a
    binary file). Each image PDF is opened once per call and imported as a form XObject, so a
    bundle's pages are not decoded or re-encoded."""
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf_bytes)
    images: dict[str, pypdfium2.PdfDocument] = {}
    # One XObject per image and document, however many pages draw it (two blank pages).
    forms: dict[str, tuple] = {}
    try:
        for placement in placements:
            if placement.image not in forms:
                source = images[placement.image] = pypdfium2.PdfDocument(placement.image)
                forms[placement.image] = (
                    source.page_as_xobject(0, document),
                    *source[0].get_size(),
                )
            xobject, image_width, image_height = forms[placement.image]
            page = document[placement.index]
            _, page_height = page.get_size()
            width_pt = placement.width_mm * PX_PER_MM * POINTS_PER_PX
            height_pt = placement.height_mm * PX_PER_MM * POINTS_PER_PX
            form = xobject.as_pageobject()
            form.transform(
                pypdfium2.PdfMatrix()
                .scale(width_pt / image_width, height_pt / image_height)
                .translate(
                    placement.x * POINTS_PER_PX,
                    page_height - placement.y * POINTS_PER_PX - height_pt,
                )
            )
            page.insert_obj(form)
            page.gen_content()
            # Closed at once: pages left open are kept by the document and made each next
            # placement slower, quadratic in a bundle's pages.
            page.close()
        document.save(out)
    finally:
        for source in images.values():
            source.close()
        document.close()
