"""The backup's sections of calibration rounds (`grading.backup.table` lists them with the
rest): a problem's round with its papers (by identity, with their calibration labels and
positions) and their reference marks with their history, and the jurors' calibration sheets
with their marks (named by the paper's calibration label) and each mark's history, nested in
their round. The list is left out of the document while empty, so that a contest without a
round exports to the bytes it did before them. Seeds and their marks are `table_seeds.py`'s."""

from grading.backup.sections import Section
from grading.backup.sections import column as _c
from grading.backup.sections import texts as _texts
from grading.models import (
    CalibrationMark,
    CalibrationMarkEvent,
    CalibrationPaper,
    CalibrationRound,
    CalibrationSheet,
    ReferenceMark,
    ReferenceMarkEvent,
)

CALIBRATION_ROUNDS = Section(
    "calibration_rounds",
    CalibrationRound,
    (
        _c("problem:int", "problem__number"),
        _c("state:text"),
        _c("seeded:bool"),
        _c("created_by?:text", "created_by__username"),
        _c("created_at:time"),
        _c("grading_opened_at?:time"),
    ),
    scope="problem__contest",
    order=("problem__number",),
    stamps=("created_at",),
    sparse_list=True,
)
CALIBRATION_PAPERS = Section(
    "papers",
    CalibrationPaper,
    (
        _c("paper:text", "paper__identity"),
        _c("label:text"),
        _c("position:int"),
        # Kept out of the round for seeding: written only when true, so that a contest
        # without such papers exports to the bytes it did before; older backups have none.
        _c("for_seeding:bool"),
    ),
    defaults={"for_seeding": False},
    sparse=("for_seeding",),
    scope="round__problem__contest",
    order=("round__problem__number", "position"),
)
REFERENCE_MARKS = Section(
    "references",
    ReferenceMark,
    (
        _c("criterion:text", "criterion__code"),
        _c("points?:decimal"),
        _c("note:text"),
        _c("updated_at:time"),
    ),
    scope="calibration_paper__round__problem__contest",
    order=(
        "calibration_paper__round__problem__number",
        "calibration_paper__position",
        "criterion__code",
    ),
    stamps=("updated_at",),
)
# A reference's changes, nested in it as "history" while it has any (the chair's changes are
# recorded since the rounds' first release; rows made before that have none).
REFERENCE_MARK_EVENTS = Section(
    "history",
    ReferenceMarkEvent,
    (
        _c("actor?:text", "actor__username"),
        _c("old_points?:decimal"),
        _c("new_points?:decimal"),
        *_texts("old_note", "new_note"),
        _c("created_at:time"),
    ),
    scope="reference__calibration_paper__round__problem__contest",
    order=("reference_id", "created_at", "id"),
    stamps=("created_at",),
)
CALIBRATION_SHEETS = Section(
    "sheets",
    CalibrationSheet,
    (_c("juror:text", "juror__username"), _c("state:text"), _c("submitted_at?:time")),
    scope="round__problem__contest",
    order=("round__problem__number", "juror__username"),
)
CALIBRATION_MARKS = Section(
    "marks",
    CalibrationMark,
    (
        _c("paper:text", "calibration_paper__label"),
        _c("criterion:text", "criterion__code"),
        _c("points?:decimal"),
        _c("note:text"),
        _c("version:int"),
        _c("scheme_version:int"),
        _c("updated_at:time"),
        # The number of the amendment that reopened the mark, while its juror has yet to
        # re-confirm or re-mark it; left out while none did.
        _c("reopened_by?:int", "reopened_by__number"),
    ),
    defaults={"reopened_by": None},
    sparse=("reopened_by",),
    scope="sheet__round__problem__contest",
    order=(
        "sheet__round__problem__number",
        "sheet__juror__username",
        "calibration_paper__position",
        "criterion__code",
    ),
    stamps=("updated_at",),
    # A seed's marks belong to the seeded checks, not to a calibration sheet.
    left_out=("seed",),
)
CALIBRATION_MARK_EVENTS = Section(
    "events",
    CalibrationMarkEvent,
    (
        _c("actor?:text", "actor__username"),
        _c("channel:text"),
        _c("old_points?:decimal"),
        _c("new_points?:decimal"),
        *_texts("old_note", "new_note"),
        _c("version:int"),
        _c("created_at:time"),
    ),
    scope="mark__sheet__round__problem__contest",
    order=("mark_id", "version"),
    stamps=("created_at",),
    # The id of the sheet's change in flight (grading.marking.change_keys): kept to answer a
    # retry of a lost answer, not part of the record a backup carries.
    left_out=("change_key",),
)
