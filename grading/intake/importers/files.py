"""Reading the files an import is made of. Each reader adds a sentence to `problems` and returns
None when a file cannot be read at all, so that the caller can report every file in one go."""

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from grading.intake.importers.errors import Problems, at

# Python's csv module refuses fields over 128 KiB; an AI explanation can be longer. The limit is
# process-wide, so it is raised once here, to a bound that still stops a runaway file.
csv.field_size_limit(16 * 1024 * 1024)


def read_text(path: Path, name: str, problems: Problems) -> str | None:
    """The file's text: UTF-8, with or without a byte-order mark."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        problems.add(name, "the file does not exist.")
        return None
    except OSError as error:
        problems.add(name, f"the file cannot be read ({error.strerror}).")
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        problems.add(
            at(name, line=line),
            f"the file is not UTF-8 text (byte 0x{data[error.start]:02X} cannot be read); "
            "save it as UTF-8.",
        )
        return None
    if not text.strip():
        problems.add(name, "the file is empty.")
        return None
    if "\x00" in text:
        # PostgreSQL cannot store a NUL character in text; no real text file holds one.
        line = text.count("\n", 0, text.index("\x00")) + 1
        problems.add(
            at(name, line=line),
            "the file holds a NUL byte (0x00), so it is not plain text or was damaged; "
            "remove the byte or export the file again.",
        )
        return None
    return text


@dataclass
class CsvRow:
    number: int  # as a spreadsheet shows it: the header is row 1
    values: dict[str, str]


@dataclass
class CsvTable:
    name: str
    columns: list[str]
    rows: list[CsvRow] = field(default_factory=list)

    def has_columns(self, required: tuple[str, ...], problems: Problems) -> bool:
        missing = [column for column in required if column not in self.columns]
        for column in missing:
            problems.add(at(self.name, row=1), f"the column “{column}” is missing.")
        return not missing


def read_csv(path: Path, name: str, problems: Problems) -> CsvTable | None:
    """The rows of a CSV file with a header; column names are trimmed and lower-cased."""
    text = read_text(path, name, problems)
    if text is None:
        return None
    # strict: an unbalanced quote is an error, not a cell that swallows the rest of the file.
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    records: list[list[str]] = []
    try:
        for record in reader:
            records.append(record)
    except csv.Error as error:
        problems.add(at(name, row=len(records) + 1), f"malformed CSV ({error}).")
        return None
    columns = [column.strip().lower() for column in records[0]]
    table = CsvTable(name=name, columns=columns)
    ok = True
    seen = set()
    for column in columns:
        if column in seen:
            problems.add(at(name, row=1), f"the column “{column}” appears twice.")
            ok = False
        seen.add(column)
    for number, record in enumerate(records[1:], start=2):
        if not any(cell.strip() for cell in record):
            continue
        if len(record) != len(columns):
            problems.add(
                at(name, row=number),
                f"malformed CSV: {len(record)} cells where the header has {len(columns)} columns.",
            )
            ok = False
            continue
        table.rows.append(CsvRow(number=number, values=dict(zip(columns, record, strict=True))))
    if ok and not table.rows:
        problems.add(name, "the file has a header but no rows.")
        return None
    return table if ok else None


def read_json(path: Path, name: str, problems: Problems):
    """The parsed JSON document, or None."""
    text = read_text(path, name, problems)
    if text is None:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as error:
        problems.add(
            at(name, line=getattr(error, "lineno", None)), f"malformed JSON ({json_error(error)})."
        )
        return None
    if may_hold_nul(text) and holds_nul(value):
        problems.add(name, NUL_SENTENCE)
        return None
    return value


def read_jsonl(path: Path, name: str, problems: Problems) -> list[tuple[int, dict]] | None:
    """(line number, object) for every line that holds a JSON object, the others reported in
    `problems` (so that a caller checks the good lines too and one run lists every problem);
    None when the file cannot be read as text."""
    text = read_text(path, name, problems)
    if text is None:
        return None
    objects = []
    # Not str.splitlines(): it also splits on U+2028 and friends, which JSON strings may hold.
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError) as error:
            problems.add(at(name, line=number), f"malformed JSON ({json_error(error)}).")
            continue
        if not isinstance(value, dict):
            problems.add(
                at(name, line=number), f"expected a JSON object, found {json_kind(value)}."
            )
            continue
        if may_hold_nul(line) and holds_nul(value):
            problems.add(at(name, line=number), NUL_SENTENCE)
            continue
        objects.append((number, value))
    return objects


NUL_SENTENCE = (
    "a text holds a NUL character (\\u0000), which cannot be stored; remove it or export "
    "the file again."
)


def may_hold_nul(json_text: str) -> bool:
    """Whether a JSON text can hold a NUL once parsed: only as the escape `\\u0000` (JSON
    refuses the raw character in a string, but it may sit outside one). A text without either
    is read without walking every value (`holds_nul`), which is most of a record's reading."""
    return "\\u0000" in json_text or "\x00" in json_text


def holds_nul(value) -> bool:
    """Whether a text in a parsed JSON or TOML value, keys included, holds a NUL character, which
    PostgreSQL can store neither in text nor in jsonb. A loop, not recursion: json.loads accepts
    nesting deeper than Python's recursion limit."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def holds_nan(value) -> bool:
    """Whether a parsed JSON value holds NaN or Infinity, which Python's json reads but a JSON
    column of PostgreSQL refuses."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def json_error(error: ValueError | RecursionError) -> str:
    """Why json.loads refused a text, for a sentence. Besides its own JSONDecodeError it raises a
    bare ValueError for an integer of more than 4300 digits and RecursionError for deep nesting,
    neither of which has a position."""
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at column {error.colno}"
    if isinstance(error, RecursionError):
        return "lists or objects nested too deeply"
    return "a number with too many digits"


def json_kind(value) -> str:
    """How a JSON value is called in a sentence."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    return "an object"


def text_value(value, where: str, problems: Problems) -> str | None:
    """A JSON field that should hold text: null is empty, numbers become text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    problems.add(where, f"expected text, found {json_kind(value)}.")
    return None
