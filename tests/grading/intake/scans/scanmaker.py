"""Real scans for the tests: covers from grading.printing.covers and answer pages typeset by
WeasyPrint, rasterised with pypdfium2, turned a little (as a scanner feeds paper) or upside
down, and put back together as PDFs by Pillow, as a scanner would deliver them."""

import io
import random
import zlib

import pypdfium2 as pdfium
from PIL import Image

from grading.printing import pdf
from grading.printing.covers import covers_pdf

SCAN_DPI = 100


def rasterise(data: bytes, *, dpi: int = SCAN_DPI) -> list[Image.Image]:
    document = pdfium.PdfDocument(data)
    try:
        return [
            document[index].render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
            for index in range(len(document))
        ]
    finally:
        document.close()


def covers(contest, codes: list[str]) -> dict[tuple[str, int], Image.Image]:
    """(code, problem number) → the cover as scanned."""
    pages = rasterise(covers_pdf(contest=contest, codes=codes))
    numbers = list(contest.problems.values_list("number", flat=True))
    keys = [(code, number) for code in codes for number in numbers]
    return dict(zip(keys, pages, strict=True))


def answer_pages(
    code: str, problem: int, count: int, *, code_on_every_page: bool = False
) -> list[Image.Image]:
    """A contestant's handwritten-looking answer: the code in the box at the top of the first
    page, as the covers ask (of every page with `code_on_every_page`), which the import must
    paint over; some text, from the top of a page without the box; and a thick black bar at
    the foot of every page (which tells a test which way up the stored page is)."""

    def top(page: int) -> str:
        if page == 1 or code_on_every_page:
            return f"<div class='box'>Code: {code}</div><div class='text'>"
        return "<div class='text next'>"

    sections = "".join(
        f"<section>{top(page)}Answer to problem {problem}, page {page}. kelo mari: the dog "
        "sleeps; vamu: water.</div><div class='foot'></div></section>"
        for page in range(1, count + 1)
    )
    html = (
        "<html><head><style>@page { size: A4; margin: 10mm 15mm }"
        " section { page-break-after: always; } section:last-child { page-break-after: auto; }"
        " .box { height: 20mm; font-size: 28pt; }"
        " .text { height: 180mm; padding-top: 20mm; font-size: 16pt; }"
        " .text.next { height: 220mm; padding-top: 0; }"
        " .foot { height: 20mm; background: black; }</style></head>"
        f"<body>{sections}</body></html>"
    )
    return rasterise(pdf.render_pdf(html))


def tilt(image: Image.Image, degrees: float) -> Image.Image:
    return image.rotate(degrees, expand=False, fillcolor=255, resample=Image.Resampling.BICUBIC)


def upside_down(image: Image.Image) -> Image.Image:
    return image.transpose(Image.Transpose.ROTATE_180)


def noise(seed: int = 7) -> Image.Image:
    """A page that is nothing but speckle: no cover can be read on it."""
    rng = random.Random(seed)
    width, height = round(8.27 * SCAN_DPI), round(11.69 * SCAN_DPI)
    return Image.frombytes("L", (width, height), rng.randbytes(width * height))


def as_pdf(pages: list[Image.Image]) -> bytes:
    buffer = io.BytesIO()
    pages[0].save(buffer, format="PDF", save_all=True, append_images=pages[1:], resolution=SCAN_DPI)
    return buffer.getvalue()


# --- hostile scans: tiny files that claim huge pages, images or page counts -------------------


def _pdf(objects: list[bytes]) -> bytes:
    """A PDF of `objects` (object 1 the catalogue), with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def _stream(data: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s >>\nstream\n" % (len(data), extra) + data + b"\nendstream"


def blank_pages_pdf(count: int, *, inches: float = 8.27, height_inches: float = 11.69) -> bytes:
    """`count` empty pages of `inches` × `height_inches`: one page tree, one shared content
    stream, some 60 bytes a page on disk."""
    size = b"[0 0 %d %d]" % (round(inches * 72), round(height_inches * 72))
    kids = b" ".join(b"%d 0 R" % (4 + index) for index in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Count %d /Kids [%s] /MediaBox %s >>" % (count, kids, size),
        _stream(b"0 g"),
    ]
    objects += [b"<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>"] * count
    return _pdf(objects)


def huge_image_pdf(width: int, height: int, *, real: bool = False) -> bytes:
    """One A4 page drawing a grey image of `width` × `height` pixels. The image's data is a
    deflated run of zeros: with `real`, all of it (a few hundred KB for hundreds of megapixels,
    a decompression bomb); otherwise a few bytes, enough for a check that reads the declared
    size only."""
    data = _deflated_zeros(width * height if real else 1024)
    image = _stream(
        data,
        b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode" % (width, height),
    )
    return _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Count 1 /Kids [3 0 R] >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
            b"/Resources << /XObject << /Im1 5 0 R >> >> >>",
            _stream(b"q 595 0 0 842 0 0 cm /Im1 Do Q"),
            image,
        ]
    )


def _deflated_zeros(size: int) -> bytes:
    compressor = zlib.compressobj(9)
    chunk, data = bytes(1 << 20), bytearray()
    while size > 0:
        data += compressor.compress(chunk[: min(size, len(chunk))])
        size -= len(chunk)
    return bytes(data + compressor.flush())


def content_bomb_pdf(megabytes: int) -> bytes:
    """One A4 page whose drawing inflates to `megabytes` MB of nothing (about 1 KB on disk for
    each MB): pdfium inflates a page's drawing whole when it loads the page."""
    return _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Count 1 /Kids [3 0 R] >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>",
            _stream(_deflated_zeros(megabytes * (1 << 20)), b"/Filter /FlateDecode"),
        ]
    )
