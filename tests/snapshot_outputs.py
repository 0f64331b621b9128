"""Everything the site and its commands put out, in parts, each as one plain-text file.

    python tests/snapshot_outputs.py --part NAME --out FILE    record one part into FILE
    python tests/snapshot_outputs.py --approve                 write every part's approved text
    python tests/snapshot_outputs.py --approve --part NAME     write that part's only

Each part runs in a process of its own on a fresh SQLite database in a work folder (--work, or a
temporary one): it migrates it and, but for `help`, loads the demo with its grading finished,
then records what it is named for:

- demo-organizer, demo-chair, demo-juror1: every page the role reaches by following links from
  its home page, up to PER_SHAPE pages of each shape, every download among them (results
  CSV/XLSX, sheet XLSX, printouts, charts, scanned pages), and the admin's lists;
- demo-anonymous: the log-in page and what it links to, and every URL the three roles reached,
  read from their approved texts (each a redirect to the log-in page or a refusal);
- demo-commands: the commands that read a contest (export_results, export_contest, autoscore,
  render_papers on an empty cache of printouts, print_covers, dry runs, the demo loader run
  again);
- demo-posts: a few posts the site refuses, on a discussion page found among demo-juror1's
  approved URLs;
- generated: the same pages, one of each shape, and commands on a generated contest of 20
  papers;
- help: every project command's --help, as `help_text` renders it.

No part depends on another's run, only on the approved texts it reads: each builds what it
records from nothing, and records the same whether it runs alone or beside the others. With
--demo-cache (as the test and --approve give it), the parts of one run build the demo once: the
first leaves a copy of it, with the state of the generators below, that the others start from.

Each output is keyed "<contest> <role> GET <url>", "<contest> <role> POST <url> <data>" or
"<contest> command <command>". tests/test_same_output.py runs every part on this tree and compares
its text with tests/approved/<part>.txt; --approve writes those anew, running the parts side by
side (--jobs), the three roles' before the two parts that read their URLs. A part's text is
`outputs_text`'s: one record a key, in sorted order, a header line "==== <key>", then for a page
its status, headers and redirects, a blank line and the body; a line of a body that could be read
as a header (or holds a carriage return) is escaped.

It uses only URLs, management commands, settings read from the environment, and models found by
their class name through the app registry (it was first run on the tree before issue 20's
reshaping too, to compare the two).

What would differ from one run to the next, or from one machine or Python to the next, is
pinned, replaced or left out:
- time stands still (`django.utils.timezone.now` and the password-reset tokens' clock return one
  instant), so every stored and shown time is the same;
- `secrets` draws from seeded generators, one per alphabet (labels and public codes, scan names,
  Django's session keys and CSRF secrets each get their own), so labels, codes and the order of
  lists sorted by them are the same on every run and Django's draws during a crawl cannot shift
  the labels;
- the settings the environment gives are their defaults, whatever the caller's environment says,
  but for PRINT_WORKERS, 2 (its default is the machine's cores, which render_papers names);
- what still varies is replaced by a placeholder: CSRF tokens, sign-in links' tokens, the work
  folder and the tree's path, render_papers' duration, the Matplotlib version the charts' SVG
  names (session cookies are not recorded);
- PDFs are compared by their text (pdftotext), XLSX workbooks by their cells' values (openpyxl),
  zips member by member, images by their size and pixels;
- a command's help is built from its parser's arguments, not argparse's layout (which changes
  with Python's version and the terminal's width), and without Django's options common to every
  command."""

import argparse
import base64
import contextlib
import fcntl
import hashlib
import io
import json
import logging
import os
import pickle
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from collections import deque
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urldefrag, urljoin, urlparse

ROOT = Path(__file__).resolve().parent.parent
APPROVED = ROOT / "tests" / "approved"
FROZEN = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
# Log-out would end the crawl's session; static files are not pages; the admin is crawled on
# its own, one level deep (its object pages are thousands).
SKIP = re.compile(r"^/(accounts/logout|static/|admin/)")
CRAWL_LIMIT = 3000
# Pages of one shape (the same path but for labels, codes and criteria, the same query keys)
# are fetched this many times a role, the first met: thousands of cells' pages and drill-downs
# would take minutes and repeat one template.
PER_SHAPE = 3


# --- determinism ------------------------------------------------------------------------------


# The seeded generators `secrets` draws from, by alphabet (a built demo's copy carries their state).
STREAMS: dict[str, random.Random] = {}


def pin_randomness_and_time() -> None:
    def stream(key: str) -> random.Random:
        if key not in STREAMS:
            STREAMS[key] = random.Random(f"snapshot:{key}")
        return STREAMS[key]

    def token_bytes(nbytes=None):
        return stream("bytes").randbytes(32 if nbytes is None else nbytes)

    secrets.choice = lambda seq: stream(f"choice:{seq!r}").choice(seq)
    secrets.randbelow = lambda n: stream("below").randrange(n)
    secrets.randbits = lambda k: stream("bits").getrandbits(k)
    secrets.token_bytes = token_bytes
    secrets.token_hex = lambda nbytes=None: token_bytes(nbytes).hex()
    secrets.token_urlsafe = lambda nbytes=None: (
        base64.urlsafe_b64encode(token_bytes(nbytes)).rstrip(b"=").decode("ascii")
    )

    from django.utils import timezone

    # Before django.setup(), so that model fields' `default=timezone.now` take this one too.
    timezone.now = lambda: FROZEN


def pin_token_clock() -> None:
    from django.contrib.auth.tokens import PasswordResetTokenGenerator

    PasswordResetTokenGenerator._now = lambda self: FROZEN.replace(tzinfo=None)


# --- normalising --------------------------------------------------------------------------------

PLACES: list[tuple[str, str]] = []  # (text, placeholder): the work folder, the tree
TEXT_RULES = [
    (re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*'), r"\1<csrf>"),
    (re.compile(r'("X-CSRFToken"\s*:\s*")[^"]*'), r"\1<csrf>"),
    (re.compile(r'(name="csrf-token" content=")[^"]*'), r"\1<csrf>"),
    (re.compile(r"(/accounts/sign-in/)[^/\s\"'<]+/[^/\s\"'<]+/"), r"\1<uid>/<token>/"),
    # render_papers says how long it took.
    (
        re.compile(r"\b(in )\d+(\.\d+)? s\b"),
        r"\1<duration>",
    ),  # The charts' SVG names the Matplotlib that drew them: the installed version's.
    (re.compile(r"\b(Matplotlib v)[\w.+-]+"), r"\1<version>"),
]


def normal_text(text: str) -> str:
    for place, placeholder in PLACES:
        text = text.replace(place, placeholder)
    for pattern, replacement in TEXT_RULES:
        text = pattern.sub(replacement, text)
    return text


def body_text(body: bytes, content_type: str = "") -> str:
    """What a reader gets from a body, as text that is the same whenever the output is."""
    if body.startswith(b"%PDF"):
        return "PDF\n" + normal_text(_pdf_text(body))
    if body.startswith((b"\x89PNG", b"\xff\xd8\xff", b"GIF8")):
        return _image_text(body)
    if body.startswith(b"PK"):
        return _zip_text(body)
    try:
        text = body.decode()
    except UnicodeDecodeError:
        return f"binary {len(body)} bytes sha256 {hashlib.sha256(body).hexdigest()}"
    if "json" in content_type or (text[:1] in "{[" and text.strip()[-1:] in "}]"):
        with contextlib.suppress(ValueError):
            text = json.dumps(json.loads(text), indent=1, sort_keys=True, ensure_ascii=False)
    return normal_text(text)


def _pdf_text(body: bytes) -> str:
    with tempfile.NamedTemporaryFile(suffix=".pdf") as handle:
        handle.write(body)
        handle.flush()
        return subprocess.run(
            ["pdftotext", "-layout", handle.name, "-"], capture_output=True, check=True, text=True
        ).stdout


def _image_text(body: bytes) -> str:
    from PIL import Image

    image = Image.open(io.BytesIO(body))
    pixels = hashlib.sha256(image.tobytes()).hexdigest()
    return f"image {image.format} {image.mode} {image.width}x{image.height} pixels {pixels}"


def _zip_text(body: bytes) -> str:
    archive = zipfile.ZipFile(io.BytesIO(body))
    names = archive.namelist()
    if "xl/workbook.xml" in names:
        return _xlsx_text(body)
    parts = [f"zip of {len(names)}: " + " ".join(names)]
    for name in names:
        parts.append(f"--- {name}\n" + body_text(archive.read(name), name))
    return normal_text("\n".join(parts))


def _xlsx_text(body: bytes) -> str:
    import openpyxl

    workbook = openpyxl.load_workbook(io.BytesIO(body))
    lines = []
    for sheet in workbook.worksheets:
        lines.append(f"=== sheet {sheet.title!r} ({sheet.sheet_state})")
        for row in sheet.iter_rows():
            for cell in row:
                if cell.value is not None:
                    lines.append(f"{cell.coordinate}: {cell.value!r}")
                if cell.comment is not None:
                    lines.append(f"{cell.coordinate} comment: {cell.comment.text!r}")
    return normal_text("\n".join(lines))


KEPT_HEADERS = ("content-type", "content-disposition", "location", "cache-control")


def response_record(response) -> dict:
    body = b"".join(response.streaming_content) if response.streaming else bytes(response.content)
    headers = {
        key.lower(): normal_text(value)
        for key, value in response.items()
        if key.lower() in KEPT_HEADERS or key.lower().startswith("hx-")
    }
    return {
        "status": response.status_code,
        "headers": dict(sorted(headers.items())),
        "body": body_text(body, response.get("Content-Type", "")),
    }


# --- the parts' texts ---------------------------------------------------------------------------

HEADER = "==== "
NO_NEWLINE = "\\ No newline at end of body"


def outputs_text(outputs: dict) -> str:
    """The outputs as one text that diffs readably, a record a key in sorted order:

        ==== demo chair GET /contests/demo/results/
        status 200
        content-type: text/html; charset=utf-8
        <blank line>
        the body's lines

    (a command's output is its body alone). A body line that starts with "====" or a backslash,
    or holds a carriage return or NUL (which git and editors would rewrite or take for binary),
    is written escaped, after a backslash; a body without a final newline ends in NO_NEWLINE, as
    in a diff. So no body line can pass for a header, and different outputs make different
    texts."""
    return "".join(record_text(key, outputs[key]) for key in sorted(outputs))


def record_text(key: str, record) -> str:
    assert "\n" not in key and "\r" not in key, key
    lines = [HEADER + key]
    if isinstance(record, dict):
        assert set(record) <= {"status", "headers", "body", "redirects"}, record.keys()
        lines.append(f"status {record['status']}")
        lines += [f"{name}: {value}" for name, value in record["headers"].items()]
        lines += [f"redirect {step}" for step in record.get("redirects", ())]
        lines.append("")
        body = record["body"]
    else:
        body = record
    if body:
        lines += [_escaped(line) for line in body.split("\n")]
        if body.endswith("\n"):
            lines.pop()
        else:
            lines.append(NO_NEWLINE)
    return "".join(f"{line}\n" for line in lines)


def _escaped(line: str) -> str:
    if line.startswith(("====", "\\")) or "\r" in line or "\x00" in line:
        return "\\" + line.replace("\\", "\\\\").replace("\r", "\\r").replace("\x00", "\\0")
    return line


def text_records(text: str) -> dict[str, str]:
    """A part's text split back into its records, each key's lines (header left out)."""
    records: dict[str, str] = {}
    key = None
    for line in text.split("\n")[:-1]:
        if line.startswith(HEADER):
            key = line.removeprefix(HEADER)
            assert key not in records, f"{key} twice"
            records[key] = ""
        else:
            assert key is not None, f"{line!r} before the first record"
            records[key] += line + "\n"
    return records


def approved_urls(part: str, approved: Path, role: str) -> list[str]:
    """The URLs `role` reached in `part`'s approved text, in its order."""
    prefix = f"{role} GET "
    text = (approved / f"{part}.txt").read_text(encoding="utf-8")
    return [
        line.removeprefix(HEADER + prefix)
        for line in text.split("\n")
        if line.startswith(HEADER + prefix)
    ]


# --- a command's help ---------------------------------------------------------------------------


def help_text(parser: argparse.ArgumentParser, common: frozenset[str] = frozenset()) -> str:
    """A command's help built from its parser's arguments, an argument a line:

        -v, --verbosity {0,1,2,3}
            Verbosity level; 0=minimal output, 1=normal output, ...

    and not argparse's `format_help()`, whose layout is the Python version's (3.13 writes
    `-v, --verbosity {0,1,2,3}`, 3.12 `-v {0,1,2,3}, --verbosity {0,1,2,3}`) and wraps at the
    terminal's width (COLUMNS). Texts are the parser's own, their white space collapsed as
    argparse does, wrapped at a width of 100; the arguments whose `dest` is in `common` are left
    out."""
    lines = []
    if parser.description:
        lines += [_wrapped(parser.description), ""]
    for group in parser._action_groups:
        shown = [
            action
            for action in group._group_actions
            if action.help != argparse.SUPPRESS and action.dest not in common
        ]
        # The two groups every parser has go untitled: their titles are Python's ("optional
        # arguments" before 3.10), and an option's dashes say which it is.
        if shown and group not in (parser._positionals, parser._optionals):
            lines.append(f"{group.title}:")
        for action in shown:
            required = " (required)" if action.required and action.option_strings else ""
            lines.append(f"{_invocation(action)}{required}")
            if action.help:
                lines.append(_wrapped(_expanded_help(action, parser.prog), "    "))
    for group in parser._mutually_exclusive_groups:
        names = ", ".join(_invocation(action) for action in group._group_actions)
        lines.append(f"one of{' (required)' if group.required else ''}: {names}")
    if parser.epilog:
        lines += ["", _wrapped(parser.epilog)]
    return "".join(f"{line}\n" for line in lines)


def _wrapped(text: str, indent: str = "") -> str:
    """The text's words wrapped at a fixed width, whatever the terminal's (argparse's own
    wrapping reads COLUMNS)."""
    return textwrap.fill(
        " ".join(text.split()), 100, initial_indent=indent, subsequent_indent=indent
    )


def _invocation(action: argparse.Action) -> str:
    """`-v, --verbosity {0,1,2,3}`: the option's strings, then what it takes, once."""
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    if action.metavar is not None:
        metavar = action.metavar
        metavar = " ".join(metavar) if isinstance(metavar, tuple) else metavar
    elif action.choices is not None:
        metavar = "{" + ",".join(str(choice) for choice in action.choices) + "}"
    else:
        metavar = action.dest.upper() if action.option_strings else action.dest
    takes = {
        None: metavar,
        argparse.OPTIONAL: f"[{metavar}]",
        argparse.ZERO_OR_MORE: f"[{metavar} ...]",
        argparse.ONE_OR_MORE: f"{metavar} [{metavar} ...]",
        argparse.REMAINDER: "...",
        argparse.PARSER: f"{metavar} ...",
    }.get(action.nargs) or " ".join([metavar] * action.nargs)
    if not action.option_strings:
        return takes
    return ", ".join(action.option_strings) + " " + takes


def _expanded_help(action: argparse.Action, prog: str) -> str:
    """The help with its `%(default)s`-style fields filled, as argparse fills them."""
    params = {
        name: getattr(value, "__name__", value)
        for name, value in {**vars(action), "prog": prog}.items()
        if value is not argparse.SUPPRESS
    }
    if params.get("choices") is not None:
        params["choices"] = ", ".join(str(choice) for choice in params["choices"])
    return action.help % params


# --- crawling -----------------------------------------------------------------------------------


class Links(HTMLParser):
    """A page's links, images, GET forms, and what its scripts fetch (tests/crawl.py's idea:
    `hx-get` and `data-…-url` templates filled with each `data-label` and `data-code`)."""

    def __init__(self):
        super().__init__()
        self.links, self.templates, self.labels, self.codes = [], [], set(), set()

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
        if tag == "img" and attributes.get("src"):
            self.links.append(attributes["src"])
        is_get_form = tag == "form" and (attributes.get("method") or "get").lower() == "get"
        if is_get_form and attributes.get("action"):
            self.links.append(attributes["action"])

    def script_urls(self) -> list[str]:
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


_NAME = re.compile(r"^(?=[^/]*[A-Z])[A-Z0-9-]{2,8}(\.[a-z]+)?$")


def shape(url: str) -> str:
    """The URL with its labels, codes and criteria (upper-case names) as `*` and its query's
    values dropped: `/contests/demo/p1/papers/*/criteria/*/`, `…/comparison/?criterion&sort`."""
    parsed = urlparse(url)
    path = "/".join("*" if _NAME.match(part) else part for part in parsed.path.split("/"))
    keys = sorted({pair.split("=")[0] for pair in parsed.query.split("&") if pair})
    return path + ("?" + "&".join(keys) if keys else "")


TIMES: dict[str, float] = {}


def crawl(client, starts, skip=SKIP, per_shape=PER_SHAPE) -> dict[str, dict]:
    """Every URL reachable from `starts` (`per_shape` of each shape) but those `skip` finds, in
    the order first met, mapped to its record. A script URL that answers 405 is one the script
    posts to: left out."""
    seen: dict[str, dict] = {}
    scripted: set[str] = set()
    shapes: dict[str, int] = {}
    queue = deque(starts)
    while queue and len(seen) < CRAWL_LIMIT:
        url = queue.popleft()
        if url in seen:
            continue
        kind = shape(url)
        if shapes.get(kind, 0) >= per_shape:
            continue
        shapes[kind] = shapes.get(kind, 0) + 1
        started = time.perf_counter()
        response = client.get(url)
        if response.status_code == 405 and url in scripted:
            seen[url] = None
            continue
        record = response_record(response)
        TIMES[kind] = TIMES.get(kind, 0) + time.perf_counter() - started
        seen[url] = record
        if response.status_code != 200 or not response.get("Content-Type", "").startswith(
            "text/html"
        ):
            continue
        parser = Links()
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
            if not skip.search(path) and path not in seen:
                queue.append(path)
    return {url: record for url, record in seen.items() if record is not None}


def admin_pages(client) -> dict[str, dict]:
    """The admin's index and every list it links to (one level: not the rows' own pages)."""
    lists = re.compile(r"^/admin/[a-z_]+/([a-z_]+/)?$")
    pages = {"/admin/": response_record(client.get("/admin/"))}
    index = client.get("/admin/")
    if index.status_code != 200:
        return pages
    parser = Links()
    parser.feed(index.content.decode())
    for href in parser.links:
        path = urlparse(urljoin("/admin/", href)).path
        if lists.match(path) and path not in pages:
            pages[path] = response_record(client.get(path))
    return pages


# --- the contest --------------------------------------------------------------------------------


def model(name: str):
    """A model by its class name, in whichever app it lives."""
    from django.apps import apps

    (found,) = [m for m in apps.get_models() if m.__name__ == name]
    return found


def run_command(name: str, *args) -> str:
    from django.core.management import call_command

    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(name, *args, stdout=out, stderr=err)
    except Exception as error:  # noqa: BLE001 - a refusal is output too
        err.write(f"{type(error).__name__}: {error}")
    return normal_text(out.getvalue() + ("\n[stderr]\n" + err.getvalue() if err.getvalue() else ""))


def build_generated(work: Path, papers: int) -> tuple[str, str]:
    """A contest of `papers` papers made through the documented commands from the demo's data
    files (the same on both trees, and independent of the bench's builder, whose imports name
    module paths): the problem set and schemes; `papers` AI systems as submission CSVs, each
    task's answer taken from one of the demo's two submission files by a seeded draw; the
    demo's jurors two a problem, their capacities lifted (`set_juror_facts`, `assign_jurors`,
    `open_grading`); every mark set by a seeded
    rule (as bench/_scale_build.py does: no command enters marks) with a disagreement in about
    one cell in twenty, and every sheet submitted through its page. Returns the slug and the
    commands' output."""
    import csv
    from decimal import ROUND_FLOOR, Decimal

    from django.test import Client

    slug = "generated"
    data, schemes = Path("grading/demo/data"), Path("rubrics/schemes/demo")
    log = [run_command(
        "import_problemset", "--contest", slug, "--name", "Generated contest",
        str(data / "test.csv"), str(data / "solution.csv"),
    )]  # fmt: skip
    log.append(run_command("load_schemes", "--contest", slug, str(schemes)))
    sources = []
    for path in sorted((data / "outputs").glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            sources.append({row["id"]: row for row in csv.DictReader(handle)})
    rng = random.Random(f"generated-{papers}")
    folder = work / "generated-inputs"
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(1, papers + 1):
        path = folder / f"system-{number:02d}.csv"
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=["id", "pred", "explanation"])
            writer.writeheader()
            for task in sources[0]:
                source = rng.choice([rows for rows in sources if task in rows])
                writer.writerow({key: source[task].get(key, "") for key in writer.fieldnames})
        log.append(run_command(
            "import_outputs", "--contest", slug, "--system", f"System {number:02d}", str(path)
        ))  # fmt: skip
    log.append(run_command("set_cutoffs", slug, "gold=70", "silver=58.4", "hm=35.3"))
    jurors = list(model("User").objects.filter(username__startswith="juror").order_by("username"))
    for problem in model("Problem").objects.filter(contest__slug=slug).order_by("number"):
        group, _ = model("GradingGroup").objects.get_or_create(problem=problem)
        group.jurors.add(*(jurors[(problem.number + k) % len(jurors)] for k in (0, 1)))
    # The demo's capacities are its own problems' size: lifted here (through the facts command,
    # every juror's other facts as the demo has them), so that every generated paper has jurors.
    from grading.demo.loader import JUROR_FACTS

    facts = work / "generated-facts.csv"
    facts.write_text(
        "".join(
            ", ".join([*cells[:2], "", cells[3]]) + "\n"
            for cells in (line.split(", ", 3) for line in JUROR_FACTS.splitlines())
        ),
        encoding="utf-8",
    )
    log.append(run_command("set_juror_facts", "--file", str(facts)))
    log.append(run_command("assign_jurors", "--contest", slug, "--per-problem", "2"))
    log.append(run_command("open_grading", "--contest", slug))
    marks = list(
        model("Mark")
        .objects.filter(sheet__problem__contest__slug=slug)
        .select_related("criterion")
        .order_by("paper_id", "criterion_id", "sheet_id")
    )
    first: dict[tuple[int, int], Decimal] = {}
    for mark in marks:
        criterion, cell = mark.criterion, (mark.paper_id, mark.criterion_id)
        if cell not in first:
            share = Decimal(str(round(rng.random(), 4)))
            steps = (criterion.points * share / criterion.step).to_integral_value(ROUND_FLOOR)
            mark.points = first[cell] = steps * criterion.step
        elif rng.random() < 0.05:
            up = first[cell] + 2 * criterion.step
            mark.points = up if up <= criterion.points else max(first[cell] - 2 * criterion.step, 0)
        else:
            mark.points = first[cell]
    model("Mark").objects.bulk_update(marks, ["points"])
    sheets = model("Sheet").objects.filter(problem__contest__slug=slug)
    for sheet in sheets.select_related("juror", "problem").order_by("pk"):
        client = Client(raise_request_exception=False)
        client.force_login(sheet.juror)
        answer = client.post(f"/contests/{slug}/p{sheet.problem.number}/sheet/submit/")
        log.append(f"{sheet.juror.username} submits P{sheet.problem.number}: {answer.status_code}")
    return slug, "\n".join(log)


# --- what is recorded ---------------------------------------------------------------------------

DEMO_STARTS = {
    "organizer": ["/", "/inbox/", "/console/"],
    "chair": ["/", "/inbox/"],
    "juror1": ["/", "/inbox/"],
}


def role_pages(
    prefix: str, username: str, urls: list[str], skip: re.Pattern, per_shape: int = PER_SHAPE
) -> dict[str, dict]:
    """The role's crawl from its start pages (and on the demo the admin's lists), keyed
    "<prefix> <role> GET <url>"."""
    from django.test import Client

    client = Client(raise_request_exception=False)
    client.force_login(model("User").objects.get(username=username))
    started = time.perf_counter()
    found = crawl(client, urls, skip, per_shape)
    if prefix == "demo":
        found.update(admin_pages(client))
    seconds = time.perf_counter() - started
    print(f"{prefix} {username}: {len(found)} URLs in {seconds:.1f} s", file=sys.stderr)
    return {f"{prefix} {username} GET {url}": record for url, record in found.items()}


def anonymous_pages(
    prefix: str, reached: list[str], skip: re.Pattern, per_shape: int = PER_SHAPE
) -> dict[str, dict]:
    """The anonymous visitor's: on the demo the log-in page and everything it links to; then
    every URL in `reached` (what the roles reached: each a redirect to the log-in page or a
    refusal)."""
    from django.test import Client

    client = Client(raise_request_exception=False)
    found = crawl(client, ["/", "/accounts/login/"], skip, per_shape) if prefix == "demo" else {}
    for url in dict.fromkeys(reached):
        if url not in found:
            found[url] = response_record(client.get(url))
    print(f"{prefix} anonymous: {len(found)} URLs", file=sys.stderr)
    return {f"{prefix} anonymous GET {url}": record for url, record in found.items()}


def export_outputs(slug: str, files: Path) -> dict[str, str]:
    """The results exports and the backup, through their commands."""
    outputs = {}
    files.mkdir(parents=True, exist_ok=True)
    for fmt in ("csv", "xlsx"):
        for long in ((), ("--long",)):
            path = files / f"results{'-long' if long else ''}.{fmt}"
            key = f"{slug} command export_results --format {fmt} {' '.join(long)}".strip()
            outputs[key] = file_output(
                path, "export_results", "--contest", slug, "--format", fmt, *long, "--out", path
            )
    backup = files / "backup.zip"
    outputs[f"{slug} command export_contest"] = file_output(
        backup, "export_contest", "--contest", slug, "--out", backup
    )
    outputs[f"{slug} command import_contest --dry-run"] = run_command(
        "import_contest", str(backup), "--dry-run"
    )
    outputs[f"{slug} command autoscore --csv -"] = run_command(
        "autoscore", "--contest", slug, "--csv", "-"
    )
    outputs[f"{slug} command autoscore --dry-run"] = run_command(
        "autoscore", "--contest", slug, "--dry-run"
    )
    outputs[f"{slug} command assign_jurors --dry-run"] = run_command(
        "assign_jurors", "--contest", slug, "--per-problem", "2", "--dry-run"
    )
    return outputs


def file_output(path: Path, *args) -> str:
    log = run_command(*map(str, args))
    return log + "\n--- file\n" + (body_text(path.read_bytes()) if path.exists() else "<none>")


def demo_commands(files: Path) -> dict[str, str]:
    """The printouts, the covers, the clean-ups' dry runs, the demo loader run again, and every
    project command's --help."""
    outputs = {}
    for extra in ((), ("--criteria",), ("--bundle",)):
        folder = files / f"printouts{''.join(extra)}"
        log = run_command(
            "render_papers", "--contest", "demo", "--problem", "1", "--out", str(folder), *extra
        )
        listing = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []
        outputs[f"demo command render_papers --problem 1 {' '.join(extra)}".strip()] = (
            log
            + "".join(
                f"\n--- {p.relative_to(folder)}\n{body_text(p.read_bytes())}" for p in listing
            )
        )
    codes = files / "codes.txt"
    codes.write_text("C-1001\nC-1002\n")
    covers = files / "covers.pdf"
    outputs["demo command print_covers"] = file_output(
        covers, "print_covers", "demo", "--codes", codes, "--out", covers
    )
    for args in (
        ("prune_scans", "--dry-run"),
        ("prune_jobs", "--dry-run"),
        ("prune_pdf_cache", "--dry-run"),
        ("load_demo",),
        ("load_demo", "--finish-grading"),
    ):
        outputs["demo command " + " ".join(args)] = run_command(*args)
    return outputs


class SheetCells(HTMLParser):
    """The grading sheet's save URLs and, per cell, what its script posts back (label, code,
    saved value, note, version), as tests/crawl.py's `sheet_saves` reads them."""

    def __init__(self):
        super().__init__()
        self.urls, self.cells, self._label = {}, [], None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id") == "sheet-grid":
            self.urls = {key: attributes.get(f"data-{key}-url") for key in ("cell", "note")}
        if tag == "tr" and attributes.get("data-label"):
            self._label = attributes["data-label"]
        if tag == "input" and "cell" in (attributes.get("class") or "").split() and self._label:
            self.cells.append({"label": self._label, **attributes})


def refused_posts(discussion: str) -> dict[str, dict]:
    """Posts a person can send that the site refuses or takes as a no-op, with what they get
    back (following a redirect to the page that says why): the sheet script's saves on a
    submitted sheet (unchanged, stale, as a note), submitting it again, a juror deciding,
    commenting and finalizing, the chair finalizing without the confirmation and reopening a
    contest that is not final, and an anonymous save; `discussion` is a discussion page of P1 that
    juror1 reached."""
    from django.test import Client

    def as_user(username):
        client = Client(raise_request_exception=False)
        if username != "anonymous":
            client.force_login(model("User").objects.get(username=username))
        return client

    def post(key, client, url, data, headers=None):
        response = client.post(url, data, follow=True, headers=headers)
        record = response_record(response)
        record["redirects"] = [
            normal_text(f"{status} {to}") for to, status in response.redirect_chain
        ]
        answers[f"demo {key} POST {url} {json.dumps(data, sort_keys=True)}"] = record

    answers: dict[str, dict] = {}
    juror = as_user("juror1")
    sheet = juror.get("/contests/demo/p1/sheet/")
    parser = SheetCells()
    parser.feed(sheet.content.decode())
    for cell in parser.cells[:3]:
        for kind, field in (("cell", "points"), ("note", "note")):
            url = (
                parser.urls[kind]
                .replace("__LABEL__", quote(cell["label"], safe=""))
                .replace("__CODE__", quote(cell["data-code"], safe=""))
            )
            value = cell.get("data-saved" if field == "points" else "data-note") or ""
            for version in (cell["data-version"], str(int(cell["data-version"]) + 1000)):
                post("juror1", juror, url, {field: value, "version": version})
    post("anonymous", as_user("anonymous"), url, {"points": "1", "version": "1"})
    post("juror1", juror, "/contests/demo/p1/sheet/submit/", {})
    for action, data in (("decide/", {"points": "1", "reason": "Because."}), ("comment/", {})):
        post("juror1", juror, discussion + action, data)
        post("juror1 htmx", juror, discussion + action, data, headers={"HX-Request": "true"})
    post("juror1", juror, "/contests/demo/finalize/", {})
    chair = as_user("chair")
    post("chair", chair, "/contests/demo/finalize/", {})
    post("chair", chair, "/contests/demo/reopen/", {"reason": "To check."})
    print(f"demo posts: {len(answers)}", file=sys.stderr)
    return answers


def project_commands() -> list[str]:
    from django.core.management import get_commands

    return sorted(
        name for name, app in get_commands().items() if app.split(".")[0] in ("grading", "rubrics")
    )


def run_help(name: str, common: frozenset[str]) -> str:
    from django.core.management import get_commands, load_command_class

    command = load_command_class(get_commands()[name], name)
    return normal_text(help_text(command.create_parser("manage.py", name), common))


# --- the parts ----------------------------------------------------------------------------------


def build_demo() -> str:
    """The demo with its grading finished, in this part's work folder; returns load_demo's
    output. With --demo-cache, the first part of a run to get here builds it and leaves a copy
    there (the database, the scanned pages, the generators' state); the others start from the
    copy, exactly where a build of their own would have left them, without its twenty seconds."""
    if DEMO_CACHE is None:
        return _demo_built()
    DEMO_CACHE.mkdir(parents=True, exist_ok=True)
    with open(DEMO_CACHE / "demo.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (DEMO_CACHE / "output.txt").exists():
            return _demo_copied()
        output = _demo_built()
        _demo_kept(output)
        return output


def _demo_built() -> str:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return run_command("load_demo", "--finish-grading")


# The folder the parts of one run share the built demo through (--demo-cache), or None.
DEMO_CACHE: Path | None = None
# What a built demo is, beside its generators' state: the database and the scanned pages
# (the scan import and the answer sheets' covers write them; paths in the database are
# relative to SCANS_DIR).
DEMO_FILES = ("db.sqlite3", "scans_dir")


def _demo_kept(output: str) -> None:
    from django.db import connections

    # Closed, so that SQLite folds its write-ahead log into the database file.
    connections.close_all()
    work = Path(os.environ["SCANS_DIR"]).parent
    for name in DEMO_FILES:
        if (work / name).is_dir():
            shutil.copytree(work / name, DEMO_CACHE / name)
        elif (work / name).exists():
            shutil.copyfile(work / name, DEMO_CACHE / name)
    states = {key: stream.getstate() for key, stream in STREAMS.items()}
    (DEMO_CACHE / "streams.pickle").write_bytes(pickle.dumps(states))
    # Written last: its presence says the copy is whole.
    (DEMO_CACHE / "output.txt").write_text(output, encoding="utf-8")


def _demo_copied() -> str:
    from django.db import connections

    connections.close_all()
    work = Path(os.environ["SCANS_DIR"]).parent
    for name in DEMO_FILES:
        if (DEMO_CACHE / name).is_dir():
            shutil.rmtree(work / name, ignore_errors=True)
            shutil.copytree(DEMO_CACHE / name, work / name)
        elif (DEMO_CACHE / name).exists():
            shutil.copyfile(DEMO_CACHE / name, work / name)
    for key, state in pickle.loads((DEMO_CACHE / "streams.pickle").read_bytes()).items():
        STREAMS.setdefault(key, random.Random()).setstate(state)
    return (DEMO_CACHE / "output.txt").read_text(encoding="utf-8")


def demo_role(role: str):
    def record(work: Path, approved: Path) -> dict:
        build_demo()
        return role_pages("demo", role, DEMO_STARTS[role], SKIP)

    return record


def demo_anonymous(work: Path, approved: Path) -> dict:
    build_demo()
    reached = [
        url
        for role in DEMO_STARTS
        for url in approved_urls(f"demo-{role}", approved, f"demo {role}")
    ]
    return anonymous_pages("demo", reached, SKIP)


def demo_commands_part(work: Path, approved: Path) -> dict:
    outputs = {"demo build load_demo --finish-grading": build_demo()}
    outputs.update(export_outputs("demo", work / "files"))
    outputs.update(demo_commands(work / "files"))
    return outputs


def demo_posts(work: Path, approved: Path) -> dict:
    build_demo()
    discussion = next(
        url
        for url in sorted(approved_urls("demo-juror1", approved, "demo juror1"))
        if url.startswith("/contests/demo/p1/papers/") and "/criteria/" in url and url.endswith("/")
    )
    return refused_posts(discussion)


def generated(work: Path, approved: Path) -> dict:
    build_demo()
    slug, log = build_generated(work, GENERATED_PAPERS)
    outputs = {f"{slug} build": log}
    # Only the generated contest's own pages, one of each shape: the demo has shown every
    # shape, printouts and the admin; this is the same pages at twice the size.
    skip = re.compile(rf"^(?!/(console/)?contests/{slug}/)|\.(pdf|zip)(\?|$)")
    contest = f"/contests/{slug}"
    chair = [f"{contest}/results/", f"{contest}/queue/", f"{contest}/analysis/"]
    chair += [f"{contest}/p{n}/comparison/" for n in range(1, 6)]
    starts = {
        "organizer": [f"/console/contests/{slug}/", f"{contest}/autoscore/"],
        "chair": chair,
        "juror1": [f"{contest}/p{n}/sheet/" for n in range(1, 6)],
    }
    for role, urls in starts.items():
        outputs.update(role_pages(slug, role, urls, skip, per_shape=1))
    reached = [key.split(" GET ", 1)[1] for key in outputs if " GET " in key]
    outputs.update(anonymous_pages(slug, reached, skip, per_shape=1))
    outputs.update(export_outputs(slug, work / "files-generated"))
    return outputs


def help_part(work: Path, approved: Path) -> dict:
    from django.core.management.base import BaseCommand

    # Django's options, the same on every command (--verbosity, --settings, …): Django's text,
    # which changes with Django's version, not the project's.
    common = frozenset(
        action.dest for action in BaseCommand().create_parser("manage.py", "base")._actions
    )
    return {f"command {name} --help": run_help(name, common) for name in project_commands()}


GENERATED_PAPERS = 20
# Each part: what records it, and the parts whose approved text it reads (the URLs they reached).
PARTS = {
    "demo-organizer": (demo_role("organizer"), ()),
    "demo-chair": (demo_role("chair"), ()),
    "demo-juror1": (demo_role("juror1"), ()),
    "demo-anonymous": (demo_anonymous, ("demo-organizer", "demo-chair", "demo-juror1")),
    "demo-commands": (demo_commands_part, ()),
    "demo-posts": (demo_posts, ("demo-juror1",)),
    "generated": (generated, ()),
    "help": (help_part, ()),
}


# --- main ---------------------------------------------------------------------------------------


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    arguments.add_argument(
        "--part", action="append", choices=PARTS,
        help="The part to record (with --out) or approve; repeatable with --approve.",
    )  # fmt: skip
    arguments.add_argument("--out", type=Path, help="The file to write the part's text to.")
    arguments.add_argument(
        "--approve", action="store_true",
        help="Write the approved texts anew: every part's, or --part's.",
    )  # fmt: skip
    arguments.add_argument(
        "--approved", type=Path, default=APPROVED,
        help="The approved texts' folder (written by --approve; the parts read the URLs of "
        "others there). Default: tests/approved.",
    )  # fmt: skip
    arguments.add_argument("--work", type=Path, help="The part's work folder (default: temporary).")
    arguments.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1,
        help="Parts recorded at once by --approve (default: the number of cores).",
    )  # fmt: skip
    arguments.add_argument(
        "--demo-cache", type=Path,
        help="A folder the parts of one run share: the first to build the demo leaves a copy "
        "there, which the others start from (default: each part builds its own).",
    )  # fmt: skip
    options = arguments.parse_args()
    global DEMO_CACHE
    DEMO_CACHE = options.demo_cache.resolve() if options.demo_cache else None
    if options.approve:
        sys.exit(approve(options.part or list(PARTS), options.approved.resolve(), options.jobs))
    if not options.out or len(options.part or ()) != 1:
        arguments.error("give one --part and --out, or --approve")
    with contextlib.ExitStack() as stack:
        work = options.work or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        record(options.part[0], options.out, options.approved.resolve(), work.resolve())


def record(part: str, out: Path, approved: Path, work: Path) -> None:
    started = time.perf_counter()
    setup(work)
    outputs = PARTS[part][0](work, approved)
    lap(part, started)
    out.write_text(outputs_text(outputs), encoding="utf-8", newline="")
    print(
        f"{part}: {len(outputs)} outputs in {time.perf_counter() - started:.1f} s "
        f"(CPU {time.process_time():.1f} s)",
        file=sys.stderr,
    )


def setup(work: Path) -> None:
    """Django on a fresh SQLite database in `work`, with time and randomness pinned."""
    work.mkdir(parents=True, exist_ok=True)
    PLACES.extend([(str(work), "<work>"), (str(ROOT), "<root>")])
    os.chdir(ROOT)
    # The tree's code, never this file's folder's (tests/).
    sys.path[0] = str(ROOT)
    settings_module = re.search(
        r"DJANGO_SETTINGS_MODULE\",\s*\"([\w.]+)\"", (ROOT / "manage.py").read_text()
    ).group(1)
    # Every setting the environment could give is at its default but those set below: the
    # caller's (a LIVE_POLL_SECONDS, a PRINT_WORKERS) would change the outputs.
    settings_file = ROOT / (settings_module.replace(".", "/") + ".py")
    for name in re.findall(r'\(\s*"([A-Z][A-Z0-9_]*)"', settings_file.read_text()):
        os.environ.pop(name, None)
    os.environ.update(
        {
            "DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}",
            # The settings' development mode (no key to give, plain static storage); pages are
            # then served with DEBUG off, as in the test suite.
            "DEBUG": "true",
            "SECRET_KEY": "snapshot-secret-key-the-same-for-both-trees",
            "ALLOWED_HOSTS": "testserver,localhost",
            "TIME_ZONE": "UTC",
            "LOG_LEVEL": "ERROR",
            # Its default is the machine's cores (two at most), which render_papers names.
            "PRINT_WORKERS": "2",
            **{
                name: str(work / name.lower())
                for name in ("CACHE_DIR", "SCANS_DIR", "JOBS_DIR", "IMPORTS_DIR", "STATIC_ROOT")
            },
        }
    )
    os.environ["DJANGO_SETTINGS_MODULE"] = settings_module
    pin_randomness_and_time()
    import django

    django.setup()
    # The tree's own code, not an installed copy's.
    loaded = Path(sys.modules[settings_module].__file__).resolve()
    assert loaded.is_relative_to(ROOT), f"{settings_module} was imported from {loaded}"
    pin_token_clock()
    from django.test.utils import setup_test_environment

    setup_test_environment(debug=False)
    # Refused requests (a script URL that only takes POST, a 404) are logged as warnings.
    logging.disable(logging.WARNING)


def approve(parts: list[str], folder: Path, jobs: int) -> int:
    """Records `parts` side by side in processes of their own, `jobs` at once, each written to
    `folder` once it has succeeded; a part that reads others' URLs waits for theirs to be
    written. Returns the exit status: 1 if a part failed."""
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    folder.mkdir(parents=True, exist_ok=True)
    waiting, running, failed = [p for p in PARTS if p in parts], {}, []
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(jobs) as pool:
        while waiting or running:
            for part in list(waiting):
                needs = set(PARTS[part][1])
                if needs & set(failed):
                    waiting.remove(part)
                    failed.append(part)
                    print(f"{part}: not recorded, a part it reads failed", file=sys.stderr)
                elif len(running) < jobs and not needs & {*waiting, *running.values()}:
                    waiting.remove(part)
                    running[pool.submit(_record_apart, part, folder, Path(scratch))] = part
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                part = running.pop(future)
                error = future.result()
                if error:
                    failed.append(part)
                print(error or f"{part}: approved", file=sys.stderr)
    return 1 if failed else 0


def _record_apart(part: str, folder: Path, scratch: Path) -> str:
    """Records `part` in a process of its own into `folder`; returns what went wrong, if did."""
    out = scratch / f"{part}.txt"
    done = subprocess.run(
        [sys.executable, __file__, "--part", part, "--out", str(out), "--approved", str(folder)]
        + ["--work", str(scratch / part), "--demo-cache", str(scratch / "demo")],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        return f"{part} failed:\n{done.stderr[-4000:]}"
    out.replace(folder / f"{part}.txt")
    print(done.stderr.strip().splitlines()[-1], file=sys.stderr)
    return ""


def lap(what: str, started: float) -> None:
    print(f"{what}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    for kind, seconds in sorted(TIMES.items(), key=lambda item: -item[1])[:8]:
        print(f"  {seconds:5.1f} s {kind}", file=sys.stderr)
    TIMES.clear()


if __name__ == "__main__":
    main()
