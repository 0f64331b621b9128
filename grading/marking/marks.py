"""A mark's changes: `mark_set` is the one way points and notes change, whatever the channel
(sheet, upload, revision, import). It is where the rules on a single mark live: a final contest
changes nothing, a stale writer is refused, points are validated, a submitted mark is never
blanked, a cell the chair decided moves only by the chair, and every change is recorded.
Atomic, raising typed refusals (`grading.rules.refusals`) with a sentence the user can act on."""

from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.db.models import Subquery
from django.utils import timezone

from grading.models import Mark, MarkEvent, Resolution, Sheet
from grading.rules.domain import points_or_blank, points_word
from grading.rules.phase import refuse_if_final
from grading.rules.refusals import DecidedByChair, SheetLocked, Stale
from rubrics.models import Criterion, Problem
from rubrics.validators import validate_points


@transaction.atomic
def mark_set(
    *,
    mark: Mark,
    points: Decimal | None,
    actor,
    channel: str,
    note: str | None = None,
    expected_version: int | None = None,
    reconfirm: bool = True,
    change_key: str | None = None,
) -> Mark:
    """Change a mark's points (and optionally its note), recording a MarkEvent.

    `expected_version` is the version the writer last saw; when the mark has moved on since,
    the change is refused so that a stale page or file never silently overwrites newer work.
    Without it, the mark is read afresh and changed from its current state. Setting the same
    value again is a no-op and records nothing, except on a mark an amendment of the scheme
    reopened: there the same points re-confirm it (recorded, `reopened_by` cleared), unless
    `reconfirm` is False (a note saved alone). Every write stamps the problem's scheme version.
    `change_key`, the id the sheet's page gave the change, is kept on its event
    (grading.marking.change_keys).

    The write is one conditional UPDATE (`WHERE version = expected`), so two writers racing on
    the same mark cannot both win, on SQLite or PostgreSQL, without locking the row first."""
    if expected_version is None or not _contest_loaded(mark):
        mark = Mark.objects.select_related("criterion__problem__contest").get(pk=mark.pk)
    if expected_version is None:
        expected_version = mark.version
    # Finalized results are the record; no channel (sheet, upload, revision) may move them.
    refuse_if_final(mark.criterion.problem.contest, "its marks")
    change = change_asked(
        mark, points, note, expected_version=expected_version, reconfirm=reconfirm
    )
    if change is None:
        return mark
    new_note, confirms = change.note, change.confirms
    if points != mark.points and _on_submitted_sheet(mark):
        _refuse_submitted_change(mark, points)
    if not _write_change(
        mark=mark,
        points=points,
        note=new_note,
        version_seen=expected_version,
        actor=actor,
        channel=channel,
        confirms=confirms,
        change_key=change_key,
    ):
        mark.refresh_from_db(fields=["points", "note", "version"])
        _refuse_stale(mark)
    mark.points = points
    mark.note = new_note
    mark.version = expected_version + 1
    if confirms:
        mark.reopened_by = None
    return mark


@dataclass(frozen=True)
class Change:
    """A change a writer asks of a mark, as `change_asked` checked it."""

    points: Decimal | None
    note: str
    # The same points again on a mark an amendment reopened: its juror re-confirms it.
    confirms: bool


def change_asked(
    mark, points: Decimal | None, note: str | None, *, expected_version: int, reconfirm: bool
) -> Change | None:
    """The rules a mark keeps before anything is written, a live mark (`mark_set`) or a seed's
    calibration mark (`seed_mark_set`) alike, so that nothing tells a seed apart: a stale
    writer is refused, the points are validated against the criterion, the note is trimmed
    (None keeps it), and a mark an amendment reopened is never blanked. None when nothing
    would change: the same value again, but on a reopened mark, which the same points
    re-confirm (unless `reconfirm` is False: a note saved alone)."""
    if expected_version != mark.version:
        _refuse_stale(mark)
    validate_points(points, mark.criterion)
    new_note = mark.note if note is None else note.strip()
    reopened = mark.reopened_by_id is not None
    confirms = reopened and reconfirm
    if points == mark.points and new_note == mark.note and not confirms:
        return None
    if reopened and points is None:
        raise SheetLocked(
            f"Criterion {mark.criterion.code}: this mark was reopened by an amendment of the "
            "scheme; re-confirm its points or give new ones, not a blank."
        )
    return Change(points, new_note, confirms)


def refuse_submitted_blank(mark) -> None:
    """A submitted mark, live or a seed's, is never blanked."""
    raise SheetLocked(
        f"Criterion {mark.criterion.code}: a submitted mark cannot be blank; give the revised "
        "points."
    )


def _refuse_submitted_change(mark: Mark, points: Decimal | None) -> None:
    """A submitted mark is the juror's committed view of the cell: it may be revised (in the
    resolution phase, which the callers check), but never blanked, and never once the chair
    has decided the cell, whichever door the change comes through."""
    code = mark.criterion.code
    if points is None:
        refuse_submitted_blank(mark)
    decided = (
        Resolution.objects.filter(
            paper_id=mark.paper_id,
            criterion_id=mark.criterion_id,
            # An appeal's decision stands as the chair's does: the chair changes it, no juror.
            kind__in=(Resolution.Kind.CHAIR, Resolution.Kind.APPEAL),
        )
        .values_list("points", flat=True)
        .first()
    )
    if decided is not None:
        raise DecidedByChair(decided_by_chair(code, decided))


def decided_by_chair(code: str, points: Decimal) -> str:
    """The sentence for a change refused because the chair decided the cell, shared by the
    refusal here and the upload preview that holds such a change back."""
    return (
        f"The chair decided criterion {code} for this paper ({points_or_blank(points)} {points_word(points)}); "
        "only the chair can change it."
    )


def _on_submitted_sheet(mark: Mark) -> bool:
    """Whether the mark is on a submitted sheet. A sheet loaded with the mark (the sheet's own
    lookup, a revision) is taken as it is: those load it in the same transaction."""
    if Mark.sheet.is_cached(mark):
        return mark.sheet.is_submitted
    return Sheet.objects.submitted().filter(pk=mark.sheet_id).exists()


def _write_change(
    *, mark, points, note, version_seen, actor, channel, confirms, change_key=None
) -> bool:
    """The mark's new state and its history event; False (and nothing written) when the mark
    is no longer at `version_seen`. The scheme version is read in the same UPDATE, so that an
    amendment committed since the writer loaded the problem is the one stamped."""
    now = timezone.now()
    version = version_seen + 1
    scheme_version = Problem.objects.filter(criteria=mark.criterion_id).values("scheme_version")
    cleared = {"reopened_by": None} if confirms else {}
    updated = Mark.objects.filter(pk=mark.pk, version=version_seen).update(
        points=points,
        note=note,
        version=version,
        updated_at=now,
        scheme_version=Subquery(scheme_version[:1]),
        **cleared,
    )
    if updated != 1:
        return False
    MarkEvent.objects.create(
        mark_id=mark.pk,
        actor=actor,
        channel=channel,
        old_points=mark.points,
        new_points=points,
        old_note=mark.note,
        new_note=note,
        version=version,
        created_at=now,
        change_key=change_key,
    )
    mark.updated_at = now
    return True


def _contest_loaded(mark: Mark) -> bool:
    """Whether the mark carries its criterion, problem and contest, as the sheet's lookup and
    the upload load them; other callers get them read in one query."""
    return (
        Mark.criterion.is_cached(mark)
        and Criterion.problem.is_cached(mark.criterion)
        and Problem.contest.is_cached(mark.criterion.problem)
    )


def _refuse_stale(mark) -> None:
    """Refuse a writer who loaded an older version, saying what the last change was: a change of
    the note alone is not told as a change of points."""
    last = mark.events.order_by("-version").first()
    when = timezone.localtime(last.created_at).strftime("%Y-%m-%d %H:%M") if last else "earlier"
    if last is not None and last.channel == MarkEvent.Channel.SCHEME:
        raise Stale(
            f"This mark was reopened by an amendment of the scheme at {when} since you loaded "
            "it; reload to see why before changing it."
        )
    if last is not None and last.old_points == last.new_points:
        raise Stale(
            f"The note on this mark was changed at {when} since you loaded it (its points are "
            f"still {points_or_blank(mark.points)}); reload to see the current note before changing it."
        )
    raise Stale(
        f"This mark was changed to {points_or_blank(mark.points)} at {when} since you loaded it; "
        "reload to see the current value before changing it."
    )
