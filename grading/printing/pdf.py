"""Anonymized printouts of papers: HTML from `templates/grading/pdf/paper.html`, PDF from
WeasyPrint, cached on disk by a hash of what goes in.

The output layer works on what `grading.printing.selectors` returns and runs no query. The halves
are kept apart on purpose: building HTML needs Django (templates, settings), rendering PDF needs
only the HTML string, so a batch can build every page in the parent and render in worker
processes that never touch Django or the database (`render_jobs`).

Anonymity: the HTML carries the contest, problem, label and the paper's own answers and
explanations (or its scanned pages), never the paper; the PDF's metadata is the <title>
(contest · P<n> · label) and a fixed creator; nothing is fetched but the bundled fonts.

A human paper's scanned pages are not in its HTML: each is an empty slot of the image's printed
size named by the image's hash, and the image, made into a one-page PDF once and cached by that
hash, is drawn into the slot after layout (`grading.printing.scan_pages`). The images are the stored
ones, already masked and without metadata.

A bundle is not laid out again: it is the papers' own PDFs (made once each, in the cache, spread
over the print processes) put one after the other with pypdf (`merge_papers`), which copies
their pages, images and bookmarks as they are. Laying a 255-paper bundle out as one WeasyPrint
document took one process minutes, while the others idled, to make pages that were already made."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import html as html_lib
import importlib.metadata
import io
import multiprocessing.util
import os
import re
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

# WeasyPrint's per-step progress log is kept at WARNING by LOGGING in grading/settings.py.
from django.conf import settings
from django.template.loader import render_to_string
from django.utils.translation import ngettext

from grading.jobs import processes
from grading.papers.markdown import render_markdown
from grading.printing import scan_pages as pdf_scans
from grading.printing.assets import FONT_DIR, SCAN_DATA_URL
from grading.rules.domain import points_text

if TYPE_CHECKING:  # the selectors import the models, which worker processes must not need
    from grading.printing.selectors import PaperPrint, ProblemPrint
    from rubrics.models import Criterion, Problem

# Part of every cache key: bump it when the PDF changes without its HTML changing (new fonts,
# a change in how pages are combined). WeasyPrint's own version is in the key as well.
RENDERER_VERSION = "2"
# Part of a bundle's key only: how a bundle is made from its papers (since "merged", their
# PDFs put together rather than one WeasyPrint document), so that a change of it does not make
# every paper and scanned page again.
BUNDLE_VERSION = "merged"
WEASYPRINT_VERSION = importlib.metadata.version("weasyprint")
# Charis SIL, shipped with its OFL licence: made for linguistic data (IPA, combining diacritics,
# Cyrillic) and the same on every machine. It has basic Greek but no accented Greek; those few
# glyphs come from DejaVu Serif, which fontconfig brings wherever WeasyPrint runs.
TEMPLATE = "grading/pdf/paper.html"
GENERATOR = "Jury"
# A slot's anchor in a printout: the image's hash, then the paper's label and the page's place,
# so that the same image twice (two blank pages) still gets two slots in a bundle.
_SLOT = re.compile(
    r'id="(?P<anchor>scan-(?P<digest>[0-9a-f]{64})-[^"]*)" data-source="(?P<source>[^"]*)" '
    r'style="width: (?P<width>[0-9.]+)mm; height: (?P<height>[0-9.]+)mm"'
)


# ---------------------------------------------------------------------------------------------
# Names and titles: contest slug, problem number and label only.


def document_title(problem: Problem, label: str) -> str:
    return f"{problem.contest.name} · P{problem.number} · {label}"


def bundle_title(problem: Problem, *, count: int) -> str:
    papers = ngettext("%d paper", "%d papers", count) % count
    return f"{problem.contest.name} · P{problem.number} · {papers}"


# The files with a marking page after each paper are named apart: a download of each keeps both.
MARKING = "-with-marking-pages"


def paper_filename(problem: Problem, label: str, *, marking: bool = False) -> str:
    return f"{problem.contest.slug}-p{problem.number}-{label}{MARKING if marking else ''}.pdf"


def bundle_filename(
    problem: Problem, *, mine: bool, extension: str = "pdf", marking: bool = False
) -> str:
    """`demo-p3-my-papers.pdf` for a juror's share, `demo-p3-all-papers.pdf` for every paper
    (`…-with-marking-pages.pdf` with a marking page after each paper): never the juror's name,
    so a forwarded file says nothing about who graded what."""
    scope = "my-papers" if mine else "all-papers"
    return (
        f"{problem.contest.slug}-p{problem.number}-{scope}{MARKING if marking else ''}.{extension}"
    )


# ---------------------------------------------------------------------------------------------
# HTML (needs Django's templates; no queries).


def paper_html(
    *, problem: Problem, paper: PaperPrint, criteria: list[Criterion] | None = None
) -> str:
    """The printout of one paper's solutions to `problem`, as a standalone HTML document.
    With `criteria`, a last page lists them with an empty box each for pen-and-paper marks."""
    tasks = [
        {
            "task": view.task,
            "items": view.items,
            "missing": view.missing,
            "explanation_html": render_markdown(view.explanation)
            if view.explanation.strip()
            else "",
        }
        for view in paper.tasks
    ]
    # None where the file is gone: the printout then says in the page's place that it is
    # missing, rather than printing the paper short.
    scans = [pdf_scans.scan_slot(path, position=index) for index, path in enumerate(paper.scans)]
    criteria_rows = None
    if criteria:
        criteria_rows = [
            {"code": c.code, "title": c.title, "points": points_text(c.points)} for c in criteria
        ]
    return render_to_string(
        TEMPLATE,
        {
            "title": document_title(problem, paper.label),
            "generator": GENERATOR,
            "font_url": FONT_DIR.as_uri(),
            "contest_name": problem.contest.name,
            "problem": problem,
            "label": paper.label,
            "tasks": tasks,
            "scanned": paper.scanned,
            "scans": scans,
            "criteria": criteria_rows,
            "criteria_total": points_text(sum((c.points for c in criteria), Decimal(0)))
            if criteria
            else "",
        },
    )


def problem_htmls(data: ProblemPrint, *, with_criteria: bool = False) -> list[tuple[str, str]]:
    """(label, html) for every paper in `data`, in label order."""
    criteria = data.criteria if with_criteria else None
    return [
        (paper.label, paper_html(problem=data.problem, paper=paper, criteria=criteria))
        for paper in data.papers
    ]


# ---------------------------------------------------------------------------------------------
# PDF (plain strings in, bytes out: safe to call in a worker process without Django).


def _document(html: str):
    # WeasyPrint (and Pango under it) loads on the first printout, not at every start of a
    # command, a page or the worker: `engine` is the only module that imports it.
    from grading.printing import engine

    return engine.document(html)


@dataclass(frozen=True)
class ScanImage:
    """A scanned page a printout draws: its stored PNG and its one-page PDF in the cache."""

    digest: str
    source: str
    pdf: str


@dataclass(frozen=True)
class Slot:
    """Where a printout draws a scanned page: the slot's anchor, size and the image's PDF."""

    anchor: str
    width_mm: float
    height_mm: float
    image: str


def scan_parts(htmls: Iterable[str]) -> tuple[tuple[ScanImage, ...], tuple[Slot, ...]]:
    """The scanned pages the printouts `htmls` draw (each image once) and their slots. In the
    parent process: the image PDFs' paths come from the settings."""
    images: dict[str, ScanImage] = {}
    slots = []
    for html in htmls:
        for match in _SLOT.finditer(html):
            digest = match["digest"]
            if digest not in images:
                pdf_path = str(cache_path(cache_key("scan-page", digest)))
                images[digest] = ScanImage(digest, html_lib.unescape(match["source"]), pdf_path)
            slots.append(
                Slot(
                    anchor=match["anchor"],
                    width_mm=float(match["width"]),
                    height_mm=float(match["height"]),
                    image=images[digest].pdf,
                )
            )
    return tuple(images.values()), tuple(slots)


def render_scan_image(image: ScanImage) -> None:
    """Make a stored page image's one-page PDF, the one time it goes through WeasyPrint (the
    PNG decoded and its pixels compressed into the PDF); every printout holding the page
    reuses it. Also in worker processes."""
    source = Path(image.source)
    width, height = pdf_scans.png_size(source)
    data_url = SCAN_DATA_URL + base64.b64encode(source.read_bytes()).decode("ascii")
    html = pdf_scans.image_html(width_px=width, height_px=height, data_url=data_url)
    _write_atomically(Path(image.pdf), _document(html).write_pdf())


def _ensure_scan_images(images: Iterable[ScanImage]) -> None:
    for image in images:
        if Path(image.pdf).exists():
            mark_used(Path(image.pdf))
        else:
            render_scan_image(image)


def render_document(html: str, *, slots: Iterable[Slot], out=None):
    """Lay one printout's `html` out, draw the scanned pages into their slots, and return the
    PDF's bytes or write it to the path `out`. The image PDFs must exist already."""
    document = _document(html)
    data = document.write_pdf()
    by_anchor = {slot.anchor: slot for slot in slots}
    placements = [
        pdf_scans.Placement(index, x, y, slot.width_mm, slot.height_mm, slot.image)
        for index, page in enumerate(document.pages)
        for name, (x, y, *_) in page.anchors.items()
        if (slot := by_anchor.get(name)) is not None
    ]
    del document
    if not placements:
        if out is None:
            return data
        _write_atomically(Path(out), data)
        return None
    if out is None:
        buffer = io.BytesIO()
        pdf_scans.place_images(data, placements, buffer)
        return buffer.getvalue()
    _write_atomically(Path(out), lambda file: pdf_scans.place_images(data, placements, file))
    return None


def render_pdf(html: str) -> bytes:
    """One printout's HTML to PDF bytes, without the cache (but a scanned page's image PDF
    from it)."""
    images, slots = scan_parts([html])
    _ensure_scan_images(images)
    return render_document(html, slots=slots)


def merge_papers(papers: Iterable[str | Path], *, title: str, out) -> None:
    """The bundle titled `title` of the papers' PDFs `papers` (paths), written to `out` (a path
    or a binary file): each paper's pages as they are, so that every paper keeps its own
    "label · page X of Y" footer and starts on a fresh page, and its bookmarks (the paper, its
    tasks, its marks) in the bundle's outline. The document's language, creator and producer
    are the first paper's; nothing is laid out, drawn or encoded again. Also in worker
    processes."""
    import pypdf

    writer = pypdf.PdfWriter()
    first = None
    for path in papers:
        reader = pypdf.PdfReader(path)
        if first is None:
            first = reader
        writer.append(reader, import_outline=True)
    if first is None:
        raise ValueError("A bundle needs at least one paper.")
    info = first.metadata or {}
    writer.add_metadata(
        {key: info[key] for key in ("/Creator", "/Producer") if key in info} | {"/Title": title}
    )
    language = first.trailer["/Root"].get("/Lang")
    if language is not None:
        writer.root_object[pypdf.generic.NameObject("/Lang")] = language
    if isinstance(out, (str, Path)):
        _write_atomically(Path(out), writer.write)
    else:
        writer.write(out)


def render_bundle(htmls: Iterable[str], *, title: str) -> bytes:
    """Several printouts as one PDF: each paper from the cache (rendered there first if it is
    not), then merged (`merge_papers`)."""
    papers = []
    for html in htmls:
        path = cache_path(paper_key(html))
        if path.exists():
            mark_used(path)
        else:
            cached_pdf(html)
        papers.append(path)
    buffer = io.BytesIO()
    merge_papers(papers, title=title, out=buffer)
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------------
# Cache: a file per distinct input, named by its SHA-256, so that a changed solution, scheme or
# template gives a new key and the old file is simply never read again.


def cache_dir() -> Path:
    return Path(settings.CACHE_DIR) / "pdf"


def cache_key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in (RENDERER_VERSION, WEASYPRINT_VERSION, *parts):
        data = part.encode()
        # Length-prefixed, so that ("ab", "c") and ("a", "bc") cannot share a key.
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def cache_path(key: str) -> Path:
    return cache_dir() / key[:2] / f"{key}.pdf"


def _write_atomically(path: Path, data: bytes | Callable) -> None:
    # Another request or worker may render the same file at the same moment: each writes its
    # own temporary file and the rename makes whichever finishes last win, never a torn file.
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pdf")
    try:
        with os.fdopen(handle, "wb") as file:
            # Bytes, or a function that writes into the file.
            if callable(data):
                data(file)
            else:
                file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _cached(key: str, produce: Callable[[], bytes]) -> bytes:
    path = cache_path(key)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        pass
    else:
        mark_used(path)
        return data
    data = produce()
    _write_atomically(path, data)
    return data


def mark_used(path: Path) -> None:
    # The file's time says when it was last served, which is what `cache_prune` goes by. A file
    # removed meanwhile or a read-only cache is no reason to fail the download.
    with contextlib.suppress(OSError):
        os.utime(path)


@dataclass
class PruneStats:
    files: int = 0
    bytes: int = 0


def cache_prune(*, unused_for: timedelta, dry_run: bool = False) -> PruneStats:
    """Delete the cached PDFs nobody has asked for in `unused_for` (and temporary files a
    crashed render left behind). Safe at any time: a deleted file is rendered again when next
    asked for."""
    stats = PruneStats()
    cutoff = time.time() - unused_for.total_seconds()
    stale_temporary = time.time() - 3600
    for path in cache_dir().glob("*/*.pdf"):
        try:
            info = path.stat()
        except FileNotFoundError:
            continue
        limit = stale_temporary if path.name.startswith(".tmp-") else cutoff
        if info.st_mtime >= limit:
            continue
        stats.files += 1
        stats.bytes += info.st_size
        if not dry_run:
            path.unlink(missing_ok=True)
    return stats


def paper_key(html: str) -> str:
    return cache_key("paper", html)


def cached_pdf(html: str) -> bytes:
    """`render_pdf(html)`, rendered once per distinct HTML."""
    return _cached(paper_key(html), lambda: render_pdf(html))


def bundle_key(htmls: list[str], *, title: str) -> str:
    return cache_key("bundle", BUNDLE_VERSION, title, *htmls)


def cached_bundle(htmls: list[str], *, title: str) -> bytes:
    """`render_bundle(htmls)`, rendered once per distinct list of HTML documents and title."""
    return _cached(bundle_key(htmls, title=title), lambda: render_bundle(htmls, title=title))


def zip_bytes(files: Iterable[tuple[str, bytes]]) -> bytes:
    """A zip of (name, bytes). Stored, not deflated: PDFs are compressed already. Entries carry
    a fixed date so that the archive says nothing about when each paper was rendered."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def worker_init() -> None:
    # A render process dies with the task worker that started it (grading/jobs/processes.py).
    processes.child_initializer()
    # The worker's font configuration is dropped by a multiprocessing finalizer, which (unlike
    # atexit) runs before a worker's os._exit, so that its temporary font folder is removed too.
    from grading.printing import engine

    engine.forget_font_config()
    multiprocessing.util.Finalize(None, engine.drop_font_config, exitpriority=10)
