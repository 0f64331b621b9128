"""The backup's table: every section of the document, the model its rows come from, the
natural key they are sorted by, and each field with its kind. Export (`grading.backup.export`)
reads the database through it, restore (`grading.backup.restore`) checks the document's rows
against it and writes them back (`grading.backup.writing`), so that a field added to a section
is added to both ends at once.

A column's `path` is where its value lives, seen from the section's model: the model's own
field (the column's name, the default), a natural key across a relation ("paper__identity"),
or None for what the section's own function fills in (a paper's labels, a user's groups). Its
`kind` is what the document holds (grading.backup.reader.Reader.convert): decimals as text,
times as ISO 8601 in UTC. Columns come in the order a restore reports their problems. What a
section and a column are is in `grading.backup.sections`."""

from django.contrib.auth.models import User

from grading.backup.sections import Section
from grading.backup.sections import column as _c
from grading.backup.sections import texts as _texts
from grading.models import (
    Assignment,
    BankNote,
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
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, SchemeVersion, Task

FORMAT = "jury-contest-backup"
# Version 2 is a zip archive: the document (without images) as backup.json, each scanned
# page's PNG as its own member (grading.backup.archive). Version 1 was the document alone,
# each page's PNG as base64 inside it (grading.backup.legacy reads it).
VERSION = 2
LEGACY_VERSION = 1

CONTEST = Section(
    "contest",
    Contest,
    (
        *_texts("slug", "name", "state"),
        _c("max_total:decimal"),
        _c("created_at:time"),
        _c("appeals_deadline?:time"),
        _c("working_language:text"),
        _c("scan_mask_percent:decimal"),
        _c("scan_mask_pages:text"),
    ),
    stamps=("created_at",),
    # Contests backed up before appeals had no deadline; before the assignment knew languages,
    # their working language was English; before the scan mask was a contest's setting, every
    # scanned page was masked over its top 12 % (as the migration keeps them).
    defaults={
        "appeals_deadline": None,
        "working_language": "English",
        "scan_mask_percent": "12.0",
        "scan_mask_pages": "every",
    },
    sparse=("appeals_deadline", "working_language", "scan_mask_percent", "scan_mask_pages"),
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
    (
        _c("number:int"),
        *_texts("title", "language"),
        _c("max_points:decimal"),
        _c("scheme_version:int"),
    ),
    scope="contest",
    order=("number",),
    # Backups made before schemes had versions hold every problem's scheme as loaded.
    defaults={"scheme_version": 1},
    sparse=("scheme_version",),
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
# A problem's amendments after marks were given (version 2 on), nested in its row and left out
# of it while it has none, so that a contest without versions exports as it did before.
SCHEME_VERSIONS = Section(
    "scheme_versions",
    SchemeVersion,
    (
        _c("number:int"),
        _c("reason:text"),
        _c("changes:json"),
        _c("reopens_marks:bool"),
        _c("created_by?:text", "created_by__username"),
        _c("created_at:time"),
    ),
    scope="problem__contest",
    order=("problem__number", "number"),
    stamps=("created_at",),
    sparse_list=True,
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
        _c("answer_language:text"),
    ),
    scope="contest",
    # Creation order, not identity: restored in this order into an empty database, the papers
    # get back the ids they had (pages and exports show the public code instead).
    order=("created_at", "identity"),
    # Backups made before papers had public codes lack them; such papers get fresh codes.
    # Those made before blank problems were recorded have none left blank; those made before
    # answer languages, none known.
    defaults={"public_code": None, "blank_problems": [], "answer_language": ""},
    sparse=("answer_language",),
    stamps=("created_at",),
    # A human contestant's delegation is said by the delegation's list of papers (DELEGATIONS).
    left_out=("delegation",),
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
        _c("scheme_version:int"),
        # The number of the amendment that reopened the mark, while its juror has yet to
        # re-confirm or re-mark it.
        _c("reopened_by?:int", "reopened_by__number"),
    ),
    scope="sheet__problem__contest",
    order=(
        "sheet__problem__number",
        "sheet__juror__username",
        "paper__identity",
        "criterion__code",
    ),
    stamps=("updated_at",),
    # Marks backed up before schemes had versions were all given under version 1, none
    # reopened.
    defaults={"scheme_version": 1, "reopened_by": None},
    sparse=("scheme_version", "reopened_by"),
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
    # The id of the sheet's change in flight (grading.marking.change_keys): kept to answer a
    # retry of a lost answer, not part of the record a backup carries.
    left_out=("change_key",),
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
        # A seed's question answered, by the seed's label in the problem (left out for others).
        _c("seed?:text", "seed__label"),
    ),
    scope="contest",
    # Each person's together, oldest first; ties fall back on the id, drawn in this order.
    order=("recipient__username", "created_at", "id"),
    stamps=("created_at",),
    defaults={"seed": None},
    sparse=("seed",),
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


# Delegations, provisional results and appeals: grading/backup/table_appeals.py; what the
# assignment knows and what moved during grading: grading/backup/table_assigning.py.
from grading.backup.table_appeals import (  # noqa: E402, F401
    APPEAL_CRITERIA,
    APPEAL_DEADLINE_CHANGES,
    APPEAL_EVENTS,
    APPEALS,
    DELEGATIONS,
    PROVISIONAL_RESULTS,
)
from grading.backup.table_assigning import (  # noqa: E402, F401
    ASSIGNMENT_MOVES,
    CONFLICT_RULINGS,
    DECLARED_CONFLICTS,
    HELP_REQUESTS,
    JUROR_LANGUAGES,
    JUROR_PROFILES,
)

# Seeded checks (calibration papers back in live sheets) and their marks: grading/backup/table_seeds.py.
# Calibration rounds with their papers, references (and their history), sheets, marks and events:
# grading/backup/table_calibration.py. The appeals evening with its tables and meetings, and the
# groups' discussion sessions with their members and outcomes: grading/backup/table_room.py.
from grading.backup.table_calibration import (  # noqa: E402, F401
    CALIBRATION_MARK_EVENTS,
    CALIBRATION_MARKS,
    CALIBRATION_PAPERS,
    CALIBRATION_ROUNDS,
    CALIBRATION_SHEETS,
    REFERENCE_MARK_EVENTS,
    REFERENCE_MARKS,
)
from grading.backup.table_room import (  # noqa: E402, F401
    APPEAL_EVENINGS,
    APPEAL_MEETINGS,
    APPEAL_TABLES,
    DISCUSSION_SESSIONS,
    SESSION_MEMBERS,
    SESSION_OUTCOMES,
)
from grading.backup.table_seeds import SEED_MARK_EVENTS, SEED_MARKS, SEEDS  # noqa: E402, F401

# A problem's comment bank, nested in its problem and left out of it while empty, so that a
# contest without one exports to the bytes it did before the bank existed.
BANK = Section(
    "bank",
    BankNote,
    (
        _c("criterion:text", "criterion__code"),
        _c("text:text"),
        _c("points?:decimal"),
        _c("author?:text", "author__username"),
        _c("adopted:bool"),
        _c("uses:int"),
        _c("order:int"),
        _c("created_at:time"),
    ),
    scope="criterion__problem__contest",
    order=("criterion__problem__number", "criterion__order", "criterion__code", "order", "id"),
    stamps=("created_at",),
    # Backups made before jurors' proposals existed hold the group's bank only.
    defaults={"adopted": True},
    sparse=("adopted",),
    sparse_list=True,
)
