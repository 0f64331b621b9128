"""A seed mark's changes: `seed_mark_set` is the one way a seed's points and notes change,
from the live sheet's page or its XLSX upload, with the rules `mark_set` keeps on a mark."""

from decimal import Decimal

from django.db import transaction
from django.utils import timezone

# A seed's mark keeps a mark's rules, told in the same sentences: its events have the same
# fields, and a different sentence would tell the seed apart.
from grading.marking.marks import _refuse_stale, change_asked, refuse_submitted_blank
from grading.models import CalibrationMark, CalibrationMarkEvent, MarkEvent, Sheet
from grading.rules.phase import refuse_if_final


@transaction.atomic
def seed_mark_set(
    *,
    sheet: Sheet,
    mark: CalibrationMark,
    points: Decimal | None,
    actor,
    note: str | None = None,
    expected_version: int | None = None,
    channel: str = MarkEvent.Channel.BROWSER,
    reconfirm: bool = True,
    change_key: str | None = None,
) -> CalibrationMark:
    """Change a seed's mark, recording a `CalibrationMarkEvent`: the rules of `mark_set` on a
    mark (final means final, a stale writer refused, points validated, a submitted cell never
    blanked, the same value again records nothing but on a mark an amendment reopened, which
    the same points re-confirm), with one conditional UPDATE."""
    refuse_if_final(sheet.problem.contest, "its marks")
    if expected_version is None:
        mark.refresh_from_db(fields=["points", "note", "version", "reopened_by"])
        expected_version = mark.version
    change = change_asked(
        mark, points, note, expected_version=expected_version, reconfirm=reconfirm
    )
    if change is None:
        return mark
    new_note, confirms = change.note, change.confirms
    if points is None and sheet.is_submitted:
        refuse_submitted_blank(mark)
    now = timezone.now()
    version = expected_version + 1
    cleared = {"reopened_by": None} if confirms else {}
    updated = CalibrationMark.objects.filter(pk=mark.pk, version=expected_version).update(
        points=points,
        note=new_note,
        version=version,
        updated_at=now,
        scheme_version=sheet.problem.scheme_version,
        **cleared,
    )
    if updated != 1:
        mark.refresh_from_db(fields=["points", "note", "version"])
        _refuse_stale(mark)
    CalibrationMarkEvent.objects.create(
        mark_id=mark.pk,
        actor=actor,
        channel=channel,
        old_points=mark.points,
        new_points=points,
        old_note=mark.note,
        new_note=new_note,
        version=version,
        created_at=now,
        change_key=change_key,
    )
    mark.points, mark.note, mark.version, mark.updated_at = points, new_note, version, now
    if confirms:
        mark.reopened_by = None
    return mark
