"""The seeds' cells of a juror's live sheet, for the grid (`selectors.sheet_grid`): a seed is a
calibration paper back in the sheet under a fresh label, and its row is built from these
values exactly as a paper's row is from its marks, so that nothing tells the two apart."""

from grading.models import CalibrationMark, Sheet


def seed_cell_values(*, sheet: Sheet) -> dict[str, dict[int, tuple]]:
    """The sheet's juror's seeds in the sheet's problem: label → criterion id → (points, note,
    version, updated_at, reopened version, its reason) of their marks, as the grid reads a
    paper's. One query."""
    values: dict[str, dict[int, tuple]] = {}
    for label, criterion_id, *cell in CalibrationMark.objects.filter(
        seed__juror_id=sheet.juror_id,
        seed__calibration_paper__round__problem_id=sheet.problem_id,
    ).values_list(
        "seed__label",
        "criterion_id",
        "points",
        "note",
        "version",
        "updated_at",
        "reopened_by__number",
        "reopened_by__reason",
    ):
        values.setdefault(label, {})[criterion_id] = cell
    return values


def sheet_seed_marks(*, sheet: Sheet) -> dict[tuple[str, str], CalibrationMark]:
    """The sheet's juror's seed marks in the sheet's problem by (seed label, criterion code),
    with their criterion: what an uploaded file's seed rows write. One query."""
    return {
        (mark.seed.label, mark.criterion.code): mark
        for mark in CalibrationMark.objects.filter(
            seed__juror_id=sheet.juror_id,
            seed__calibration_paper__round__problem_id=sheet.problem_id,
        ).select_related("seed", "criterion")
    }
