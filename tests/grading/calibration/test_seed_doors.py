"""Every door a juror's real paper opens by its label opens the same way by a seed's label:
the same status and the same shape (HTML with labels, values and random names blanked compare
equal, JSON with the same keys, the same printouts and spreadsheet row), the seed's label and
never its calibration paper's live label, "K1" or identity; and another juror gets 404 for the
seed's label at every door. The juror, alice, has one real paper and one seed."""

import io
import re
import subprocess
import zipfile
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path

import openpyxl
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from PIL import Image

from grading.assigning.help import help_answer, help_assign
from grading.console.contest_life import contest_resolution_open
from grading.marking.sheets import sheet_get_or_create
from grading.models import (
    Assignment,
    CalibrationMark,
    CalibrationPaper,
    Comment,
    HelpRequest,
    Mark,
    Notification,
    PaperLabel,
    Resolution,
    ScanPage,
    Seed,
    Sheet,
)
from grading.printing.selectors import problem_print
from grading.rules import roles
from grading.rules.access import ALONE
from tests.factories import make_user
from tests.grading.calibration import seed_scenario


@pytest.fixture
def world(db, settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    world = seed_scenario.build(papers=2)
    (real,) = world["live"]
    problem = world["problem"]
    world["alice"], world["bob"] = world["jurors"]
    world["real"] = PaperLabel.objects.get(problem=problem, paper=real).label
    world["seed"] = Seed.objects.get(juror=world["alice"]).label
    world["hidden"] = PaperLabel.objects.get(
        problem=problem, paper=world["calibration_paper"]
    ).label
    return world


def _url(name, *args):
    return reverse(name, args=["seeded", 1, *args])


def _secrets(world) -> list[str]:
    """What alice must never read: the calibration paper's live label, its calibration label
    and its identity."""
    paper = world["calibration_paper"]
    return [world["hidden"], "K1", paper.identity, paper.public_code]


def _reads(secret: str, text: str) -> bool:
    """Whether the text shows the secret as a word of its own: "K1" inside a random token (a
    CSRF token, a file name) is no leak, and is there by chance in one page in a hundred."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", text) is not None


class _Shape(HTMLParser):
    """A page's markup without its text: tags and attributes, values blanked but for the
    attributes that say what a thing is (its class, type, name and role)."""

    KEPT = {"class", "type", "role", "rel", "method", "scope"}

    def __init__(self, labels):
        super().__init__()
        self.labels, self.tags = labels, []

    def _value(self, name, value):
        value = value or ""
        for label in self.labels:
            value = value.replace(label, "LABEL")
        return value if name in self.KEPT or "LABEL" in value else ""

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, tuple(sorted((n, self._value(n, v)) for n, v in attrs))))


def shape(html: str, *labels: str) -> list:
    parser = _Shape(labels)
    parser.feed(html)
    return parser.tags


def _pdftotext(data: bytes, tmp_path: Path) -> str:
    path = tmp_path / "read.pdf"
    path.write_bytes(data)
    return subprocess.run(
        ["pdftotext", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout


def _both(world) -> tuple[str, str]:
    return world["real"], world["seed"]


def test_the_sheet_rows_and_the_solution_pane_are_the_same_for_the_seed(client, world):
    client.force_login(world["alice"])
    real, seed = _both(world)
    pages = {label: client.get(_url("sheet") + f"?row={label}") for label in (real, seed)}
    assert [page.status_code for page in pages.values()] == [200, 200]
    html = {label: page.content.decode() for label, page in pages.items()}
    # The whole sheet, opened on either row, has the same markup (but for which row is the
    # selected one: the rows are in label order).
    unselected = {label: text.replace(' class="selected"', "") for label, text in html.items()}
    assert shape(unselected[real], real, seed) == shape(unselected[seed], real, seed)
    panes = {label: client.get(_url("sheet_solution", label)) for label in (real, seed)}
    assert [pane.status_code for pane in panes.values()] == [200, 200]
    assert shape(panes[real].content.decode(), real) == shape(panes[seed].content.decode(), seed)
    for text in [*html.values(), *(pane.content.decode() for pane in panes.values())]:
        for secret in _secrets(world):
            assert not _reads(secret, text)


def test_the_home_page_lists_and_counts_the_seed_as_the_sheet_does(client, world):
    """Issue 31, finding 6: the home page read assignments only (8 labels and "0 of 48 cells"
    against the sheet's 10 rows and 60 cells): the missing labels were the seeds."""
    client.force_login(world["alice"])
    real, seed = _both(world)
    sheet = client.get(_url("sheet")).content.decode()
    rows = re.findall(r'<tr[^>]* data-label="([^"]+)"', sheet)
    home = client.get(reverse("home")).content.decode()
    assert seed in rows and real in rows
    assert all(label in home for label in rows)
    assert f"0 of {len(rows) * 2} cells" in home
    client.post(_url("sheet_cell_save", seed, "A1"), {"points": "4", "version": 0})
    assert f"1 of {len(rows) * 2} cells" in client.get(reverse("home")).content.decode()


def _json_shape(data):
    if isinstance(data, dict):
        return {key: _json_shape(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_json_shape(value) for value in data]
    return type(data).__name__


def _without_minutes(data: dict) -> dict:
    return {
        key: re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "<when>", value)
        if isinstance(value, str)
        else value
        for key, value in data.items()
    }


def test_saving_a_cell_and_its_note_and_reading_its_history_answer_alike(client, world):
    client.force_login(world["alice"])
    real, seed = _both(world)
    answers = {}
    for label in (real, seed):
        saved = client.post(_url("sheet_cell_save", label, "A1"), {"points": "7", "version": 0})
        noted = client.post(_url("sheet_note_save", label, "A1"), {"note": "ok", "version": 1})
        stale = client.post(_url("sheet_cell_save", label, "A1"), {"points": "8", "version": 0})
        wrong = client.post(_url("sheet_cell_save", label, "T1"), {"points": "9", "version": 0})
        history = client.get(_url("sheet_cell_history", label, "A1") + "?partial=1")
        answers[label] = [saved, noted, stale, wrong, history]
    statuses = {label: [a.status_code for a in got] for label, got in answers.items()}
    assert statuses[real] == statuses[seed]
    assert statuses[real][:2] == [200, 200]
    for ours, theirs in zip(answers[real][:4], answers[seed][:4], strict=True):
        assert ours["Content-Type"] == theirs["Content-Type"]
        if ours["Content-Type"].startswith("application/json"):
            assert _json_shape(ours.json()) == _json_shape(theirs.json())
            # The refusals' sentences are the same words, but for the minute each was written
            # (the two rows' saves may straddle a minute's turn).
            if ours.status_code != 200:
                assert _without_minutes(ours.json()) == _without_minutes(theirs.json())
    history = [answers[label][4].content.decode() for label in (real, seed)]
    assert shape(history[0], real) == shape(history[1], seed)


def test_the_paper_page_and_the_scanned_pages_answer_alike(client, world, settings):
    settings.SCANS_DIR.mkdir(parents=True)
    for index, paper in enumerate([*world["live"], world["calibration_paper"]]):
        name = f"page-{index}.png"
        Image.new("RGB", (20, 30), "white").save(settings.SCANS_DIR / name)
        ScanPage.objects.create(
            paper=paper, problem=world["problem"], position=1, image=name, width=20, height=30
        )
    client.force_login(world["alice"])
    real, seed = _both(world)
    pages = {label: client.get(_url("paper_detail", label)) for label in (real, seed)}
    assert [page.status_code for page in pages.values()] == [200, 200]
    assert shape(pages[real].content.decode(), real) == shape(pages[seed].content.decode(), seed)
    for label in (real, seed):
        image = client.get(_url("scan_page_image", label, 1))
        assert (image.status_code, image["Content-Type"]) == (200, "image/png")
        assert client.get(_url("scan_page_image", label, 2)).status_code == 404
    for secret in _secrets(world):
        assert not _reads(secret, pages[seed].content.decode())


def test_a_seed_prints_under_its_own_label_alone_and_in_the_bundle_in_label_order(
    client, world, tmp_path
):
    client.force_login(world["alice"])
    real, seed = _both(world)
    printed = {label: client.get(_url("paper_pdf", label)) for label in (real, seed)}
    assert [p.status_code for p in printed.values()] == [200, 200]
    assert printed[seed]["Content-Disposition"] == f'attachment; filename="seeded-p1-{seed}.pdf"'
    text = _pdftotext(printed[seed].content, tmp_path)
    assert seed in text
    # The calibration paper's own answers, under the seed's label.
    assert "explanation 1." in text
    for secret in [*_secrets(world), real, "system-"]:
        assert not _reads(secret, text)
    bundle = client.get(_url("problem_pdf_bundle"))
    assert bundle.status_code == 200
    text = _pdftotext(bundle.content, tmp_path)
    first, second = sorted((real, seed))
    assert [first in text, second in text] == [True, True]
    assert text.index(first) < text.index(second)
    for secret in [*_secrets(world), "system-"]:
        assert not _reads(secret, text)
    archive = client.get(_url("problem_pdf_zip"))
    names = zipfile.ZipFile(io.BytesIO(archive.content)).namelist()
    assert names == [f"seeded-p1-{first}.pdf", f"seeded-p1-{second}.pdf"]


def test_the_xlsx_rows_of_the_paper_and_the_seed_have_the_same_shape(client, world):
    client.force_login(world["alice"])
    real, seed = _both(world)
    book = openpyxl.load_workbook(io.BytesIO(client.get(_url("sheet_xlsx")).content))
    rows = {row[0].value: row for row in book["Marks"].iter_rows() if row[0].value in (real, seed)}
    assert sorted(rows) == sorted((real, seed))

    def cells(row):
        return [(cell.data_type, cell.number_format, cell.protection.locked) for cell in row[1:]]

    assert cells(rows[real]) == cells(rows[seed])
    for sheet in book.worksheets:
        for row in sheet.iter_rows(values_only=True):
            for value in row:
                for secret in _secrets(world):
                    assert not _reads(secret, str(value or ""))


def _answer_all(world):
    helper = make_user("sara", roles.SPECIALIST)
    chair = world["chair"]
    for request in HelpRequest.objects.order_by("pk"):
        request = help_assign(actor=chair, request=request, helper=helper)
        help_answer(actor=helper, request=request, answer=f"It says {request.pk}.")
    return helper


def test_help_is_asked_from_the_seed_row_as_from_any_row_and_read_there(client, world):
    alice = world["alice"]
    client.force_login(alice)
    real, seed = _both(world)
    asked = {
        label: client.post(_url("help_ask", label), {"question": f"What is line 2 of {label}?"})
        for label in (real, seed)
    }
    for label, response in asked.items():
        assert (response.status_code, response["Location"]) == (
            302,
            _url("sheet") + f"?row={label}#help-{label}",
        )
    seed_request = HelpRequest.objects.get(seed__label=seed)
    assert seed_request.paper == world["calibration_paper"]
    assert HelpRequest.objects.get(seed=None).paper == world["live"][0]
    helper = _answer_all(world)
    # Each row shows its own question and answer, in the same markup.
    panes = {label: client.get(_url("sheet_solution", label)).content.decode() for label in asked}
    assert shape(panes[real], real) == shape(panes[seed], seed)
    assert f"What is line 2 of {seed}?" in panes[seed]
    assert f"What is line 2 of {real}?" not in panes[seed]
    assert f"It says {seed_request.pk}." in panes[seed]
    # The asker is told under the seed's label, and their inbox leads to the seed's row.
    told = Notification.objects.get(recipient=alice, seed__isnull=False)
    assert told.sentence == f"Your question on P1 paper {seed} is answered: read it in your sheet."
    inbox = client.get(reverse("inbox")).content.decode()
    assert f"?row={seed}#help-{seed}" in inbox
    for text in [inbox, *panes.values()]:
        for secret in _secrets(world):
            assert not _reads(secret, text)
    # The helper reads the calibration paper's pages as for any question, by its live label.
    client.force_login(helper)
    page = client.get(reverse("help_request", args=[seed_request.pk]))
    assert page.status_code == 200
    assert page.context["label"] == world["hidden"]


def test_another_juror_gets_404_for_the_seed_label_at_every_door(client, world, tmp_path):
    seed = world["seed"]
    client.force_login(world["bob"])
    gets = [
        _url("sheet_solution", seed),
        _url("sheet_cell_history", seed, "A1"),
        _url("paper_detail", seed),
        _url("scan_page_image", seed, 1),
        _url("paper_pdf", seed),
    ]
    posts = [
        (_url("sheet_cell_save", seed, "A1"), {"points": "3", "version": 0}),
        (_url("sheet_note_save", seed, "A1"), {"note": "x", "version": 0}),
        (_url("help_ask", seed), {"question": "What?"}),
    ]
    assert [client.get(url).status_code for url in gets] == [404] * len(gets)
    assert [client.post(url, data).status_code for url, data in posts] == [404] * len(posts)
    assert not HelpRequest.objects.exists()
    # Bob's own bundle holds his paper and his own seed, never alice's.
    text = _pdftotext(client.get(_url("problem_pdf_bundle")).content, tmp_path)
    assert seed not in text
    assert Seed.objects.get(juror=world["bob"]).label in text
    xlsx = openpyxl.load_workbook(io.BytesIO(client.get(_url("sheet_xlsx")).content))
    assert seed not in [row[0] for row in xlsx["Marks"].iter_rows(values_only=True)]
    assert not re.search(seed, client.get(_url("sheet")).content.decode())


def test_a_jurors_printouts_with_seeds_take_a_fixed_number_of_queries(
    db, django_assert_num_queries
):
    for slug, papers in (("small", 2), ("large", 9)):
        world = seed_scenario.build(papers=papers, slug=slug)
        alice = world["jurors"][0]
        # The juror's conflicts, the papers, the juror's roles, the seeds, the scanned pages,
        # the tasks, the solutions, the criteria.
        with django_assert_num_queries(8):
            data = problem_print(problem=world["problem"], juror=alice)
        assert [paper.label for paper in data.papers] == sorted(
            [*PaperLabel.objects.filter(paper__in=world["live"]).values_list("label", flat=True)]
            + [Seed.objects.get(juror=alice).label]
        )


# After submitting: the comparison and a cell's discussion. Alice has three rows: the shared
# paper she grades with bob, a paper she grades alone and her seed, which to her must read as
# the paper she grades alone does.


def _grade_and_submit(client, juror, marks: dict[str, dict[str, str]]) -> None:
    client.force_login(juror)
    for label, points in marks.items():
        for code, value in points.items():
            saved = client.post(
                _url("sheet_cell_save", label, code), {"points": value, "version": 0}
            )
            assert saved.status_code == 200, saved.content
    # Followed: the sheet reads its "submitted" message, which no later page then shows.
    assert client.post(_url("sheet_submit"), follow=True).status_code == 200
    assert Sheet.objects.get(juror=juror).is_submitted


@pytest.fixture
def submitted(db, client, settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    world = seed_scenario.build(papers=2, spare=1)
    problem = world["problem"]
    alice, bob = world["jurors"]
    (shared,) = world["live"]
    (alone,) = world["spare"]
    Assignment.objects.create(paper=alone, problem=problem, juror=alice)
    sheet_get_or_create(juror=alice, problem=problem)
    labels = {
        "shared": PaperLabel.objects.get(problem=problem, paper=shared).label,
        "alone": PaperLabel.objects.get(problem=problem, paper=alone).label,
        "seed": Seed.objects.get(juror=alice).label,
        "bobs_seed": Seed.objects.get(juror=bob).label,
        "hidden": PaperLabel.objects.get(problem=problem, paper=world["calibration_paper"]).label,
    }
    # The shared paper disagrees on A1; the paper alice grades alone and her seed have the same
    # marks.
    _grade_and_submit(
        client,
        alice,
        {
            labels["shared"]: {"A1": "7", "T1": "5"},
            labels["alone"]: {"A1": "9", "T1": "4"},
            labels["seed"]: {"A1": "9", "T1": "4"},
        },
    )
    _grade_and_submit(
        client,
        bob,
        {labels["shared"]: {"A1": "8", "T1": "5"}, labels["bobs_seed"]: {"A1": "3", "T1": "3"}},
    )
    return {**world, "alice": alice, "bob": bob, **labels}


_COMPARISON_VIEWS = {
    "grid": "",
    "totals": "view=totals&",
    "criterion": "criterion=A1&",
    "discrepancies": "only=discrepancies&",
}


def _comparison(client, query: str, label: str):
    return client.get(_url("comparison") + f"?{query}paper={label}")


def _text(html: str, label: str) -> str:
    """The page's text and markup with the paper's label, the form's token and the scenario's
    numbered explanation (each paper's own) blanked."""
    text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html.replace(label, "LABEL"))
    text = re.sub(r"explanation \d+\.", "explanation N.", text)
    return re.sub(r"\s+", " ", text)


def _row_labels(html: str) -> list[str]:
    return re.findall(r'<tr id="paper-([^"]+)"', html)


@pytest.mark.parametrize("view", list(_COMPARISON_VIEWS))
def test_after_submitting_the_seed_is_in_the_comparison_like_a_paper(client, submitted, view):
    """Issue 31, finding 6: after submitting, the juror's seeds were absent from the
    comparison, so that what disappeared told them from papers. Each view, narrowed to the
    seed or to the paper alice grades alone, has the same markup and the same figures."""
    client.force_login(submitted["alice"])
    seed, alone = submitted["seed"], submitted["alone"]
    query = _COMPARISON_VIEWS[view]
    everything = client.get(_url("comparison") + f"?{query.rstrip('&')}").content.decode()
    rows = _row_labels(everything)
    if view == "discrepancies":
        assert rows == [submitted["shared"]]
    else:
        assert sorted(set(rows)) == sorted([submitted["shared"], alone, seed])
    pages = {label: _comparison(client, query, label) for label in (alone, seed)}
    assert [page.status_code for page in pages.values()] == [200, 200]
    html = {label: page.content.decode() for label, page in pages.items()}
    assert shape(html[alone], alone) == shape(html[seed], seed)
    # The same figures: the paper's label and the form's token aside, the two pages read alike.
    assert _text(html[alone], alone) == _text(html[seed], seed)
    if view != "discrepancies":
        assert _row_labels(html[seed]) == [seed]
    for secret in [*_secrets(submitted), submitted["bobs_seed"]]:
        assert not _reads(secret, everything)
        assert not _reads(secret, html[seed])


def test_the_paper_read_beside_one_criterion_is_the_seeds_own(client, submitted):
    client.force_login(submitted["alice"])
    seed, alone = submitted["seed"], submitted["alone"]
    pages = {
        label: client.get(_url("comparison") + f"?criterion=T1&paper={label}&read={label}")
        for label in (alone, seed)
    }
    assert [page.status_code for page in pages.values()] == [200, 200]
    html = {label: page.content.decode() for label, page in pages.items()}
    assert 'id="reader"' in html[seed]
    assert shape(html[alone], alone, seed) == shape(html[seed], alone, seed)
    for secret in _secrets(submitted):
        assert not _reads(secret, html[seed])


def _discussions(client, world, code: str = "A1") -> dict[str, str]:
    pages = {
        label: client.get(_url("discussion", label, code))
        for label in (world["alone"], world["seed"])
    }
    assert [page.status_code for page in pages.values()] == [200, 200]
    return {label: page.content.decode() for label, page in pages.items()}


def _same_discussion(world, html: dict[str, str]) -> None:
    alone, seed = world["alone"], world["seed"]
    assert shape(html[alone], alone) == shape(html[seed], seed)
    for secret in _secrets(world):
        assert not _reads(secret, html[seed])


def test_a_seeds_cell_opens_as_the_cell_of_a_paper_its_juror_grades_alone(client, submitted):
    client.force_login(submitted["alice"])
    html = _discussions(client, submitted)
    _same_discussion(submitted, html)
    seed = html[submitted["seed"]]
    assert "alice: <strong>9</strong>" in seed
    assert "Revisions open when the chair starts the resolution phase." in seed
    # No one to discuss with: one sentence instead of the form, on the paper as on the seed.
    for text in html.values():
        assert ALONE in text
        assert 'id="comment-form"' not in text
    stamps = {
        label: client.get(_url("discussion_stamp", label, "A1"))
        for label in (submitted["alone"], submitted["seed"])
    }
    assert [(s.status_code, s["Content-Type"]) for s in stamps.values()] == [
        (200, "text/plain; charset=utf-8")
    ] * 2


def test_a_comment_on_a_cell_graded_alone_is_refused_alike_and_never_stored(client, submitted):
    client.force_login(submitted["alice"])
    answers = {
        label: client.post(_url("discussion_comment", label, "A1"), {"text": "Is 9 fair?"})
        for label in (submitted["alone"], submitted["seed"])
    }
    assert [answer.status_code for answer in answers.values()] == [403, 403]
    for answer in answers.values():
        assert ALONE in answer.content.decode()
    assert shape(answers[submitted["alone"]].content.decode(), submitted["alone"]) == shape(
        answers[submitted["seed"]].content.decode(), submitted["seed"]
    )
    assert not Comment.objects.exists()
    # A paper graded by two takes the juror's comment; the chair comments on one graded alone.
    shared = client.post(_url("discussion_comment", submitted["shared"], "A1"), {"text": "8?"})
    assert shared.status_code == 302
    client.force_login(submitted["chair"])
    page = client.get(_url("discussion", submitted["alone"], "A1")).content.decode()
    assert 'id="comment-form"' in page and ALONE not in page
    chair = client.post(_url("discussion_comment", submitted["alone"], "A1"), {"text": "Fine."})
    assert chair.status_code == 302
    assert sorted(Comment.objects.values_list("author__username", flat=True)) == ["alice", "chen"]
    assert not Comment.objects.filter(paper=submitted["calibration_paper"]).exists()


def test_a_seed_mark_is_revised_in_the_resolution_phase_as_a_paper_graded_alone(client, submitted):
    """A juror revises their own mark on a paper they grade alone (the cell then reads as
    agreed in discussion); a seed's mark is revised the same way, through the seed's own
    mark service: no `Mark`, no `Resolution` on the calibration paper."""
    contest_resolution_open(contest=submitted["contest"], actor=submitted["chair"])
    client.force_login(submitted["alice"])
    before = _discussions(client, submitted)
    _same_discussion(submitted, before)
    assert 'id="revise-form"' in before[submitted["seed"]]
    labels = (submitted["alone"], submitted["seed"])
    # Each answer is followed to the cell's page, which says what became of the revision.
    for version, points in ((1, "8"), (1, "7"), (2, "")):
        answers = {
            label: client.post(
                _url("discussion_revise", label, "A1"),
                {"points": points, "version": version},
                follow=True,
            )
            for label in labels
        }
        assert [answer.status_code for answer in answers.values()] == [200, 200]
        _same_discussion(submitted, {label: a.content.decode() for label, a in answers.items()})
        texts = [_text(answers[label].content.decode(), label) for label in labels]
        assert texts[0] == texts[1]
    after = _discussions(client, submitted)
    _same_discussion(submitted, after)
    for text in after.values():
        assert 'id="cell-status">agreed in discussion<' in text
        assert "revised after submission" in text
    mark = CalibrationMark.objects.get(seed__label=submitted["seed"], criterion__code="A1")
    assert mark.points == Decimal("8")
    assert not Resolution.objects.filter(paper=submitted["calibration_paper"]).exists()
    assert not Mark.objects.filter(paper=submitted["calibration_paper"]).exists()
    grid = {label: _comparison(client, "", label).content.decode() for label in labels}
    assert shape(grid[labels[0]], labels[0]) == shape(grid[labels[1]], labels[1])
    assert "discussed 8" in grid[submitted["seed"]]


def test_another_juror_and_the_chair_read_no_seed_and_get_404_for_its_cell(client, submitted):
    seed, bobs = submitted["seed"], submitted["bobs_seed"]
    organizer = make_user("olga", roles.ORGANIZER)
    for reader in (submitted["bob"], submitted["chair"], organizer):
        client.force_login(reader)
        for query in _COMPARISON_VIEWS.values():
            page = client.get(_url("comparison") + f"?{query.rstrip('&')}").content.decode()
            labels = set(_row_labels(page))
            assert seed not in labels
            # Bob reads his own seed among his papers; the chair and the organizer no seed.
            expected = {submitted["shared"], submitted["alone"]}
            if reader == submitted["bob"] and "discrepancies" not in query:
                expected.add(bobs)
            if "discrepancies" in query:
                expected = {submitted["shared"]}
            assert labels == expected
        gets = [_url("discussion", seed, "A1"), _url("discussion_stamp", seed, "A1")]
        posts = [
            (_url("discussion_comment", seed, "A1"), {"text": "x"}),
            (_url("discussion_revise", seed, "A1"), {"points": "1", "version": 1}),
            (_url("discussion_decide", seed, "A1"), {"points": "1", "reason_text": "x"}),
            (_url("discussion_ask_revise", seed, "A1"), {"juror": "alice", "text": "x"}),
        ]
        assert [client.get(url).status_code for url in gets] == [404, 404]
        assert [client.post(url, data).status_code for url, data in posts] == [404] * 4
    assert not Comment.objects.exists()
    assert not Resolution.objects.exists()


def test_a_seeds_paper_graded_live_by_colleagues_is_no_row_of_its_jurors_comparison(
    client, submitted
):
    """Found with finding 6: when colleagues grade the seed's calibration paper live, alice's
    comparison listed it under its live label too, and its answers beside the seed's gave the
    seed away. It is kept from her as a conflict keeps a paper; bob reads it."""
    problem, hidden = submitted["problem"], submitted["hidden"]
    Assignment.objects.create(
        paper=submitted["calibration_paper"], problem=problem, juror=submitted["bob"]
    )
    client.force_login(submitted["alice"])
    for query in _COMPARISON_VIEWS.values():
        page = client.get(_url("comparison") + f"?{query.rstrip('&')}").content.decode()
        assert hidden not in _row_labels(page)
        assert not _reads(hidden, page)
    page = client.get(_url("comparison") + f"?paper={hidden}").content.decode()
    assert hidden not in _row_labels(page)
    for url in (_url("discussion", hidden, "A1"), _url("discussion_stamp", hidden, "A1")):
        assert client.get(url).status_code == 404
    response = client.post(_url("discussion_comment", hidden, "A1"), {"text": "x"})
    assert response.status_code == 404
    assert not Comment.objects.exists()
    # The positive control: bob grades it, and his comparison lists it.
    client.force_login(submitted["bob"])
    page = client.get(_url("comparison")).content.decode()
    assert hidden in _row_labels(page)


def test_the_chairs_doors_a_juror_may_not_use_refuse_a_seed_as_a_paper(client, submitted):
    client.force_login(submitted["alice"])
    for name, data in (
        ("discussion_decide", {"points": "1", "reason_text": "x"}),
        ("discussion_ask_revise", {"juror": "alice", "text": "x"}),
    ):
        answers = [
            client.post(_url(name, label, "A1"), data).status_code
            for label in (submitted["alone"], submitted["seed"])
        ]
        assert answers == [403, 403]


def test_a_jurors_comparison_with_seeds_takes_a_fixed_number_of_queries(
    db, client, django_assert_num_queries
):
    counts = []
    for slug, papers, seeds in (("small", 2, 0), ("large", 9, 3)):
        world = seed_scenario.build(papers=papers, slug=slug, spare=seeds)
        alice = world["jurors"][0]
        for index, spare in enumerate(world["spare"]):
            paper = CalibrationPaper.objects.create(
                round=world["round"], paper=spare, label=f"K{index + 2}", for_seeding=True
            )
            seed = Seed.objects.create(calibration_paper=paper, juror=alice, label=f"S{index}Q")
            for criterion in world["problem"].criteria.all():
                CalibrationMark.objects.create(
                    calibration_paper=paper, seed=seed, criterion=criterion, points=Decimal(1)
                )
        Mark.objects.filter(sheet__juror=alice).update(points=Decimal(2))
        Sheet.objects.filter(juror=alice).update(state=Sheet.State.SUBMITTED)
        client.force_login(alice)
        for query in ("", "?view=totals", "?criterion=A1"):
            with CaptureQueriesContext(connection) as queries:
                page = client.get(reverse("comparison", args=[slug, 1]) + query)
            assert page.status_code == 200
            assert len(_row_labels(page.content.decode())) == papers - 1 + 1 + seeds
            counts.append(len(queries))
    # The chair's page's sixteen, four for the juror's access (their group, their sheet, their
    # conflicts) and one for their seeds' marks, whatever the number of papers and seeds.
    assert counts == [21] * 6
