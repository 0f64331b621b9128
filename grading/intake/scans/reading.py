"""Reading scanned PDFs: each page rendered in grey (pypdfium2), a cover's QR code looked for
(zxing-cpp, which also tells which way up the page lies), and the pages sorted into answers.

A cover starts a (contestant, problem) answer; the pages after it, in the same file, belong to
that answer until the next cover. Scans without covers are sorted by a page map instead: a CSV
`file,problem,first_page,last_page[,language]` whose file names are the contestants' codes. Everything here
is plain data in, data out, with no database: `importing` checks the result against a contest."""

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path, PurePath

import pypdfium2 as pdfium
import zxingcpp
from django.conf import settings
from PIL import Image

from grading.intake.scans.codes import parse_cover_payload

# Enough for handwriting on screen and in printouts, and for the QR code; an A4 page is about
# 1240 × 1754 pixels, some 150 KB as a grey PNG. A larger page is rendered smaller, so that no
# side passes SCAN_RENDER_MAX_PIXELS whatever size the PDF claims (`render_scale`).
RENDER_DPI = 150
POINTS_PER_INCH = 72


class NotAPdf(Exception):
    pass


@dataclass(frozen=True)
class CoverMark:
    """What a cover's QR code says, and how far the page is turned (a quarter-turn multiple,
    counter-clockwise, that `upright` undoes)."""

    contest_slug: str
    problem_number: int
    code: str
    turn: int


@dataclass
class PageRef:
    """A page of a scanned file (`number` counts from 1, as a PDF viewer shows it)."""

    file: str
    number: int
    cover: CoverMark | None = None

    def where(self) -> str:
        return f"{self.file}, page {self.number}"


@dataclass
class Answer:
    """One contestant's answer to one problem: where its cover was (None from a page map) and
    its pages in order."""

    code: str
    problem_number: int
    start: PageRef | None
    pages: list[PageRef] = field(default_factory=list)
    # Where the answer was told apart, for sentences: its cover's page or the page map's row.
    origin: str = ""


def open_pdf(data: bytes | Path) -> pdfium.PdfDocument:
    """The PDF of `data` (its bytes, or a path that pdfium reads from as it needs)."""
    if isinstance(data, Path):
        with data.open("rb") as handle:
            head = handle.read(5)
    else:
        head = data[:5]
    if head != b"%PDF-":
        raise NotAPdf
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError:
        raise NotAPdf from None


def render_scale(width: float, height: float, *, dpi: int = RENDER_DPI) -> float:
    """The render's scale (pixels per point): `dpi`, or less for a page whose long side would
    pass SCAN_RENDER_MAX_PIXELS."""
    return min(dpi / POINTS_PER_INCH, settings.SCAN_RENDER_MAX_PIXELS / max(width, height, 1))


def render_page(document: pdfium.PdfDocument, index: int, *, dpi: int = RENDER_DPI) -> Image.Image:
    page = document[index]
    try:
        bitmap = page.render(scale=render_scale(*page.get_size(), dpi=dpi), grayscale=True)
        return bitmap.to_pil().convert("L")
    finally:
        page.close()


def find_cover(image: Image.Image) -> CoverMark | None:
    """The cover's QR code on the page, if there is one (any other QR code is ignored)."""
    for barcode in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode):
        parsed = parse_cover_payload(barcode.text)
        if parsed is not None:
            turn = round(barcode.orientation / 90) * 90 % 360
            return CoverMark(*parsed, turn=turn)
    return None


_TURNS = {
    90: Image.Transpose.ROTATE_90,
    180: Image.Transpose.ROTATE_180,
    270: Image.Transpose.ROTATE_270,
}


def upright(image: Image.Image, turn: int) -> Image.Image:
    """The page turned back by `turn` degrees (a quarter-turn multiple): exact, no resampling."""
    return image.transpose(_TURNS[turn]) if turn in _TURNS else image


def sort_by_covers(pages: list[PageRef]) -> tuple[list[Answer], list[str]]:
    """The answers that the covers start, in the order met, and a sentence for every page that
    no cover comes before in its file."""
    answers: list[Answer] = []
    problems: list[str] = []
    current: Answer | None = None
    current_file = None
    orphans: list[PageRef] = []
    for page in pages:
        if page.file != current_file:
            current, current_file = None, page.file
        if page.cover is not None:
            current = Answer(
                page.cover.code, page.cover.problem_number, start=page, origin=page.where()
            )
            answers.append(current)
        elif current is None:
            orphans.append(page)
        else:
            current.pages.append(page)
    for page in orphans:
        later = next(
            (p for p in pages if p.file == page.file and p.number > page.number and p.cover),
            None,
        )
        hint = (
            f"; if it belongs to the cover on page {later.number}, put that cover before it"
            if later
            else ""
        )
        problems.append(f"{page.where()} is unreadable (no cover found before it){hint}.")
    return answers, problems


@dataclass(frozen=True)
class PageRange:
    file: str
    problem_number: int
    first: int
    last: int
    row: int
    # The contestant's answer language, when the page map has a `language` column ("": none).
    language: str = ""

    @property
    def blank(self) -> bool:
        """A row without pages: the contestant left the problem blank (first = last = 0)."""
        return self.first == 0 and self.last == 0


def read_page_map(text: str, *, name: str) -> tuple[list[PageRange], list[str]]:
    """The ranges of a page map CSV (`file,problem,first_page,last_page`, and optionally
    `language`) and a sentence for every row that cannot be read. A row whose two pages are
    empty says that the contestant left the problem blank (a `PageRange` whose `blank` is
    true)."""
    reader = csv.DictReader(io.StringIO(text))
    wanted = ["file", "problem", "first_page", "last_page"]
    header = [(column or "").strip() for column in reader.fieldnames or []]
    if header not in (wanted, [*wanted, "language"]):
        return [], [
            f"{name}: the first row must be the header {','.join(wanted)} "
            "(or with a fifth column, language)."
        ]
    reader.fieldnames = header
    ranges, problems = [], []
    for row_number, row in enumerate(reader, start=2):
        language = (row.get("language") or "").strip()
        pages = [(row[key] or "").strip() for key in ("first_page", "last_page")]
        if pages == ["", ""] and (row["problem"] or "").strip().isdigit():
            file = PurePath((row["file"] or "").strip()).name
            ranges.append(PageRange(file, int(row["problem"]), 0, 0, row_number, language))
            continue
        try:
            problem, first, last = (
                int(row[key].strip()) for key in ("problem", "first_page", "last_page")
            )
        except (ValueError, AttributeError):
            problems.append(
                f"{name}, row {row_number}: problem, first_page and last_page must be "
                "whole numbers (both pages empty for a problem the contestant left blank)."
            )
            continue
        if not 1 <= first <= last:
            problems.append(
                f"{name}, row {row_number}: the pages must run from a first page (1 or more) "
                f"to a last page no smaller; {first}–{last} does not."
            )
            continue
        file = PurePath(row["file"].strip()).name
        ranges.append(PageRange(file, problem, first, last, row_number, language))
    return ranges, problems


def sort_by_map(
    ranges: list[PageRange], *, file: str, page_count: int, map_name: str
) -> tuple[list[Answer], list[str]]:
    """The answers of one file by the page map's ranges for it: the contestant is the file's
    name without its extension. Every page must be in exactly one range."""
    code = PurePath(file).stem
    answers, problems = [], []
    owner: dict[int, PageRange] = {}
    for page_range in ranges:
        if page_range.blank:
            answers.append(
                Answer(
                    code,
                    page_range.problem_number,
                    start=None,
                    origin=f"{map_name}, row {page_range.row}",
                )
            )
            continue
        if page_range.last > page_count:
            problems.append(
                f"{map_name}, row {page_range.row}: {file} has {page_count} pages, "
                f"not {page_range.last}."
            )
            continue
        answer = Answer(
            code,
            page_range.problem_number,
            start=None,
            origin=f"{map_name}, row {page_range.row}",
        )
        for number in range(page_range.first, page_range.last + 1):
            if number in owner:
                problems.append(
                    f"{map_name}, row {page_range.row}: page {number} of {file} is in row "
                    f"{owner[number].row} already."
                )
                continue
            owner[number] = page_range
            answer.pages.append(PageRef(file, number))
        if answer.pages:
            answers.append(answer)
    for number in range(1, page_count + 1):
        if number not in owner:
            problems.append(f"{file}, page {number} is in no row of {map_name}.")
    return answers, problems
