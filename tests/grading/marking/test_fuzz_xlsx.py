"""Fuzzing the upload of a juror's XLSX sheet: a workbook downloaded through the app, with hostile
values in its Marks tab, rows and columns moved, a tampered stamp (as edited by hand, and as
re-signed so that its JSON itself is read), damaged zip members or bytes. Every upload goes
through the real views: a page or a redirect, never a traceback; a preview of changes or
sentences saying what is wrong; and nothing written until a confirmed, valid preview writes
exactly its changes, one MarkEvent each."""

import io
import json
import zipfile
from datetime import date, datetime, time, timedelta
from decimal import Decimal

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import escape
from hypothesis import event, given
from hypothesis import strategies as st
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE, MergedCell
from openpyxl.utils.exceptions import IllegalCharacterError
from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula

from grading.marking.marks import mark_set
from grading.marking.views import XLSX_TYPE
from grading.marking.xlsx import FIRST_ROW, MARKS, STAMP, stamp_signature
from grading.models import Mark, MarkEvent, PaperLabel
from rubrics.models import Criterion
from tests.fuzz import (
    DEEP_JSON,
    HOSTILE_TEXTS,
    LONG_JSON,
    NESTED_JSON,
    assert_sentences,
    damage,
    fuzz_settings,
    hostile_json,
    hostile_text,
    json_dumps,
    mutate_anywhere,
    raw_or,
    rolled_back,
    row_counts,
)

REFUSED = "The file has errors; fix them and upload it again."
# Stands for a value openpyxl will not write (control characters): put into the XML afterwards.
RAW_MARK = "⟦raw⟧"


# ---- fixtures and the round trip through the views ------------------------------------------


@pytest.fixture
def alice(client, contest, juror):
    client.force_login(juror)
    return juror


@pytest.fixture
def downloaded(client, contest, alice) -> bytes:
    """The workbook of alice's P1 sheet as the app sends it, one mark given beforehand so that
    the stamp holds a value and a version other than blank and 0."""
    mark_set(
        mark=_mark(alice, _labels(contest)[0], "A1"),
        points=Decimal("2.5"),
        actor=alice,
        channel=MarkEvent.Channel.BROWSER,
    )
    response = client.get(reverse("sheet_xlsx", args=[contest.slug, 1]))
    assert response.status_code == 200
    return response.content


def _labels(contest) -> list[str]:
    return sorted(
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1).values_list(
            "label", flat=True
        )
    )


def _mark(juror, label: str, code: str) -> Mark:
    return Mark.objects.get(
        sheet__juror=juror,
        sheet__problem__number=1,
        criterion__code=code,
        paper__labels__label=label,
        paper__labels__problem__number=1,
    )


def _marks() -> dict[int, tuple]:
    return {pk: rest for pk, *rest in Mark.objects.values_list("pk", "points", "note", "version")}


def _messages(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def _upload(client, contest, data: bytes):
    """POST the file as the browser does; the preview page and what the session keeps."""
    response = client.post(
        reverse("sheet_xlsx_upload", args=[contest.slug, 1]),
        {"file": SimpleUploadedFile("sheet.xlsx", data, content_type=XLSX_TYPE)},
    )
    assert response.status_code == 302, response.status_code
    preview = client.get(response["Location"])
    assert preview.status_code == 200, preview.status_code
    return preview, preview.context["pending"]


def _confirm(client, contest, pending):
    response = client.post(
        reverse("sheet_xlsx_confirm", args=[contest.slug, 1]),
        {"token": pending["token"], "action": "confirm"},
        follow=True,
    )
    assert response.status_code == 200, response.status_code
    return response


def _upload_and_confirm(client, contest, juror, data: bytes) -> dict:
    """Upload (which writes nothing), then confirm: a refused file still writes nothing, a
    valid one writes exactly the changes of its preview, one XLSX MarkEvent each."""
    marks, counts = _marks(), row_counts()
    preview, pending = _upload(client, contest, data)
    assert (_marks(), row_counts()) == (marks, counts), "the upload wrote before confirmation"
    response = _confirm(client, contest, pending)
    if pending["errors"]:
        # The changes a file would make once fixed may be listed beside its errors; the
        # confirmation below writes none of them.
        messages = [error["message"] for error in pending["errors"]]
        assert_sentences(messages)
        page = preview.content.decode()
        for message in messages:
            assert escape(message) in page
        assert _messages(response) == [REFUSED]
        assert (_marks(), row_counts()) == (marks, counts)
    else:
        _assert_written_exactly(juror, pending, marks, counts, _messages(response))
    return pending


def _record(pending: dict) -> dict:
    """What became of the example, for --hypothesis-show-statistics."""
    event("refused" if pending["errors"] else "changes" if pending["changes"] else "no change")
    return pending


def _assert_written_exactly(juror, pending, marks, counts, messages) -> None:
    changes = pending["changes"]
    written = len(changes)
    assert messages == [f"{written} mark{'s' if written != 1 else ''} changed from “sheet.xlsx”."]
    changed = set()
    for change in changes:
        mark = _mark(juror, change["label"], change["code"])
        expected = None if change["new"] is None else Decimal(change["new"])
        assert (mark.points, mark.version) == (expected, change["version"] + 1)
        [event_] = mark.events.filter(version=mark.version)
        assert event_.channel == MarkEvent.Channel.XLSX
        changed.add(mark.pk)
    after = _marks()
    assert {pk for pk in after if after[pk] != marks[pk]} == changed
    assert row_counts() == {
        **counts,
        "grading.MarkEvent": counts["grading.MarkEvent"] + written,
    }


# ---- building hostile workbooks ---------------------------------------------------------------


def _book(data: bytes):
    return openpyxl.load_workbook(io.BytesIO(data))


def _save(book, raw: list[str]) -> bytes:
    buffer = io.BytesIO()
    book.save(buffer)
    blob = buffer.getvalue()
    return _put_raw_strings(blob, raw) if raw else blob


def _put_raw_strings(blob: bytes, raw: list[str]) -> bytes:
    """Replace each RAW_MARK in the shared strings with text openpyxl refuses to write, control
    characters included: what a broken program, or a hand-edited zip, would leave."""
    members = _members(blob)
    name = "xl/sharedStrings.xml"
    if name in members:
        text = members[name].decode("utf-8")
        for value in raw:
            text = text.replace(RAW_MARK, escape(value), 1)
        members[name] = text.encode("utf-8")
    return _zip(members)


def _members(blob: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def _set(cell, value, raw: list[str]) -> None:
    if isinstance(cell, MergedCell):
        return  # only the first cell of a merged range holds a value
    try:
        cell.value = value
    except IllegalCharacterError:
        cell.value = RAW_MARK
        raw.append(value)


_plain_number = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(),
    st.decimals(allow_nan=False, allow_infinity=False, places=3),
    st.sampled_from([0, 12, 12.5, 13, 8.5, 1.3, 0.25, -0.0, 5e-324, 1e308, -1e308, 10**40]),
)
cell_value = st.one_of(
    st.none(),
    _plain_number,
    hostile_text,
    st.booleans(),
    st.datetimes(min_value=datetime(1900, 3, 1), max_value=datetime(9999, 1, 1)),
    st.dates(min_value=date(1900, 3, 1)),
    st.times(),
    st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=9999)),
    st.sampled_from(
        [
            "=1+1",
            "=SUM(B3:C3)",
            "=B4",
            "=#REF!",
            "#N/A",
            "#DIV/0!",
            "#VALUE!",
            "x" * 40_000,
            "a\x00b",
            "\x00",
            "2\x0b5",
            LONG_JSON,
        ]
    ),
    st.builds(lambda: ArrayFormula("B3", "=SUM(B4:B5)")),
    st.builds(lambda: DataTableFormula(ref="B3", t="dataTable", r1="B4")),
)


def _mutate_marks(data, book, raw: list[str]) -> None:
    """One change to the Marks tab: a value, label or header cell; rows or columns deleted,
    inserted, moved or merged; the tab renamed or gone."""
    if MARKS not in book.sheetnames:
        return  # dropped by an earlier mutation
    marks = book[MARKS]
    operation = data.draw(
        st.sampled_from(
            [
                "value",
                "value",
                "value",
                "label",
                "header",
                "anywhere",
                "delete rows",
                "insert rows",
                "delete columns",
                "insert columns",
                "append row",
                "merge",
                "move",
                "far cell",
                "swap labels",
                "rename tab",
                "drop tab",
            ]
        ),
        label="marks mutation",
    )
    last_row = max(marks.max_row, FIRST_ROW)
    if operation == "value":
        row = data.draw(st.integers(FIRST_ROW, last_row), label="row")
        _set(marks.cell(row=row, column=data.draw(st.integers(2, 3))), data.draw(cell_value), raw)
    elif operation == "label":
        row = data.draw(st.integers(FIRST_ROW, last_row + 1), label="row")
        _set(marks.cell(row=row, column=1), data.draw(cell_value, label="label"), raw)
    elif operation == "header":
        cell = marks.cell(row=data.draw(st.integers(1, 2)), column=data.draw(st.integers(1, 5)))
        _set(cell, data.draw(cell_value, label="header"), raw)
    elif operation == "anywhere":
        cell = marks.cell(row=data.draw(st.integers(1, 8)), column=data.draw(st.integers(1, 6)))
        _set(cell, data.draw(cell_value, label="value"), raw)
    elif operation == "delete rows":
        marks.delete_rows(data.draw(st.integers(1, last_row)), data.draw(st.integers(1, 3)))
    elif operation == "insert rows":
        marks.insert_rows(data.draw(st.integers(1, last_row + 1)), data.draw(st.integers(1, 3)))
    elif operation == "delete columns":
        marks.delete_cols(data.draw(st.integers(1, 4)), data.draw(st.integers(1, 2)))
    elif operation == "insert columns":
        marks.insert_cols(data.draw(st.integers(1, 5)), data.draw(st.integers(1, 2)))
    elif operation == "append row":
        label = data.draw(st.sampled_from([marks.cell(row=FIRST_ROW, column=1).value, "ZZZZ"]))
        marks.append([label, data.draw(_plain_number), data.draw(_plain_number)])
    elif operation == "merge":
        row = data.draw(st.integers(1, last_row))
        marks.merge_cells(start_row=row, start_column=1, end_row=row + 1, end_column=2)
    elif operation == "move":
        marks.move_range(
            f"A{FIRST_ROW}:D{last_row}",
            rows=data.draw(st.integers(0, 2)),
            cols=data.draw(st.integers(0, 2)),
        )
    elif operation == "far cell":
        row = data.draw(st.integers(last_row + 1, last_row + 400), label="far row")
        _set(marks.cell(row=row, column=data.draw(st.integers(1, 30))), data.draw(cell_value), raw)
    elif operation == "swap labels":
        first, second = marks.cell(row=FIRST_ROW, column=1), marks.cell(row=last_row, column=1)
        if not isinstance(first, MergedCell) and not isinstance(second, MergedCell):
            first.value, second.value = second.value, first.value
    elif operation == "rename tab":
        marks.title = data.draw(st.sampled_from(["marks", "Marks ", "Sheet1"]))
    else:
        del book[MARKS]


# ---- (a) the Marks tab ---------------------------------------------------------------------


@fuzz_settings(max_examples=70)
@given(data=st.data())
def test_hostile_marks_tab_is_previewed_or_refused_without_writing(
    client, contest, alice, downloaded, data
):
    book = _book(downloaded)
    raw: list[str] = []
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        _mutate_marks(data, book, raw)
    with rolled_back():
        _record(_upload_and_confirm(client, contest, alice, _save(book, raw)))


# ---- (b) the stamp -------------------------------------------------------------------------


def _stamp_values(book) -> list:
    return [row[0] for row in book[STAMP].iter_rows(min_row=2, max_col=1, values_only=True)]


def _write_stamp(book, values: list) -> None:
    stamp = book[STAMP]
    stamp.delete_rows(2, stamp.max_row)
    for row, value in enumerate(values, start=2):
        stamp.cell(row=row, column=1).value = value


stamp_line = st.one_of(
    hostile_json.map(json_dumps),
    st.sampled_from([DEEP_JSON, NESTED_JSON, f"[{LONG_JSON}]", "", "[", "{}", "null"]),
    # Characters no worksheet can hold (openpyxl refuses them before the site is involved).
    st.sampled_from([text for text in HOSTILE_TEXTS if not ILLEGAL_CHARACTERS_RE.search(text)]),
)


UNREADABLE = object()


def _loads(line):
    """A stamp line as JSON, or UNREADABLE once an earlier mutation made it junk."""
    try:
        return json.loads(line)
    except (TypeError, ValueError, RecursionError):
        return UNREADABLE


def _tamper(data, values: list[str]) -> list:
    """The stamp's lines (meta first, then one per cell) with one of them changed: a JSON
    value anywhere in it, a line dropped, repeated, replaced by junk or by a non-text cell."""
    meta, *lines = values
    operation = data.draw(
        st.sampled_from(
            ["meta", "meta", "meta key", "line", "line", "junk line", "drop", "repeat", "cell"]
        ),
        label="stamp mutation",
    )
    document = _loads(meta)
    if operation == "meta" and document is not UNREADABLE:
        meta = json_dumps(mutate_anywhere(data, document))
    elif operation == "meta key" and isinstance(document, dict) and document:
        key = data.draw(st.sampled_from(sorted(document)))
        if data.draw(st.booleans(), label="drop the key?"):
            del document[key]
        else:
            document[key] = data.draw(hostile_json, label=key)
        meta = json_dumps(document)
    elif operation == "line" and lines:
        index = data.draw(st.integers(0, len(lines) - 1))
        line = _loads(lines[index])
        if line is not UNREADABLE:
            lines[index] = json_dumps(mutate_anywhere(data, line))
    elif operation == "junk line":
        index = data.draw(st.integers(0, len(lines)))
        lines.insert(index, data.draw(stamp_line, label="junk line"))
    elif operation == "drop" and lines:
        del lines[data.draw(st.integers(0, len(lines) - 1))]
    elif operation == "repeat" and lines:
        lines.append(lines[data.draw(st.integers(0, len(lines) - 1))])
    elif operation == "cell":
        return [meta, *lines, data.draw(st.one_of(_plain_number, st.booleans()))]
    return [meta, *lines]


@fuzz_settings(max_examples=70)
@given(data=st.data())
def test_tampered_stamp_is_refused_with_sentences_signed_or_not(
    client, contest, alice, downloaded, data
):
    book = _book(downloaded)
    meta, _signature_line, *lines = _stamp_values(book)
    tampered = [meta, *lines]
    for _ in range(data.draw(st.integers(1, 3), label="stamp mutations")):
        tampered = _tamper(data, tampered)
    # Signed again, as only someone with the site's key could: the stamp's JSON itself is read.
    resign = data.draw(st.booleans(), label="signed again?")
    if resign and all(isinstance(value, str) for value in tampered):
        signature = stamp_signature(tampered)
    else:
        signature = _signature_line
    _write_stamp(book, [tampered[0], signature, *tampered[1:]])
    # A value change in the Marks tab too, so that a stamp read wrongly would show.
    book[MARKS].cell(row=FIRST_ROW + 1, column=2).value = 4
    with rolled_back():
        pending = _record(_upload_and_confirm(client, contest, alice, _save(book, [])))
    if not resign and tampered != [meta, *lines]:
        assert pending["errors"]


# ---- (c) the zip and its bytes -------------------------------------------------------------


@fuzz_settings(max_examples=50)
@given(data=st.data())
def test_damaged_zip_is_refused_with_sentences(client, contest, alice, downloaded, data):
    blob = downloaded
    if data.draw(st.booleans(), label="damage a member?"):
        members = _members(blob)
        name = data.draw(st.sampled_from(sorted(members)), label="member")
        if data.draw(st.booleans(), label="drop it?"):
            del members[name]
        else:
            members[name] = damage(data, members[name])
        blob = _zip(members)
    blob = raw_or(data, blob)
    with rolled_back():
        _record(_upload_and_confirm(client, contest, alice, blob))


# ---- valid files write exactly their changes -------------------------------------------------


def _valid_points(criterion):
    steps = int(criterion.points / criterion.step)
    return st.one_of(
        st.none(),
        st.integers(0, steps).map(lambda n: n * criterion.step),
    )


def _as_typed(data, points: Decimal | None):
    """Points as a spreadsheet holds them: a number, or text typed with a comma or spaces."""
    if points is None:
        return data.draw(st.sampled_from([None, "", "  "]), label="blank")
    return data.draw(
        st.sampled_from([float(points), int(points) if points == int(points) else float(points)])
        | st.sampled_from([f" {points} ", str(points).replace(".", ",")]),
        label="typed",
    )


@fuzz_settings(max_examples=40)
@given(data=st.data())
def test_valid_values_on_the_step_are_previewed_and_written_exactly(
    client, contest, alice, downloaded, data
):
    criteria = {
        criterion.code: criterion
        for criterion in Criterion.objects.filter(problem__contest=contest, problem__number=1)
    }
    book = _book(downloaded)
    marks = book[MARKS]
    codes = [marks.cell(row=1, column=column).value for column in (2, 3)]
    expected = {}
    for row in range(FIRST_ROW, marks.max_row + 1):
        label = marks.cell(row=row, column=1).value
        for column, code in enumerate(codes, start=2):
            if not data.draw(st.booleans(), label=f"change {label} {code}?"):
                continue
            points = data.draw(_valid_points(criteria[code]), label=f"{label} {code}")
            marks.cell(row=row, column=column).value = _as_typed(data, points)
            current = _mark(alice, label, code).points
            if points != current:
                expected[(label, code)] = points
    with rolled_back():
        pending = _upload_and_confirm(client, contest, alice, _save(book, []))
        assert pending["errors"] == []
        assert {
            (change["label"], change["code"]): None
            if change["new"] is None
            else Decimal(change["new"])
            for change in pending["changes"]
        } == expected
        for (label, code), points in expected.items():
            assert _mark(alice, label, code).points == points


@pytest.mark.parametrize(
    "value",
    [
        time(12, 30),
        timedelta(days=1, hours=2),
        ArrayFormula("B3", "=SUM(B4:B5)"),
        DataTableFormula(ref="B3", t="dataTable"),
    ],
)
def test_odd_cell_types_are_refused_naming_row_and_column(
    client, contest, alice, downloaded, value
):
    book = _book(downloaded)
    book[MARKS].cell(row=FIRST_ROW, column=2).value = value
    pending = _upload_and_confirm(client, contest, alice, _save(book, []))
    [error] = pending["errors"]
    assert (error["row"], error["column"]) == (FIRST_ROW, "B")
    assert "object at 0x" not in error["message"]
    assert " is text" not in error["message"]
