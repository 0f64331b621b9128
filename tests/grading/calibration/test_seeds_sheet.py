"""A seed in the juror's live sheet: a row like any other (same markup, sorted among the rows,
counted in the progress and the submit check), its cells saved as calibration marks through
the sheet's own doors, recorded, validated, never a `Mark`, and its label nobody else's."""

import io
import re
from decimal import Decimal

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.calibration.seeds import seeds_draw
from grading.marking.marks import mark_set
from grading.models import CalibrationMark, CalibrationMarkEvent, Mark, MarkEvent, PaperLabel, Seed
from grading.resolution.contest_grading import contest_results
from tests.grading.calibration import seed_scenario


@pytest.fixture
def world(db):
    # Two spare papers that nobody grades live, for the query test's later calibration papers.
    return seed_scenario.build(spare=2)


def _seed(world, juror=None) -> Seed:
    return Seed.objects.get(juror=juror or world["jurors"][0])


def _labels(world, juror=None) -> list[str]:
    live = PaperLabel.objects.filter(problem=world["problem"], paper__in=world["live"]).values_list(
        "label", flat=True
    )
    return sorted([*live, _seed(world, juror).label])


def _url(world, name, *args):
    return reverse(name, args=[world["contest"].slug, 1, *args])


def _rows(html: str) -> dict[str, str]:
    return {
        match.group(1): match.group(0)
        for match in re.finditer(r'<tr id="row-([A-Z0-9]+)".*?</tr>', html, re.S)
    }


def _blanked(row: str, label: str) -> str:
    row = row.replace(label, "LABEL")
    return re.sub(r'(value|data-saved|data-version|data-note)="[^"]*"', r'\1=""', row)


def test_the_seed_is_a_row_of_the_sheet_sorted_among_the_papers_with_the_same_markup(client, world):
    alice = world["jurors"][0]
    client.force_login(alice)
    response = client.get(_url(world, "sheet"))
    html = response.content.decode()
    rows = _rows(html)
    assert list(rows) == _labels(world)
    seed = _seed(world).label
    real = next(label for label in rows if label != seed)
    shapes = {_blanked(row.replace(' class="selected"', ""), label) for label, row in rows.items()}
    assert len(shapes) == 1, (rows[seed], rows[real])
    # As a word of its own: "K1" inside the CSRF token is there by chance in one page in a hundred.
    assert not re.search(r"(?<![A-Za-z0-9])K1(?![A-Za-z0-9])", html)
    # 4 rows × 2 criteria: the seed's two cells are counted as the papers'.
    assert re.search(r'<progress id="sheet-progress" max="8" value="0"', html)


def _save(client, world, label, code, points, version, name="sheet_cell_save"):
    return client.post(_url(world, name, label, code), {"points": points, "version": version})


def test_a_seed_cell_saves_a_calibration_mark_with_its_history_and_no_mark(client, world):
    alice = world["jurors"][0]
    client.force_login(alice)
    label = _seed(world).label
    marks_before = sorted(Mark.objects.values_list("pk", "points", "version"))
    response = _save(client, world, label, "A1", "9.5", 0)
    assert response.json() == {"points": "9.5", "note": "", "version": 1, "saved": True}
    note = client.post(_url(world, "sheet_note_save", label, "A1"), {"note": "x", "version": 1})
    assert note.json()["version"] == 2
    mark = CalibrationMark.objects.get(seed__juror=alice, criterion__code="A1")
    assert (mark.points, mark.note, mark.version) == (Decimal("9.5"), "x", 2)
    assert list(
        CalibrationMarkEvent.objects.filter(mark=mark).values_list(
            "actor__username", "old_points", "new_points", "new_note", "version"
        )
    ) == [("alice", None, Decimal("9.5"), "", 1), ("alice", Decimal("9.5"), Decimal("9.5"), "x", 2)]
    assert sorted(Mark.objects.values_list("pk", "points", "version")) == marks_before
    assert not MarkEvent.objects.exists()
    history = client.get(_url(world, "sheet_cell_history", label, "A1") + "?partial=1")
    assert history.status_code == 200
    assert history.content.decode().count('data-channel="browser"') == 2


def test_a_seed_cell_refuses_bad_points_and_a_stale_version_and_writes_nothing(client, world):
    client.force_login(world["jurors"][0])
    label = _seed(world).label
    too_many = _save(client, world, label, "A1", "13", 0)
    assert too_many.status_code == 422
    assert too_many.json()["error"] == (
        "Criterion A1: 13 is more than the 12 points this criterion allows."
    )
    off_step = _save(client, world, label, "A1", "2.25", 0)
    assert off_step.json()["error"] == "Criterion A1: 2.25 is not a multiple of the step 0.5."
    assert _save(client, world, label, "A1", "4", 0).json()["saved"] is True
    stale = _save(client, world, label, "A1", "5", 0)
    assert stale.status_code == 409
    assert stale.json()["points"] == "4"
    assert CalibrationMarkEvent.objects.count() == 1


def _fill(client, world, juror, value="4"):
    client.force_login(juror)
    for mark in Mark.objects.filter(sheet__juror=juror).select_related("criterion"):
        mark_set(mark=mark, points=Decimal(value), actor=juror, channel="browser")


def test_the_sheet_cannot_be_submitted_while_a_seed_cell_is_blank_nor_blanked_after(client, world):
    alice = world["jurors"][0]
    _fill(client, world, alice)
    label = _seed(world).label
    refused = client.post(_url(world, "sheet_submit"), follow=True)
    assert f"{label} A1, {label} T1" in refused.content.decode()
    assert alice.sheets.get().state == "draft"
    _save(client, world, label, "A1", "10", 0)
    _save(client, world, label, "T1", "5", 0)
    client.post(_url(world, "sheet_submit"))
    assert alice.sheets.get().state == "submitted"
    # Read-only after submitting, as every cell of the sheet.
    locked = _save(client, world, label, "A1", "", 1)
    assert locked.status_code == 403
    assert CalibrationMark.objects.get(seed__juror=alice, criterion__code="A1").points == 10


def test_a_seed_label_names_nothing_for_another_juror(client, world):
    alice, bob = world["jurors"]
    label = _seed(world, alice).label
    client.force_login(bob)
    assert _save(client, world, label, "A1", "4", 0).status_code == 404
    assert client.get(_url(world, "sheet_cell_history", label, "A1")).status_code == 404
    assert client.get(_url(world, "sheet_solution", label)).status_code == 404
    assert client.get(_url(world, "scan_page_image", label, 1)).status_code == 404
    assert client.get(_url(world, "paper_detail", label)).status_code == 404
    client.force_login(alice)
    assert client.get(_url(world, "paper_detail", label)).status_code == 200
    solution = client.get(_url(world, "sheet_solution", label))
    assert solution.status_code == 200
    assert f"Paper {label}" in solution.content.decode()


def test_seed_marks_never_reach_the_results(client, world):
    alice, bob = world["jurors"]
    for juror in (alice, bob):
        _fill(client, world, juror)
        label = _seed(world, juror).label
        _save(client, world, label, "A1", "12", 0)
        _save(client, world, label, "T1", "8", 0)
        client.post(_url(world, "sheet_submit"))
    results = contest_results(world["contest"])
    shown = [(paper.paper_id, paper.total, paper.problems_graded) for paper in results.papers]
    # The calibration paper is graded by no one live, and without the seed marks the results
    # are the same to the cent.
    assert world["calibration_paper"].pk not in [row[0] for row in shown]
    CalibrationMark.objects.all().delete()
    again = contest_results(world["contest"])
    assert [(p.paper_id, p.total, p.problems_graded) for p in again.papers] == shown
    client.force_login(world["chair"])
    comparison = client.get(_url(world, "comparison")).content.decode()
    for juror in (alice, bob):
        assert _seed(world, juror).label not in comparison


def _sheet_queries(client, juror, url) -> int:
    client.force_login(juror)
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_the_sheet_runs_the_same_queries_with_one_seed_and_with_three(client, world):
    alice = world["jurors"][0]
    url = _url(world, "sheet") + "?row=" + _labels(world)[0]
    one = _sheet_queries(client, alice, url)
    for position, paper in enumerate(world["spare"], start=2):
        world["round"].papers.create(
            paper=paper, label=f"K{position}", position=position, for_seeding=True
        )
    seeds_draw(world["round"])
    assert Seed.objects.filter(juror=alice).count() == 3
    assert _sheet_queries(client, alice, url) == one


def test_the_xlsx_download_holds_the_seed_row_and_its_upload_writes_the_seed_marks(client, world):
    alice = world["jurors"][0]
    client.force_login(alice)
    label = _seed(world).label
    response = client.get(_url(world, "sheet_xlsx"))
    book = openpyxl.load_workbook(io.BytesIO(response.content))
    marks = book["Marks"]
    rows = {cell.value: cell.row for cell in marks["A"] if cell.value}
    assert [value for value in rows if value in _labels(world)] == _labels(world)
    row = rows[label]
    marks.cell(row=row, column=2).value = 7
    marks.cell(row=row, column=3).value = 5.5
    buffer = io.BytesIO()
    book.save(buffer)
    upload = client.post(
        _url(world, "sheet_xlsx_upload"),
        {"file": SimpleUploadedFile("sheet.xlsx", buffer.getvalue())},
    )
    pending = client.get(upload["Location"]).context["pending"]
    assert pending["errors"] == []
    assert [(c["label"], c["code"], c["new"]) for c in pending["changes"]] == [
        (label, "A1", "7"),
        (label, "T1", "5.5"),
    ]
    confirmed = client.post(
        _url(world, "sheet_xlsx_confirm"),
        {"token": pending["token"], "action": "confirm"},
        follow=True,
    )
    assert [str(m) for m in confirmed.context["messages"]] == ["2 marks changed from “sheet.xlsx”."]
    assert sorted(
        CalibrationMark.objects.filter(seed__juror=alice).values_list("criterion__code", "points")
    ) == [("A1", Decimal("7")), ("T1", Decimal("5.5"))]
    assert set(CalibrationMarkEvent.objects.values_list("channel", flat=True)) == {"xlsx"}
    assert not MarkEvent.objects.exists()
    history = client.get(_url(world, "sheet_cell_history", label, "A1") + "?partial=1")
    assert "XLSX upload" in history.content.decode()
