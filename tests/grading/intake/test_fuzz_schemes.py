"""Fuzzing the scheme loader: valid scheme files with hostile values put in, keys and criteria
missing or repeated, lines dropped, bytes damaged, or random bytes instead. Loading either
succeeds or is refused with sentences and not one row written; nothing else may escape."""

import json
import tempfile
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from hypothesis import event, given
from hypothesis import strategies as st

from grading.intake.scheme_files import CRITERION_KEYS, PROBLEM_KEYS
from grading.intake.schemes import scheme_load
from grading.marking.marks import mark_set
from grading.models import Mark, MarkEvent
from tests.factories import assign, make_contest
from tests.fuzz import (
    DEEP,
    DEEP_JSON,
    LONG,
    LONG_JSON,
    assert_sentences,
    fuzz_settings,
    hostile_text,
    mutate_list,
    mutate_object,
    raw_or,
    rolled_back,
    row_counts,
)


def _scheme(number: int, *, changed: bool = False) -> dict:
    """A valid scheme for tests.factories.make_contest's problem `number`: as it is, or with
    new points (refused while a mark is given) and a third criterion."""
    assignment = {
        "code": "A1",
        "kind": "assignment",
        "title": "Translations",
        "guidance": "Full points per correct item.",
        "points": 10 if changed else 12,
        "step": 0.5,
        "task": f"12026{number:02d}0100",
    }
    theory = {"code": "T1", "kind": "theory", "title": "Word order", "points": 8, "tolerance": 1}
    criteria = [assignment, theory]
    if changed:
        theory["points"] = 6
        criteria.append({"code": "T2", "kind": "theory", "title": "Plural", "points": 4})
    return {
        "problem": number,
        "title": "Kelo greetings",
        "language": "Kelo",
        "max_points": 20,
        "criteria": criteria,
    }


def _toml_value(value) -> str:
    if value == DEEP:
        return DEEP_JSON
    if value == LONG:
        return LONG_JSON
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        # JSON's escapes are TOML's; a raw DEL or the like makes invalid TOML, also worth a try.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value if item is not None) + "]"
    if isinstance(value, dict):
        pairs = (f"{_key(k)} = {_toml_value(v)}" for k, v in value.items() if v is not None)
        return "{" + ", ".join(pairs) + "}"
    raise TypeError(type(value))


def _key(key: str) -> str:
    return json.dumps(key, ensure_ascii=False)


def _toml(document) -> str:
    """The document as a scheme file: keys first, then one [[criteria]] table per criterion.
    TOML has no null, so None leaves the key out."""
    if not isinstance(document, dict):
        return f"problem = {_toml_value(document) if document is not None else ''}\n"
    lines, tables = [], []
    for key, value in document.items():
        if (
            key == "criteria"
            and isinstance(value, list)
            and all(isinstance(v, dict) for v in value)
        ):
            tables = value
        elif value is not None:
            lines.append(f"{_key(key)} = {_toml_value(value)}")
    for table in tables:
        lines += ["", "[[criteria]]"]
        lines += [f"{_key(k)} = {_toml_value(v)}" for k, v in table.items() if v is not None]
    return "\n".join(lines) + "\n"


def _damaged_lines(data, text: str) -> str:
    lines = text.split("\n")
    for _ in range(data.draw(st.integers(0, 2), label="line mutations")):
        index = data.draw(st.integers(0, len(lines) - 1))
        operation = data.draw(st.sampled_from(["drop", "duplicate", "insert"]))
        if operation == "drop":
            del lines[index]
        elif operation == "duplicate":
            lines.insert(index, lines[index])
        else:
            lines.insert(index, data.draw(hostile_text, label="line"))
        if not lines:
            break
    return "\n".join(lines)


@pytest.fixture
def marked(db, juror):
    """Two problems with the A1/T1 scheme; alice has given A1 of one paper 10 points and
    cleared T1 again (a blank mark with history), so changing or removing either is refused."""
    contest = make_contest("schemes", problems=2, papers=2)
    assign(contest, [juror], problems=[1])
    for code, points in (("A1", "10"), ("T1", "5"), ("T1", None)):
        mark = Mark.objects.filter(sheet__juror=juror, criterion__code=code).first()
        mark_set(
            mark=mark,
            points=None if points is None else Decimal(points),
            actor=juror,
            channel=MarkEvent.Channel.BROWSER,
        )
    return contest


@pytest.fixture
def workdir():
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


@fuzz_settings(max_examples=120)
@given(data=st.data())
def test_a_damaged_scheme_folder_is_loaded_or_refused_without_writing(marked, workdir, data):
    folder = Path(tempfile.mkdtemp(dir=workdir))
    names = data.draw(
        st.lists(
            st.sampled_from(["p1.toml", "p2.toml", "p3.toml", "p01.toml", "P1.toml", "x.toml"]),
            min_size=1,
            max_size=3,
            unique=True,
        ),
        label="files",
    )
    for name in names:
        number = 2 if name == "p2.toml" else 1
        document = _scheme(number, changed=data.draw(st.booleans(), label="changed?"))
        if data.draw(st.booleans(), label=f"mutate {name}?"):
            document = mutate_object(data, document, PROBLEM_KEYS)
            if isinstance(document, dict) and isinstance(document.get("criteria"), list):
                document["criteria"] = mutate_list(data, document["criteria"], CRITERION_KEYS)
        text = _damaged_lines(data, _toml(document))
        (folder / name).write_bytes(raw_or(data, text.encode("utf-8")))
    dry_run = data.draw(st.booleans(), label="dry run?")
    with rolled_back():
        before = row_counts()
        try:
            summary = scheme_load(contest=marked, directory=folder, dry_run=dry_run)
        except ValidationError as error:
            event("refused")
            assert_sentences(error.messages)
            assert row_counts() == before
        else:
            event("loaded")
            assert isinstance(str(summary), str)
            if dry_run:
                assert row_counts() == before


# --- failures the fuzzing found, kept as plain regression tests ------------------------------

P1 = _toml(_scheme(1))


def _refusal(contest, folder: Path, text: str) -> list[str]:
    (folder / "p1.toml").write_text(text, encoding="utf-8")
    before = row_counts()
    with pytest.raises(ValidationError) as caught:
        scheme_load(contest=contest, directory=folder)
    assert row_counts() == before
    return caught.value.messages


@pytest.mark.parametrize(
    ("points", "shown"),
    [("1e100", "1e+100"), ('"1e999999999"', "“1e999999999”"), ('"1e-999999999"', "“1e-999999999”")],
)
def test_points_too_large_or_too_fine_are_refused_with_a_sentence(marked, tmp_path, points, shown):
    # quantize raised decimal.InvalidOperation on 1e100; 1e999999999 would have been written
    # out in the sentence as a billion digits.
    text = P1.replace('"points" = 12', f'"points" = {points}')
    message = "is too large" if "-" not in points else "has more than two decimals"
    assert _refusal(marked, tmp_path, text) == [
        f"p1.toml, criterion A1: the points {shown} {message}."
    ]


def test_arrays_nested_too_deeply_are_refused_with_a_sentence(marked, tmp_path):
    # tomllib recurses and raised RecursionError.
    text = P1.replace('"title" = "Kelo greetings"', f'"title" = {DEEP_JSON}')
    assert _refusal(marked, tmp_path, text) == [
        "p1.toml: this is not valid TOML (arrays or tables nested too deeply)."
    ]


def test_an_integer_of_five_thousand_digits_is_refused_with_a_sentence(marked, tmp_path):
    # tomllib's int() raised a bare ValueError, not TOMLDecodeError.
    text = P1.replace('"points" = 12', f'"points" = {LONG_JSON}')
    assert _refusal(marked, tmp_path, text) == [
        "p1.toml: this is not valid TOML (a number with too many digits)."
    ]


def test_a_nul_character_is_refused_with_a_sentence(marked, tmp_path):
    # PostgreSQL refuses text with a NUL character (a DataError escaped).
    text = P1.replace('"title" = "Word order"', '"title" = "Word\\u0000order"')
    assert _refusal(marked, tmp_path, text) == [
        "p1.toml: a text holds a NUL character (\\u0000); remove it."
    ]
