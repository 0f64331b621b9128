"""What the fuzz tests share: hostile values, the damage a file suffers on its way (BOMs, CRLF,
latin-1, NUL bytes, truncation), mutations of valid CSV tables and JSON documents, and the
checks every refusal must pass (sentences, not one row written).

Runs are derandomized and bounded so that `make test` stays fast and stable; set FUZZ_EXPLORE=1
for ten times the examples from a random seed when hunting for new failures."""

import csv
import io
import json
import os
from contextlib import contextmanager

from django.apps import apps
from django.contrib.auth.models import Group, User
from django.db import transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

EXPLORE = bool(os.environ.get("FUZZ_EXPLORE"))


def fuzz_settings(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples * (10 if EXPLORE else 1),
        deadline=None,
        derandomize=not EXPLORE,
        # No example database: it would be written into the repository.
        database=None,
        # The base contest is built once per test by a function-scoped fixture; every example
        # runs in a transaction that is rolled back (see `rolled_back`), so it is not shared state.
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
        ],
    )


# JSON that is awkward to build in Python, so `json_dumps` writes it in for a placeholder: lists
# nested 100,000 deep (json.loads raises RecursionError) and an integer of 5,000 digits
# (json.loads raises a bare ValueError, not JSONDecodeError).
DEEP = "⟦deep⟧"
DEEP_JSON = "[" * 100_000 + "]" * 100_000
LONG = "⟦long⟧"
LONG_JSON = "7" * 5000
# Nested 3,000 deep: json.loads still reads it; code that recurses over it may not.
NESTED = "⟦nested⟧"
NESTED_JSON = "[" * 3000 + "]" * 3000
_RAW = {DEEP: DEEP_JSON, LONG: LONG_JSON, NESTED: NESTED_JSON}

HOSTILE_TEXTS = [
    "",
    " ",
    "NaN",
    "nan",
    "-nan",
    "inf",
    "-Infinity",
    "1e999",
    "1e999999999",
    "1e-999999999",
    "-1e999",
    "1e-999",
    "-1",
    "-0",
    "-0.5",
    "0.001",
    "1,5",
    "1_000",
    "9" * 5000,
    "9" * 40,
    "0x10",
    "\x00",
    "a\x00b",
    "\x1b[31m",
    "\u202e",
    "\ufeff",
    "\u2028",
    "\r\n",
    "\r",
    '"',
    '"a',
    "null",
    "true",
    "[]",
    "{}",
    "[[]]",
    "[null]",
    '[["a", null]]',
    '["a",',
    '{"a": 1}',
    "[1, 2, 3]",
    "[" * 5000,
    "[" * 5000 + "]" * 5000,
    DEEP_JSON,
    f"[{LONG_JSON}]",
    "['vmr_Latn'",
    "[1, [2, [3]]]",
    "(same context as above)",
    "12026030200",
    "012030010100",
    "12030010100",
    "12030019900",
    "12030000000",
    "1" * 30,
    "00000000000",
    "ä" * 300,
    "x" * 100_000,
    "<script>alert(1)</script>",
    "=cmd|' /C calc'!A0",
]

hostile_text = st.one_of(
    st.sampled_from(HOSTILE_TEXTS),
    st.text(max_size=30),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats().map(repr),
)

_json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([10**4000, -(10**4000), 2**63, -(2**63) - 1]),
    st.floats(),
    hostile_text,
)
hostile_json = st.one_of(
    _json_leaf,
    st.recursive(
        _json_leaf,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
        max_leaves=8,
    ),
    st.sampled_from(list(_RAW)),
)


def json_dumps(value, **kwargs) -> str:
    """JSON as an exporter might write it, NaN and Infinity included (Python reads them)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=True, **kwargs)
    for placeholder, raw in _RAW.items():
        text = text.replace(json.dumps(placeholder, ensure_ascii=False), raw)
    return text


# --- bytes ---------------------------------------------------------------------------------


def damage(data, blob: bytes) -> bytes:
    """`blob` after what happens to files on the way: re-encoding, line endings, stray bytes."""
    operations = data.draw(
        st.lists(
            st.sampled_from(
                ["bom", "crlf", "cr", "latin1", "utf16", "nul", "truncate", "insert", "none"]
            ),
            max_size=2,
        ),
        label="byte damage",
    )
    for operation in operations:
        if operation == "bom":
            blob = b"\xef\xbb\xbf" + blob
        elif operation == "crlf":
            blob = blob.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        elif operation == "cr":
            blob = blob.replace(b"\r\n", b"\n").replace(b"\n", b"\r")
        elif operation == "latin1":
            text = blob.decode("utf-8", errors="replace")
            at = data.draw(st.integers(0, len(text)), label="where é goes")
            blob = (text[:at] + "é" + text[at:]).encode("latin-1", errors="replace")
        elif operation == "utf16":
            blob = blob.decode("utf-8", errors="replace").encode("utf-16")
        elif operation == "nul":
            at = data.draw(st.integers(0, len(blob)), label="where NUL goes")
            blob = blob[:at] + b"\x00" + blob[at:]
        elif operation == "truncate":
            blob = blob[: data.draw(st.integers(0, len(blob)), label="cut at")]
        elif operation == "insert":
            at = data.draw(st.integers(0, len(blob)), label="where bytes go")
            blob = blob[:at] + data.draw(st.binary(min_size=1, max_size=8)) + blob[at:]
    return blob


def raw_or(data, structured: bytes) -> bytes:
    """The structured file as it is, or after some damage; now and then random bytes instead."""
    choice = data.draw(st.integers(0, 9), label="random bytes (0), damaged (1-4), as is (5-9)")
    if choice == 0:
        return data.draw(st.binary(max_size=600), label="random bytes")
    return damage(data, structured) if choice < 5 else structured


# --- CSV -----------------------------------------------------------------------------------


def read_table(path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.reader(file))


def mutate_table(data, rows: list[list[str]]) -> list[list[str]]:
    """A CSV table with hostile cells, columns or rows missing, extra or repeated."""
    rows = [list(row) for row in rows]
    operations = data.draw(
        st.lists(
            st.sampled_from(
                [
                    "cell",
                    "cell",
                    "cell",
                    "drop column",
                    "extra column",
                    "duplicate header",
                    "drop row",
                    "duplicate row",
                    "short row",
                    "long row",
                    "header case",
                    "header only",
                ]
            ),
            min_size=1,
            max_size=3,
        ),
        label="table mutations",
    )
    for operation in operations:
        width = len(rows[0])
        row = data.draw(st.integers(1, len(rows) - 1)) if len(rows) > 1 else 0
        column = data.draw(st.integers(0, width - 1)) if width else 0
        if operation == "cell" and width and len(rows[row]) > column:
            rows[row][column] = data.draw(hostile_text, label="cell")
        elif operation == "drop column" and width > 1:
            for cells in rows:
                del cells[column : column + 1]
        elif operation == "extra column":
            rows[0].append(data.draw(hostile_text, label="header"))
            for cells in rows[1:]:
                cells.append(data.draw(hostile_text, label="cell"))
        elif operation == "duplicate header" and width > 1:
            rows[0][column] = rows[0][data.draw(st.integers(0, width - 1))]
        elif operation == "drop row" and len(rows) > 1:
            del rows[row]
        elif operation == "duplicate row" and len(rows) > 1:
            rows.insert(row, list(rows[row]))
        elif operation == "short row" and len(rows) > 1:
            rows[row] = rows[row][: data.draw(st.integers(0, max(0, width - 1)))]
        elif operation == "long row" and len(rows) > 1:
            rows[row].append(data.draw(hostile_text, label="cell"))
        elif operation == "header case":
            rows[0] = [f" {name.upper()} " for name in rows[0]]
        elif operation == "header only":
            rows = rows[:1]
    return rows


def csv_bytes(data, rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    ending = data.draw(st.sampled_from(["\n", "\r\n"]), label="line ending")
    csv.writer(out, lineterminator=ending).writerows(rows)
    return out.getvalue().encode("utf-8")


# --- JSON ----------------------------------------------------------------------------------


def mutate_object(data, row, keys: tuple[str, ...]):
    """A JSON object (or whatever replaced it) with hostile values, fields missing or extra."""
    operation = data.draw(
        st.sampled_from(["value", "value", "value", "drop", "extra", "replace", "keep"]),
        label="object mutation",
    )
    if not isinstance(row, dict) or operation == "replace":
        return data.draw(hostile_json, label="object replaced by")
    row = dict(row)
    if operation == "value":
        row[data.draw(st.sampled_from(keys))] = data.draw(hostile_json, label="value")
    elif operation == "drop":
        row.pop(data.draw(st.sampled_from(keys)), None)
    elif operation == "extra":
        row[data.draw(st.text(max_size=10))] = data.draw(hostile_json, label="extra value")
    return row


def mutate_anywhere(data, document):
    """The document with one place anywhere in it mutated: a value replaced by a hostile one, a
    field dropped or added, a list item dropped or repeated."""
    document = json.loads(json.dumps(document))  # a deep copy
    parent, key = None, None
    node = document
    # Walk down from the top, stopping at a random depth.
    while isinstance(node, (dict, list)) and node and data.draw(st.integers(0, 3)) > 0:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        parent, key = node, data.draw(st.sampled_from(keys))
        node = node[key]
    operation = data.draw(
        st.sampled_from(["replace", "replace", "drop", "extra", "duplicate"]), label="mutation"
    )
    if operation == "extra" and isinstance(node, dict):
        node[data.draw(st.text(max_size=10))] = data.draw(hostile_json)
    elif operation == "duplicate" and isinstance(node, list) and node:
        index = data.draw(st.integers(0, len(node) - 1))
        node.insert(index, node[index])
    elif operation == "drop" and parent is not None:
        del parent[key]
    elif parent is None:
        return data.draw(hostile_json, label="document replaced by")
    else:
        parent[key] = data.draw(hostile_json, label="value")
    return document


def mutate_list(data, rows: list, keys: tuple[str, ...]) -> list:
    """A list of JSON objects with some of them mutated, dropped or repeated."""
    rows = list(rows)
    for _ in range(data.draw(st.integers(1, 3), label="list mutations")):
        if not rows:
            break
        index = data.draw(st.integers(0, len(rows) - 1))
        operation = data.draw(st.sampled_from(["object", "object", "drop", "duplicate"]))
        if operation == "object":
            rows[index] = mutate_object(data, rows[index], keys)
        elif operation == "drop":
            del rows[index]
        else:
            rows.insert(index, rows[index])
    return rows


# --- checks --------------------------------------------------------------------------------


@contextmanager
def rolled_back():
    """One hypothesis example in a transaction that is always rolled back, so that examples
    start from the same database although the test's fixtures run once."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def row_counts() -> dict[str, int]:
    """Rows of every model of the application, and of the users and groups a restore creates."""
    models = [
        *apps.get_app_config("rubrics").get_models(),
        *apps.get_app_config("grading").get_models(),
        User,
        Group,
    ]
    return {model._meta.label: model.objects.count() for model in models}


def assert_sentences(messages: list[str]) -> None:
    """A refusal says what is wrong in one or more sentences."""
    assert messages, "refused without saying why"
    for message in messages:
        assert isinstance(message, str), repr(message)
        assert message.strip(), "an empty sentence"
        assert message.rstrip()[-1] in ".?!", f"not a sentence: {message[-200:]!r}"
