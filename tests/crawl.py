"""Follow every same-site link and download a user can reach from the home page, as that user.

Used by the anonymity and independence tests: whatever a juror can reach by clicking is what
must not leak. Only GET is followed; log-out and the admin (staff only, tested on its own) are skipped.
Besides links, images and GET forms, the crawl follows what scripts fetch: `hx-get` attributes and the
`data-…-url` templates the grading sheet's script fills in with each row's `data-label` and each
cell's `data-code` (and asks for with `?partial=1`, as sheet.js does for a cell's history).

A crawl only reads, so a module's crawls share one contest (`shared_data`), built once; each
test still runs in its own savepoint, which undoes the few writes a crawl makes (the sheet
script's no-op saves, a log-in) before the next test starts (`database_state` checks it)."""

import dataclasses
import hashlib
import io
import re
import subprocess
import tempfile
import zipfile
from collections import deque
from collections.abc import Callable
from contextlib import contextmanager
from html.parser import HTMLParser
from urllib.parse import quote, urldefrag, urljoin, urlparse

import openpyxl
from django.apps import apps
from django.db import transaction
from django.db.models import Model
from django.test import override_settings
from PIL import Image

from grading.models import Mark, Sheet
from tests.grading.scenario import FAST_HASHERS

SKIP = re.compile(r"^/(accounts/logout|static/|admin/)")


@contextmanager
def shared_data(django_db_blocker, cache_dir):
    """For a module-scoped fixture: the database open to the module's tests and one transaction
    around them all, rolled back at the end, in which the fixture builds its data once (plain
    savepoints nest in it, on PostgreSQL as on SQLite). Printouts go to `cache_dir`, the run's
    cache (`pdf_cache` in tests/conftest.py): the first crawl renders each one and the next
    crawls of the same data read it."""
    with (
        django_db_blocker.unblock(),
        # The conftest's fast hasher is a function-scoped fixture, not yet on here.
        override_settings(CACHE_DIR=cache_dir, PASSWORD_HASHERS=FAST_HASHERS),
        transaction.atomic(),
    ):
        try:
            yield
        finally:
            transaction.set_rollback(True)


def refetched(world):
    """`world` (what a module-scoped fixture built in `shared_data`: a model instance, or dicts,
    lists, tuples and dataclasses of them) with every instance read again from the database, for one test.
    A test's savepoint undoes its writes to the database but not to the Python objects it was
    handed (a `refresh_from_db`, a changed field), so each test gets instances of its own."""
    if isinstance(world, Model):
        return type(world)._default_manager.get(pk=world.pk)
    if dataclasses.is_dataclass(world) and not isinstance(world, type):
        fields = {field.name: getattr(world, field.name) for field in dataclasses.fields(world)}
        return dataclasses.replace(world, **refetched(fields))
    if isinstance(world, dict):
        return {key: refetched(value) for key, value in world.items()}
    if isinstance(world, list | tuple):
        return type(world)(refetched(value) for value in world)
    return world


def database_state() -> dict:
    """The number of rows of every model, every mark's value, note and version and every sheet's
    state: the same before and after a test when all that test wrote was rolled back."""
    counts = {model._meta.label: model._default_manager.count() for model in apps.get_models()}
    marks = list(Mark.objects.order_by("pk").values_list("pk", "points", "note", "version"))
    sheets = list(Sheet.objects.order_by("pk").values_list("pk", "state"))
    return {"rows": counts, "marks": marks, "sheets": sheets}


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []
        self.templates = []
        self.labels = set()
        self.codes = set()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name, value in attributes.items():
            if value and (name == "hx-get" or (name.startswith("data-") and name.endswith("-url"))):
                self.templates.append(value)
        if attributes.get("data-label"):
            self.labels.add(attributes["data-label"])
        if attributes.get("data-code"):
            self.codes.add(attributes["data-code"])
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])
        # A page's images are downloads too (a scanned page, a chart): their bytes and
        # metadata are read like any other response's.
        if tag == "img" and attributes.get("src"):
            self.links.append(attributes["src"])
        is_get_form = tag == "form" and (attributes.get("method") or "get").lower() == "get"
        if is_get_form and attributes.get("action"):
            self.links.append(attributes["action"])

    def script_urls(self) -> list[str]:
        """The URLs a page's script may fetch: each template filled in with every label and
        code the page shows, plain and as the partial the script asks for."""
        urls = []
        for template in self.templates:
            filled = [template]
            for placeholder, values in (("__LABEL__", self.labels), ("__CODE__", self.codes)):
                if placeholder in template:
                    filled = [
                        url.replace(placeholder, quote(value, safe=""))
                        for url in filled
                        for value in sorted(values)
                    ]
            urls += filled + [f"{url}?partial=1" for url in filled if "?" not in url]
        return urls


def crawl(
    client, start: str = "/", limit: int = 2000, skip: re.Pattern = SKIP, until=None
) -> dict[str, object]:
    """Every reachable URL mapped to its response (each fetched once); paths matching `skip`
    are not followed. A script URL that answers 405 is one the script POSTs to (a cell's save):
    it is left out here, and `sheet_saves` posts to it. With `until` (a predicate on a
    response), the crawl stops at the first response it holds for: a positive control that
    only needs one page showing something need not fetch the rest."""
    seen: dict[str, object] = {}
    scripted: set[str] = set()
    posted_only: set[str] = set()
    queue = deque([start])
    while queue and len(seen) < limit:
        url = queue.popleft()
        if url in seen or url in posted_only:
            continue
        response = client.get(url)
        if response.status_code == 405 and url in scripted:
            posted_only.add(url)
            continue
        seen[url] = response
        if until is not None and until(response):
            break
        content_type = response.get("Content-Type", "")
        if response.status_code != 200 or not content_type.startswith("text/html"):
            continue
        parser = _Links()
        parser.feed(response.content.decode())
        script_urls = parser.script_urls()
        for href in parser.links + script_urls:
            absolute = urldefrag(urljoin(url, href))[0]
            parsed = urlparse(absolute)
            if parsed.netloc not in ("", "testserver") or not parsed.path.startswith("/"):
                continue
            path = parsed.path + (f"?{parsed.query}" if parsed.query else "")
            if href in script_urls:
                scripted.add(path)
            if not skip.match(path) and path not in seen:
                queue.append(path)
    return seen


class _SheetCells(HTMLParser):
    """The grading sheet's save URLs and, per cell, what sheet.js posts back: label, code,
    saved value, note and version."""

    def __init__(self):
        super().__init__()
        self.urls = {}
        self.cells = []
        self._label = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id") == "sheet-grid":
            self.urls = {key: attributes.get(f"data-{key}-url") for key in ("cell", "note")}
        if tag == "tr" and attributes.get("data-label"):
            self._label = attributes["data-label"]
        if tag == "input" and "cell" in (attributes.get("class") or "").split() and self._label:
            self.cells.append({"label": self._label, **attributes})


def sheet_saves(client, pages: dict[str, object]) -> dict[str, object]:
    """The JSON answers a juror's sheet script gets: for every cell of every crawled sheet page,
    its value and its note saved again unchanged (a no-op the server acknowledges) and a save
    with a stale version (refused with the cell's current state). Keys are "POST <url> …"."""
    answers = {}
    for response in pages.values():
        if response.status_code != 200 or b'id="sheet-grid"' not in response.content:
            continue
        parser = _SheetCells()
        parser.feed(response.content.decode())
        for cell in parser.cells:
            for kind, field in (("cell", "points"), ("note", "note")):
                address = (
                    parser.urls[kind]
                    .replace("__LABEL__", quote(cell["label"], safe=""))
                    .replace("__CODE__", quote(cell["data-code"], safe=""))
                )
                value = cell["data-saved"] if field == "points" else cell["data-note"]
                for version in (cell["data-version"], str(int(cell["data-version"]) + 1000)):
                    key = f"POST {address} {field}={value} version={version}"
                    if key not in answers:
                        answers[key] = client.post(address, {field: value, "version": version})
    return answers


def response_text(response) -> str:
    """What a person or a program could read from a response: its headers and body, with PDFs
    read by pdftotext and pdfinfo, XLSX workbooks cell by cell, zips member by member, and
    images by their metadata (PNG text chunks, EXIF)."""
    headers = "\n".join(f"{key}: {value}" for key, value in response.items())
    return headers + "\n" + file_text(_body(response))


def raw_text(response) -> str:
    """The body's bytes as they are (PDF metadata streams, XMP, objects a text extractor skips)
    and, for a zip or an XLSX, every member's bytes unpacked (custom properties, defined
    names, hidden sheets): for searching long distinctive strings, where no accidental match is
    possible, alongside `response_text`."""
    body = _body(response)
    parts = [body.decode("latin-1")]
    if body.startswith(b"PK"):
        archive = zipfile.ZipFile(io.BytesIO(body))
        parts += [archive.read(name).decode("latin-1") for name in archive.namelist()]
    return "\n".join(parts)


def _body(response) -> bytes:
    # A streaming body can be read only once; it is kept for the next reader (both functions
    # above read every response).
    if not response.streaming:
        return response.content
    if not hasattr(response, "crawled_body"):
        response.crawled_body = b"".join(response.streaming_content)
    return response.crawled_body


IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF8", b"RIFF")


def file_text(body: bytes) -> str:
    if body.startswith(b"%PDF"):
        return _pdf_text(body)
    if body.startswith(IMAGE_SIGNATURES):
        return image_text(body)
    if body.startswith(b"PK"):
        return _zip_text(body)
    try:
        return body.decode()
    except UnicodeDecodeError:
        return body.decode("latin-1")


def _read_once(read: Callable[[bytes], str]) -> Callable[[bytes], str]:
    """`read`, answered once per distinct body in a test process: what pdftotext, pdfinfo and
    openpyxl make of a file depends on its bytes alone, and every juror's crawl downloads the
    same printouts and workbooks. Keyed by the bytes' hash, so another file is never answered
    from here."""
    texts: dict[bytes, str] = {}

    def cached(body: bytes) -> str:
        key = hashlib.sha256(body).digest()
        if key not in texts:
            texts[key] = read(body)
        return texts[key]

    return cached


@_read_once
def _pdf_text(body: bytes) -> str:
    with tempfile.NamedTemporaryFile(suffix=".pdf") as handle:
        handle.write(body)
        handle.flush()
        text = subprocess.run(
            ["pdftotext", handle.name, "-"], capture_output=True, check=True, text=True
        ).stdout
        info = subprocess.run(
            ["pdfinfo", handle.name], capture_output=True, check=True, text=True
        ).stdout
    return info + "\n" + text


def image_text(body: bytes) -> str:
    """An image's metadata as a program reads it: its format and size, every PNG text chunk
    (tEXt, zTXt and iTXt, decompressed), every other info entry and every EXIF value."""
    image = Image.open(io.BytesIO(body))
    lines = [f"{image.format} {image.width}x{image.height}"]
    lines += [f"{key}: {value}" for key, value in getattr(image, "text", {}).items()]
    lines += [f"{key}: {value!r}" for key, value in image.info.items()]
    lines += [f"exif {tag}: {value}" for tag, value in image.getexif().items()]
    return "\n".join(lines)


@_read_once
def _zip_text(body: bytes) -> str:
    archive = zipfile.ZipFile(io.BytesIO(body))
    names = archive.namelist()
    if "xl/workbook.xml" in names:
        workbook = openpyxl.load_workbook(io.BytesIO(body))
        cells = []
        for sheet in workbook.worksheets:
            cells.append(sheet.title)
            for row in sheet.iter_rows():
                for cell in row:
                    if cell.value is not None:
                        cells.append(str(cell.value))
                    if cell.comment is not None:
                        cells.append(cell.comment.text)
        properties = workbook.properties
        cells += [str(value) for value in vars(properties).values() if value]
        return "\n".join(cells)
    return "\n".join(names + [file_text(archive.read(name)) for name in names])
