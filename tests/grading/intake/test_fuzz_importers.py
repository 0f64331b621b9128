"""Fuzzing the importers: valid problem sets and AI outputs with hostile values put in, fields
and columns missing or repeated, bytes damaged, or random bytes instead. Every import either
succeeds or is refused with sentences and not one row written; nothing else may escape."""

import csv
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from grading.intake.importers import ImportProblems, outputs_import, problemset_import
from grading.models import Solution
from rubrics.models import Contest
from tests.fuzz import (
    DEEP_JSON,
    LONG_JSON,
    assert_sentences,
    csv_bytes,
    fuzz_settings,
    json_dumps,
    mutate_list,
    mutate_object,
    mutate_table,
    raw_or,
    read_table,
    rolled_back,
    row_counts,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "importers"
TEST_CSV = FIXTURES / "problemset" / "test.csv"
SOLUTION_CSV = FIXTURES / "problemset" / "solution.csv"
LINGUINI = FIXTURES / "problemset" / "linguini.jsonl"
KESTREL = FIXTURES / "outputs" / "records" / "04_team-kestrel"
HERON = FIXTURES / "outputs" / "heron.csv"
RAW = FIXTURES / "outputs" / "raw.jsonl"

PREDICTION_KEYS = ("id", "pred", "predicted_items", "explanation", "eval_type", "points")
METADATA_KEYS = ("team", "team_id", "submission_repo", "rank")
LINGUINI_KEYS = (
    "id",
    "context",
    "query",
    "answer",
    "explanation",
    "work_lang",
    "task_lang",
    "task_type",
    "eval_type",
    "points",
    "split",
)
RAW_KEYS = ("system", "id", "output")


@pytest.fixture
def oru(db):
    """Contest "oru30" from the fixture problem set, with team-kestrel's outputs imported, so
    that fuzzed outputs both create papers and update one."""
    problemset_import(contest_slug="oru30", paths=[TEST_CSV, SOLUTION_CSV])
    outputs_import(contest_slug="oru30", paths=[KESTREL])
    return Contest.objects.get(slug="oru30")


@pytest.fixture
def workdir():
    """A folder per test; examples write into fresh sub-folders of it."""
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


def _attempt(import_, **kwargs) -> None:
    """Run one import: it succeeds, or it is refused with sentences and writes nothing."""
    with rolled_back():
        before = row_counts()
        try:
            summary = import_(**kwargs)
        except ImportProblems as error:
            event("refused")
            assert_sentences(error.messages)
            assert row_counts() == before
        else:
            event("imported")
            assert isinstance(summary.line(), str)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _jsonl_bytes(data, path: Path, keys: tuple[str, ...]) -> bytes:
    lines = [json_dumps(value) for value in mutate_list(data, _lines(path), keys)]
    if data.draw(st.booleans(), label="a line that is not JSON?"):
        lines.insert(data.draw(st.integers(0, len(lines))), data.draw(st.text(max_size=20)))
    return raw_or(data, "\n".join(lines).encode("utf-8"))


@fuzz_settings(max_examples=60)
@given(data=st.data())
def test_a_damaged_competition_problem_set_is_imported_or_refused_without_writing(
    oru, workdir, data
):
    folder = Path(tempfile.mkdtemp(dir=workdir))
    test = folder / "test.csv"
    solution = folder / "solution.csv"
    for path, source in ((test, TEST_CSV), (solution, SOLUTION_CSV)):
        rows = read_table(source)
        if data.draw(st.booleans(), label=f"damage {path.name}?"):
            rows = mutate_table(data, rows)
        path.write_bytes(raw_or(data, csv_bytes(data, rows)))
    paths = [test, solution] if data.draw(st.booleans(), label="in order?") else [solution, test]
    slug = data.draw(st.sampled_from(["oru30", "fresh", "bad slug!", "s" * 51]), label="contest")
    _attempt(problemset_import, contest_slug=slug, paths=paths)


@fuzz_settings(max_examples=50)
@given(data=st.data())
def test_a_damaged_linguini_file_is_imported_or_refused_without_writing(oru, workdir, data):
    path = Path(tempfile.mkdtemp(dir=workdir)) / "dataset.jsonl"
    path.write_bytes(_jsonl_bytes(data, LINGUINI, LINGUINI_KEYS))
    slug = data.draw(st.sampled_from(["oru30", "fresh"]), label="contest")
    _attempt(problemset_import, contest_slug=slug, paths=[path])


@fuzz_settings(max_examples=60)
@given(data=st.data())
def test_a_damaged_competition_record_is_imported_or_refused_without_writing(oru, workdir, data):
    folder = Path(tempfile.mkdtemp(dir=workdir)) / "07_team-fuzz"
    shutil.copytree(KESTREL, folder)
    predictions = json.loads((KESTREL / "predictions.json").read_text(encoding="utf-8"))
    metadata = json.loads((KESTREL / "metadata.json").read_text(encoding="utf-8"))
    target = data.draw(st.sampled_from(["predictions", "metadata", "both"]), label="damage")
    if target in ("predictions", "both"):
        if data.draw(st.integers(0, 9), label="replace the whole list?") == 0:
            predictions = data.draw(st.just(None) | st.just({}) | st.just([]))
        else:
            predictions = mutate_list(data, predictions, PREDICTION_KEYS)
    if target in ("metadata", "both"):
        metadata = mutate_object(data, metadata, METADATA_KEYS)
    (folder / "predictions.json").write_bytes(
        raw_or(data, json_dumps(predictions, indent=2).encode("utf-8"))
    )
    if data.draw(st.integers(0, 9), label="without metadata.json?") == 0:
        (folder / "metadata.json").unlink()
    else:
        (folder / "metadata.json").write_bytes(raw_or(data, json_dumps(metadata).encode("utf-8")))
    _attempt(outputs_import, contest_slug="oru30", paths=[folder])


@fuzz_settings(max_examples=50)
@given(data=st.data())
def test_a_damaged_submission_csv_is_imported_or_refused_without_writing(oru, workdir, data):
    path = Path(tempfile.mkdtemp(dir=workdir)) / "heron.csv"
    path.write_bytes(raw_or(data, csv_bytes(data, mutate_table(data, read_table(HERON)))))
    system = data.draw(st.sampled_from([None, "team-kestrel", " ", "x" * 500]), label="system")
    _attempt(outputs_import, contest_slug="oru30", paths=[path], system=system)


@fuzz_settings(max_examples=50)
@given(data=st.data())
def test_a_damaged_raw_output_file_is_imported_or_refused_without_writing(oru, workdir, data):
    path = Path(tempfile.mkdtemp(dir=workdir)) / "raw.jsonl"
    path.write_bytes(_jsonl_bytes(data, RAW, RAW_KEYS))
    system = data.draw(st.sampled_from([None, "team-kestrel"]), label="system")
    _attempt(outputs_import, contest_slug="oru30", paths=[path], system=system)


# --- failures the fuzzing found, kept as plain regression tests ------------------------------


def _refused(import_, **kwargs) -> list[str]:
    before = row_counts()
    with pytest.raises(ImportProblems) as caught:
        import_(**kwargs)
    assert row_counts() == before
    return caught.value.messages


def _write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def _linguini_line(**changes) -> str:
    return json.dumps(_lines(LINGUINI)[0] | changes)


def test_a_jsonl_line_nested_too_deeply_is_refused_with_a_sentence(db, tmp_path):
    # json.loads raises RecursionError, which escaped the importer.
    path = _write(tmp_path / "dataset.jsonl", DEEP_JSON)
    assert _refused(problemset_import, contest_slug="deep", paths=[path]) == [
        "dataset.jsonl, line 1: malformed JSON (lists or objects nested too deeply)."
    ]


def test_a_json_number_of_five_thousand_digits_is_refused_with_a_sentence(oru, tmp_path):
    # json.loads raises a bare ValueError without the position the sentence used.
    folder = tmp_path / "07_team-fuzz"
    shutil.copytree(KESTREL, folder)
    _write(folder / "predictions.json", "[" + LONG_JSON + "]")
    assert _refused(outputs_import, contest_slug="oru30", paths=[folder]) == [
        "07_team-fuzz/predictions.json: malformed JSON (a number with too many digits)."
    ]


def test_an_answer_key_nested_too_deeply_is_refused_with_a_sentence(db, tmp_path):
    rows = read_table(SOLUTION_CSV)
    rows[1][1] = "[" * 30_000 + "]" * 30_000  # under the CSV module's 128 KiB per cell
    solution = tmp_path / "solution.csv"
    with solution.open("w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows(rows)
    assert _refused(problemset_import, contest_slug="deep", paths=[TEST_CSV, solution]) == [
        "solution.csv, row 2, answer: not a JSON list (lists or objects nested too deeply)."
    ]


def test_a_raw_answer_nested_too_deeply_is_read_line_by_line(oru, tmp_path):
    output = f"Answer: {DEEP_JSON}\nExplanation: deep."
    path = _write(
        tmp_path / "raw.jsonl",
        json.dumps({"system": "deep-1", "id": "12030020100", "output": output}),
    )
    outputs_import(contest_slug="oru30", paths=[path])
    solution = Solution.objects.get(paper__identity="deep-1")
    assert (solution.answers, solution.explanation) == ([DEEP_JSON, ""], "deep.")


def test_a_nul_byte_in_a_csv_file_is_refused_with_a_sentence(db, tmp_path):
    # SQLite stored it; PostgreSQL refuses text with a NUL character (a DataError escaped).
    test = _write(tmp_path / "test.csv", TEST_CSV.read_bytes().replace(b"Oru", b"O\x00ru", 1))
    assert _refused(problemset_import, contest_slug="nul", paths=[test, SOLUTION_CSV]) == [
        "test.csv, line 2: the file holds a NUL byte (0x00), so it is not plain text or was "
        "damaged; remove the byte or export the file again."
    ]


def test_a_nul_character_escaped_in_json_is_refused_with_a_sentence(oru, tmp_path):
    path = _write(
        tmp_path / "raw.jsonl",
        json.dumps({"system": "nul-1", "id": "12030020100", "output": "Answer: 1\x002"}),
    )
    assert _refused(outputs_import, contest_slug="oru30", paths=[path]) == [
        "raw.jsonl, line 1: a text holds a NUL character (\\u0000), which cannot be stored; "
        "remove it or export the file again."
    ]


def test_nan_in_a_record_s_metadata_is_refused_with_a_sentence(oru, tmp_path):
    # The metadata is kept in a JSON column; PostgreSQL's jsonb refuses NaN.
    folder = tmp_path / "07_team-fuzz"
    shutil.copytree(KESTREL, folder)
    _write(folder / "metadata.json", '{"team": "team-fuzz", "rank": NaN}')
    assert _refused(outputs_import, contest_slug="oru30", paths=[folder]) == [
        "07_team-fuzz/metadata.json: a value is NaN or Infinity, which cannot be stored; "
        "write null."
    ]


def test_values_longer_than_their_columns_are_refused_with_sentences(db, tmp_path):
    # SQLite kept them whole, PostgreSQL refused them (a DataError escaped).
    path = _write(
        tmp_path / "dataset.jsonl",
        _linguini_line(id="0" * 40 + "2030010100", work_lang="e" * 101),
    )
    assert _refused(problemset_import, contest_slug="long", paths=[path]) == [
        "dataset.jsonl, line 1, id: the value is longer than 40 characters.",
        "dataset.jsonl, line 1, work_lang: the value is longer than 100 characters.",
    ]


def test_a_contest_slug_longer_than_its_column_is_refused_with_a_sentence(db):
    assert _refused(problemset_import, contest_slug="s" * 51, paths=[TEST_CSV, SOLUTION_CSV]) == [
        f"“{'s' * 51}” is not a contest slug: use up to 50 letters, digits, hyphens and "
        "underscores."
    ]
