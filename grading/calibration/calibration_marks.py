"""A juror's calibration marks: one cell's points or note from their calibration sheet, and
submitting the sheet. As a live mark changes through `mark_set`, a calibration mark changes
here only: validated against its criterion, refused when stale, recorded as a
`CalibrationMarkEvent`; never once the sheet is submitted, the round closed or the contest
final, but for a mark an amendment of the scheme reopened: its juror re-confirms or re-marks
it while the round is open, submitted sheet or not. Calibration marks are never `Mark`s: nothing that reads results reads them."""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import ngettext

from grading.models import CalibrationMark, CalibrationMarkEvent, CalibrationSheet
from grading.rules import access
from grading.rules.domain import points_or_blank
from grading.rules.phase import refuse_if_final_now
from grading.rules.refusals import SheetLocked, Stale
from rubrics.validators import validate_points

NOTE_MAX_LENGTH = CalibrationMark._meta.get_field("note").max_length


def calibration_lock_reason(sheet: CalibrationSheet) -> str | None:
    """Why the juror may not change their calibration sheet now, or None when they may."""
    round_ = sheet.round
    if round_.problem.contest.is_final:
        return "The contest is final; calibration marks can no longer change."
    if not round_.is_open:
        return f"The calibration round of {round_.problem.code} is closed; grading is open."
    if sheet.is_submitted:
        return "You submitted this calibration sheet; it is read-only."
    return None


def reopened_lock_reason(sheet: CalibrationSheet) -> str | None:
    """Why the juror may not re-confirm or re-mark a calibration mark an amendment reopened,
    or None: such a mark waits for its juror on a submitted sheet too, while the round is open."""
    reason = calibration_lock_reason(sheet)
    return None if reason is not None and sheet.is_submitted and sheet.round.is_open else reason


def _held_sheet(sheet: CalibrationSheet, actor, *, reopened: bool = False) -> CalibrationSheet:
    """The sheet read afresh with its row held, its round and contest too, refused unless it
    is the actor's and open to changes (for a reopened mark: `reopened_lock_reason`)."""
    access.require(
        actor is not None and actor.pk == sheet.juror_id,
        "This calibration sheet is another juror's.",
    )
    refuse_if_final_now(sheet.round.problem.contest, "its calibration marks")
    sheet = (
        CalibrationSheet.objects.select_for_update(of=("self",))
        .select_related("round__problem__contest")
        .get(pk=sheet.pk)
    )
    reason = reopened_lock_reason(sheet) if reopened else calibration_lock_reason(sheet)
    if reason:
        raise SheetLocked(reason)
    return sheet


@transaction.atomic
def calibration_mark_set(
    *,
    mark: CalibrationMark,
    actor,
    points: Decimal | None = None,
    note: str | None = None,
    keep_points: bool = False,
    expected_version: int | None = None,
    change_key: str | None = None,
) -> CalibrationMark:
    """Change a calibration mark's points (or, with `keep_points`, its note only), recording a
    `CalibrationMarkEvent`. A writer who saw an older version is refused (`Stale`); the same
    value again records nothing, except on a mark an amendment of the scheme reopened: there
    the same points re-confirm it (recorded, `reopened_by` cleared), and a blank is refused.
    A note saved alone never re-confirms."""
    given_sheet = mark.sheet
    # Read before the sheet is held, to know which lock applies: an amendment committed since
    # moves the mark's version, which the conditional UPDATE below then refuses as stale.
    mark = CalibrationMark.objects.select_related("criterion", "calibration_paper").get(pk=mark.pk)
    confirms = mark.reopened_by_id is not None and not keep_points
    sheet = _held_sheet(given_sheet, actor, reopened=confirms)
    if expected_version is not None and expected_version != mark.version:
        _refuse_stale(mark)
    if keep_points:
        points = mark.points
    validate_points(points, mark.criterion, where=f"Paper {mark.calibration_paper.label}")
    new_note = mark.note if note is None else note.strip()
    if len(new_note) > NOTE_MAX_LENGTH:
        raise ValidationError(
            f"The note is {len(new_note)} characters long; shorten it to {NOTE_MAX_LENGTH} at most."
        )
    if points == mark.points and new_note == mark.note and not confirms:
        return mark
    if confirms and points is None:
        raise SheetLocked(
            f"Criterion {mark.criterion.code}: this calibration mark was reopened by an "
            "amendment of the scheme; re-confirm its points or give new ones, not a blank."
        )
    version = mark.version + 1
    now = timezone.now()
    cleared = {"reopened_by": None} if confirms else {}
    updated = CalibrationMark.objects.filter(pk=mark.pk, version=mark.version).update(
        points=points,
        note=new_note,
        version=version,
        updated_at=now,
        scheme_version=sheet.round.problem.scheme_version,
        **cleared,
    )
    if updated != 1:
        mark.refresh_from_db(fields=["points", "note", "version"])
        _refuse_stale(mark)
    CalibrationMarkEvent.objects.create(
        mark=mark,
        actor=actor,
        old_points=mark.points,
        new_points=points,
        old_note=mark.note,
        new_note=new_note,
        version=version,
        change_key=change_key,
    )
    mark.points, mark.note, mark.version, mark.updated_at = points, new_note, version, now
    if confirms:
        mark.reopened_by = None
    return mark


def _refuse_stale(mark: CalibrationMark) -> None:
    raise Stale(
        f"This calibration mark was changed to {points_or_blank(mark.points)} since you loaded "
        "it; reload to see the current value before changing it."
    )


@transaction.atomic
def calibration_sheet_submit(*, sheet: CalibrationSheet, actor) -> CalibrationSheet:
    """Submit the juror's calibration sheet once every cell has points; from then on they see
    the reference beside their marks, and the group's spread."""
    sheet = _held_sheet(sheet, actor)
    blanks = [
        f"{label} {code}"
        for label, code in sheet.marks.filter(points__isnull=True)
        .order_by("calibration_paper__position", "criterion__order", "criterion__code")
        .values_list("calibration_paper__label", "criterion__code")
    ]
    if blanks:
        shown = ", ".join(blanks[:5]) + (f" and {len(blanks) - 5} more" if len(blanks) > 5 else "")
        raise ValidationError(
            f"{ngettext('%d cell is', '%d cells are', len(blanks)) % len(blanks)} still blank "
            f"({shown}); give every cell a value before submitting."
        )
    reopened = sheet.marks.filter(reopened_by__isnull=False).count()
    if reopened:
        raise ValidationError(
            ngettext(
                "%d calibration mark reopened by an amendment of the scheme is still to "
                "re-confirm; re-confirm or re-mark it before submitting.",
                "%d calibration marks reopened by an amendment of the scheme are still to "
                "re-confirm; re-confirm or re-mark them before submitting.",
                reopened,
            )
            % reopened
        )
    sheet.state = CalibrationSheet.State.SUBMITTED
    sheet.submitted_at = timezone.now()
    sheet.save(update_fields=["state", "submitted_at"])
    return sheet
