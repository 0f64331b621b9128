"""Checks on the single fields of a problem set's rows. Each adds a sentence naming the file,
row and field to `problems` and returns None when the value is wrong."""

import ast
import json
from decimal import Decimal, InvalidOperation

from grading.intake.importers.errors import Problems
from grading.intake.importers.files import json_error, json_kind
from grading.intake.importers.ids import TaskKey, parse_task_id
from rubrics.models import Task

EVAL_TYPES = ("single", "multi")
KNOWN_TYPES = tuple(Task.Type.values)
MAX_WEIGHT = Decimal("9999.99")


def task_key(raw, where: str, problems: Problems) -> TaskKey | None:
    try:
        return parse_task_id(raw)
    except ValueError as error:
        problems.add(where, str(error))
        return None


def choice(raw: str, allowed: tuple[str, ...], default: str, where: str, problems: Problems):
    value = raw.strip().lower()
    if not value:
        return default
    if value not in allowed:
        problems.add(where, f"“{raw.strip()}” is not one of {', '.join(allowed)}.")
        return None
    return value


def points(raw, where: str, problems: Problems) -> Decimal | None:
    text = str(raw).strip() if raw is not None and not isinstance(raw, bool) else ""
    try:
        value = Decimal(text)
    except InvalidOperation:
        problems.add(where, f"“{text}” is not a number of points.")
        return None
    if not value.is_finite() or value < 0 or value > MAX_WEIGHT:
        problems.add(where, f"“{text}” is not a number of points from 0 to {MAX_WEIGHT}.")
        return None
    if value != value.quantize(Decimal("0.01")):
        problems.add(where, f"“{text}” has more than two decimals.")
        return None
    return value


def languages(raw, where: str, problems: Problems) -> list[str] | None:
    """`task_lang` is a list written as text ("['vmr_Latn']"), a JSON list, or one code."""
    if isinstance(raw, list):
        value = raw
    elif raw is None or not str(raw).strip():
        return []
    else:
        text = str(raw).strip()
        if not text.startswith("["):
            return [code.strip() for code in text.split(",") if code.strip()]
        try:
            # literal_eval reads Python literals only, never calls anything.
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            problems.add(where, f"“{text}” is not a list of languages such as ['vmr_Latn'].")
            return None
    if not isinstance(value, list) or not all(isinstance(code, str) for code in value):
        problems.add(where, f"“{raw}” is not a list of languages such as ['vmr_Latn'].")
        return None
    return [code.strip() for code in value]


def _answer_text(value) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def answers(raw, eval_type: str, where: str, problems: Problems) -> list[list[str]] | None:
    """The reference answers as one list of accepted alternatives per item."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return []
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError) as error:
            problems.add(where, f"not a JSON list ({json_error(error)}).")
            return None
    else:
        value = raw
    if not isinstance(value, list):
        problems.add(
            where, f"expected a JSON list with one entry per item, found {json_kind(value)}."
        )
        return None
    items = []
    for number, entry in enumerate(value, start=1):
        if isinstance(entry, list):
            if eval_type != "multi":
                problems.add(
                    where,
                    f"item {number} is a list of alternatives, but eval_type is “{eval_type}”; "
                    "alternatives need eval_type “multi”.",
                )
                return None
            alternatives = [_answer_text(alternative) for alternative in entry]
            if not alternatives or None in alternatives:
                problems.add(where, f"item {number} must list one or more answers as text.")
                return None
            items.append(alternatives)
        elif _answer_text(entry) is not None:
            items.append([_answer_text(entry)])
        else:
            problems.add(where, f"item {number} is {json_kind(entry)}, not an answer.")
            return None
    return items


def task_type(raw: str, weight: Decimal, where: str, problems: Problems) -> str | None:
    value = raw.strip().lower()
    if value in KNOWN_TYPES:
        return value
    if weight == 0:
        # The competition marks explanation-only tasks with 0 points and types of its own.
        return Task.Type.EXPLANATION
    problems.add(
        where,
        f"“{raw.strip()}” is not a known task type ({', '.join(KNOWN_TYPES)}); "
        "only a task worth 0 points may have another type, which is read as explanation-only.",
    )
    return None
