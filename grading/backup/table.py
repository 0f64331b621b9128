"""The backup's table: every section of the document, the model its rows come from, the
natural key they are sorted by, and each field with its kind. Export (`grading.backup.export`)
reads the database through it, restore (`grading.backup.restore`) checks the document's rows
against it and writes them back (`grading.backup.writing`), so that a field added to a section
is added to both ends at once.

A column's `path` is where its value lives, seen from the section's model: the model's own
field (the column's name, the default), a natural key across a relation ("paper__identity"),
or None for what the section's own function fills in (a paper's labels, a user's groups). Its
`kind` is what the document holds (grading.backup.reader.Reader.convert): decimals as text,
times as ISO 8601 in UTC. Columns come in the order a restore reports their problems."""

from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from django.contrib.auth.models import User
from django.db import models

from grading.models import (
    Assignment,
    Comment,
    ContestEvent,
    HumanScore,
    Mark,
    MarkEvent,
    Notification,
    Paper,
    Resolution,
    ResolutionEvent,
    ScanPage,
    Sheet,
    Solution,
)
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, Task

FORMAT = "jury-contest-backup"
# Version 2 is a zip archive: the document (without images) as backup.json, each scanned
# page's PNG as its own member (grading.backup.archive). Version 1 was the document alone,
# each page's PNG as base64 inside it (grading.backup.legacy reads it).
VERSION = 2
LEGACY_VERSION = 1

_OWN = ""


@dataclass(frozen=True)
class Column:
    name: str
    kind: str
    path: str | None = _OWN
    optional: bool = False

    @property
    def lookup(self) -> str | None:
        return self.name if self.path == _OWN else self.path


@dataclass(frozen=True)
class Section:
    key: str
    model: type[models.Model]
    columns: tuple[Column, ...]
    # The lookup from the model to its contest, and the natural key the rows are sorted by.
    scope: str = ""
    order: tuple[str, ...] = ()
    # What backups written before a field existed lack, and the restore puts in its place.
    defaults: dict = field(default_factory=dict)
    # Time stamps the model sets itself when saved, put back as exported after the write.
    stamps: tuple[str, ...] = ()
    # The model's fields the backup leaves out on purpose (besides the id and the row it
    # belongs to, which the document's nesting and natural keys say).
    left_out: tuple[str, ...] = ()

    def spec(self) -> dict[str, str]:
        """The fields a row of the document has ({name: kind}, "name?" when it may be null)."""
        return {f"{c.name}?" if c.optional else c.name: c.kind for c in self.columns}

    def rows(self, contest: Contest, *extra: str):
        """The contest's rows of this section as dicts of their lookups (and `extra`), sorted
        by the natural key; one query."""
        lookups = [c.lookup for c in self.columns if c.lookup is not None]
        return (
            self.model.objects.filter(**{self.scope: contest})
            .order_by(*self.order)
            .values(*extra, *lookups)
        )

    def document(self, row: dict) -> dict:
        """The document's row for a row of `rows`: each column read from its lookup."""
        return {c.name: plain(row[c.lookup]) for c in self.columns if c.lookup is not None}

    def own(self, values: dict, *leave: str) -> dict:
        """The values of the model's own fields in a row read from the document."""
        return {
            c.name: values[c.name] for c in self.columns if c.path == _OWN and c.name not in leave
        }

    def put_back_stamps(self, objects: list, rows: list[dict]) -> None:
        """auto_now(_add) fields are overwritten with now by bulk_create; bulk_update does not."""
        for obj, row in zip(objects, rows, strict=True):
            for name in self.stamps:
                setattr(obj, name, row[name])
        self.model.objects.bulk_update(objects, list(self.stamps), batch_size=500)


def plain(value):
    """A value as the document holds it: decimals as text, times in UTC as ISO 8601."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    return value


def _c(spec: str, path: str | None = _OWN) -> Column:
    """A column from "name:kind" ("name?:kind" when it may be null)."""
    name, kind = spec.split(":")
    return Column(name.rstrip("?"), kind, path, optional=name.endswith("?"))


def _texts(*names: str) -> tuple[Column, ...]:
    return tuple(Column(name, "text") for name in names)


CONTEST = Section(
    "contest",
    Contest,
    (*_texts("slug", "name", "state"), _c("max_total:decimal"), _c("created_at:time")),
    stamps=("created_at",),
)
CUTOFFS = Section(
    "cutoffs",
    MedalCutoff,
    (_c("name:text"), _c("min_total:decimal"), _c("order:int")),
    scope="contest",
    order=("order",),
)
PROBLEMS = Section(
    "problems",
    Problem,
    (_c("number:int"), *_texts("title", "language"), _c("max_points:decimal")),
    scope="contest",
    order=("number",),
)
TASKS = Section(
    "tasks",
    Task,
    (
        _c("number:int"),
        *_texts("external_id", "label", "task_type", "eval_type", "work_lang"),
        _c("task_lang:json"),
        *_texts("context", "query"),
        _c("item_count:int"),
        _c("answers:json"),
        _c("split:text"),
        _c("weight:decimal"),
        _c("reference_explanation:text"),
    ),
    scope="problem__contest",
    order=("problem__number", "number"),
    # Backups made before tasks carried the official explanation lack it; it is then empty.
    defaults={"reference_explanation": ""},
)
CRITERIA = Section(
    "criteria",
    Criterion,
    (
        *_texts("code", "kind", "title", "guidance"),
        *(_c(f"{name}:decimal") for name in ("points", "step", "tolerance")),
        _c("task?:text", "task__external_id"),
        _c("order:int"),
        # From the criterion's HumanCriterionRate, read by the export's own query.
        _c("human_share_met?:decimal", None),
    ),
    scope="problem__contest",
    order=("problem__number", "order", "code"),
)
USERS = Section(
    "users",
    User,
    (
        *_texts("username", "first_name", "last_name", "email"),
        _c("is_staff:bool"),
        _c("is_active:bool"),
        _c("groups:list", None),
    ),
    order=("username",),
    # Never a password: restored accounts get an unusable one and must have one set. Nor the
    # superuser flag or the log-in times, which belong to the database the account lives in.
    left_out=("password", "last_login", "is_superuser", "date_joined"),
)
PAPERS = Section(
    "papers",
    Paper,
    (
        *_texts("identity", "source"),
        _c("metadata:json"),
        _c("created_at:time"),
        _c("selected_for_jury:bool"),
        _c("labels:dict", None),
        _c("public_code?:text"),
        _c("blank_problems:list", None),
    ),
    scope="contest",
    # Creation order, not identity: restored in this order into an empty database, the papers
    # get back the ids they had (pages and exports show the public code instead).
    order=("created_at", "identity"),
    # Backups made before papers had public codes lack them; such papers get fresh codes.
    # Those made before blank problems were recorded have none left blank.
    defaults={"public_code": None, "blank_problems": []},
    stamps=("created_at",),
)
SOLUTIONS = Section(
    "solutions",
    Solution,
    (
        _c("problem:int", "task__problem__number"),
        _c("task:text", "task__external_id"),
        _c("answers:json"),
        *_texts("explanation", "raw"),
        _c("parse_notes:json"),
        _c("updated_at:time"),
        _c("answers_given?:int"),
        _c("items_expected?:int"),
    ),
    scope="paper__contest",
    order=("paper__identity", "task__problem__number", "task__number"),
    # Backups made before solutions kept their answer counts lack them; they are then unknown.
    defaults={"answers_given": None, "items_expected": None},
    stamps=("updated_at",),
)
ASSIGNMENTS = Section(
    "assignments",
    Assignment,
    (
        _c("problem:int", "problem__number"),
        _c("paper:text", "paper__identity"),
        _c("juror:text", "juror__username"),
    ),
    scope="problem__contest",
    order=("problem__number", "paper__identity", "juror__username"),
)
SHEETS = Section(
    "sheets",
    Sheet,
    (
        _c("problem:int", "problem__number"),
        _c("juror:text", "juror__username"),
        _c("state:text"),
        _c("submitted_at?:time"),
    ),
    scope="problem__contest",
    order=("problem__number", "juror__username"),
)
MARKS = Section(
    "marks",
    Mark,
    (
        _c("problem:int", "sheet__problem__number"),
        _c("juror:text", "sheet__juror__username"),
        _c("paper:text", "paper__identity"),
        _c("criterion:text", "criterion__code"),
        _c("points?:decimal"),
        _c("note:text"),
        _c("version:int"),
        _c("updated_at:time"),
    ),
    scope="sheet__problem__contest",
    order=(
        "sheet__problem__number",
        "sheet__juror__username",
        "paper__identity",
        "criterion__code",
    ),
    stamps=("updated_at",),
)
MARK_EVENTS = Section(
    "events",
    MarkEvent,
    (
        _c("actor?:text", "actor__username"),
        _c("channel:text"),
        _c("old_points?:decimal"),
        _c("new_points?:decimal"),
        *_texts("old_note", "new_note"),
        _c("version:int"),
        _c("created_at:time"),
    ),
    scope="mark__sheet__problem__contest",
    order=("mark_id", "version"),
    stamps=("created_at",),
)
# A comment has no natural key of its own (two alike may be written in the same instant): the
# id breaks ties, and a restore draws ids in this same order.
COMMENTS = Section(
    "comments",
    Comment,
    (
        _c("paper:text", "paper__identity"),
        _c("problem:int", "criterion__problem__number"),
        _c("criterion:text", "criterion__code"),
        _c("author:text", "author__username"),
        _c("text:text"),
        _c("created_at:time"),
    ),
    scope="paper__contest",
    order=("paper__identity", "criterion__problem__number", "criterion__code", "created_at", "id"),
    stamps=("created_at",),
)
RESOLUTIONS = Section(
    "resolutions",
    Resolution,
    (
        _c("paper:text", "paper__identity"),
        _c("problem:int", "criterion__problem__number"),
        _c("criterion:text", "criterion__code"),
        _c("kind:text"),
        _c("points:decimal"),
        _c("reason:text"),
        _c("decided_by?:text", "decided_by__username"),
        _c("decided_at:time"),
    ),
    scope="paper__contest",
    order=("paper__identity", "criterion__problem__number", "criterion__code"),
    stamps=("decided_at",),
)
RESOLUTION_EVENTS = Section(
    "events",
    ResolutionEvent,
    (
        _c("actor?:text", "actor__username"),
        _c("old_points?:decimal"),
        _c("new_points:decimal"),
        *_texts("old_kind", "new_kind", "reason"),
        _c("created_at:time"),
    ),
    scope="resolution__paper__contest",
    order=("resolution_id", "created_at", "id"),
    stamps=("created_at",),
)
HUMAN_SCORES = Section(
    "human_scores",
    HumanScore,
    (_c("contestant:text"), _c("problem_points:json"), _c("total:decimal")),
    scope="contest",
    order=("contestant",),
)
CONTEST_EVENTS = Section(
    "contest_events",
    ContestEvent,
    (
        _c("actor?:text", "actor__username"),
        *_texts("from_state", "to_state", "reason"),
        _c("created_at:time"),
    ),
    scope="contest",
    order=("created_at", "id"),
    stamps=("created_at",),
)
NOTIFICATIONS = Section(
    "notifications",
    Notification,
    (
        _c("recipient:text", "recipient__username"),
        _c("kind:text"),
        _c("problem?:int", "problem__number"),
        _c("paper?:text", "paper__identity"),
        _c("criterion?:text", "criterion__code"),
        # The comment it announces, by its index in the document's "comments".
        _c("comment?:int", None),
        _c("sentence:text"),
        _c("created_at:time"),
        _c("read_at?:time"),
    ),
    scope="contest",
    # Each person's together, oldest first; ties fall back on the id, drawn in this order.
    order=("recipient__username", "created_at", "id"),
    stamps=("created_at",),
)
# A page's image: a member of the archive (version 2) or base64 inside the document (1).
SCAN_PAGES = Section(
    "scan_pages",
    ScanPage,
    (
        _c("paper:text", "paper__identity"),
        _c("problem:int", "problem__number"),
        *(_c(f"{name}:int") for name in ("position", "width", "height")),
        _c("created_at:time"),
    ),
    scope="paper__contest",
    order=("paper__identity", "problem__number", "position"),
    stamps=("created_at",),
    # The stored file's name is never exported (a restore draws a fresh one): the document names
    # the image's archive member, and the image itself is never inside the document.
    left_out=("image",),
)
