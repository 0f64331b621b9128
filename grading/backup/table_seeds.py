"""The backup's sections of seeded checks (`grading.backup.table` lists them with the rest):
each seed (the problem, the calibration paper's label in its round, the juror, the seed's own
label) and each seed mark with its history. Lists left out of the document while empty, so
that a contest without seeds exports to the bytes it did before them."""

from grading.backup.sections import Section
from grading.backup.sections import column as _c
from grading.models import CalibrationMark, CalibrationMarkEvent, Seed

SEEDS = Section(
    "seeds",
    Seed,
    (
        _c("problem:int", "calibration_paper__round__problem__number"),
        _c("calibration_paper:text", "calibration_paper__label"),
        _c("juror:text", "juror__username"),
        _c("label:text"),
        _c("created_at:time"),
    ),
    scope="calibration_paper__round__problem__contest",
    order=("calibration_paper__round__problem__number", "label"),
    stamps=("created_at",),
    sparse_list=True,
)
SEED_MARKS = Section(
    "seed_marks",
    CalibrationMark,
    (
        _c("problem:int", "seed__calibration_paper__round__problem__number"),
        _c("seed:text", "seed__label"),
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
    # Through the seed: a calibration sheet's marks are the round's own section, not these.
    scope="seed__calibration_paper__round__problem__contest",
    order=(
        "seed__calibration_paper__round__problem__number",
        "seed__label",
        "criterion__order",
        "criterion__code",
    ),
    stamps=("updated_at",),
    # A seed's mark is of its seed's calibration paper, and on no calibration sheet.
    left_out=("calibration_paper", "sheet"),
    sparse_list=True,
)
# Nested in their seed mark.
SEED_MARK_EVENTS = Section(
    "events",
    CalibrationMarkEvent,
    (
        _c("actor?:text", "actor__username"),
        _c("channel:text"),
        _c("old_points?:decimal"),
        _c("new_points?:decimal"),
        _c("old_note:text"),
        _c("new_note:text"),
        _c("version:int"),
        _c("created_at:time"),
    ),
    scope="mark__seed__calibration_paper__round__problem__contest",
    order=("mark_id", "version"),
    stamps=("created_at",),
    # The id of the sheet's change in flight (grading.marking.change_keys): kept to answer a
    # retry of a lost answer, not part of the record a backup carries.
    left_out=("change_key",),
)
