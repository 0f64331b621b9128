"""Linguistic notation in explanations reads as written wherever a juror reads it: the paper
page, the sheet's solution pane and the printout. Linguists write graphemes in angle brackets
(<ng>, <a>, <s>, <title>); were they taken as HTML, `<a>` would turn the rest into a link, `<s>`
strike it through and `<style>` hide it, and jurors would grade text no system wrote. Markdown
itself (emphasis, lists, tables, code) still renders. Item names are the problem's own on the
screen and on paper."""

import json
import re
import subprocess
import unicodedata
from decimal import Decimal
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from grading.intake.importers import outputs_import, problemset_import
from grading.models import PaperLabel
from grading.printing import pdf
from grading.printing import selectors as pdf_selectors
from rubrics.models import Contest, Criterion, Problem, Task
from tests.factories import assign

SYSTEM = "notation"
TONES = "má mà mâ mǎ ma̋ mȁ"
IPA = "ŋ̂gùtè t͡ʃìmbà ɓóʔè ˈtɨ.ŋa kʷáɬɪ̃ ǀàní"
# Each must be found verbatim in the text a juror reads.
NOTATION = [
    "<ng>",
    "<a>",
    "<s>",
    "<b>",
    "<i>",
    "<title>",
    "</p>",
    "<math><mtext><table><mglyph><style>",
    "[ʃ]",
    "/p/",
    "*kata",
    "_",
    "{a, b}",
    "a < b > c",
    "x → y / _#",
    TONES,
    IPA,
]
# Whole sentences: a tag taken as HTML would drop or swallow what follows it.
SENTENCES = [
    "Word-final <ng> is written for [ŋ], and <c> stands for [tʃ]; <x> is [ʃ].",
    "The letter <a> is always [a].",
    "The suffix <s> marks the plural; <b> and <i> are vowels.",
    "After <title> the text goes on, and </p> closes nothing.",
    "The sequence <math><mtext><table><mglyph><style> hides nothing after it.",
    "Proto-form *kata gave kat; the blank _ is a gap; the set {a, b}; a < b > c.",
    "The rule x → y / _# applies word-finally, and /p/ becomes [ʃ].",
    f"Tones: {TONES}. IPA: {IPA}.",
    "A lone *kata with *tata in one sentence stays as written.",
]
EXPLANATION = "\n\n".join(SENTENCES) + (
    "\n\n- a list item with *stressed* <ng>\n- a second item with **strong** <s>\n\n"
    "| grapheme | sound | rule |\n| --- | --- | --- |\n"
    "| <ng> | [ŋ] | x → y / _# |\n"
    "| <a> | /p/ | *kata |\n"
    "| <title> | {a, b} | a < b > c |\n"
    "| `<s>` | `</p>` | `a < b > c` |\n\n"
    "In code: `<math><mtext><table><mglyph><style>` and `*kata` and `_` and `&amp;`.\n\n"
    "```\n<ng> </p> <title>\na < b > c &amp;\n```\n"
)
# Rendered from the markdown above; nothing else may appear inside an explanation.
MARKDOWN_TAGS = {"p", "ul", "li", "em", "strong", "table", "thead", "tbody", "tr", "th", "td"}
MARKDOWN_TAGS |= {"code", "pre"}
# In code, markdown escapes "&" itself: "&amp;" reads as written, not as "&".
IN_CODE = ["<math><mtext><table><mglyph><style>", "&amp;", "<ng> </p> <title>", "a < b > c &amp;"]
# Task 1's answers, which are not markdown: escaped by the templates.
ANSWERS = ["<ng>kata", "a < b > c", "*kata <s>"]

TASKS = [
    {
        "id": "12030010100",
        "context": "Some phrases in Oru (an invented language):\n\n1. pake | canoe",
        "query": "Translate into Oru:\n\n(a) the red canoe\n(b) the canoes\n(c) my canoe",
        "answer": ["pake tiru", "pakeru", "nipake"],
        "task_type": "translation",
    },
    {
        "id": "12030010200",
        "context": "same context as above",
        "query": "Translate into English:\n\n7. pakeru\n8. nipake",
        "answer": ["canoes", "my canoe"],
        "task_type": "translation",
    },
]


def _problemset(path, explanation: str) -> None:
    lines = [
        json.dumps(
            {
                **task,
                "explanation": explanation,
                "work_lang": "eng_Latn",
                "task_lang": ["oru_Latn"],
                "eval_type": "single",
            }
        )
        for task in TASKS
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


@pytest.fixture
def notation(db, juror, tmp_path):
    """Contest "oru30" in grading: one system whose explanations are the notation corpus, with
    the same corpus as the official explanation, assigned to alice."""
    problems = tmp_path / "problems.jsonl"
    _problemset(problems, EXPLANATION)
    problemset_import(contest_slug="oru30", paths=[problems])
    contest = Contest.objects.get(slug="oru30")
    contest.state = Contest.State.GRADING
    contest.save(update_fields=["state"])
    (problem,) = Problem.objects.filter(contest=contest)
    Criterion.objects.create(
        problem=problem, code="A1", kind="assignment", title="Answers", points=Decimal(20)
    )
    outputs = {
        "12030010100": json.dumps(ANSWERS),
        "12030010200": json.dumps(["canoes", "my canoe"]),
    }
    raw = tmp_path / "raw.jsonl"
    raw.write_text(
        "\n".join(
            json.dumps(
                {
                    "system": SYSTEM,
                    "id": task_id,
                    "output": f"Answer: {answers}\nExplanation:\n{EXPLANATION}",
                }
            )
            for task_id, answers in outputs.items()
        ),
        encoding="utf-8",
    )
    outputs_import(contest_slug="oru30", paths=[raw])
    assign(contest, [juror])
    return problem


class _Reader(HTMLParser):
    """The text and the tags of every explanation (a `div.explanation`), and the cells of every
    answers table, as a reader sees them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.explanations: list[dict] = []
        self.tables: list[list[list[str]]] = []
        self._div_depth = 0  # open <div>s inside the current explanation, itself included
        self._table = None
        self._cell = None

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if self._div_depth:
            if tag == "div":
                self._div_depth += 1
            self.explanations[-1]["tags"].add(tag)
        elif tag == "div" and "explanation" in classes:
            self._div_depth = 1
            self.explanations.append({"text": [], "tags": set()})
        elif tag == "table" and "answers" in classes:
            self._table = []
            self.tables.append(self._table)
        elif self._table is not None and tag == "tr":
            self._table.append([])
        elif self._table is not None and tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if self._div_depth and tag == "div":
            self._div_depth -= 1
        elif self._table is not None and tag in ("td", "th") and self._cell is not None:
            self._table[-1].append(_normal("".join(self._cell)))
            self._cell = None
        elif self._table is not None and tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._div_depth:
            self.explanations[-1]["text"].append(data)
        elif self._cell is not None:
            self._cell.append(data)


def _normal(text: str) -> str:
    # Zero-width spaces are break opportunities, line ends in a PDF are where a line wrapped;
    # pdftotext puts a space before a combining mark the font places on its own (ɪ̃).
    text = re.sub(r"\s+", " ", text.replace("\u200b", "")).strip()
    text = re.sub(r" (?=[\u0300-\u036f])", "", text)
    return unicodedata.normalize("NFC", text)


def _read(html: str) -> _Reader:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader


def _label(problem) -> str:
    return PaperLabel.objects.get(paper__identity=SYSTEM, problem=problem).label


def _screens(client, problem) -> dict[str, str]:
    label = _label(problem)
    pages = {}
    for name, url_name in (("paper page", "paper_detail"), ("solution pane", "sheet_solution")):
        response = client.get(reverse(url_name, args=["oru30", problem.number, label]))
        assert (name, response.status_code) == (name, 200)
        pages[name] = response.content.decode()
    return pages


def _pdftotext(content: bytes) -> str:
    return subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "-", "-"], input=content, capture_output=True, check=True
    ).stdout.decode()


def _missing(text: str) -> list[str]:
    text = _normal(text)
    return [phrase for phrase in NOTATION + SENTENCES + IN_CODE if _normal(phrase) not in text]


def test_notation_in_a_paper_s_explanation_reads_as_written_on_screen(client, notation, juror):
    client.force_login(juror)
    for name, html in _screens(client, notation).items():
        explanations = _read(html).explanations
        # The paper's own explanation for each task, then the official one for each task.
        assert (name, len(explanations)) == (name, 4)
        for explanation in explanations:
            assert (name, _missing("".join(explanation["text"]))) == (name, [])
            # Markdown renders; no tag written in the text became an element.
            assert (name, explanation["tags"]) == (name, MARKDOWN_TAGS)


def test_the_official_explanation_reads_as_written(client, notation, juror):
    """Imported from the problem set, shown beside every paper's own: the same rendering."""
    assert list(Task.objects.filter(problem=notation).values_list("reference_explanation")) == [
        (EXPLANATION,),
        (EXPLANATION,),
    ]
    client.force_login(juror)
    for name, html in _screens(client, notation).items():
        official = html[html.index("Official explanation") :]
        (explanation, *_) = _read(official).explanations
        assert (name, _missing("".join(explanation["text"]))) == (name, [])
        assert (name, explanation["tags"]) == (name, MARKDOWN_TAGS)


def test_answers_with_notation_are_shown_as_written(client, notation, juror):
    client.force_login(juror)
    for name, html in _screens(client, notation).items():
        first_table = _read(html).tables[0]
        assert (name, [row[1] for row in first_table[1:]]) == (name, ANSWERS)


def test_notation_reads_as_written_in_the_printout(client, notation, juror, settings, tmp_path):
    settings.CACHE_DIR = tmp_path / "cache"
    label = _label(notation)
    data = pdf_selectors.problem_print(problem=notation, juror=juror, labels=[label])
    (paper,) = data.papers
    html = pdf.paper_html(problem=notation, paper=paper, criteria=data.criteria)
    reader = _read(html)
    assert [_missing("".join(e["text"])) for e in reader.explanations] == [[], []]
    assert [e["tags"] for e in reader.explanations] == [MARKDOWN_TAGS, MARKDOWN_TAGS]
    assert [row[1] for row in reader.tables[0][1:]] == ANSWERS

    client.force_login(juror)
    response = client.get(reverse("paper_pdf", args=["oru30", notation.number, label]))
    assert response.status_code == 200
    text = _pdftotext(response.content)
    assert _missing(text) == []
    for answer in ANSWERS:
        assert (answer, _normal(answer) in _normal(text)) == (answer, True)


def test_items_have_the_same_names_on_screen_and_in_the_printout(client, notation, juror):
    """The problem names its items (a)–(c) and 7–8: so do the paper page, the solution pane and
    the printout, so that a juror finds on paper the item read on screen."""
    client.force_login(juror)
    names = {
        name: [[row[0] for row in table[1:]] for table in _read(html).tables]
        for name, html in _screens(client, notation).items()
    }
    data = pdf_selectors.problem_print(problem=notation, juror=juror, labels=[_label(notation)])
    (paper,) = data.papers
    printout = _read(pdf.paper_html(problem=notation, paper=paper, criteria=data.criteria))
    names["printout"] = [[row[0] for row in table[1:]] for table in printout.tables]
    expected = [["a", "b", "c"], ["7", "8"]]
    assert names == {"paper page": expected, "solution pane": expected, "printout": expected}
