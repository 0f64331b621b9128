"""Reading a backup's document: a reader that collects a sentence per problem instead of
stopping at the first, what a restore has read and checked (`Restored`, with the checks that a
row names something the file holds), and the summary of a restore (`grading.backup.restore`
uses them; the fields each row has are in `grading.backup.table`)."""

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.utils.translation import ngettext

from grading.backup.stream import StreamedRows
from rubrics.models import Contest
from rubrics.validators import validate_points


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

    def items(self, obj, key: str, where: str) -> Iterable[tuple[str, dict]]:
        """The rows of the list `obj[key]`, each with where it is; a section read row by row
        (`StreamedRows`) is read from the file as they are asked for."""
        if not isinstance(obj, dict):
            return []  # already reported by the caller's _fields
        prefix = f"{where}.{key}" if where else key
        if isinstance(obj.get(key), StreamedRows):
            return ((f"{prefix}[{index}]", value) for index, value in enumerate(obj[key]))
        values = self.get(obj, key, where, "list") or []
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
            "; "
            + ngettext("created %d user", "created %d users", len(self.users_created))
            % len(self.users_created)
            + " with unusable passwords"
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


def check_clean(r: Reader, where: str, obj, exclude: tuple[str, ...] = ()) -> None:
    try:
        obj.clean_fields(exclude=list(exclude))
    except ValidationError as error:
        for field, messages in error.message_dict.items():
            for message in messages:
                r.error(where, f"{field}: {message}")


def check_row(r: Reader, where: str, section, values: dict, *relations: str) -> None:
    """The model's own checks on a row's fields of `section` (choices, lengths, digits,
    blanks); a field read as None is left out: it is reported already, or it may be null."""
    given = section.own(values)
    own = {name: value for name, value in given.items() if value is not None}
    missing = tuple(name for name in given if name not in own)
    check_clean(r, where, section.model(**own), exclude=relations + missing + section.stamps)


@dataclass
class Steps:
    """A restore's progress, for a job's page: the file read, each scanned page and each mark
    checked, each mark written, the rest written (`total` is set once they are counted)."""

    report: Callable[[int, int], None] | None = None
    done: int = 0
    total: int = 0

    def step(self, count: int = 1) -> None:
        self.done += count
        if self.report is not None:
            self.report(min(self.done, self.total), self.total)


@dataclass
class Restored:
    """A backup's rows read and checked, by natural key, unsaved: what `grading.backup.writing`
    writes once the whole file is understood. The `*_ref` checks report, through the reader,
    a row naming what the file does not hold."""

    r: Reader
    # The document itself: its marks are checked as they are read and read again to be
    # written (`restore_rows.mark_rows`), never kept here (a backup's largest section).
    document: object = None
    steps: Steps = field(default_factory=Steps)
    head: dict = field(default_factory=dict)
    contest: Contest | None = None
    cutoffs: list = field(default_factory=list)
    problems: dict = field(default_factory=dict)
    tasks: dict = field(default_factory=dict)
    criteria: dict = field(default_factory=dict)
    rates: dict = field(default_factory=dict)
    # A problem's scheme versions by (problem number, version number): the row read, and where.
    scheme_versions: dict = field(default_factory=dict)
    jurors_of: dict = field(default_factory=dict)
    users: dict = field(default_factory=dict)
    papers: dict = field(default_factory=dict)
    labels: list = field(default_factory=list)
    solutions: list = field(default_factory=list)
    assignments: list = field(default_factory=list)
    sheets: list = field(default_factory=list)
    comments: list = field(default_factory=list)
    resolutions: list = field(default_factory=list)
    human_scores: list = field(default_factory=list)
    contest_events: list = field(default_factory=list)
    notifications: list = field(default_factory=list)
    scan_pages: list = field(default_factory=list)
    delegations: list = field(default_factory=list)
    provisional_results: list = field(default_factory=list)
    deadline_changes: list = field(default_factory=list)
    appeals: list = field(default_factory=list)
    juror_profiles: list = field(default_factory=list)
    juror_languages: list = field(default_factory=list)
    moves: list = field(default_factory=list)
    help_requests: list = field(default_factory=list)
    conflict_rulings: list = field(default_factory=list)
    declared_conflicts: list = field(default_factory=list)
    seeds: list = field(default_factory=list)
    seed_marks: list = field(default_factory=list)
    # (written object, problem number, seed label): the questions asked on a seed's row and
    # their notices, written before the seeds and pointed at them by `writing_seeds`.
    seed_refs: list = field(default_factory=list)
    # (problem number, row) per comment bank note.
    bank: list = field(default_factory=list)
    # (round, [(paper, [reference])], [(sheet, [(mark, [event])])]), grading/calibration/.
    calibration_rounds: list = field(default_factory=list)
    # The appeals evening (one row at most), its tables and meetings; the discussion sessions
    # as (session, [member], [outcome]) (grading/backup/restore_room.py).
    appeal_evenings: list = field(default_factory=list)
    appeal_tables: list = field(default_factory=list)
    appeal_meetings: list = field(default_factory=list)
    discussion_sessions: list = field(default_factory=list)

    def user_ref(self, username, where: str) -> None:
        if username is None:
            return
        if not isinstance(username, str):
            self.r.error(where, f"expected a username; got {json.dumps(username)[:60]}.")
        elif username not in self.users:
            self.r.error(where, f"the user “{username}” is not in the file's list of users.")

    def criterion_ref(self, number, code, where: str, points=None) -> None:
        criterion = self.criteria.get((number, code))
        if criterion is None:
            self.r.error(where, f"criterion {code} of problem {number} is not in the file.")
        elif points is not None and criterion._checkable:
            # Out-of-range points are refused here as in every other way marks come in.
            try:
                validate_points(points, criterion)
            except ValidationError as error:
                self.r.error(where, error.messages[0])

    def paper_ref(self, identity, where: str) -> None:
        if identity not in self.papers:
            self.r.error(where, "the paper is not in the file's list of papers.")

    def problem_ref(self, number, where: str) -> None:
        if number not in self.problems:
            self.r.error(where, f"problem {number} is not in the file.")
