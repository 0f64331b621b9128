"""A seed's cells in a juror's live sheet: looking one up by its label, saving its points or
note, and its history. A seed is a calibration paper back in the sheet under a fresh label
(grading.calibration.seeds draws them); to the juror it is a row like any other, with the same
doors (the sheet's cell, note and history URLs take its label), the same checks (the sheet's
lock, the points' validation, a stale version refused, no blanking after submitting) and the
same answers. Its marks are `CalibrationMark`s, recorded as `CalibrationMarkEvent`s: never
`Mark`s, so that no result, export, comparison or analysis can count them."""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db import transaction

from grading.marking.seed_marks import seed_mark_set
from grading.marking.selectors import own_sheet, sheet_hold
from grading.marking.sheets import (
    note_checked,
    refuse_if_sheet_locked,
    sheet_cell_note_set,
    sheet_cell_set,
)
from grading.models import CalibrationMark, MarkEvent, Sheet
from grading.rules import access


def is_seed_mark(mark) -> bool:
    return isinstance(mark, CalibrationMark)


def own_seed_cell(*, juror, contest_slug: str, problem_number: int, label: str, code: str):
    """The juror's own seed mark for the seed labelled `label` and the criterion `code`, with
    the juror's live sheet (`live_sheet`), while they may read the seed; else None. Two
    queries (none for a visitor who is not a juror)."""
    if not access.is_juror(juror):
        return None
    mark = (
        CalibrationMark.objects.select_related("seed", "criterion")
        .filter(
            seed__juror=juror,
            seed__label=label,
            seed__calibration_paper__round__problem__contest__slug=contest_slug,
            seed__calibration_paper__round__problem__number=problem_number,
            criterion__code=code,
        )
        .first()
    )
    if mark is None or not access.may_read_seed(juror, mark.seed):
        return None
    sheet = own_sheet(juror=juror, contest_slug=contest_slug, problem_number=problem_number)
    if sheet is None:
        return None
    mark.live_sheet = sheet
    mark.criterion.problem = sheet.problem
    return mark


def cell_sheet(mark) -> Sheet:
    """The live sheet a cell is on: a mark's own, or the sheet a seed's mark was looked up with."""
    return mark.live_sheet if is_seed_mark(mark) else mark.sheet


def cell_write(mark, write):
    """The write for a cell: the sheet's own for a mark, the seed's for a seed's mark."""
    if not is_seed_mark(mark):
        return write
    return {sheet_cell_set: seed_cell_set, sheet_cell_note_set: seed_cell_note_set}[write]


@transaction.atomic
def seed_cell_set(
    *,
    sheet: Sheet,
    mark: CalibrationMark,
    points: Decimal | None,
    expected_version: int | None,
    actor,
    change_key: str | None = None,
) -> CalibrationMark:
    """Set a seed cell's points (None clears it while the sheet is a draft), as
    `sheet_cell_set` does a mark's; the sheet's state is read again in the transaction."""
    sheet_hold(sheet)
    refuse_if_sheet_locked(sheet, actor, reopened=mark.reopened_by_id is not None)
    return seed_mark_set(
        sheet=sheet,
        mark=mark,
        points=points,
        actor=actor,
        expected_version=expected_version,
        change_key=change_key,
    )


@transaction.atomic
def seed_cell_note_set(
    *,
    sheet: Sheet,
    mark: CalibrationMark,
    note: str,
    expected_version: int | None,
    actor,
    change_key: str | None = None,
) -> CalibrationMark:
    """Set a seed cell's note, keeping its points."""
    sheet_hold(sheet)
    refuse_if_sheet_locked(sheet, actor)
    note = note_checked(note)
    return seed_mark_set(
        sheet=sheet,
        mark=mark,
        points=mark.points,
        note=note,
        actor=actor,
        expected_version=expected_version,
        reconfirm=False,
        change_key=change_key,
    )


@dataclass(frozen=True)
class SeedEvent:
    """A seed mark's change as the cell's history shows a mark's."""

    created_at: datetime
    actor: object
    old_points: Decimal | None
    new_points: Decimal | None
    old_note: str
    new_note: str
    channel: str

    def get_channel_display(self) -> str:
        return MarkEvent.Channel(self.channel).label


def seed_cell_history(*, mark: CalibrationMark) -> list[SeedEvent]:
    """Every change to one seed mark, newest first, with who made it."""
    return [
        SeedEvent(
            created_at=event.created_at,
            actor=event.actor,
            old_points=event.old_points,
            new_points=event.new_points,
            old_note=event.old_note,
            new_note=event.new_note,
            channel=event.channel,
        )
        for event in mark.events.select_related("actor").order_by("-version")
    ]
