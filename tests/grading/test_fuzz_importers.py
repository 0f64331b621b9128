"""Fuzzing the importers: valid problem sets and AI outputs with hostile values put in, fields
and columns missing or repeated, bytes damaged, or random bytes instead. Every import either
succeeds or is refused with sentences and not one row written; nothing else may escape."""

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from grading.importers import ImportProblems, outputs_import, problemset_import
from rubrics.models import Contest
from tests.fuzz import (
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

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "importers"
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
    slug = data.draw(st.sampled_from(["oru30", "fresh", "bad slug!"]), label="contest")
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
def test_a_damaged_competition_record_is_imported_or_refused_without_writing(
    oru, workdir, data
):
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
