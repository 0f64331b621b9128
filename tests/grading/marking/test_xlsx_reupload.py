"""Uploading a workbook that the app has moved on from: the same file uploaded again after it
was confirmed, a cell changed both in the file and in the app (a conflict, shown with both
values), and a change to a cell the chair decided. A cell is judged against what it held at
the download (the stamp), so only a cell the file changes is ever written or held."""

import json
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from pytest_django.asserts import assertContains

from grading.marking.marks import mark_set
from grading.marking.xlsx import stamp_signature
from grading.models import MarkEvent
from tests.grading.marking.test_xlsx import (
    _bytes,
    _confirm,
    _download,
    _labels,
    _mark,
    _messages,
    _note_row,
    _row,
    _snapshot,
    _upload,
)


@pytest.fixture
def alice(client, contest, juror):
    client.force_login(juror)
    return juror


def _held(pending) -> list[tuple]:
    return [
        (cell["row"], cell["column"], cell["label"], cell["code"], cell["file"], cell["app"])
        for cell in pending["held"]
    ]


def _changes(pending) -> list[tuple]:
    return [
        (change["label"], change["code"], change["old"], change["new"])
        for change in pending["changes"]
    ]


def test_the_same_file_uploaded_again_with_one_more_cell_filled_writes_only_that_cell(
    client, contest, alice
):
    first, second, third = _labels(contest)
    book = _download(client, contest)
    marks = book["Marks"]
    marks[f"B{_row(book, first)}"] = 10
    marks[f"C{_row(book, first)}"] = 7.5
    _confirm(client, contest, _upload(client, contest, book))
    events = MarkEvent.objects.count()

    # The juror keeps working in the same file: its stamp still says what the cells held at
    # the download, and the two cells confirmed above now hold in the app what the file says.
    marks[f"B{_row(book, third)}"] = 4
    pending = _upload(client, contest, book)
    assert pending["errors"] == []
    assert _held(pending) == []
    assert pending["already"] == [f"{first} A1", f"{first} T1"]
    assert _changes(pending) == [(third, "A1", None, "4")]
    response = _confirm(client, contest, pending)
    assert _messages(response) == ["1 mark changed from “sheet.xlsx”."]
    assert MarkEvent.objects.count() == events + 1
    assert [
        _mark(alice, label, code).points
        for label, code in ((first, "A1"), (first, "T1"), (third, "A1"), (second, "A1"))
    ] == [Decimal("10"), Decimal("7.5"), Decimal("4"), None]


def test_the_same_file_uploaded_again_unchanged_says_nothing_to_change(client, contest, alice):
    first = _labels(contest)[0]
    book = _download(client, contest)
    book["Marks"][f"B{_row(book, first)}"] = 10
    _confirm(client, contest, _upload(client, contest, book))
    before = _snapshot()
    pending = _upload(client, contest, book)
    assert (pending["changes"], pending["errors"], pending["held"]) == ([], [], [])
    assert pending["already"] == [f"{first} A1"]
    assert _snapshot() == before


def test_a_cell_changed_in_the_file_and_in_the_app_is_held_with_both_values_and_the_rest_applies(
    client, contest, alice
):
    first, second, _ = _labels(contest)
    book = _download(client, contest)
    mark_set(mark=_mark(alice, first, "A1"), points=Decimal("3"), actor=alice, channel="browser")
    book["Marks"][f"B{_row(book, first)}"] = 5
    book["Marks"][f"B{_row(book, second)}"] = 6
    pending = _upload(client, contest, book)
    assert pending["errors"] == []
    assert _held(pending) == [(_row(book, first), "B", first, "A1", "5", "3")]
    [held] = pending["held"]
    assert held["reason"].startswith(
        "Changed in the app too since the download (blank at the download, 3 in the app at "
    )
    assert _changes(pending) == [(second, "A1", None, "6")]

    response = _confirm(client, contest, pending)
    assert _messages(response) == ["1 mark changed from “sheet.xlsx”."]
    assert (_mark(alice, first, "A1").points, _mark(alice, second, "A1").points) == (
        Decimal("3"),
        Decimal("6"),
    )


def test_the_preview_shows_a_held_cell_with_the_files_and_the_apps_values(client, contest, alice):
    first = _labels(contest)[0]
    book = _download(client, contest)
    mark_set(mark=_mark(alice, first, "A1"), points=Decimal("3"), actor=alice, channel="browser")
    book["Marks"][f"B{_row(book, first)}"] = 5
    response = client.post(
        reverse("sheet_xlsx_upload", args=[contest.slug, 1]),
        {"file": SimpleUploadedFile("sheet.xlsx", _bytes(book))},
        follow=True,
    )
    assertContains(
        response,
        '<thead><tr><th scope="col">Row</th><th scope="col">Paper</th>'
        '<th scope="col">Criterion</th><th scope="col">In the file</th>'
        '<th scope="col">In the app</th><th scope="col">Why it is not written</th></tr></thead>',
        html=True,
    )
    assertContains(response, '<td class="held-file">5</td>', html=True)
    assertContains(response, '<td class="held-app">3</td>', html=True)


def test_a_note_changed_in_the_file_and_in_the_app_is_held_and_the_rest_applies(
    client, contest, alice
):
    first, second, _ = _labels(contest)
    book = _download(client, contest)
    mark_set(
        mark=_mark(alice, first, "A1"),
        points=None,
        note="in the app",
        actor=alice,
        channel="browser",
    )
    row = _note_row(book, first, "A1")
    book["Notes"][f"C{row}"] = "offline"
    book["Marks"][f"B{_row(book, second)}"] = 2
    pending = _upload(client, contest, book)
    assert pending["errors"] == []
    assert _held(pending) == [(row, "C", first, "A1", "offline", "in the app")]
    assert _changes(pending) == [(second, "A1", None, "2")]
    _confirm(client, contest, pending)
    assert (_mark(alice, first, "A1").note, _mark(alice, second, "A1").points) == (
        "in the app",
        Decimal("2"),
    )


def _stamped_without_notes(book) -> None:
    """The stamp as releases before the Notes tab wrote it: four entries a cell, no note."""
    stamp = book["stamp"]
    meta = stamp["A2"].value
    lines = []
    for row in range(4, stamp.max_row + 1):
        label, code, version, points, _note = json.loads(stamp.cell(row=row, column=1).value)
        lines.append(json.dumps([label, code, version, points]))
        stamp.cell(row=row, column=1).value = lines[-1]
    stamp["A3"] = stamp_signature([meta, *lines])


def test_a_workbook_stamped_by_an_earlier_release_is_read_and_uploaded_twice_as_a_new_one(
    client, contest, alice
):
    first, second, _ = _labels(contest)
    book = _download(client, contest)
    _stamped_without_notes(book)
    book["Marks"][f"B{_row(book, first)}"] = 3
    _confirm(client, contest, _upload(client, contest, book))
    book["Marks"][f"C{_row(book, second)}"] = 1.5
    pending = _upload(client, contest, book)
    assert (pending["errors"], pending["held"]) == ([], [])
    assert pending["already"] == [f"{first} A1"]
    assert _changes(pending) == [(second, "T1", None, "1.5")]
