"""Reading a backup's document: a reader that collects a sentence per problem instead of
stopping at the first, the fields each row has, and the summary of a restore
(`grading.backup.restore` uses them)."""

import json
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError

from rubrics.models import Contest


class Reader:
    """Reads values out of the parsed document, collecting a sentence per problem instead of
    stopping at the first, so that one run shows everything wrong with a file."""

    def __init__(self, source: str):
        self.source = source
        self.errors: list[str] = []

    def error(self, where: str, message: str) -> None:
        self.errors.append(
            f"{self.source}, {where}: {message}" if where else f"{self.source}: {message}"
        )

    def get(self, obj, key: str, where: str, kind: str, *, optional: bool = False):
        if not isinstance(obj, dict):
            self.error(where, "expected an object with named fields.")
            return None
        if key not in obj:
            self.error(where, f"the field “{key}” is missing.")
            return None
        value = obj[key]
        if value is None and optional:
            return None
        return self.convert(value, f"{where}.{key}" if where else key, kind)

    def convert(self, value, where: str, kind: str):
        ok = {
            "text": lambda v: isinstance(v, str),
            "int": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
            "bool": lambda v: isinstance(v, bool),
            "list": lambda v: isinstance(v, list),
            "dict": lambda v: isinstance(v, dict),
            "json": lambda v: True,
            "decimal": lambda v: isinstance(v, str),
            "time": lambda v: isinstance(v, str),
        }[kind]
        if not ok(value):
            expected = {
                "text": "text",
                "int": "a whole number of 0 or more",
                "bool": "true or false",
                "list": "a list",
                "dict": "an object",
                "decimal": 'a number written as text, e.g. "12.50"',
                "time": 'a date and time such as "2026-07-21T09:30:00+00:00"',
            }.get(kind, kind)
            self.error(where, f"expected {expected}; got {json.dumps(value)[:60]}.")
            return None
        if kind == "decimal":
            try:
                number = Decimal(value)
            except InvalidOperation:
                number = None
            if number is None or not number.is_finite():
                self.error(where, f"“{value}” is not a number.")
                return None
            return number
        if kind == "time":
            try:
                moment = datetime.fromisoformat(value)
            except ValueError:
                moment = None
            if moment is None or moment.tzinfo is None:
                self.error(where, f"“{value}” is not a date and time with a time zone.")
                return None
            return moment
        return value

    def items(self, obj, key: str, where: str) -> list[tuple[str, dict]]:
        if not isinstance(obj, dict):
            return []  # already reported by the caller's _fields
        values = self.get(obj, key, where, "list") or []
        prefix = f"{where}.{key}" if where else key
        return [(f"{prefix}[{index}]", value) for index, value in enumerate(values)]


@dataclass
class ImportSummary:
    contest: Contest
    papers: int
    marks: int
    mark_events: int
    users_created: list[str]
    scan_pages: int = 0

    def __str__(self) -> str:
        created = (
            f"; created {len(self.users_created)} user{'s' if len(self.users_created) != 1 else ''}"
            " with unusable passwords"
            if self.users_created
            else ""
        )
        pages = f", {self.scan_pages} scanned pages" if self.scan_pages else ""
        return (
            f"Restored {self.contest.name} ({self.contest.slug}): {self.papers} papers, "
            f"{self.marks} marks, {self.mark_events} mark events{pages}{created}."
        )


def read_fields(r: Reader, obj, where: str, spec: dict[str, str]) -> dict:
    """Read every field of `spec` ({name: kind, "name?": kind for nullable}) from `obj`."""
    if not isinstance(obj, dict):
        r.error(where, "expected an object with named fields.")
        return {key.rstrip("?"): None for key in spec}
    values = {}
    for key, kind in spec.items():
        optional = key.endswith("?")
        name = key.rstrip("?")
        values[name] = r.get(obj, name, where, kind, optional=optional)
    return values


def without(values: dict, *keys: str) -> dict:
    return {key: value for key, value in values.items() if key not in keys}


def check_clean(r: Reader, where: str, obj, exclude: tuple[str, ...] = ()) -> None:
    try:
        obj.clean_fields(exclude=list(exclude))
    except ValidationError as error:
        for field, messages in error.message_dict.items():
            for message in messages:
                r.error(where, f"{field}: {message}")


USER = {"username": "text", "first_name": "text", "last_name": "text", "email": "text"}
USER |= {"is_staff": "bool", "is_active": "bool", "groups": "list"}
CONTEST = {"slug": "text", "name": "text", "state": "text", "max_total": "decimal"}
CONTEST |= {"created_at": "time"}
PROBLEM = {"number": "int", "title": "text", "language": "text", "max_points": "decimal"}
TASK = {"number": "int", "external_id": "text", "label": "text", "task_type": "text"}
TASK |= {"eval_type": "text", "work_lang": "text", "task_lang": "json", "context": "text"}
TASK |= {"query": "text", "item_count": "int", "answers": "json", "split": "text"}
TASK |= {"weight": "decimal", "reference_explanation": "text"}
# Backups made before tasks carried the official explanation lack the field; it is then empty.
TASK_DEFAULTS = {"reference_explanation": ""}
CRITERION = {"code": "text", "kind": "text", "title": "text", "guidance": "text"}
CRITERION |= {"points": "decimal", "step": "decimal", "tolerance": "decimal", "task?": "text"}
CRITERION |= {"order": "int", "human_share_met?": "decimal"}
PAPER = {"identity": "text", "source": "text", "metadata": "json", "created_at": "time"}
PAPER |= {"selected_for_jury": "bool", "labels": "dict", "public_code?": "text"}
PAPER |= {"blank_problems": "list"}
# Backups made before papers had public codes lack them; such papers get fresh codes. Those
# made before blank problems were recorded have none left blank.
PAPER_DEFAULTS = {"public_code": None, "blank_problems": []}
SOLUTION = {"problem": "int", "task": "text", "answers": "json", "explanation": "text"}
SOLUTION |= {"raw": "text", "parse_notes": "json", "updated_at": "time"}
SOLUTION |= {"answers_given?": "int", "items_expected?": "int"}
# Backups made before solutions kept their answer counts lack them; the counts are then unknown.
SOLUTION_DEFAULTS = {"answers_given": None, "items_expected": None}
SHEET = {"problem": "int", "juror": "text", "state": "text", "submitted_at?": "time"}
MARK = {"problem": "int", "juror": "text", "paper": "text", "criterion": "text"}
MARK |= {"points?": "decimal", "note": "text", "version": "int", "updated_at": "time"}
MARK_EVENT = {"actor?": "text", "channel": "text", "old_points?": "decimal"}
MARK_EVENT |= {"new_points?": "decimal", "old_note": "text", "new_note": "text"}
MARK_EVENT |= {"version": "int", "created_at": "time"}
COMMENT = {"paper": "text", "problem": "int", "criterion": "text", "author": "text"}
COMMENT |= {"text": "text", "created_at": "time"}
RESOLUTION = {"paper": "text", "problem": "int", "criterion": "text", "kind": "text"}
RESOLUTION |= {"points": "decimal", "reason": "text", "decided_by?": "text"}
RESOLUTION |= {"decided_at": "time"}
RESOLUTION_EVENT = {"actor?": "text", "old_points?": "decimal", "new_points": "decimal"}
RESOLUTION_EVENT |= {"old_kind": "text", "new_kind": "text", "reason": "text"}
RESOLUTION_EVENT |= {"created_at": "time"}
HUMAN = {"contestant": "text", "problem_points": "json", "total": "decimal"}
CONTEST_EVENT = {"actor?": "text", "from_state": "text", "to_state": "text", "reason": "text"}
CONTEST_EVENT |= {"created_at": "time"}
NOTIFICATION = {"recipient": "text", "kind": "text", "problem?": "int", "paper?": "text"}
NOTIFICATION |= {"criterion?": "text", "comment?": "int", "sentence": "text"}
NOTIFICATION |= {"created_at": "time", "read_at?": "time"}
