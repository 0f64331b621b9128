"""Grading the same way: while a problem's calibration round is open, its live grading waits.

`live_grading_waits` is the one gate every live mark-writing door asks (through
`grading.marking.selectors.sheet_lock_reason`: the sheet's autosave, its notes, the XLSX
upload and the submission), so that no live mark is given before the group has graded the
calibration papers against the reference."""

from django.core.exceptions import ObjectDoesNotExist


def live_grading_waits(problem) -> str | None:
    """The sentence saying why the problem's live grading waits, or None when it does not.
    No query when the problem was loaded with its round (`select_related("calibration")`),
    one otherwise."""
    try:
        round_ = problem.calibration
    except ObjectDoesNotExist:
        return None
    if round_ is None or not round_.is_open:
        return None
    return (
        f"Grading of {problem.code} opens after its calibration round: grade the calibration "
        "papers first."
    )
