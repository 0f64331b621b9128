"""The backup's sections of what happens in the room after grading (`grading.backup.table` lists
them with the rest): the appeals evening (its slots, each problem's tables and the timetable of
meetings, a delegation by its code) and the groups' discussion sessions, each with its members
and its outcomes, every outcome with who was present (a record nothing else can rebuild). Lists
left out of the document while empty (`sparse_list`), so that a contest without an evening or a
session exports to the bytes it did before them, and older backups restore with none."""

from grading.backup.sections import Section
from grading.backup.sections import column as _c
from grading.models import (
    AppealEvening,
    AppealMeeting,
    AppealTables,
    DiscussionSession,
    SessionMember,
    SessionOutcome,
)

# One per contest at most: a list, as every section is, that holds one row or is left out.
APPEAL_EVENINGS = Section(
    "appeal_evenings",
    AppealEvening,
    (
        _c("starts_at:time"),
        _c("slot_minutes:int"),
        _c("slots:int"),
        _c("published_at?:time"),
    ),
    scope="contest",
    order=("starts_at",),
    sparse_list=True,
)
# The evening's tables and meetings belong to the contest's one evening: they need not nest.
APPEAL_TABLES = Section(
    "appeal_tables",
    AppealTables,
    (_c("problem:int", "problem__number"), _c("tables:int")),
    scope="evening__contest",
    order=("problem__number",),
    sparse_list=True,
)
APPEAL_MEETINGS = Section(
    "appeal_meetings",
    AppealMeeting,
    (
        _c("slot:int"),
        _c("problem:int", "problem__number"),
        _c("delegation:text", "delegation__code"),
    ),
    scope="evening__contest",
    order=("slot", "problem__number", "delegation__code"),
    sparse_list=True,
)
# Two sessions on one problem may start in the same instant only if one ended: the id breaks
# ties, and a restore draws ids in this same order.
DISCUSSION_SESSIONS = Section(
    "discussion_sessions",
    DiscussionSession,
    (
        _c("problem:int", "problem__number"),
        _c("started_by:text", "started_by__username"),
        _c("order:text"),
        # The model keeps [paper id, criterion id] per cell; the document [paper identity,
        # criterion code] (null for one deleted since), filled in by the export's own query.
        _c("cells:list", None),
        _c("position:int"),
        _c("started_at:time"),
        _c("ended_at?:time"),
    ),
    scope="problem__contest",
    order=("problem__number", "started_at", "id"),
    stamps=("started_at",),
    sparse_list=True,
)
# Nested in their session as "members".
SESSION_MEMBERS = Section(
    "members",
    SessionMember,
    (_c("user:text", "user__username"), _c("joined_at:time"), _c("left_at?:time")),
    scope="session__problem__contest",
    order=("session_id", "joined_at", "id"),
    stamps=("joined_at",),
)
# Nested in their session as "outcomes"; the criterion is one of the session's problem.
SESSION_OUTCOMES = Section(
    "outcomes",
    SessionOutcome,
    (
        _c("paper:text", "paper__identity"),
        _c("criterion:text", "criterion__code"),
        _c("kind:text"),
        _c("points?:decimal"),
        _c("reason:text"),
        _c("recorded_by:text", "recorded_by__username"),
        # Who was in the session when it was recorded: usernames, sorted (the export's query).
        _c("present:list", None),
        _c("created_at:time"),
    ),
    scope="session__problem__contest",
    order=("session_id", "created_at", "id"),
    stamps=("created_at",),
)
