"""Fuzzing the restore of a backup (`import_contest`): a real export with a hostile value, a
missing or extra field or a repeated item anywhere in it, damaged bytes, or random bytes.
The command either restores the contest or refuses with sentences and writes nothing."""

import gzip
import tempfile
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from hypothesis import event, given
from hypothesis import strategies as st

from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.console.contest_life import contest_resolution_open
from grading.models import Paper
from grading.resolution.decisions import comment_add, discrepancy_decide
from rubrics.models import Criterion
from tests.fuzz import (
    assert_sentences,
    fuzz_settings,
    json_dumps,
    mutate_anywhere,
    raw_or,
    rolled_back,
    row_counts,
)
from tests.grading.backup.backup_helpers import as_loaded, problem_1_graded, restored_or_refused


@pytest.fixture
def backup(contest, juror, other_juror, chair) -> dict:
    """An export of a contest with marks, history, a comment and a chair's decision, renamed
    so that it restores next to the original."""
    orca = Paper.objects.get(identity="Team Orca")
    problem_1_graded(contest, {juror: "12", other_juror: "9"})
    contest_resolution_open(contest=contest, actor=chair)
    a1 = Criterion.objects.get(problem__contest=contest, problem__number=1, code="A1")
    comment_add(paper=orca, criterion=a1, author=juror, text="Item 2 keeps the plural.")
    discrepancy_decide(
        paper=orca, criterion=a1, points=Decimal("10"), reason="Suffix.", actor=chair
    )
    document = contest_export(contest=contest)
    document["contest"]["slug"] = "restored"
    return document


@pytest.fixture
def workdir():
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


@fuzz_settings(max_examples=80)
@given(data=st.data())
def test_a_damaged_backup_file_is_restored_or_refused_without_writing(backup, workdir, data):
    document = backup
    for _ in range(data.draw(st.integers(0, 3), label="mutations")):
        document = mutate_anywhere(data, document)
    blob = raw_or(data, json_dumps(document).encode("utf-8"))
    if data.draw(st.integers(0, 9), label="gzipped?") == 0:
        blob = gzip.compress(blob)
        if data.draw(st.booleans(), label="cut the gzip?"):
            blob = blob[: data.draw(st.integers(0, len(blob)))]
    path = Path(tempfile.mkdtemp(dir=workdir)) / "backup.json"
    path.write_bytes(blob)
    dry_run = data.draw(st.booleans(), label="dry run?")
    with rolled_back():
        before = row_counts()
        try:
            call_command("import_contest", str(path), dry_run=dry_run, verbosity=0)
        except CommandError as error:
            event("refused")
            message = str(error)
            assert message.startswith("Nothing was imported:\n  - ")
            assert_sentences([message])
            assert row_counts() == before
        else:
            event("restored")
            if dry_run:
                assert row_counts() == before


@fuzz_settings(max_examples=80)
@given(data=st.data())
def test_a_damaged_backup_document_is_restored_or_refused_with_sentences(backup, data):
    document = backup
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        document = mutate_anywhere(data, document)
    restored_or_refused(as_loaded(document))


# --- failures the fuzzing found, kept as plain regression tests ------------------------------


def _refusal(document) -> list[str]:
    with rolled_back():
        before = row_counts()
        with pytest.raises(ValidationError) as caught:
            contest_import(document=document, source="backup.json")
        assert row_counts() == before
    return caught.value.messages


def test_a_mark_under_a_criterion_with_a_step_of_zero_is_refused_with_sentences(backup):
    # validate_points took the remainder by the step: decimal.InvalidOperation escaped.
    problem = next(p for p in backup["problems"] if p["number"] == 1)
    a1 = next(c for c in problem["criteria"] if c["code"] == "A1")
    a1["step"] = "0"
    messages = _refusal(backup)
    assert (len(messages), messages[0].split(" (", 1)[0]) == (
        1,
        "backup.json contradicts itself and was not imported: the database refused it",
    )


def test_a_criterion_with_a_step_of_a_thousand_decimals_is_refused_with_sentences(backup):
    problem = next(p for p in backup["problems"] if p["number"] == 1)
    a1 = next(c for c in problem["criteria"] if c["code"] == "A1")
    index = problem["criteria"].index(a1)
    a1["step"] = "1e-30"
    assert _refusal(backup) == [
        f"backup.json, problems[0].criteria[{index}]: step: "
        "Ensure that there are no more than 5 digits in total."
    ]


def test_a_backup_with_lists_nested_too_deeply_is_refused_with_a_sentence(db, tmp_path):
    path = tmp_path / "backup.json"
    path.write_text('{"format": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(CommandError) as caught:
        call_command("import_contest", str(path), verbosity=0)
    assert str(caught.value) == (
        "Nothing was imported:\n"
        "  - backup.json is not a backup: its lists or objects are nested too deeply."
    )


def test_a_backup_with_a_number_of_five_thousand_digits_is_refused_with_a_sentence(db, tmp_path):
    path = tmp_path / "backup.json"
    path.write_text('{"version": ' + "7" * 5000 + "}")
    with pytest.raises(CommandError) as caught:
        call_command("import_contest", str(path), verbosity=0)
    assert str(caught.value) == (
        "Nothing was imported:\n  - backup.json holds a number with too many digits."
    )


@pytest.mark.parametrize("where", ["explanation", "metadata", "username"])
def test_a_backup_with_a_nul_character_is_refused_with_a_sentence(backup, where):
    # PostgreSQL stores a NUL character neither in text nor in jsonb (a DataError escaped).
    paper = backup["papers"][0]
    if where == "explanation":
        paper["solutions"][0]["explanation"] = "a\x00b"
    elif where == "metadata":
        paper["metadata"] = {"team": "a\x00b"}
    else:
        backup["users"][0]["first_name"] = "a\x00b"
    assert _refusal(backup) == [
        "backup.json: a text holds a NUL character (\\u0000), which cannot be stored; "
        "remove it or export the file again."
    ]


def test_a_backup_with_nan_in_a_json_field_is_refused_with_a_sentence(backup):
    # PostgreSQL's jsonb refuses NaN, which Python's json reads and writes.
    backup["papers"][0]["metadata"] = {"rank": float("nan")}
    assert _refusal(backup) == [
        "backup.json: a value is NaN or Infinity, which JSON columns cannot store; write null."
    ]
