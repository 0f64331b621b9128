"""The bounds a scanned PDF is checked against before any page of it is rendered.

A PDF of a few hundred bytes can claim a 200-inch page, an image of a billion pixels, a page
whose content inflates to gigabytes, or thousands of pages; rendering it would hold a worker
for minutes and gigabytes. So each file is first read for its structure only, cheapest first,
and refused with a sentence naming the file, the page and the setting:
1. the page count (SCAN_MAX_PAGES), from the page tree;
2. each page's size (SCAN_MAX_PAGE_INCHES), from the page tree, no page loaded;
3. every deflated stream's inflated size (whatever its /Filter says, as that may be indirect:
   a stream that is not deflated stops at its first bytes), inflated in bounded steps from the
   raw bytes and stopped at its bound: an image at most what SCAN_MAX_IMAGE_MEGAPIXELS of 4-byte pixels
   takes, anything else (a page's drawing, fonts) SCAN_MAX_STREAM_MEGABYTES, since pdfium
   inflates a page's content whole as it loads the page, which step 4 does;
4. the pixels of every image drawn on a page (SCAN_MAX_IMAGE_MEGAPIXELS), by their declared
   sizes: nothing is decoded.
Then `reading.render_page` renders at a resolution bounded by SCAN_RENDER_MAX_PIXELS."""

import mmap
import re
import zlib
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from django.conf import settings

POINTS_PER_INCH = 72
MEGABYTE = 1024 * 1024
# A stream's dictionary ends right before its `stream` keyword; it is looked for at most this far
# back, after the object's `obj` keyword.
_HEADER_BACK = 4096
_IMAGE = re.compile(rb"/Subtype\s*/Image\b")
_WIDTH = re.compile(rb"/Width\s+(\d{1,12})\b")
_HEIGHT = re.compile(rb"/Height\s+(\d{1,12})\b")
_STEP = 256 * 1024


def pdf_bound_problems(
    document: pdfium.PdfDocument, *, name: str, source: bytes | Path
) -> list[str]:
    """A sentence for each way `document` (read from `source`) passes the bounds; none is
    rendered or decoded. A file that fails a step is not read further: its later steps would
    cost what the bound is there to spare."""
    count = len(document)
    if count > settings.SCAN_MAX_PAGES:
        return [
            f"{name}: the file has {count:,} pages; a scanned file has at most "
            f"{settings.SCAN_MAX_PAGES:,} (SCAN_MAX_PAGES). Split it into smaller files."
        ]
    problems = _page_size_problems(document, name)
    if not problems:
        problems = _stream_problems(source, name)
    if not problems:
        problems = _image_problems(document, name)
    return problems


def _page_size_problems(document: pdfium.PdfDocument, name: str) -> list[str]:
    problems = []
    max_points = settings.SCAN_MAX_PAGE_INCHES * POINTS_PER_INCH
    for index in range(len(document)):
        width, height = document.get_page_size(index)
        if max(width, height) > max_points:
            problems.append(
                f"{name}, page {index + 1} is {width / POINTS_PER_INCH:,.1f} × "
                f"{height / POINTS_PER_INCH:,.1f} inches; a scanned page is at most "
                f"{settings.SCAN_MAX_PAGE_INCHES:g} inches on its long side "
                "(SCAN_MAX_PAGE_INCHES)."
            )
    return problems


def _stream_problems(source: bytes | Path, name: str) -> list[str]:
    if isinstance(source, Path):
        with source.open("rb") as handle:
            if not source.stat().st_size:
                return []
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return _streams_checked(data, name)
    return _streams_checked(source, name)


def _streams_checked(data, name: str) -> list[str]:
    image_bound = settings.SCAN_MAX_IMAGE_MEGAPIXELS * 1_000_000 * 4
    other_bound = settings.SCAN_MAX_STREAM_MEGABYTES * MEGABYTE
    for header, start in _streams(data):
        is_image = bool(_IMAGE.search(header))
        if is_image and _declared_pixels(header) > settings.SCAN_MAX_IMAGE_MEGAPIXELS * 1_000_000:
            # Too large by its own word: the image check refuses it by its page, uninflated.
            continue
        bound = image_bound if is_image else other_bound
        if _inflated_size(data, start, limit=bound) > bound:
            if is_image:
                return [
                    f"{name}: an image in it inflates to more than "
                    f"{bound // MEGABYTE:,} MB, more than {settings.SCAN_MAX_IMAGE_MEGAPIXELS:g} "
                    "megapixels take (SCAN_MAX_IMAGE_MEGAPIXELS). Scan at 300 dpi."
                ]
            return [
                f"{name}: a page's content or a font in it inflates to more than "
                f"{settings.SCAN_MAX_STREAM_MEGABYTES:,} MB (SCAN_MAX_STREAM_MEGABYTES); such a "
                "file is not a scan. Scan the pages again."
            ]
    return []


def _streams(data):
    """(dictionary, where its data starts) for every stream in the raw bytes. Found with
    `find` (memchr-fast) rather than a pattern over the whole file: a batch runs to gigabytes
    of image data, most of which is never looked at twice."""
    position = 0
    while (found := data.find(b"stream", position)) != -1:
        position = found + 6
        if data[max(0, found - 3) : found] == b"end":
            continue
        after = bytes(data[found + 6 : found + 8])
        if after == b"\r\n":
            start = found + 8
        elif after[:1] in (b"\n", b"\r"):
            start = found + 7
        else:
            continue
        before = bytes(data[max(0, found - _HEADER_BACK) : found]).rstrip()
        if not before.endswith(b">>"):
            continue
        opening = before.rfind(b"obj")
        yield before[opening + 3 if opening != -1 else 0 : -2], start


def _declared_pixels(header: bytes) -> int:
    width, height = _WIDTH.search(header), _HEIGHT.search(header)
    return int(width.group(1)) * int(height.group(1)) if width and height else 0


def _inflated_size(data, start: int, *, limit: int) -> int:
    """How many bytes the deflated stream at `start` inflates to, counted up to just past
    `limit` in steps of at most _STEP bytes held at once. A damaged stream counts what it gave
    before the damage (pdfium stops there too)."""
    inflater = zlib.decompressobj()
    size, position = 0, start
    pending = b""
    while size <= limit and not inflater.eof:
        if not pending:
            pending = bytes(data[position : position + _STEP])
            position += len(pending)
            if not pending:
                break
        try:
            out = inflater.decompress(pending, _STEP)
        except zlib.error:
            break
        pending = inflater.unconsumed_tail
        size += len(out)
    return size


def _image_problems(document: pdfium.PdfDocument, name: str) -> list[str]:
    problems = []
    max_pixels = settings.SCAN_MAX_IMAGE_MEGAPIXELS * 1_000_000
    for index in range(len(document)):
        pixels = _image_pixels(document, index)
        if pixels > max_pixels:
            problems.append(
                f"{name}, page {index + 1} holds images of {pixels / 1_000_000:,.0f} "
                f"megapixels; a scanned page holds at most {settings.SCAN_MAX_IMAGE_MEGAPIXELS:g}"
                " (SCAN_MAX_IMAGE_MEGAPIXELS). Scan at 300 dpi."
            )
    return problems


def _image_pixels(document: pdfium.PdfDocument, index: int) -> int:
    """The pixels of every image on the page, by their declared sizes (nothing is decoded);
    images inside form XObjects count too. A size pdfium cannot read counts as too large."""
    page = document[index]
    try:
        total = 0
        for image in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]):
            try:
                width, height = image.get_px_size()
            except pdfium.PdfiumError:
                return 1 << 62
            total += width * height
        return total
    finally:
        page.close()
