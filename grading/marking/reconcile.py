"""A revised submitted mark and its cell: whatever the channel of the revision (the sheet, the
XLSX, the discussion), the cell's consensus record follows the submitted marks. Here rather than
in `grading.resolution`, which decides cells, so that the sheet need not import the resolution."""

from django.db import transaction
from django.db.models import F

from grading.models import MarkEvent, Paper, Resolution, ResolutionEvent
from grading.rules.counting import counted_marks
from grading.rules.domain import cell_outcome
from rubrics.models import Criterion


@transaction.atomic
def cell_reconcile(*, paper: Paper, criterion: Criterion, actor) -> Resolution | None:
    """Bring the cell's consensus record in line with its submitted marks after a revision
    (call it after any change to a submitted mark, whatever the channel).

    When every submitted mark is within tolerance and one of them was changed after its sheet
    was submitted, the jurors revised to agreement: the cell is closed as *consensus* at the
    agreed value (created or updated, on record). When the marks disagree again, a consensus
    that no longer holds is *withdrawn*: the record stays, with its history, and no longer
    counts. A chair decision, and an appeal's, is left alone."""
    resolution = (
        Resolution.objects.select_for_update().filter(paper=paper, criterion=criterion).first()
    )
    if resolution and resolution.kind in (Resolution.Kind.CHAIR, Resolution.Kind.APPEAL):
        return resolution
    submitted = counted_marks().filter(paper=paper, criterion=criterion)
    values = [v for v in submitted.values_list("points", flat=True) if v is not None]
    # Agreement among the marks in, whoever has yet to submit: a consensus is about the marks.
    outcome = cell_outcome(
        values, expected=len(values), tolerance=criterion.tolerance, step=criterion.step
    )
    if outcome.status.is_settled:
        revised = MarkEvent.objects.filter(
            mark__in=submitted, created_at__gt=F("mark__sheet__submitted_at")
        ).exists()
        if not (revised or resolution):
            return None
        kind, points, reason = Resolution.Kind.CONSENSUS, outcome.points, ""
    elif resolution and resolution.kind == Resolution.Kind.CONSENSUS:
        kind, points = Resolution.Kind.WITHDRAWN, resolution.points
        reason = "The revised marks no longer agree."
    else:
        return resolution
    return resolution_write(
        paper=paper,
        criterion=criterion,
        kind=kind,
        points=points,
        reason=reason,
        actor=actor,
        existing=resolution,
    )


def resolution_write(*, paper, criterion, kind, points, reason, actor, existing) -> Resolution:
    if existing is None:
        resolution = Resolution.objects.create(
            paper=paper,
            criterion=criterion,
            kind=kind,
            points=points,
            reason=reason,
            decided_by=actor,
        )
        old_points, old_kind = None, ""
    else:
        resolution = existing
        old_points, old_kind = resolution.points, resolution.kind
        if (old_points, old_kind, resolution.reason) == (points, kind, reason):
            return resolution
        resolution.kind, resolution.points, resolution.reason = kind, points, reason
        resolution.decided_by = actor
        resolution.save()
    ResolutionEvent.objects.create(
        resolution=resolution,
        actor=actor,
        old_points=old_points,
        new_points=points,
        old_kind=old_kind,
        new_kind=kind,
        reason=reason,
    )
    return resolution
