"""The backup's document read section by section (`grading.backup.stream`): its marks read row
by row from the file each time they are walked, never kept, everything else as json.loads
gives it; whatever the window's size, the same values; a document the walk cannot read is
read whole, with json.loads's own sentence; a file that changes between readings is refused.
The restore writes the marks a batch at a time, to the same contest."""

import io
import json
import sys
import zipfile

import pytest
from django.core.exceptions import ValidationError
from hypothesis import given
from hypothesis import strategies as st

from grading.backup import legacy, stream, writing
from grading.backup.archive import backup_open, backup_write
from grading.backup.legacy import json_bytes
from grading.backup.restore import contest_import
from grading.backup.stream import StreamedRows, document_read, materialized
from grading.models import Mark, MarkEvent, Resolution
from rubrics.models import Contest
from tests.fuzz import fuzz_settings
from tests.grading import scenario

DOCUMENT = {
    "contest": {"slug": "iol", "max_total": "100", "note": 'naïve ☃ \\ " end'},
    "marks": [
        {"points": "1.5", "events": [{"version": 1, "new_points": "1.5"}], "n": 12345678901234},
        {"points": None, "events": [], "weight": 0.25, "flag": True},
        {"points": "2", "events": [], "nested": {"a": [1, [2, [3]]]}},
    ],
    "papers": [{"identity": "Team Orca", "metadata": {"rank": 1e-7}}],
    "version": 2,
}


def _opener(data: bytes):
    return lambda: stream.counted(io.BytesIO(data), "backup.json")


def _read(data: bytes):
    return document_read(_opener(data), "backup.json", damaged="backup.json: damaged.")


@pytest.mark.parametrize("window", [1, 2, 3, 7, 64, 1024 * 1024])
def test_a_document_reads_as_json_loads_reads_it_whatever_the_window(monkeypatch, window):
    monkeypatch.setattr(stream, "_CHUNK", window)
    for data in (json_bytes(DOCUMENT), json.dumps(DOCUMENT).encode()):
        document = _read(data)
        assert isinstance(document["marks"], StreamedRows)
        assert "marks" not in {key for key, value in document.items() if isinstance(value, list)}
        # Read anew each time it is walked, the same rows.
        assert list(document["marks"]) == list(document["marks"]) == DOCUMENT["marks"]
        assert materialized(document) == json.loads(data)


def _json_loads_sentence(data: bytes) -> str:
    """What the restore says of `data` that `json.loads` refuses: `json.loads`'s own words,
    which differ between Python versions (3.13 names a trailing comma, 3.12 expects a value)."""
    try:
        json.loads(data.decode())
    except json.JSONDecodeError as error:
        return (
            f"backup.json is not valid JSON: {error.msg} at line {error.lineno}, "
            f"column {error.colno}."
        )
    raise AssertionError("json.loads read it")


@pytest.mark.parametrize("data", [b"{,}", b'{"marks": [1, 2,]}', b'{"marks": []} []'])
def test_what_is_no_json_is_refused_with_json_loads_own_sentence(data):
    with pytest.raises(ValidationError) as refused:
        _read(data)
    assert refused.value.messages == [_json_loads_sentence(data)]


def test_the_sentences_name_the_fault_and_where_it_is():
    # As Python 3.13 words them; the test above holds on every version.
    if sys.version_info >= (3, 13):
        assert _json_loads_sentence(b'{"marks": [1, 2,]}') == (
            "backup.json is not valid JSON: Illegal trailing comma before end of array at "
            "line 1, column 16."
        )
    assert _json_loads_sentence(b"{,}") == (
        "backup.json is not valid JSON: Expecting property name enclosed in double quotes at "
        "line 1, column 2."
    )


@pytest.mark.parametrize(
    ("data", "sentence"),
    [
        (b"\xff\xfe", "backup.json is not UTF-8 text."),
        (b'{"version": ' + b"7" * 5000 + b"}", "backup.json holds a number with too many digits."),
    ],
)  # fmt: skip
def test_what_is_no_text_or_too_long_a_number_is_refused_in_a_sentence(data, sentence):
    with pytest.raises(ValidationError) as refused:
        _read(data)
    assert refused.value.messages == [sentence]


def test_what_the_walk_does_not_read_is_read_whole_as_json_loads_reads_it():
    # A list is no backup (the restore says so); "marks" twice keeps the last, as json.loads.
    assert _read(b"[1, 2]") == [1, 2]
    twice = b'{"marks": [1], "x": NaN, "marks": [2, 3]}'
    assert _read(twice)["marks"] == [2, 3]
    # Marks that are no list are kept as they are: the restore reports them.
    assert _read(b'{"marks": "none"}') == {"marks": "none"}


def test_nul_characters_and_nan_in_the_streamed_rows_are_noted_on_the_first_reading():
    rows = _read(json.dumps({"marks": [{"note": "a\x00b"}, {"points": float("nan")}]}).encode())
    assert (rows["marks"].count, rows["marks"].holds_nul, rows["marks"].holds_nan) == (
        2,
        True,
        True,
    )


def test_a_document_that_changes_between_readings_is_refused():
    files = [json_bytes(DOCUMENT), json_bytes(DOCUMENT | {"marks": DOCUMENT["marks"][:2]})]
    document = document_read(
        lambda: stream.counted(io.BytesIO(files.pop(0) if len(files) > 1 else files[0]), "b"),
        "backup.json",
        damaged="damaged",
    )
    with pytest.raises(ValidationError) as refused:
        list(document["marks"])
    assert refused.value.messages == [
        "backup.json changed while it was being restored; nothing was restored. Restore it again."
    ]


def test_the_marks_are_written_a_batch_at_a_time_to_the_same_contest(db, tmp_path, monkeypatch):
    graded = scenario.build("chiara")
    first = tmp_path / "first.zip"
    backup_write(contest=graded["contest"], path=first)
    marks, events = Mark.objects.count(), MarkEvent.objects.count()
    # Mark.criterion and Resolution.criterion are PROTECT: they go before their contest.
    Mark.objects.all().delete()
    Resolution.objects.all().delete()
    Contest.objects.all().delete()
    # Batches that do not divide the 30 marks: the last one is short.
    monkeypatch.setattr(writing, "MARKS_AT_ONCE", 7)
    steps = []
    with backup_open(first) as backup:
        assert isinstance(backup.document["marks"], StreamedRows)
        summary = contest_import(
            document=backup.document,
            pages=backup.pages,
            source="first.zip",
            progress=lambda done, total: steps.append((done, total)),
        )
    assert (summary.marks, summary.mark_events) == (marks, events) == (30, 30)
    second = tmp_path / "second.zip"
    backup_write(contest=Contest.objects.get(slug="iol"), path=second)
    with zipfile.ZipFile(first) as one, zipfile.ZipFile(second) as two:
        assert (
            json.loads(one.read("backup.json"))["marks"]
            == json.loads(two.read("backup.json"))["marks"]
        )
    # The file read, 30 marks checked, then written 7 at a time, then the rest.
    assert steps[0] == (1, 62) and steps[-1] == (62, 62)
    assert [done for done, _ in steps[31:]] == [38, 45, 52, 59, 61, 62]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=12,
)


@fuzz_settings(max_examples=150)
@given(
    document=st.dictionaries(st.sampled_from(["contest", "marks", "papers", "z"]), _JSON),
    marks=st.lists(_JSON, max_size=5),
    window=st.integers(1, 40),
    cut=st.integers(0, 10_000),
    damage=st.sampled_from([b"", b",", b"]", b"}", b'"', b"\\", b"\xff", b"1e", b"NaN"]),
    indent=st.sampled_from([None, 1]),
)
def test_any_document_reads_as_json_loads_reads_it_or_is_refused_with_its_sentence(
    document, marks, window, cut, damage, indent
):
    data = json.dumps(document | {"marks": marks}, indent=indent, ensure_ascii=False).encode()
    if damage:
        cut = cut % (len(data) + 1)
        data = data[:cut] + damage + data[cut:]
    try:
        expected = legacy.json_document(data, "backup.json")
    except ValidationError as error:
        expected = error.messages
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stream, "_CHUNK", window)
        try:
            read = materialized(_read(data))
        except ValidationError as error:
            read = error.messages
    assert json.dumps(read, sort_keys=True) == json.dumps(expected, sort_keys=True)
