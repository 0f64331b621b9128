"""Restore of a contest from a backup made by `grading.backup.export` (`import_contest`).

Everything in the file is read and checked first, collecting a sentence for every problem;
only a file that is understood in full is written, in one transaction. Rows are linked by the
file's natural keys and get fresh primary keys; time stamps, versions, labels and papers' public
codes are kept; notifications find the comment they announce by its place in the file's list of
comments. Scanned pages' images are checked (a PNG of pixels only, within bounds) and
written to SCANS_DIR under fresh random names; on any refusal the files written are removed."""

import base64
import binascii
import io
import json
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from PIL import Image, UnidentifiedImageError

from grading import roles
from grading.backup.export import FORMAT, VERSION
from grading.importers.files import NUL_SENTENCE, holds_nan, holds_nul
from grading.models import (
    Assignment,
    Comment,
    ContestEvent,
    GradingGroup,
    HumanCriterionRate,
    HumanScore,
    Mark,
    MarkEvent,
    Notification,
    Paper,
    PaperLabel,
    Resolution,
    ResolutionEvent,
    ScanPage,
    Sheet,
    Solution,
    draw_public_code,
)
from grading.scans import images
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, Task
from rubrics.validators import validate_points


class _Reader:
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


def _fields(r: _Reader, obj, where: str, spec: dict[str, str]) -> dict:
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


def _without(values: dict, *keys: str) -> dict:
    return {key: value for key, value in values.items() if key not in keys}


def _clean(r: _Reader, where: str, obj, exclude: tuple[str, ...] = ()) -> None:
    try:
        obj.clean_fields(exclude=list(exclude))
    except ValidationError as error:
        for field, messages in error.message_dict.items():
            for message in messages:
                r.error(where, f"{field}: {message}")


_USER = {"username": "text", "first_name": "text", "last_name": "text", "email": "text"}
_USER |= {"is_staff": "bool", "is_active": "bool", "groups": "list"}
_CONTEST = {"slug": "text", "name": "text", "state": "text", "max_total": "decimal"}
_CONTEST |= {"created_at": "time"}
_PROBLEM = {"number": "int", "title": "text", "language": "text", "max_points": "decimal"}
_TASK = {"number": "int", "external_id": "text", "label": "text", "task_type": "text"}
_TASK |= {"eval_type": "text", "work_lang": "text", "task_lang": "json", "context": "text"}
_TASK |= {"query": "text", "item_count": "int", "answers": "json", "split": "text"}
_TASK |= {"weight": "decimal", "reference_explanation": "text"}
# Backups made before tasks carried the official explanation lack the field; it is then empty.
_TASK_DEFAULTS = {"reference_explanation": ""}
_CRITERION = {"code": "text", "kind": "text", "title": "text", "guidance": "text"}
_CRITERION |= {"points": "decimal", "step": "decimal", "tolerance": "decimal", "task?": "text"}
_CRITERION |= {"order": "int", "human_share_met?": "decimal"}
_PAPER = {"identity": "text", "source": "text", "metadata": "json", "created_at": "time"}
_PAPER |= {"selected_for_jury": "bool", "labels": "dict", "public_code?": "text"}
_PAPER |= {"blank_problems": "list"}
# Backups made before papers had public codes lack them; such papers get fresh codes. Those
# made before blank problems were recorded have none left blank (blank problems).
_PAPER_DEFAULTS = {"public_code": None, "blank_problems": []}
_SOLUTION = {"problem": "int", "task": "text", "answers": "json", "explanation": "text"}
_SOLUTION |= {"raw": "text", "parse_notes": "json", "updated_at": "time"}
_SOLUTION |= {"answers_given?": "int", "items_expected?": "int"}
# Backups made before solutions kept their answer counts lack them; the counts are then unknown.
_SOLUTION_DEFAULTS = {"answers_given": None, "items_expected": None}
_SHEET = {"problem": "int", "juror": "text", "state": "text", "submitted_at?": "time"}
_MARK = {"problem": "int", "juror": "text", "paper": "text", "criterion": "text"}
_MARK |= {"points?": "decimal", "note": "text", "version": "int", "updated_at": "time"}
_MARK_EVENT = {"actor?": "text", "channel": "text", "old_points?": "decimal"}
_MARK_EVENT |= {"new_points?": "decimal", "old_note": "text", "new_note": "text"}
_MARK_EVENT |= {"version": "int", "created_at": "time"}
_COMMENT = {"paper": "text", "problem": "int", "criterion": "text", "author": "text"}
_COMMENT |= {"text": "text", "created_at": "time"}
_RESOLUTION = {"paper": "text", "problem": "int", "criterion": "text", "kind": "text"}
_RESOLUTION |= {"points": "decimal", "reason": "text", "decided_by?": "text"}
_RESOLUTION |= {"decided_at": "time"}
_RESOLUTION_EVENT = {"actor?": "text", "old_points?": "decimal", "new_points": "decimal"}
_RESOLUTION_EVENT |= {"old_kind": "text", "new_kind": "text", "reason": "text"}
_RESOLUTION_EVENT |= {"created_at": "time"}
_HUMAN = {"contestant": "text", "problem_points": "json", "total": "decimal"}
_CONTEST_EVENT = {"actor?": "text", "from_state": "text", "to_state": "text", "reason": "text"}
_CONTEST_EVENT |= {"created_at": "time"}
_NOTIFICATION = {"recipient": "text", "kind": "text", "problem?": "int", "paper?": "text"}
_NOTIFICATION |= {"criterion?": "text", "comment?": "int", "sentence": "text"}
_NOTIFICATION |= {"created_at": "time", "read_at?": "time"}
_SCAN_PAGE = {"paper": "text", "problem": "int", "position": "int", "width": "int"}
_SCAN_PAGE |= {"height": "int", "created_at": "time", "png": "text"}

# A page scanned at 150 dpi is a few hundred kB and a few million pixels; an image far past
# these is not a scanned page, and decoding it would take the machine's memory.
MAX_SCAN_IMAGE_BYTES = 20 * 1024 * 1024
MAX_SCAN_IMAGE_PIXELS = 40_000_000
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _scan_image(r: _Reader, where: str, text: str | None, width, height) -> bytes | None:
    """The page's PNG bytes, or None with a sentence: base64 of a PNG within the bounds, of the
    size the row says, holding pixels only (no text, EXIF or profile that could name anyone)."""
    if text is None:
        return None
    if len(text) > MAX_SCAN_IMAGE_BYTES * 4 // 3 + 4:
        r.error(
            where,
            f"the image is larger than {MAX_SCAN_IMAGE_BYTES // (1024 * 1024)} MB, "
            "more than any scanned page; it was not made by export_contest.",
        )
        return None
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        r.error(where, "the image is not base64 text.")
        return None
    if not data.startswith(_PNG_SIGNATURE):
        r.error(where, "the image is not a PNG; a scanned page is stored as PNG.")
        return None
    try:
        with Image.open(io.BytesIO(data), formats=["PNG"]) as image:
            size, info = image.size, dict(image.info)
            if size[0] * size[1] > MAX_SCAN_IMAGE_PIXELS:
                r.error(
                    where,
                    f"the image has {size[0]} × {size[1]} pixels, more than any scanned page.",
                )
                return None
            # Every chunk whole and its checksum right: WeasyPrint, once imported, makes
            # Pillow load truncated images without a word, so load() alone would not tell.
            image.verify()
        with Image.open(io.BytesIO(data), formats=["PNG"]) as image:
            image.load()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        r.error(where, "the image is a damaged PNG that cannot be read.")
        return None
    if (width, height) != size:
        r.error(
            where,
            f"the image has {size[0]} × {size[1]} pixels, not the {width} × {height} "
            "the page says.",
        )
    if info:
        r.error(
            where,
            f"the image carries metadata ({', '.join(sorted(map(str, info)))}); "
            "a scanned page holds pixels only.",
        )
    return data


@transaction.atomic
def contest_import(*, document, source: str = "The backup", dry_run: bool = False) -> ImportSummary:
    """Restore a contest from a document made by `contest_export`, all or nothing.

    Refuses when the contest's slug exists in this database, and refuses a malformed document
    with every sentence found (nothing is written). Users that do not exist are created with an
    unusable password and the groups the file names; existing users are left as they are.
    Time stamps, versions and labels are kept as exported. `dry_run`: the caller rolls the
    transaction back, so no scanned page's image is written to SCANS_DIR either."""
    r = _Reader(source)
    if not isinstance(document, dict):
        raise ValidationError(f"{source} is not a contest backup: expected a JSON object.")
    if document.get("format") != FORMAT:
        raise ValidationError(
            f"{source} is not a contest backup made by export_contest "
            f"(its “format” is {json.dumps(document.get('format'))[:60]})."
        )
    if document.get("version") != VERSION:
        raise ValidationError(
            f"{source} is a version {document.get('version')!r} backup; this application "
            f"reads version {VERSION}."
        )
    # What PostgreSQL refuses to store, although Python's json reads it (SQLite takes both).
    if holds_nul(document):
        raise ValidationError(f"{source}: {NUL_SENTENCE}")
    if holds_nan(document):
        raise ValidationError(
            f"{source}: a value is NaN or Infinity, which JSON columns cannot store; write null."
        )
    head = _fields(r, document.get("contest"), "contest", _CONTEST)
    if head["slug"] and Contest.objects.filter(slug=head["slug"]).exists():
        raise ValidationError(
            f"A contest with the slug “{head['slug']}” already exists in this database; "
            "import_contest restores only into a database without it. Delete it first or "
            "restore into another database."
        )

    # 1. Read and check everything; nothing is written until the whole file is understood.
    contest = Contest(**{k: v for k, v in head.items() if k != "created_at"})
    _clean(r, "contest", contest)
    cutoffs = []
    for where, row in r.items(document, "cutoffs", ""):
        values = _fields(r, row, where, {"name": "text", "min_total": "decimal", "order": "int"})
        cutoffs.append(MedalCutoff(**values))
        _clean(r, where, cutoffs[-1], exclude=("contest",))

    problems, tasks, criteria, rates, jurors_of = {}, {}, {}, {}, {}
    for where, row in r.items(document, "problems", ""):
        values = _fields(r, row, where, _PROBLEM)
        number = values["number"]
        if number in problems:
            r.error(where, f"problem {number} appears twice.")
        problem = problems[number] = Problem(**values)
        _clean(r, where, problem, exclude=("contest",))
        for task_where, task_row in r.items(row, "tasks", where):
            if isinstance(task_row, dict):
                task_row = _TASK_DEFAULTS | task_row
            task = Task(**_fields(r, task_row, task_where, _TASK))
            task._problem_number = number
            _clean(r, task_where, task, exclude=("problem",))
            if (number, task.external_id) in tasks:
                r.error(task_where, f"task {task.external_id} appears twice in problem {number}.")
            tasks[(number, task.external_id)] = task
        for crit_where, crit_row in r.items(row, "criteria", where):
            values = _fields(r, crit_row, crit_where, _CRITERION)
            task_id, share = values.pop("task"), values.pop("human_share_met")
            criterion = Criterion(**values)
            errors_before = len(r.errors)
            _clean(r, crit_where, criterion, exclude=("problem", "task"))
            # Marks are checked against the criterion's points and step only when these are
            # sound: a step of 0 or 1e-30 makes the remainder in validate_points raise.
            criterion._checkable = (
                len(r.errors) == errors_before
                and None not in (criterion.points, criterion.step)
                and criterion.points > 0
                and criterion.step > 0
            )
            if task_id is not None and (number, task_id) not in tasks:
                r.error(crit_where, f"task {task_id} is not a task of problem {number}.")
            criterion._refs = (number, task_id)
            if (number, criterion.code) in criteria:
                r.error(
                    crit_where, f"criterion {criterion.code} appears twice in problem {number}."
                )
            criteria[(number, criterion.code)] = criterion
            if share is not None:
                rates[(number, criterion.code)] = share
        jurors_of[number] = r.get(row, "jurors", where, "list", optional=True)

    users = {}
    for where, row in r.items(document, "users", ""):
        values = _fields(r, row, where, _USER)
        if any(not isinstance(group, str) for group in values["groups"] or []):
            r.error(where, "groups must be a list of group names.")
        account = User(**{k: v for k, v in values.items() if k != "groups"})
        _clean(r, where, account, exclude=("password",))
        if values["username"] in users:
            r.error(where, f"the user “{values['username']}” appears twice.")
        users[values["username"]] = values

    def user_ref(username, where):
        if username is None:
            return
        if not isinstance(username, str):
            r.error(where, f"expected a username; got {json.dumps(username)[:60]}.")
        elif username not in users:
            r.error(where, f"the user “{username}” is not in the file's list of users.")

    def criterion_ref(number, code, where, points=None):
        criterion = criteria.get((number, code))
        if criterion is None:
            r.error(where, f"criterion {code} of problem {number} is not in the file.")
        elif points is not None and criterion._checkable:
            # Out-of-range points are refused here as in every other way marks come in.
            try:
                validate_points(points, criterion)
            except ValidationError as error:
                r.error(where, error.messages[0])

    papers, labels, solutions, codes = {}, [], [], set()
    for where, row in r.items(document, "papers", ""):
        if isinstance(row, dict):
            row = _PAPER_DEFAULTS | row
        values = _fields(r, row, where, _PAPER)
        paper_labels = values.pop("labels") or {}
        blank_problems = values.pop("blank_problems") or []
        code = values.pop("public_code")
        paper = Paper(**{k: v for k, v in values.items() if k != "created_at"})
        paper._created_at = values["created_at"]
        # A paper without a code gets one after the loop, once every code in the file is known.
        paper.public_code = code or ""
        _clean(
            r,
            where,
            paper,
            exclude=("contest",) if code is not None else ("contest", "public_code"),
        )
        if paper.identity in papers:
            r.error(where, f"the identity “{paper.identity}” appears twice.")
        if code is not None:
            if code in codes:
                r.error(where, f"the public code “{code}” appears twice.")
            codes.add(code)
        papers[paper.identity] = paper
        for number, label in paper_labels.items():
            if not number.isdigit() or int(number) not in problems or not isinstance(label, str):
                r.error(f"{where}.labels", f"“{number}”: “{label}” is not a label of a problem.")
                continue
            labels.append((paper.identity, int(number), label, int(number) in blank_problems))
        for number in blank_problems:
            if not isinstance(number, int) or str(number) not in paper_labels:
                r.error(
                    f"{where}.blank_problems",
                    f"“{number}” is not the number of a problem the paper has a label in.",
                )
        for sol_where, sol_row in r.items(row, "solutions", where):
            if isinstance(sol_row, dict):
                sol_row = _SOLUTION_DEFAULTS | sol_row
            values = _fields(r, sol_row, sol_where, _SOLUTION)
            if (values["problem"], values["task"]) not in tasks:
                r.error(
                    sol_where,
                    f"task {values['task']} of problem {values['problem']} is not in the file.",
                )
            solutions.append((paper.identity, values))
    for paper in papers.values():
        if not paper.public_code:
            paper.public_code = draw_public_code(codes)
    for number, jurors in jurors_of.items():
        for username in jurors or []:
            if username is None:
                r.error(f"problem {number}.jurors", "expected a username; got null.")
            user_ref(username, f"problem {number}.jurors")

    def paper_ref(identity, where):
        if identity not in papers:
            r.error(where, "the paper is not in the file's list of papers.")

    def problem_ref(number, where):
        if number not in problems:
            r.error(where, f"problem {number} is not in the file.")

    assignments = []
    for where, row in r.items(document, "assignments", ""):
        values = _fields(r, row, where, {"problem": "int", "paper": "text", "juror": "text"})
        problem_ref(values["problem"], where)
        paper_ref(values["paper"], where)
        user_ref(values["juror"], where)
        assignments.append(values)
    sheets = []
    for where, row in r.items(document, "sheets", ""):
        values = _fields(r, row, where, _SHEET)
        problem_ref(values["problem"], where)
        user_ref(values["juror"], where)
        _clean(r, where, Sheet(state=values["state"] or ""), exclude=("juror", "problem"))
        if (values["problem"], values["juror"]) in {(s["problem"], s["juror"]) for s in sheets}:
            r.error(where, "this juror's sheet for the problem appears twice.")
        sheets.append(values)
    sheet_keys = {(s["problem"], s["juror"]) for s in sheets}
    marks = []
    for where, row in r.items(document, "marks", ""):
        values = _fields(r, row, where, _MARK)
        if (values["problem"], values["juror"]) not in sheet_keys:
            r.error(where, "the mark's sheet is not in the file's list of sheets.")
        paper_ref(values["paper"], where)
        criterion_ref(values["problem"], values["criterion"], where, values["points"])
        _clean(
            r,
            where,
            Mark(points=values["points"], note=values["note"], version=values["version"]),
            exclude=("sheet", "paper", "criterion"),
        )
        events = []
        for event_where, event_row in r.items(row, "events", where):
            event = _fields(r, event_row, event_where, _MARK_EVENT)
            user_ref(event["actor"], event_where)
            _clean(r, event_where, MarkEvent(**_without(event, "actor")), exclude=("mark", "actor"))
            events.append(event)
        marks.append((values, events))
    comments = []
    for where, row in r.items(document, "comments", ""):
        values = _fields(r, row, where, _COMMENT)
        paper_ref(values["paper"], where)
        criterion_ref(values["problem"], values["criterion"], where)
        user_ref(values["author"], where)
        comments.append(values)
    resolutions = []
    for where, row in r.items(document, "resolutions", ""):
        values = _fields(r, row, where, _RESOLUTION)
        paper_ref(values["paper"], where)
        criterion_ref(values["problem"], values["criterion"], where, values["points"])
        user_ref(values["decided_by"], where)
        _clean(
            r,
            where,
            Resolution(kind=values["kind"] or "", points=values["points"]),
            exclude=("paper", "criterion", "decided_by", "reason"),
        )
        events = []
        for event_where, event_row in r.items(row, "events", where):
            event = _fields(r, event_row, event_where, _RESOLUTION_EVENT)
            user_ref(event["actor"], event_where)
            _clean(
                r,
                event_where,
                ResolutionEvent(**_without(event, "actor")),
                exclude=("resolution", "actor", "reason", "old_kind"),
            )
            events.append(event)
        resolutions.append((values, events))
    human_scores = []
    for where, row in r.items(document, "human_scores", ""):
        human_scores.append(HumanScore(**_fields(r, row, where, _HUMAN)))
        _clean(r, where, human_scores[-1], exclude=("contest",))
    # Backups written before contests kept their history have none.
    contest_events = []
    if "contest_events" in document:
        for where, row in r.items(document, "contest_events", ""):
            values = _fields(r, row, where, _CONTEST_EVENT)
            user_ref(values["actor"], where)
            _clean(
                r,
                where,
                ContestEvent(**_without(values, "actor")),
                exclude=("contest", "actor", "reason"),
            )
            contest_events.append(values)
    # Backups written before notifications were backed up have none.
    notifications = []
    if "notifications" in document:
        for where, row in r.items(document, "notifications", ""):
            values = _fields(r, row, where, _NOTIFICATION)
            user_ref(values["recipient"], where)
            # A field of the wrong type is reported already; it is not checked again here.
            own = {k: values[k] for k in ("kind", "sentence", "read_at") if values[k] is not None}
            _clean(
                r,
                where,
                Notification(**own),
                exclude=("recipient", "contest", "problem", "paper", "criterion", "comment")
                + tuple(k for k in ("kind", "sentence", "read_at") if k not in own),
            )
            number, identity, code = values["problem"], values["paper"], values["criterion"]
            if number is not None:
                problem_ref(number, where)
            if identity is not None:
                paper_ref(identity, where)
            if code is not None and number is None:
                r.error(where, f"criterion {code} is named without its problem.")
            elif code is not None and number in problems:
                criterion_ref(number, code, where)
            _comment_ref(r, where, values["comment"], comments, (identity, number, code))
            notifications.append(values)
    # Backups written before scanned pages were backed up have none.
    scan_pages, page_keys = [], set()
    if "scan_pages" in document:
        for where, row in r.items(document, "scan_pages", ""):
            values = _fields(r, row, where, _SCAN_PAGE)
            paper_ref(values["paper"], where)
            problem_ref(values["problem"], where)
            paper = papers.get(values["paper"])
            if paper is not None and paper.source != Paper.Source.HUMAN:
                r.error(where, "only a human contestant's paper has scanned pages.")
            if values["position"] == 0:
                r.error(where, "a page's position starts at 1.")
            key = (values["paper"], values["problem"], values["position"])
            if key in page_keys:
                r.error(where, "this page of the paper's answer appears twice.")
            page_keys.add(key)
            values["png"] = _scan_image(r, where, values["png"], values["width"], values["height"])
            scan_pages.append(values)
    if r.errors:
        raise ValidationError(r.errors)

    # 2. Write, in one transaction (this function is atomic); a database constraint that still
    # fails (a label used twice in a problem, say) undoes everything.
    written: list[Path] = []
    try:
        return _write(
            written=None if dry_run else written,
            scan_pages=scan_pages,
            contest=contest,
            created_at=head["created_at"],
            cutoffs=cutoffs,
            problems=problems,
            tasks=tasks,
            criteria=criteria,
            rates=rates,
            jurors_of=jurors_of,
            users=users,
            papers=papers,
            labels=labels,
            solutions=solutions,
            assignments=assignments,
            sheets=sheets,
            marks=marks,
            comments=comments,
            resolutions=resolutions,
            human_scores=human_scores,
            contest_events=contest_events,
            notifications=notifications,
        )
    except IntegrityError as error:
        _remove(written)
        raise ValidationError(
            f"{source} contradicts itself and was not imported: the database refused it ({error})."
        ) from None
    except BaseException:
        _remove(written)
        raise


def _comment_ref(r: _Reader, where: str, index, comments: list[dict], cell: tuple) -> None:
    """A notification's comment is named by its index in the file's list of comments (see
    `grading.backup.export._notifications`); that comment must be on the notification's cell."""
    if index is None:
        return
    if index >= len(comments):
        r.error(
            where,
            f"there is no comments[{index}]: the file's list of comments has {len(comments)}.",
        )
        return
    comment = comments[index]
    if (comment["paper"], comment["problem"], comment["criterion"]) != cell:
        r.error(where, f"the comment it announces, comments[{index}], is on another cell.")


def _remove(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def _write(
    *,
    written,
    scan_pages,
    contest,
    created_at,
    cutoffs,
    problems,
    tasks,
    criteria,
    rates,
    jurors_of,
    users,
    papers,
    labels,
    solutions,
    assignments,
    sheets,
    marks,
    comments,
    resolutions,
    human_scores,
    contest_events,
    notifications,
) -> ImportSummary:
    contest.save()
    Contest.objects.filter(pk=contest.pk).update(created_at=created_at)
    for cutoff in cutoffs:
        cutoff.contest = contest
    MedalCutoff.objects.bulk_create(cutoffs)
    for problem in problems.values():
        problem.contest = contest
    Problem.objects.bulk_create(problems.values())
    for task in tasks.values():
        task.problem = problems[task._problem_number]
    Task.objects.bulk_create(tasks.values())
    for criterion in criteria.values():
        number, task_id = criterion._refs
        criterion.problem = problems[number]
        criterion.task = tasks[(number, task_id)] if task_id is not None else None
    Criterion.objects.bulk_create(criteria.values())
    HumanCriterionRate.objects.bulk_create(
        HumanCriterionRate(criterion=criteria[key], share_met=share) for key, share in rates.items()
    )

    # Users: reuse existing accounts untouched; create the others without a usable password.
    existing = {user.username: user for user in User.objects.filter(username__in=users)}
    created = []
    group_names = sorted({name for values in users.values() for name in values["groups"]})
    if set(group_names) & set(roles.ROLES):
        roles.ensure_role_groups()
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in group_names}
    for username, values in sorted(users.items()):
        if username in existing:
            continue
        user = User(**{k: v for k, v in values.items() if k != "groups"})
        user.set_unusable_password()
        user.save()
        user.groups.set([groups[name] for name in values["groups"]])
        existing[username] = user
        created.append(username)
    user_of = existing

    for paper in papers.values():
        paper.contest = contest
    Paper.objects.bulk_create(papers.values())
    for paper in papers.values():
        paper.created_at = paper._created_at
    Paper.objects.bulk_update(papers.values(), ["created_at"])
    if scan_pages and written is not None:
        images.scans_dir().mkdir(parents=True, exist_ok=True)
    new_pages = []
    for row in scan_pages:
        name = images.random_name()
        if written is not None:
            path = images.scans_dir() / name
            written.append(path)
            path.write_bytes(row["png"])
        new_pages.append(
            ScanPage(
                paper=papers[row["paper"]],
                problem=problems[row["problem"]],
                position=row["position"],
                image=name,
                width=row["width"],
                height=row["height"],
            )
        )
    ScanPage.objects.bulk_create(new_pages)
    _restore_created_at(ScanPage, new_pages, scan_pages)
    PaperLabel.objects.bulk_create(
        PaperLabel(paper=papers[identity], problem=problems[number], label=label, blank=blank)
        for identity, number, label, blank in labels
    )
    new_solutions = [
        Solution(
            paper=papers[identity],
            task=tasks[(values["problem"], values["task"])],
            answers=values["answers"],
            explanation=values["explanation"],
            raw=values["raw"],
            parse_notes=values["parse_notes"],
            answers_given=values["answers_given"],
            items_expected=values["items_expected"],
        )
        for identity, values in solutions
    ]
    Solution.objects.bulk_create(new_solutions)
    for solution, (_, values) in zip(new_solutions, solutions, strict=True):
        solution.updated_at = values["updated_at"]
    Solution.objects.bulk_update(new_solutions, ["updated_at"])

    for number, jurors in jurors_of.items():
        if jurors is not None:
            group = GradingGroup.objects.create(problem=problems[number])
            group.jurors.set([user_of[username] for username in jurors])
    Assignment.objects.bulk_create(
        Assignment(
            paper=papers[row["paper"]],
            problem=problems[row["problem"]],
            juror=user_of[row["juror"]],
        )
        for row in assignments
    )
    new_sheets = {
        (row["problem"], row["juror"]): Sheet(
            problem=problems[row["problem"]],
            juror=user_of[row["juror"]],
            state=row["state"],
            submitted_at=row["submitted_at"],
        )
        for row in sheets
    }
    Sheet.objects.bulk_create(new_sheets.values())

    new_marks = [
        Mark(
            sheet=new_sheets[(values["problem"], values["juror"])],
            paper=papers[values["paper"]],
            criterion=criteria[(values["problem"], values["criterion"])],
            points=values["points"],
            note=values["note"],
            version=values["version"],
        )
        for values, _ in marks
    ]
    Mark.objects.bulk_create(new_marks)
    for mark, (values, _) in zip(new_marks, marks, strict=True):
        mark.updated_at = values["updated_at"]
    Mark.objects.bulk_update(new_marks, ["updated_at"], batch_size=500)
    new_events = [
        MarkEvent(mark=mark, actor=user_of.get(event["actor"]), **_without(event, "actor"))
        for mark, (_, events) in zip(new_marks, marks, strict=True)
        for event in events
    ]
    MarkEvent.objects.bulk_create(new_events)
    _restore_created_at(MarkEvent, new_events, [e for _, events in marks for e in events])

    new_comments = [
        Comment(
            paper=papers[row["paper"]],
            criterion=criteria[(row["problem"], row["criterion"])],
            author=user_of[row["author"]],
            text=row["text"],
        )
        for row in comments
    ]
    Comment.objects.bulk_create(new_comments)
    _restore_created_at(Comment, new_comments, comments)

    new_resolutions = [
        Resolution(
            paper=papers[values["paper"]],
            criterion=criteria[(values["problem"], values["criterion"])],
            kind=values["kind"],
            points=values["points"],
            reason=values["reason"],
            decided_by=user_of.get(values["decided_by"]),
        )
        for values, _ in resolutions
    ]
    Resolution.objects.bulk_create(new_resolutions)
    for resolution, (values, _) in zip(new_resolutions, resolutions, strict=True):
        resolution.decided_at = values["decided_at"]
    Resolution.objects.bulk_update(new_resolutions, ["decided_at"], batch_size=500)
    new_resolution_events = [
        ResolutionEvent(
            resolution=resolution, actor=user_of.get(event["actor"]), **_without(event, "actor")
        )
        for resolution, (_, events) in zip(new_resolutions, resolutions, strict=True)
        for event in events
    ]
    ResolutionEvent.objects.bulk_create(new_resolution_events)
    _restore_created_at(
        ResolutionEvent, new_resolution_events, [e for _, events in resolutions for e in events]
    )

    for score in human_scores:
        score.contest = contest
    HumanScore.objects.bulk_create(human_scores)
    new_contest_events = [
        ContestEvent(contest=contest, actor=user_of.get(row["actor"]), **_without(row, "actor"))
        for row in contest_events
    ]
    ContestEvent.objects.bulk_create(new_contest_events)
    _restore_created_at(ContestEvent, new_contest_events, contest_events)
    new_notifications = [
        Notification(
            recipient=user_of[row["recipient"]],
            contest=contest,
            problem=problems.get(row["problem"]),
            paper=papers.get(row["paper"]),
            criterion=criteria.get((row["problem"], row["criterion"])),
            comment=None if row["comment"] is None else new_comments[row["comment"]],
            **_without(row, "recipient", "problem", "paper", "criterion", "comment"),
        )
        for row in notifications
    ]
    Notification.objects.bulk_create(new_notifications)
    _restore_created_at(Notification, new_notifications, notifications)
    return ImportSummary(
        contest=contest,
        papers=len(papers),
        marks=len(new_marks),
        mark_events=len(new_events),
        users_created=created,
        scan_pages=len(new_pages),
    )


def _restore_created_at(model, objects: list, rows: list[dict]) -> None:
    # created_at is auto_now_add, which bulk_create overwrites with now; bulk_update does not.
    for obj, row in zip(objects, rows, strict=True):
        obj.created_at = row["created_at"]
    model.objects.bulk_update(objects, ["created_at"], batch_size=500)
