"""The backup's sections of what the assignment knows (jurors' profiles and languages, the
conflicts the organizer declared) and what moved during grading (assignment moves, language
help), listed by `grading.backup.table` with the rest."""

from grading.backup.sections import Section
from grading.backup.sections import column as _c
from grading.backup.sections import texts as _texts
from grading.models import (
    AssignmentMove,
    ConflictRuling,
    DeclaredConflict,
    HelpRequest,
    JurorLanguage,
    JurorProfile,
)

# What the assignment knows of the jurors, and what moved during grading: lists left out of the
# document while empty, as the appeals' are. A person's facts belong to the person, not to the
# contest: the backup carries those of the users it names (`grading.backup.export._users`).
JUROR_PROFILES = Section(
    "juror_profiles",
    JurorProfile,
    (
        _c("user:text", "user__username"),
        _c("country:text"),
        _c("capacity?:int"),
        _c("unavailable_since?:time"),
    ),
    order=("user__username",),
    sparse_list=True,
)
JUROR_LANGUAGES = Section(
    "juror_languages",
    JurorLanguage,
    (_c("user:text", "user__username"), *_texts("language", "level")),
    order=("user__username", "language"),
    sparse_list=True,
)
# A move has no natural key of its own (a paper may move twice in one instant, after a second
# juror leaves): the id breaks ties, and a restore draws ids in this same order.
ASSIGNMENT_MOVES = Section(
    "assignment_moves",
    AssignmentMove,
    (
        _c("problem:int", "problem__number"),
        _c("paper:text", "paper__identity"),
        _c("from_juror:text", "from_juror__username"),
        _c("to_juror:text", "to_juror__username"),
        _c("actor:text", "actor__username"),
        _c("reason:text"),
        _c("at:time"),
    ),
    scope="problem__contest",
    order=("problem__number", "at", "id"),
    stamps=("at",),
    sparse_list=True,
)
HELP_REQUESTS = Section(
    "help_requests",
    HelpRequest,
    (
        _c("problem:int", "problem__number"),
        _c("paper:text", "paper__identity"),
        _c("asked_by:text", "asked_by__username"),
        _c("question:text"),
        _c("asked_at:time"),
        _c("helper?:text", "helper__username"),
        _c("assigned_by?:text", "assigned_by__username"),
        _c("assigned_at?:time"),
        _c("answer:text"),
        _c("answered_at?:time"),
        # Asked on a seed's row, by the seed's label in the problem (left out for others).
        _c("seed?:text", "seed__label"),
    ),
    scope="problem__contest",
    order=("problem__number", "asked_at", "id"),
    stamps=("asked_at",),
    sparse_list=True,
    defaults={"seed": None},
    sparse=("seed",),
)
# The conflicts of interest the organizer declared, each a juror's with a delegation (by its
# code) or with one contestant (by the paper's identity), never both. They belong to the contest
# of their delegation or paper, so a section of their own reads them (`export._declared`); left
# out of the document while the contest has none, as every list added after backups were first
# written.
DECLARED_CONFLICTS = Section(
    "declared_conflicts",
    DeclaredConflict,
    (
        _c("juror:text", "juror__username"),
        _c("delegation?:text", "delegation__code"),
        _c("paper?:text", "paper__identity"),
        _c("reason:text"),
        _c("declared_by?:text", "declared_by__username"),
        _c("declared_at:time"),
    ),
    order=("juror__username", "delegation__code", "paper__identity"),
    stamps=("declared_at",),
    sparse_list=True,
)
# The chair's decisions on marks given before a juror's conflict with the paper came to light:
# left out of the document while the contest has none.
CONFLICT_RULINGS = Section(
    "conflict_rulings",
    ConflictRuling,
    (
        _c("problem:int", "problem__number"),
        _c("paper:text", "paper__identity"),
        _c("juror:text", "juror__username"),
        _c("kept:bool"),
        _c("reason:text"),
        _c("decided_by?:text", "decided_by__username"),
        _c("decided_at:time"),
    ),
    scope="problem__contest",
    order=("problem__number", "decided_at", "id"),
    stamps=("decided_at",),
    sparse_list=True,
)
