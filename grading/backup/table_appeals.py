"""The backup's sections of delegations, provisional results and appeals (`grading.backup.table`
lists them with the rest)."""

from grading.backup.sections import Section
from grading.backup.sections import column as _c
from grading.backup.sections import texts as _texts
from grading.models import (
    Appeal,
    AppealCriterion,
    AppealDeadlineChange,
    AppealEvent,
    Delegation,
    ProvisionalResult,
)

# Delegations and appeals: lists left out of the document while empty (`sparse_list`), so that
# backups written before them still restore and a contest without them exports as it did.
DELEGATIONS = Section(
    "delegations",
    Delegation,
    (
        *_texts("code", "name"),
        # Usernames (leaders are users, as jurors are) and papers' identities, sorted.
        _c("leaders:list", None),
        _c("papers:list", None),
        _c("country:text"),
    ),
    scope="contest",
    order=("code",),
    # Delegations backed up before they had a country had none (their code stands for it).
    defaults={"country": ""},
    sparse=("country",),
    sparse_list=True,
)
PROVISIONAL_RESULTS = Section(
    "provisional_results",
    ProvisionalResult,
    (
        _c("paper:text", "paper__identity"),
        _c("total:decimal"),
        _c("rank?:int"),
        _c("medal:text"),
        _c("published_at:time"),
    ),
    scope="paper__contest",
    order=("paper__identity",),
    sparse_list=True,
)
APPEAL_DEADLINE_CHANGES = Section(
    "appeal_deadline_changes",
    AppealDeadlineChange,
    (
        _c("actor?:text", "actor__username"),
        _c("old_deadline?:time"),
        _c("new_deadline:time"),
        _c("reason:text"),
        _c("created_at:time"),
    ),
    scope="contest",
    order=("created_at", "id"),
    stamps=("created_at",),
    sparse_list=True,
)
# A paper may hold several appeals on a problem (a withdrawn one filed again): the filing time,
# then the id, drawn by a restore in this same order, tell them apart.
APPEALS = Section(
    "appeals",
    Appeal,
    (
        _c("paper:text", "paper__identity"),
        _c("problem:int", "problem__number"),
        _c("filed_by:text", "filed_by__username"),
        *_texts("argument", "state", "outcome", "reason"),
        _c("decided_by?:text", "decided_by__username"),
        _c("decided_at?:time"),
        _c("filed_at:time"),
        _c("withdrawn_at?:time"),
    ),
    scope="paper__contest",
    order=("paper__identity", "problem__number", "filed_at", "id"),
    stamps=("filed_at",),
    sparse_list=True,
)
# Nested in their appeal, whose problem they belong to.
APPEAL_CRITERIA = Section(
    "criteria",
    AppealCriterion,
    (
        _c("criterion:text", "criterion__code"),
        _c("points_before:decimal"),
        _c("points_after?:decimal"),
    ),
    scope="appeal__paper__contest",
    order=("appeal_id", "criterion__order", "criterion__code"),
)
APPEAL_EVENTS = Section(
    "events",
    AppealEvent,
    (
        _c("actor?:text", "actor__username"),
        _c("kind:text"),
        _c("text:text"),
        _c("created_at:time"),
    ),
    scope="appeal__paper__contest",
    order=("appeal_id", "created_at", "id"),
    stamps=("created_at",),
)
