"""Real scans for the tests: covers from grading.scans.covers and answer pages typeset by
WeasyPrint, rasterised with pypdfium2, turned a little (as a scanner feeds paper) or upside
down, and put back together as PDFs by Pillow, as a scanner would deliver them."""

import io
import random

import pypdfium2 as pdfium
from PIL import Image

from grading import pdf
from grading.scans.covers import covers_pdf

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


def answer_pages(code: str, problem: int, count: int) -> list[Image.Image]:
    """A contestant's handwritten-looking answer: the code in the box at the top (which the
    import must paint over), some text, and a thick black bar at the foot of every page (which
    tells a test which way up the stored page is)."""
    sections = "".join(
        f"<section><div class='box'>Code: {code}</div><div class='text'>Answer to problem "
        f"{problem}, page {page}. kelo mari: the dog sleeps; vamu: water.</div>"
        "<div class='foot'></div></section>"
        for page in range(1, count + 1)
    )
    html = (
        "<html><head><style>@page { size: A4; margin: 10mm 15mm }"
        " section { page-break-after: always; } section:last-child { page-break-after: auto; }"
        " .box { height: 20mm; font-size: 28pt; }"
        " .text { height: 180mm; padding-top: 20mm; font-size: 16pt; }"
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
