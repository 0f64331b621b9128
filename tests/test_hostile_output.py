"""Hostile AI output, imported through the real importer (raw JSONL), is inert wherever a juror
or the organizer reads it: the paper page, the grading sheet, its solution panel and the
printouts. Each page is parsed and every tag and attribute walked; the only scripts, styles and
links allowed are those the same page has for a harmless paper."""

import contextlib
import json
import re
import zlib
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.urls import reverse

from grading.intake.importers import outputs_import, problemset_import
from grading.models import Paper, PaperLabel
from grading.papers.markdown import render_markdown
from grading.printing import pdf
from grading.printing import selectors as pdf_selectors
from rubrics.models import Contest, Criterion, Problem, Task
from tests.factories import assign

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "importers"
LONG_WORD = "x" * 100_000  # one line of 100k characters without a space

# Every explanation carries all of these; SURVIVES is plain text that must stay readable.
SURVIVES = "The plural takes -ru."
HOSTILE_MARKDOWN = f"""{SURVIVES}

<script>alert('script')</script>
<img src=x onerror=alert('img')>
<a href="javascript:alert('raw link')" onclick="alert('click')">raw link</a>
[markdown link](javascript:alert('markdown link'))
[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)
[spaced link]( JaVaScRiPt:alert('case'))
[safe link](https://example.org/safe)
<iframe src="https://example.org/frame"></iframe>
<style>body {{ display: none }}</style>
<svg onload=alert('svg')><circle r=1 /></svg>
<object data="x.swf"></object><embed src="x.swf">
<form action="javascript:alert('form')"><button formaction="javascript:alert(1)">go</button></form>
<p style="background:url(javascript:alert('style'))" onmouseover="alert('hover')">styled</p>
<math><mtext><table><mglyph><style><img src=x onerror=alert('mxss')></style></mglyph></table></mtext></math>

| rule | example |
|---|---|
| plural <script>alert('cell')</script> | <img src=x onerror=alert('cell img')> cell-text |
| <a href="javascript:alert('cell link')">cell link</a> | <iframe src=x></iframe> |

<table><tr><td onclick="alert('raw table')">raw-cell</td></tr></table>

{LONG_WORD}
"""
# Problem 1 has tasks of 3, 2 and 0 items: the first three answers are shown in its first task.
HOSTILE_ANSWERS = [
    "<script>alert('answer')</script>",
    LONG_WORD,
    "<img src=x onerror=alert('answer')> [x](javascript:alert('answer'))",
    "<iframe src=x></iframe>",
]
HOSTILE_SYSTEM = "<script>alert('identity')</script>"

FORBIDDEN_TAGS = {
    "script",
    "iframe",
    "frame",
    "style",
    "object",
    "embed",
    "svg",
    "math",
    "img",
    "video",
    "audio",
    "base",
    "form",
    "button",
    "input",
}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "background"}


class _Walker(HTMLParser):
    """What in a page could run or load something: forbidden tags, event handlers, URLs with a
    scheme that executes or embeds; and the text a reader sees."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.findings: list[tuple] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag in FORBIDDEN_TAGS:
            # Attribute names only: the values of the page's own forms (CSRF tokens) vary.
            self.findings.append(("tag", tag, tuple(sorted(attributes))))
        for name, value in attrs:
            if name.startswith("on"):
                self.findings.append(("handler", tag, name))
            if name in URL_ATTRIBUTES and value is not None:
                # Browsers ignore whitespace and control characters inside a scheme.
                scheme = "".join(ch for ch in value if ch > " ").lower()
                if scheme.startswith(("javascript:", "data:", "vbscript:")):
                    self.findings.append(("url", tag, name, value))
            if name == "style" and value and ("url(" in value or "expression" in value):
                self.findings.append(("style", tag, value))

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.text.append(data)


def _walk(html: str) -> _Walker:
    walker = _Walker()
    walker.feed(html)
    walker.close()
    return walker


def _pdf_links(content: bytes) -> list[bytes]:
    """The URI of every link in a PDF, in its plain objects or its compressed object streams."""
    parts = [content]
    for stream in re.finditer(rb"stream\r?\n(.*?)endstream", content, re.DOTALL):
        with contextlib.suppress(zlib.error):
            parts.append(zlib.decompress(stream.group(1)))
    return [uri for part in parts for uri in re.findall(rb"/URI\s*\(([^)]*)\)", part)]


def _lines(system: str, outputs: dict[str, str]) -> str:
    return "\n".join(
        json.dumps({"system": system, "id": task_id, "output": output})
        for task_id, output in outputs.items()
    )


@pytest.fixture
def hostile(db, juror, tmp_path):
    """Contest "oru30" in grading with a scheme per problem; a hostile system and a harmless
    one, both assigned to alice on every problem."""
    problemset_import(
        contest_slug="oru30",
        paths=[FIXTURES / "problemset" / "test.csv", FIXTURES / "problemset" / "solution.csv"],
    )
    contest = Contest.objects.get(slug="oru30")
    contest.state = Contest.State.GRADING
    contest.save(update_fields=["state"])
    for problem in Problem.objects.filter(contest=contest):
        Criterion.objects.create(
            problem=problem, code="A1", kind="assignment", title="Answers", points=Decimal(20)
        )
    answers = "Answer: " + json.dumps(HOSTILE_ANSWERS) + "\nExplanation:\n" + HOSTILE_MARKDOWN
    # Problem 2 is printed (see the printout test): WeasyPrint lays out a table cell of 100,000
    # characters in hours, so its answers leave the long word out; its explanation keeps it.
    printed = answers.replace(json.dumps(LONG_WORD), '"long"')
    harmless = 'Answer: ["pake"]\nExplanation:\n' + SURVIVES
    tasks = ["12030010100", "12030010200", "12030010300", "12030020100", "12030020200"]
    path = tmp_path / "raw.jsonl"
    path.write_text(
        _lines(HOSTILE_SYSTEM, {task: answers if task[6] == "1" else printed for task in tasks})
        + "\n"
        + _lines("harmless", dict.fromkeys(tasks, harmless)),
        encoding="utf-8",
    )
    outputs_import(contest_slug="oru30", paths=[path])
    assign(contest, [juror])
    return contest


def _label(identity: str, number: int) -> str:
    return PaperLabel.objects.get(paper__identity=identity, problem__number=number).label


def _pages(client, number: int) -> list[tuple[str, str, str]]:
    """(name, hostile page, harmless page) for every page that shows a paper's solutions."""
    hostile, harmless = _label(HOSTILE_SYSTEM, number), _label("harmless", number)
    pages = []
    for name, url_name, extra in (
        ("paper page", "paper_detail", ""),
        ("sheet solution panel", "sheet_solution", ""),
        ("sheet page", "sheet", "?row={label}"),
    ):
        texts = []
        for label in (hostile, harmless):
            if url_name == "sheet":
                url = reverse(url_name, args=["oru30", number]) + extra.format(label=label)
            else:
                url = reverse(url_name, args=["oru30", number, label])
            response = client.get(url)
            assert (name, response.status_code) == (name, 200)
            texts.append(response.content.decode())
        pages.append((name, *texts))
    return pages


@pytest.mark.parametrize("number", [1, 2])
def test_hostile_output_is_inert_on_every_page_a_juror_reads(client, hostile, juror, number):
    client.force_login(juror)
    for name, hostile_page, harmless_page in _pages(client, number):
        assert (name, _walk(hostile_page).findings) == (name, _walk(harmless_page).findings)


def test_a_hostile_official_explanation_is_inert_too(client, hostile, juror):
    """The official explanation comes from the problem set, not from a system, and is shown
    beside every paper's own: it goes through the same sanitizer."""
    client.force_login(juror)
    before = [(name, _walk(page).findings) for name, _, page in _pages(client, 1)]
    Task.objects.filter(problem__contest__slug="oru30", problem__number=1).update(
        reference_explanation=HOSTILE_MARKDOWN
    )
    after = _pages(client, 1)
    assert [(name, _walk(page).findings) for name, _, page in after] == before
    assert [(name, "Official explanation" in page) for name, _, page in after] == [
        (name, True) for name, _ in before
    ]


def test_hostile_output_keeps_its_text_readable_as_text(client, hostile, juror):
    client.force_login(juror)
    response = client.get(reverse("paper_detail", args=["oru30", 1, _label(HOSTILE_SYSTEM, 1)]))
    text = "".join(_walk(response.content.decode()).text)
    # Answers are shown as the system wrote them, escaped; the explanation keeps its prose,
    # its table cells and link texts, and the long line whole.
    for answer in HOSTILE_ANSWERS[:3]:
        assert (answer[:40], answer in text) == (answer[:40], True)
    for phrase in (SURVIVES, "cell-text", "raw-cell", "markdown link", "cell link", "styled"):
        assert (phrase, phrase in text) == (phrase, True)
    # Whole in the answers of the tasks with 3 and 2 items; in the three explanations with
    # zero-width spaces that let it break into lines.
    assert (text.count(LONG_WORD), text.replace("\u200b", "").count(LONG_WORD)) == (2, 5)


def test_the_organizer_sees_a_hostile_system_name_as_text(client, hostile, organizer):
    client.force_login(organizer)
    hostile_page = client.get(
        reverse("paper_detail", args=["oru30", 1, _label(HOSTILE_SYSTEM, 1)])
    ).content.decode()
    harmless_page = client.get(
        reverse("paper_detail", args=["oru30", 1, _label("harmless", 1)])
    ).content.decode()
    walker = _walk(hostile_page)
    assert (walker.findings, HOSTILE_SYSTEM in "".join(walker.text)) == (
        _walk(harmless_page).findings,
        True,
    )


def test_the_printout_of_hostile_output_is_inert(client, hostile, juror):
    problem = Problem.objects.get(contest=hostile, number=2)
    htmls = {}
    for identity in (HOSTILE_SYSTEM, "harmless"):
        label = _label(identity, 2)
        data = pdf_selectors.problem_print(problem=problem, juror=juror, labels=[label])
        (paper,) = data.papers
        htmls[identity] = pdf.paper_html(problem=problem, paper=paper, criteria=data.criteria)
    assert _walk(htmls[HOSTILE_SYSTEM]).findings == _walk(htmls["harmless"]).findings
    assert SURVIVES in "".join(_walk(htmls[HOSTILE_SYSTEM]).text)

    client.force_login(juror)
    response = client.get(reverse("paper_pdf", args=["oru30", 2, _label(HOSTILE_SYSTEM, 2)]))
    assert (response.status_code, response["Content-Type"], response.content[:5]) == (
        200,
        "application/pdf",
        b"%PDF-",
    )
    # The safe link (once per task of problem 2) shows that links are found; it is the only
    # one the printout has.
    assert _pdf_links(response.content) == [b"https://example.org/safe"] * 2


def test_a_paper_with_hostile_output_is_still_the_organizer_s_to_identify(hostile):
    # The import kept the hostile name verbatim as the identity: it is data, not markup.
    assert Paper.objects.filter(identity=HOSTILE_SYSTEM).count() == 1


def test_a_long_word_gets_break_opportunities_and_links_stay_whole():
    # A 100,000-character line took WeasyPrint about two minutes to print (quadratic).
    html = str(render_markdown(f"[link](https://example.org/{'z' * 90}) {'y' * 100}"))
    assert html == (
        f'<p><a href="https://example.org/{"z" * 90}" rel="noopener noreferrer nofollow">link</a> '
        + "\u200b".join(["y" * 40, "y" * 40, "y" * 20])
        + "</p>"
    )
