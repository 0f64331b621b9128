"""The offline XLSX round-trip: what the downloaded workbook holds, and every way an uploaded
file is read, previewed, confirmed or refused. Every refusal asserts that nothing was written."""

import io
import re
from datetime import datetime
from decimal import Decimal

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from grading.marking.marks import mark_set
from grading.models import Mark, MarkEvent, PaperLabel, Sheet
from tests import factories


def _labels(contest, number: int = 1) -> list[str]:
    return sorted(
        PaperLabel.objects.filter(problem__contest=contest, problem__number=number).values_list(
            "label", flat=True
        )
    )


def _mark(juror, label: str, code: str, number: int = 1) -> Mark:
    return Mark.objects.get(
        sheet__juror=juror,
        sheet__problem__number=number,
        criterion__code=code,
        paper__labels__label=label,
        paper__labels__problem__number=number,
    )


def _snapshot():
    return (
        sorted(Mark.objects.values_list("pk", "points", "note", "version")),
        MarkEvent.objects.count(),
    )


def _download(client, contest, number: int = 1):
    response = client.get(reverse("sheet_xlsx", args=[contest.slug, number]))
    assert response.status_code == 200
    return openpyxl.load_workbook(io.BytesIO(response.content))


def _bytes(book) -> bytes:
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _upload(client, contest, book_or_bytes, number: int = 1) -> dict:
    """Upload, then return the pending preview the session keeps (changes, errors, token)."""
    data = book_or_bytes if isinstance(book_or_bytes, bytes) else _bytes(book_or_bytes)
    response = client.post(
        reverse("sheet_xlsx_upload", args=[contest.slug, number]),
        {"file": SimpleUploadedFile("sheet.xlsx", data)},
    )
    assert response.status_code == 302
    preview = client.get(response["Location"])
    assert preview.status_code == 200
    return preview.context["pending"]


def _confirm(client, contest, pending, number: int = 1):
    return client.post(
        reverse("sheet_xlsx_confirm", args=[contest.slug, number]),
        {"token": pending["token"], "action": "confirm"},
        follow=True,
    )


def _messages(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def _row(book, label: str) -> int:
    for cell in book["Marks"]["A"]:
        if cell.value == label:
            return cell.row
    raise AssertionError(label)


@pytest.fixture
def alice(client, contest, juror):
    client.force_login(juror)
    return juror


# ---- the downloaded workbook -------------------------------------------------------------------


def test_workbook_locks_labels_and_headers_and_unlocks_value_cells_with_validation(
    client, contest, alice
):
    label = _labels(contest)[0]
    mark_set(mark=_mark(alice, label, "A1"), points=Decimal("2.5"), actor=alice, channel="browser")
    book = _download(client, contest)
    assert book.sheetnames == ["Marks", "Notes", "Guidance", "stamp"]
    marks = book["Marks"]
    assert [cell.value for cell in marks[1]] == ["Paper", "A1", "T1", "Total"]
    assert [cell.value for cell in marks[2]] == ["Maximum", 12, 8, 20]
    assert [marks.cell(row=row, column=1).value for row in (3, 4, 5)] == _labels(contest)
    assert (marks["B3"].value, marks["C3"].value, marks["D3"].value) == (2.5, None, "=SUM(B3:C3)")
    assert marks.protection.sheet is True
    assert (marks["A3"].protection.locked, marks["B1"].protection.locked) == (True, True)
    assert (marks["B3"].protection.locked, marks["C5"].protection.locked) == (False, False)
    validations = [
        (v.type, v.operator, v.formula1, v.formula2, str(v.sqref))
        for v in marks.data_validations.dataValidation
    ]
    assert validations == [
        ("decimal", "between", "0", "12", "B3:B5"),
        ("decimal", "between", "0", "8", "C3:C5"),
    ]
    assert marks["B1"].comment.text.startswith("A1: assignment A1 (12 points, step 0.5)")
    guidance = book["Guidance"]
    assert [cell.value for cell in guidance["A"]] == ["Criterion", "A1", "T1"]


def test_stamp_is_very_hidden_and_names_sheet_juror_contest_problem_and_versions(
    client, contest, alice
):
    import json

    book = _download(client, contest)
    stamp = book["stamp"]
    assert stamp.sheet_state == "veryHidden"
    meta = json.loads(stamp["A2"].value)
    sheet = Sheet.objects.get(juror=alice, problem__number=1)
    assert {key: meta[key] for key in ("sheet", "juror_id", "juror", "contest", "problem")} == {
        "sheet": sheet.pk,
        "juror_id": alice.pk,
        "juror": "alice",
        "contest": "test",
        "problem": 1,
    }
    assert datetime.fromisoformat(meta["exported_at"]).tzinfo is not None
    rows = [json.loads(row[0]) for row in stamp.iter_rows(min_row=4, values_only=True)]
    assert rows == [[label, code, 0, "", ""] for label in _labels(contest) for code in ("A1", "T1")]


# ---- round trip ------------------------------------------------------------------------------


def test_preview_lists_every_change_and_confirm_writes_them_through_the_xlsx_channel(
    client, contest, alice
):
    first, second, _ = _labels(contest)
    mark_set(mark=_mark(alice, second, "T1"), points=Decimal("4"), actor=alice, channel="browser")
    book = _download(client, contest)
    marks = book["Marks"]
    marks.cell(row=_row(book, first), column=2).value = 10
    marks.cell(row=_row(book, first), column=3).value = 7.5
    marks.cell(row=_row(book, second), column=3).value = None
    before = _snapshot()
    pending = _upload(client, contest, book)
    assert pending["errors"] == []
    assert [
        (change["label"], change["code"], change["old"], change["new"])
        for change in pending["changes"]
    ] == [(first, "A1", None, "10"), (first, "T1", None, "7.5"), (second, "T1", "4.00", None)]
    assert _snapshot() == before  # the preview writes nothing

    response = _confirm(client, contest, pending)
    assert _messages(response) == ["3 marks changed from “sheet.xlsx”."]
    assert (_mark(alice, first, "A1").points, _mark(alice, first, "T1").points) == (
        Decimal("10"),
        Decimal("7.5"),
    )
    assert _mark(alice, second, "T1").points is None
    channels = list(
        MarkEvent.objects.filter(mark__sheet__juror=alice)
        .order_by("pk")
        .values_list("channel", flat=True)
    )
    assert channels == ["browser", "xlsx", "xlsx", "xlsx"]
    sheet = Sheet.objects.get(juror=alice, problem__number=1)
    assert client.session.get(f"sheet-upload:{sheet.pk}") is None


@pytest.mark.parametrize(
    ("changed", "button"), [(1, "Write this change"), (2, "Write these 2 changes")]
)
def test_the_preview_button_says_how_many_changes_it_writes(
    client, contest, alice, changed, button
):
    """Issue 31, finding 17: one change read "Write these 1 change"."""
    first = _labels(contest)[0]
    book = _download(client, contest)
    for column in range(2, 2 + changed):
        book["Marks"].cell(row=_row(book, first), column=column).value = 4
    data = _bytes(book)
    response = client.post(
        reverse("sheet_xlsx_upload", args=[contest.slug, 1]),
        {"file": SimpleUploadedFile("sheet.xlsx", data)},
        follow=True,
    )
    html = response.content.decode()
    assert re.search(r'id="confirm-upload">([^<]+)<', html).group(1) == button


def test_an_unchanged_file_changes_nothing(client, contest, alice):
    pending = _upload(client, contest, _download(client, contest))
    assert (pending["changes"], pending["errors"]) == ([], [])


def test_numbers_typed_as_text_are_read_as_points(client, contest, alice):
    first = _labels(contest)[0]
    book = _download(client, contest)
    book["Marks"].cell(row=_row(book, first), column=2).value = " 2,5 "
    pending = _upload(client, contest, book)
    assert [(change["label"], change["new"]) for change in pending["changes"]] == [(first, "2.5")]


def test_a_cell_changed_in_the_app_after_download_is_kept_when_the_file_leaves_it(
    client, contest, alice
):
    first, second, _ = _labels(contest)
    book = _download(client, contest)
    mark_set(mark=_mark(alice, first, "A1"), points=Decimal("3"), actor=alice, channel="browser")
    book["Marks"].cell(row=_row(book, second), column=2).value = 1
    pending = _upload(client, contest, book)
    assert pending["errors"] == []
    assert pending["kept"] == [f"{first} A1"]
    assert [(change["label"], change["code"]) for change in pending["changes"]] == [(second, "A1")]
    _confirm(client, contest, pending)
    assert (_mark(alice, first, "A1").points, _mark(alice, second, "A1").points) == (
        Decimal("3"),
        Decimal("1"),
    )


# ---- notes ------------------------------------------------------------------------------------


def _notes_rows(book) -> list[tuple]:
    return [tuple(row) for row in book["Notes"].iter_rows(values_only=True)]


def _note_row(book, label: str, code: str) -> int:
    for row in book["Notes"].iter_rows(min_row=2):
        if (row[0].value, row[1].value) == (label, code):
            return row[0].row
    raise AssertionError((label, code))


def test_the_workbook_holds_every_note_as_text_in_an_unlocked_column(client, contest, alice):
    first, second, third = _labels(contest)
    mark_set(
        mark=_mark(alice, first, "T1"),
        points=Decimal("3"),
        note="=2+2 is the rule, not a formula",
        actor=alice,
        channel="browser",
    )
    book = _download(client, contest)
    assert _notes_rows(book) == [
        ("Paper", "Criterion", "Note"),
        (first, "A1", None),
        (first, "T1", "=2+2 is the rule, not a formula"),
        (second, "A1", None),
        (second, "T1", None),
        (third, "A1", None),
        (third, "T1", None),
    ]
    notes = book["Notes"]
    assert notes["C3"].data_type == "s"
    assert notes.protection.sheet is True
    assert (notes["A2"].protection.locked, notes["C1"].protection.locked) == (True, True)
    assert (notes["C2"].protection.locked, notes["C7"].protection.locked) == (False, False)


def test_a_note_changed_offline_round_trips_through_mark_set(client, contest, alice):
    first, second, _ = _labels(contest)
    mark_set(
        mark=_mark(alice, first, "A1"),
        points=Decimal("5"),
        note="old",
        actor=alice,
        channel="browser",
    )
    book = _download(client, contest)
    book["Notes"][f"C{_note_row(book, first, 'A1')}"] = "  checked item 4 again  "
    book["Notes"][f"C{_note_row(book, second, 'T1')}"] = "no rule stated"
    book["Marks"].cell(row=_row(book, second), column=3).value = 2
    pending = _upload(client, contest, book)
    assert pending["errors"] == []
    assert [
        (
            change["label"],
            change["code"],
            change["old"],
            change["new"],
            change["old_note"],
            change["note"],
        )
        for change in pending["changes"]
    ] == [
        (second, "T1", None, "2", "", "no rule stated"),
        (first, "A1", "5.00", "5.00", "old", "checked item 4 again"),
    ]
    response = _confirm(client, contest, pending)
    assert _messages(response) == ["2 marks changed from “sheet.xlsx”."]
    changed = _mark(alice, first, "A1")
    assert (changed.points, changed.note) == (Decimal("5"), "checked item 4 again")
    both = _mark(alice, second, "T1")
    assert (both.points, both.note) == (Decimal("2"), "no rule stated")
    events = list(
        MarkEvent.objects.filter(mark__in=[changed, both], channel="xlsx")
        .order_by("pk")
        .values_list("old_points", "new_points", "old_note", "new_note")
    )
    assert events == [
        (None, Decimal("2"), "", "no rule stated"),
        (Decimal("5"), Decimal("5"), "old", "checked item 4 again"),
    ]
    # Downloaded again, the notes are there for the next offline session.
    again = _download(client, contest)
    assert again["Notes"][f"C{_note_row(again, first, 'A1')}"].value == "checked item 4 again"


def test_an_unchanged_notes_tab_or_a_missing_notes_row_changes_nothing(client, contest, alice):
    first = _labels(contest)[0]
    mark_set(
        mark=_mark(alice, first, "A1"),
        points=Decimal("5"),
        note="keep",
        actor=alice,
        channel="browser",
    )
    book = _download(client, contest)
    book["Notes"].delete_rows(_note_row(book, first, "A1"))
    pending = _upload(client, contest, book)
    assert (pending["changes"], pending["errors"]) == ([], [])
    assert _mark(alice, first, "A1").note == "keep"


def test_notes_tab_refusals_name_the_row(client, contest, alice):
    first, second, _ = _labels(contest)
    book = _download(client, contest)
    notes = book["Notes"]
    notes[f"C{_note_row(book, first, 'A1')}"] = "x" * 501
    notes[f"B{_note_row(book, second, 'A1')}"] = "Z9"
    notes.append(["", "", "a note without its cell"])
    last = notes.max_row
    assert _refused(client, contest, book) == [
        (
            2,
            "C",
            f"Notes tab, row 2: the note of paper {first}, criterion A1 is 501 characters long; "
            "shorten it to 500 at most.",
        ),
        (
            4,
            "A",
            f"Notes tab, row 4: paper {second}, criterion Z9 is not a cell of this sheet; rows "
            "cannot be added or relabelled.",
        ),
        (
            last,
            "A",
            f"Notes tab, row {last}: the paper and criterion are missing; keep them as they were "
            "downloaded.",
        ),
    ]


# ---- refusals: each writes nothing -----------------------------------------------------------


def _refused(client, contest, book_or_bytes, number: int = 1) -> list[tuple]:
    """Upload, try to confirm anyway, assert nothing was written; the errors shown."""
    before = _snapshot()
    pending = _upload(client, contest, book_or_bytes, number)
    response = _confirm(client, contest, pending, number)
    assert _messages(response) == ["The file has errors; fix them and upload it again."]
    assert _snapshot() == before
    return [(error["row"], error["column"], error["message"]) for error in pending["errors"]]


CASES = {
    "formula": lambda book, first, _: setattr(
        book["Marks"][f"B{_row(book, first)}"], "value", "=1+1"
    ),
    "text": lambda book, first, _: setattr(book["Marks"][f"C{_row(book, first)}"], "value", "two"),
    "date": lambda book, first, _: setattr(
        book["Marks"][f"B{_row(book, first)}"], "value", datetime(2026, 7, 20)
    ),
    "over the maximum": lambda book, first, _: setattr(
        book["Marks"][f"B{_row(book, first)}"], "value", 13
    ),
    "off the step": lambda book, first, _: setattr(
        book["Marks"][f"C{_row(book, first)}"], "value", 1.3
    ),
}


@pytest.mark.parametrize(
    ("case", "column", "message"),
    [
        ("formula", "B", "criterion A1: the cell holds a formula (=1+1); type the number itself."),
        (
            "text",
            "C",
            "criterion T1: “two” is text, not a number of points; type a number or leave it empty.",
        ),
        ("date", "B", "criterion A1: the cell holds a date or time, not a number of points."),
        (
            "over the maximum",
            "B",
            "criterion A1: 13 is more than the 12 points this criterion allows.",
        ),
        ("off the step", "C", "criterion T1: 1.3 is not a multiple of the step 0.5."),
    ],
)
def test_a_bad_value_is_refused_naming_row_column_and_paper(
    client, contest, alice, case, column, message
):
    first, second, _ = _labels(contest)
    book = _download(client, contest)
    # A good change beside the bad one: it must not be written either.
    book["Marks"][f"B{_row(book, second)}"] = 2
    CASES[case](book, first, second)
    row = _row(book, first)
    assert _refused(client, contest, book) == [
        (row, column, f"Row {row}, column {column} (paper {first}), {message}")
    ]


def test_merged_cells_are_refused(client, contest, alice):
    book = _download(client, contest)
    book["Marks"].merge_cells("B4:C4")
    assert _refused(client, contest, book) == [
        (
            4,
            "B",
            "Row 4, column B: cells B4:C4 are merged; unmerge them so that every mark has its "
            "own cell.",
        )
    ]


def test_a_deleted_row_is_refused(client, contest, alice):
    labels = _labels(contest)
    book = _download(client, contest)
    book["Marks"].delete_rows(4)
    assert _refused(client, contest, book) == [
        (
            None,
            None,
            f"The row of paper {labels[1]} is missing; rows must not be deleted (leave a cell "
            "empty for a mark you have not given).",
        )
    ]


def test_an_added_row_is_refused(client, contest, alice):
    book = _download(client, contest)
    book["Marks"].append(["ZZZZ", 1, 1])
    assert _refused(client, contest, book) == [
        (6, "A", "Row 6, column A: “ZZZZ” is not a paper of this sheet; rows cannot be added.")
    ]


def test_a_duplicated_row_is_refused(client, contest, alice):
    first = _labels(contest)[0]
    book = _download(client, contest)
    book["Marks"].append([first, 1, 1])
    assert _refused(client, contest, book) == [
        (
            6,
            "A",
            f"Row 6, column A: paper {first} appears twice (rows 3 and 6); keep one row per paper.",
        )
    ]


def test_values_in_a_row_without_label_are_refused(client, contest, alice):
    book = _download(client, contest)
    book["Marks"]["A4"] = None
    book["Marks"]["B4"] = 1
    errors = _refused(client, contest, book)
    assert errors[0] == (
        4,
        "A",
        "Row 4, column A: the paper label is missing; rows must keep the label they were "
        "downloaded with.",
    )
    assert len(errors) == 2  # and that paper's row is missing


def test_a_deleted_column_is_refused(client, contest, alice):
    book = _download(client, contest)
    book["Marks"].delete_cols(2)
    assert _refused(client, contest, book) == [
        (
            1,
            "B",
            "Row 1, column B: expected criterion “A1”, found “T1”; columns must not be moved, "
            "inserted or deleted.",
        ),
        (
            1,
            "C",
            "Row 1, column C: expected criterion “T1”, found “Total”; columns must not be moved, "
            "inserted or deleted.",
        ),
    ]


def test_an_edited_stamp_is_refused(client, contest, alice):
    book = _download(client, contest)
    stamp = book["stamp"]
    stamp["A4"] = stamp["A4"].value.replace(", 0, ", ", 7, ")
    assert _refused(client, contest, book) == [
        (
            None,
            None,
            "The file's stamp was changed; download a fresh copy of your sheet and enter your "
            "marks there.",
        )
    ]


def test_a_file_without_stamp_is_refused(client, contest, alice):
    book = _download(client, contest)
    del book["stamp"]
    [(_, _, message)] = _refused(client, contest, book)
    assert message.startswith("The file has no stamp: it was not downloaded from a Jury sheet")


def test_a_file_that_is_not_xlsx_is_refused(client, contest, alice):
    [(_, _, message)] = _refused(client, contest, b"Paper,A1,T1\nKXT4,1,2\n")
    assert message == (
        "The file could not be read as an XLSX workbook (BadZipFile); upload the .xlsx file "
        "downloaded from your sheet."
    )


def test_another_jurors_file_is_refused(client, contest, juror, other_juror):
    client.force_login(other_juror)
    book = _download(client, contest)
    book["Marks"]["B3"] = 1
    client.force_login(juror)
    assert _refused(client, contest, book) == [
        (
            None,
            None,
            "This file is another juror's sheet; upload the file downloaded from your own sheet.",
        )
    ]


def test_a_file_of_another_problem_is_refused(client, contest, alice):
    factories.assign(contest, [alice], problems=[2])
    book = _download(client, contest, 2)
    assert _refused(client, contest, book, 1) == [
        (None, None, "This file is your sheet for P2, not for P1; upload it on the P2 sheet.")
    ]


def test_a_file_of_another_contest_is_refused(client, contest, alice):
    other = factories.make_contest("other", problems=1)
    factories.assign(other, [alice])
    book = _download(client, other)
    assert _refused(client, contest, book) == [
        (
            None,
            None,
            "This file is a sheet of another contest (“other”), not of Contest test; upload it "
            "on that contest's sheet.",
        )
    ]


def test_a_mark_changed_between_preview_and_confirm_refuses_the_whole_file(client, contest, alice):
    first, second, _ = _labels(contest)
    book = _download(client, contest)
    book["Marks"][f"B{_row(book, first)}"] = 5
    book["Marks"][f"B{_row(book, second)}"] = 6
    pending = _upload(client, contest, book)
    assert len(pending["changes"]) == 2
    mark_set(mark=_mark(alice, second, "A1"), points=Decimal("1"), actor=alice, channel="browser")
    before = _snapshot()
    [message] = _messages(_confirm(client, contest, pending))
    assert message.startswith(
        f"Row {_row(book, second)}, column B (paper {second}, criterion A1): This mark was "
        "changed to 1 at "
    )
    assert message.endswith("Nothing was written.")
    assert _snapshot() == before


def test_a_confirmation_with_another_token_is_refused(client, contest, alice):
    book = _download(client, contest)
    book["Marks"]["B3"] = 5
    pending = _upload(client, contest, book)
    before = _snapshot()
    response = _confirm(client, contest, {**pending, "token": "forged"})
    assert _messages(response) == [
        "This upload is no longer waiting for confirmation; upload the file again."
    ]
    assert _snapshot() == before


def test_a_submitted_sheet_refuses_uploads(client, contest, alice):
    book = _download(client, contest)
    book["Marks"]["B3"] = 5
    Sheet.objects.filter(juror=alice).update(state="submitted")
    before = _snapshot()
    response = client.post(
        reverse("sheet_xlsx_upload", args=[contest.slug, 1]),
        {"file": SimpleUploadedFile("sheet.xlsx", _bytes(book))},
        follow=True,
    )
    [message] = _messages(response)
    assert message.endswith("it is read-only until the contest enters the resolution phase.")
    assert _snapshot() == before
