"""Writes on a juror's own sheet: opening it (a blank mark per assigned paper and criterion), a
cell's points or note from the browser, submitting, and the changes of an uploaded XLSX file.
Every change goes through `grading.marking.marks.mark_set`, which validates, refuses stale
versions and records the history."""

from dataclasses import dataclass
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import ngettext

from grading.marking.marks import mark_set
from grading.marking.reconcile import cell_reconcile
from grading.marking.seed_marks import seed_mark_set
from grading.marking.seed_values import sheet_seed_marks
from grading.marking.selectors import (
    own_cell_hold,
    reopened_lock_reason,
    sheet_grid,
    sheet_lock_reason,
)
from grading.models import CalibrationMark, Mark, MarkEvent, PaperLabel, Sheet
from grading.rules import access
from grading.rules.refusals import Refusal, SheetLocked
from rubrics.models import Contest, Criterion, Problem

NOTE_MAX_LENGTH = Mark._meta.get_field("note").max_length


@transaction.atomic
def sheet_get_or_create(*, juror, problem: Problem) -> Sheet:
    """The juror's sheet for the problem, with a blank mark for every assigned paper and
    criterion that does not have one yet."""
    sheet, _ = Sheet.objects.get_or_create(juror=juror, problem=problem)
    paper_ids = list(access.graded_assignments(juror, problem).values_list("paper_id", flat=True))
    criteria = list(Criterion.objects.for_problem(problem))
    have = set(sheet.marks.values_list("paper_id", "criterion_id"))
    Mark.objects.bulk_create(
        Mark(sheet=sheet, paper_id=paper_id, criterion=criterion)
        for paper_id in paper_ids
        for criterion in criteria
        if (paper_id, criterion.pk) not in have
    )
    return sheet


def refuse_if_sheet_locked(sheet: Sheet, actor, *, reopened: bool = False) -> None:
    """A sheet is its juror's alone, and changes only while `sheet_lock_reason` allows (for a
    mark an amendment reopened: `reopened_lock_reason`, until the contest is final); its seeds'
    cells the same (`seed_cells`)."""
    access.require(
        actor is not None and actor.pk == sheet.juror_id, "This sheet is another juror's."
    )
    reason = reopened_lock_reason(sheet) if reopened else sheet_lock_reason(sheet)
    if reason:
        raise SheetLocked(reason)


def note_checked(note: str | None) -> str:
    """A cell's note as typed in the sheet (a mark's or a seed's), trimmed, refused with a
    sentence when too long."""
    note = (note or "").strip()
    if len(note) > NOTE_MAX_LENGTH:
        raise ValidationError(
            f"The note is {len(note)} characters long; shorten it to {NOTE_MAX_LENGTH} at most."
        )
    return note


def _reconcile_if_submitted(sheet: Sheet, mark: Mark, actor) -> None:
    """A submitted sheet changes only during resolution: a revision may close the cell's
    discrepancy as consensus (or reopen one), so the cell's record follows the marks. A mark
    re-confirmed after an amendment during grading has no discussion to close yet."""
    if sheet.is_submitted and sheet.problem.contest.state != Contest.State.GRADING:
        cell_reconcile(paper=mark.paper, criterion=mark.criterion, actor=actor)


@transaction.atomic
def sheet_cell_set(
    *,
    sheet: Sheet,
    mark: Mark,
    points: Decimal | None,
    expected_version: int | None,
    actor,
    change_key: str | None = None,
) -> Mark:
    """Set a cell's points (None clears a draft cell; a submitted one cannot be blanked).
    `mark` is as `own_cell` looked it up, with its sheet: their state is read again here, in
    the writing transaction (`own_cell_hold`)."""
    own_cell_hold(mark)
    refuse_if_sheet_locked(sheet, actor, reopened=mark.reopened_by_id is not None)
    mark = mark_set(
        mark=mark,
        points=points,
        actor=actor,
        channel=MarkEvent.Channel.BROWSER,
        expected_version=expected_version,
        change_key=change_key,
    )
    _reconcile_if_submitted(sheet, mark, actor)
    return mark


@transaction.atomic
def sheet_cell_note_set(
    *,
    sheet: Sheet,
    mark: Mark,
    note: str,
    expected_version: int | None,
    actor,
    change_key: str | None = None,
) -> Mark:
    """Set a cell's note, keeping its points (`mark` as for `sheet_cell_set`)."""
    own_cell_hold(mark)
    refuse_if_sheet_locked(sheet, actor)
    note = note_checked(note)
    # The points the caller saw: if they changed meanwhile, the version check refuses the note.
    return mark_set(
        mark=mark,
        points=mark.points,
        note=note,
        actor=actor,
        channel=MarkEvent.Channel.BROWSER,
        expected_version=expected_version,
        reconfirm=False,
        change_key=change_key,
    )


@transaction.atomic
def sheet_submit(*, sheet: Sheet, actor) -> Sheet:
    """Submit the juror's sheet once every cell has a value.

    The blank cells are read here, with the sheet's row held and in the submitting transaction:
    a save that clears a cell meanwhile either lands first (and is counted) or waits and is
    refused as the sheet is then submitted, so a sheet is never submitted with a blank."""
    sheet = Sheet.objects.select_for_update().select_related("problem__contest").get(pk=sheet.pk)
    if sheet.is_submitted:
        raise SheetLocked("This sheet is already submitted.")
    refuse_if_sheet_locked(sheet, actor)
    grid = sheet_grid(sheet=sheet)
    blanks = grid.blanks
    if blanks:
        shown = ", ".join(f"{label} {code}" for label, code in blanks[:5])
        more = f" and {len(blanks) - 5} more" if len(blanks) > 5 else ""
        raise ValidationError(
            f"{ngettext('%d cell is', '%d cells are', len(blanks)) % len(blanks)} still blank "
            f"({shown}{more}); give every cell a value before submitting."
        )
    if grid.reopened:
        n = grid.reopened
        raise ValidationError(
            ngettext(
                "%d mark reopened by an amendment of the scheme is still to re-confirm; "
                "re-confirm or re-mark it before submitting.",
                "%d marks reopened by an amendment of the scheme are still to re-confirm; "
                "re-confirm or re-mark them before submitting.",
                n,
            )
            % n
        )
    sheet.state = Sheet.State.SUBMITTED
    sheet.submitted_at = timezone.now()
    sheet.save(update_fields=["state", "submitted_at"])
    return sheet


@dataclass
class SheetChange:
    """One cell an uploaded file changes: where it is, the points it goes from and to (the same
    when only its note changes), and its new note (None: the note stays as it is)."""

    row: int
    column: str
    label: str
    code: str
    old: Decimal | None
    new: Decimal | None
    version: int
    old_note: str = ""
    note: str | None = None

    @property
    def points_change(self) -> bool:
        return self.old != self.new

    def to_session(self) -> dict:
        return {
            "row": self.row,
            "column": self.column,
            "label": self.label,
            "code": self.code,
            "old": None if self.old is None else str(self.old),
            "new": None if self.new is None else str(self.new),
            "version": self.version,
            "old_note": self.old_note,
            "note": self.note,
        }

    @classmethod
    def from_session(cls, data: dict) -> "SheetChange":
        return cls(
            row=data["row"],
            column=data["column"],
            label=data["label"],
            code=data["code"],
            old=None if data["old"] is None else Decimal(data["old"]),
            new=None if data["new"] is None else Decimal(data["new"]),
            version=data["version"],
            old_note=data.get("old_note", ""),
            note=data.get("note"),
        )


@transaction.atomic
def sheet_xlsx_apply(*, sheet: Sheet, changes: list[SheetChange], actor) -> int:
    """Write every change of an uploaded file, all or nothing, through the XLSX channel.

    Each change carries the version the mark had when the preview was made; a mark changed since
    refuses the whole file, with the cell named. Returns the number of marks changed."""
    # Read afresh inside the transaction: the juror may have submitted in another tab since
    # the page loaded the sheet.
    sheet = Sheet.objects.select_for_update().select_related("problem__contest").get(pk=sheet.pk)
    # A locked (submitted) sheet takes from a file only the marks an amendment reopened.
    locked = sheet_lock_reason(sheet)
    refuse_if_sheet_locked(sheet, actor, reopened=locked is not None)
    label = PaperLabel.objects.filter(
        paper_id=OuterRef("paper_id"), problem_id=sheet.problem_id
    ).values("label")[:1]
    # Only the papers the juror grades now: one moved to a colleague since the preview (or
    # that a conflict took from the sheet) keeps its marks on record, and the file no longer
    # writes them.
    assigned = access.graded_assignments(sheet.juror_id, sheet.problem)
    marks = {
        (mark.label, mark.criterion.code): mark
        for mark in Mark.objects.filter(sheet=sheet, paper_id__in=assigned.values("paper_id"))
        .select_related("criterion__problem__contest")
        .annotate(label=Subquery(label))
    }
    # A seed's rows (a calibration paper back in the sheet under its own label) write its
    # calibration marks, with the same checks and answers as a paper's.
    seed_marks = sheet_seed_marks(sheet=sheet)
    written = 0
    for change in changes:
        mark = marks.get((change.label, change.code)) or seed_marks.get((change.label, change.code))
        if mark is None:
            raise ValidationError(
                f"Row {change.row}, column {change.column}: paper {change.label} and criterion "
                f"{change.code} are no longer on your sheet; nothing was written."
            )
        # A locked sheet takes only reopened marks, a seed's as a paper's.
        if locked and mark.reopened_by_id is None:
            raise SheetLocked(
                f"Row {change.row}, column {change.column} (paper {change.label}, criterion "
                f"{change.code}): {locked} Only the marks an amendment of the scheme reopened "
                "can change; nothing was written."
            )
        try:
            if isinstance(mark, CalibrationMark):
                seed_mark_set(
                    sheet=sheet,
                    mark=mark,
                    points=change.new,
                    note=change.note,
                    actor=actor,
                    channel=MarkEvent.Channel.XLSX,
                    expected_version=change.version,
                )
                written += 1
                continue
            mark.sheet = sheet  # the sheet checked above, so mark_set need not read it again
            mark = mark_set(
                mark=mark,
                points=change.new,
                note=change.note,
                actor=actor,
                channel=MarkEvent.Channel.XLSX,
                expected_version=change.version,
            )
        except ValidationError as error:
            # The refusal keeps its kind (stale, decided by the chair…) with the cell named.
            kind = type(error) if isinstance(error, Refusal) else ValidationError
            raise kind(
                f"Row {change.row}, column {change.column} (paper {change.label}, criterion "
                f"{change.code}): {' '.join(error.messages)} Nothing was written."
            ) from None
        _reconcile_if_submitted(sheet, mark, actor)
        written += 1
    return written
