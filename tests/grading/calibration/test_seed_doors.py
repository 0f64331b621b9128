"""Every door a juror's real paper opens by its label opens the same way by a seed's label:
the same status and the same shape (HTML with labels, values and random names blanked compare
equal, JSON with the same keys, the same printouts and spreadsheet row), the seed's label and
never its calibration paper's live label, "K1" or identity; and another juror gets 404 for the
seed's label at every door. The juror, alice, has one real paper and one seed."""

import io
import re
import subprocess
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import openpyxl
import pytest
from django.urls import reverse
from PIL import Image

from grading.assigning.help import help_answer, help_assign
from grading.models import HelpRequest, Notification, PaperLabel, ScanPage, Seed
from grading.printing.selectors import problem_print
from grading.rules import roles
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
