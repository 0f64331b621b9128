"""Follow every same-site link and download a user can reach from the home page, as that user.

Used by the anonymity and independence tests: whatever a juror can reach by clicking is what
must not leak. Only GET is followed; log-out and the admin (staff only, tested on its own) are skipped."""

import io
import re
import subprocess
import tempfile
import zipfile
from collections import deque
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlparse

import openpyxl

SKIP = re.compile(r"^/(accounts/logout|static/|admin/)")


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])
        is_get_form = tag == "form" and (attributes.get("method") or "get").lower() == "get"
        if is_get_form and attributes.get("action"):
            self.links.append(attributes["action"])


def crawl(client, start: str = "/", limit: int = 2000) -> dict[str, object]:
    """Every reachable URL mapped to its response (each fetched once)."""
    seen: dict[str, object] = {}
    queue = deque([start])
    while queue and len(seen) < limit:
        url = queue.popleft()
        if url in seen:
            continue
        response = client.get(url)
        seen[url] = response
        content_type = response.get("Content-Type", "")
        if response.status_code != 200 or not content_type.startswith("text/html"):
            continue
        parser = _Links()
        parser.feed(response.content.decode())
        for href in parser.links:
            absolute = urldefrag(urljoin(url, href))[0]
            parsed = urlparse(absolute)
            if parsed.netloc not in ("", "testserver") or not parsed.path.startswith("/"):
                continue
            path = parsed.path + (f"?{parsed.query}" if parsed.query else "")
            if not SKIP.match(path) and path not in seen:
                queue.append(path)
    return seen


def response_text(response) -> str:
    """What a person or a program could read from a response: its headers and body, with PDFs
    read by pdftotext and pdfinfo, XLSX workbooks cell by cell, and zips member by member."""
    headers = "\n".join(f"{key}: {value}" for key, value in response.items())
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return headers + "\n" + file_text(body)


def file_text(body: bytes) -> str:
    if body.startswith(b"%PDF"):
        return _pdf_text(body)
    if body.startswith(b"PK"):
        return _zip_text(body)
    try:
        return body.decode()
    except UnicodeDecodeError:
        return body.decode("latin-1")


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
