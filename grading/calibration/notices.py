"""The calibration round's notices, written inside its services' transactions (`rounds.py`):
every juror of the group learns that a round waits for them, and later that the problem's
grading is open; a juror who submitted their calibration sheet learns that a reference they
compared with changed. A notice names the problem and the calibration papers' labels (K1…)
only, never a live paper."""

from grading.models import Notification
from grading.resolution.inbox import write_notices


def notify_calibration_open(*, problem, jurors) -> list[Notification]:
    """Each juror of the group: the calibration papers wait in their calibration sheet."""
    return write_notices(
        jurors,
        kind=Notification.Kind.CALIBRATION_OPEN,
        contest_id=problem.contest_id,
        problem_id=problem.pk,
        sentence=(
            f"{problem.code}: a calibration round waits for you; grade its papers in your "
            "calibration sheet before grading opens."
        ),
    )


def notify_grading_opened(*, problem, jurors) -> list[Notification]:
    """Each juror of the group: the calibration round is closed and live grading is open."""
    return write_notices(
        jurors,
        kind=Notification.Kind.GRADING_OPENED,
        contest_id=problem.contest_id,
        problem_id=problem.pk,
        sentence=f"{problem.code}: the calibration round is closed; grading is open in your sheet.",
    )


def notify_references_changed(*, problem, jurors, cells: list[str]) -> list[Notification]:
    """Each juror who submitted their calibration sheet: the references of `cells` ("K2 T1")
    changed since, and their sheet shows them beside what they were."""
    shown = ", ".join(cells[:5]) + (f" and {len(cells) - 5} more" if len(cells) > 5 else "")
    return write_notices(
        jurors,
        kind=Notification.Kind.REFERENCE_CHANGED,
        contest_id=problem.contest_id,
        problem_id=problem.pk,
        sentence=(
            f"{problem.code}: the chair changed the calibration reference of {shown}; your "
            "calibration sheet shows it beside what it was when you submitted."
        ),
    )
