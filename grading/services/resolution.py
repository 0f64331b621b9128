"""Writes of the resolution phase: comments, juror revisions, chair decisions, finalization.

Every function is atomic and raises ValidationError with a sentence the user can act on. Once a
contest is final every one of them refuses (mark_set refuses too, for writers outside this
module)."""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from grading import roles
from grading.models import Comment, Mark, MarkEvent, Paper, Resolution, ResolutionEvent, Sheet
from grading.selectors.comparison import (
    CHAIR,
    CONSENSUS,
    OPEN,
    PENDING,
    cell_status_for_values,
    contest_results,
)
from grading.services.marks import mark_set
from rubrics.models import Contest, Criterion
from rubrics.validators import validate_points

COMMENT_MAX = 4000


def ensure_not_final(contest: Contest) -> None:
    if contest.is_final:
        raise ValidationError(
            f"{contest.name} is final: its marks, resolutions and comments are read-only."
        )


def _check_cell(paper: Paper, criterion: Criterion) -> Contest:
    # Read the state afresh and hold the contest row: the caller's objects may predate a
    # finalization, and one committing meanwhile (it locks the row too) must not be slipped past.
    contest = Contest.objects.select_for_update(of=("self",)).get(problems__criteria=criterion)
    if paper.contest_id != contest.pk:
        raise ValidationError(f"Paper #{paper.pk} does not belong to {contest.name}.")
    ensure_not_final(contest)
    return contest


@transaction.atomic
def comment_add(*, paper: Paper, criterion: Criterion, author, text: str) -> Comment:
    """Add a remark to the discussion of one (paper, criterion)."""
    _check_cell(paper, criterion)
    text = (text or "").strip()
    if not text:
        raise ValidationError("Write something before posting a comment.")
    if len(text) > COMMENT_MAX:
        raise ValidationError(
            f"A comment holds at most {COMMENT_MAX} characters; this one has {len(text)}."
        )
    return Comment.objects.create(paper=paper, criterion=criterion, author=author, text=text)


@transaction.atomic
def mark_revise(
    *,
    mark: Mark,
    points: Decimal | None,
    actor,
    expected_version: int | None = None,
) -> Mark:
    """A juror revises their own submitted mark during the resolution phase.

    The change goes through mark_set, so the original value stays readable in the mark's
    history; then cell_reconcile closes the cell as consensus when the marks now agree. A cell
    the chair decided cannot be revised: only the chair changes it."""
    mark = Mark.objects.select_related("sheet", "paper", "criterion__problem__contest").get(
        pk=mark.pk
    )
    criterion, paper = mark.criterion, mark.paper
    contest = _check_cell(paper, criterion)
    if mark.sheet.juror_id != actor.pk:
        raise ValidationError("You can revise only your own marks.")
    if not mark.sheet.is_submitted:
        raise ValidationError(
            "Your sheet for this problem is still a draft: change the mark in your sheet."
        )
    if contest.state != Contest.State.RESOLUTION:
        raise ValidationError(
            f"Revisions open when the chair starts the resolution phase of {contest.name}."
        )
    if points is None:
        raise ValidationError(
            f"Criterion {criterion.code}: a revised mark cannot be blank; give the points."
        )
    decided = Resolution.objects.filter(paper=paper, criterion=criterion, kind=CHAIR).first()
    if decided:
        raise ValidationError(
            f"The chair decided criterion {criterion.code} for this paper "
            f"({_plain(decided.points)} points); only the chair can change it."
        )
    mark = mark_set(
        mark=mark,
        points=points,
        actor=actor,
        channel=MarkEvent.Channel.BROWSER,
        expected_version=expected_version,
    )
    cell_reconcile(paper=paper, criterion=criterion, actor=actor)
    return mark


@transaction.atomic
def cell_reconcile(*, paper: Paper, criterion: Criterion, actor) -> Resolution | None:
    """Bring the cell's consensus record in line with its submitted marks after a revision
    (call it after any change to a submitted mark, whatever the channel).

    When every submitted mark is within tolerance and one of them was changed after its sheet
    was submitted, the jurors revised to agreement: the cell is closed as *consensus* at the
    agreed value (created or updated, on record). When the marks disagree again, a consensus
    that no longer holds is removed (the marks' own history keeps every step). A chair
    decision is left alone."""
    resolution = (
        Resolution.objects.select_for_update().filter(paper=paper, criterion=criterion).first()
    )
    if resolution and resolution.kind == CHAIR:
        return resolution
    submitted = Mark.objects.filter(
        paper=paper, criterion=criterion, sheet__state=Sheet.State.SUBMITTED
    )
    values = [v for v in submitted.values_list("points", flat=True) if v is not None]
    cell = cell_status_for_values(values, criterion)
    if cell.status in (OPEN, PENDING):
        if resolution:
            resolution.delete()
        return None
    revised = MarkEvent.objects.filter(
        mark__in=submitted, created_at__gt=F("mark__sheet__submitted_at")
    ).exists()
    if not (revised or resolution):
        return None
    return _resolution_write(
        paper=paper,
        criterion=criterion,
        kind=CONSENSUS,
        points=cell.points,
        reason="",
        actor=actor,
        existing=resolution,
    )


@transaction.atomic
def contest_resolution_open(*, contest: Contest, actor) -> Contest:
    """The chair opens the resolution phase: submitted sheets may then be revised."""
    if not roles.is_chair(actor):
        raise ValidationError("Only the jury chair can start the resolution phase.")
    contest = Contest.objects.select_for_update().get(pk=contest.pk)
    ensure_not_final(contest)
    if contest.state == Contest.State.RESOLUTION:
        raise ValidationError(f"{contest.name} is already in the resolution phase.")
    contest.state = Contest.State.RESOLUTION
    contest.save(update_fields=["state"])
    return contest


def _resolution_write(*, paper, criterion, kind, points, reason, actor, existing) -> Resolution:
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


@transaction.atomic
def discrepancy_decide(
    *, paper: Paper, criterion: Criterion, points: Decimal | None, reason: str, actor
) -> Resolution:
    """The chair sets the agreed value of one (paper, criterion) with a reason. Closes the cell
    as *chair*; a later change is again the chair's, and every change is recorded."""
    if not roles.is_chair(actor):
        raise ValidationError("Only the jury chair can decide a discrepancy.")
    criterion = Criterion.objects.select_related("problem__contest").get(pk=criterion.pk)
    _check_cell(paper, criterion)
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError(
            f"Criterion {criterion.code}: give the reason for your decision; "
            "the jurors and the record need it."
        )
    if points is None:
        raise ValidationError(f"Criterion {criterion.code}: give the points you decide.")
    validate_points(points, criterion)
    # A decision settles what submitted marks say; before any juror has committed a view of
    # the cell there is nothing to settle, and deciding would pre-empt independent grading.
    submitted = Mark.objects.filter(
        paper=paper, criterion=criterion, sheet__state=Sheet.State.SUBMITTED
    )
    if not submitted.exists():
        raise ValidationError(
            f"Criterion {criterion.code}: no juror has submitted a mark for this cell yet; "
            "decide once the sheets are in."
        )
    existing = (
        Resolution.objects.select_for_update().filter(paper=paper, criterion=criterion).first()
    )
    return _resolution_write(
        paper=paper,
        criterion=criterion,
        kind=CHAIR,
        points=points,
        reason=reason,
        actor=actor,
        existing=existing,
    )


@transaction.atomic
def contest_finalize(*, contest: Contest, actor) -> Contest:
    """Close the contest: refused while any discrepancy is open or any cell lacks a submitted
    mark. Afterwards marks, resolutions and comments are read-only and the chair may see
    the papers' identities."""
    if not roles.is_chair(actor):
        raise ValidationError("Only the jury chair can finalize a contest.")
    contest = Contest.objects.select_for_update().get(pk=contest.pk)
    if contest.is_final:
        raise ValidationError(f"{contest.name} is already final.")
    results = contest_results(contest)
    problems = {problem.pk: problem.number for problem in results.problems}
    problems_left = []
    open_cells = results.open_cells
    pending = results.pending_cells
    if not results.papers:
        raise ValidationError(f"{contest.name} has no assigned papers to finalize.")
    if open_cells or pending:
        if open_cells:
            examples = ", ".join(
                f"P{problems[c.criterion.problem_id]} {c.criterion.code} of paper "
                f"{results.paper(c.paper_id).labels.get(problems[c.criterion.problem_id], '?')}"
                for c in open_cells[:3]
            )
            problems_left.append(
                f"{len(open_cells)} discrepanc{'y is' if len(open_cells) == 1 else 'ies are'} "
                f"still open ({examples}{', …' if len(open_cells) > 3 else ''})"
            )
        if pending:
            problems_left.append(
                f"{len(pending)} cell{' lacks' if len(pending) == 1 else 's lack'} "
                "a submitted mark from every assigned juror"
            )
        raise ValidationError(
            f"{contest.name} cannot be finalized yet: {' and '.join(problems_left)}."
        )
    contest.state = Contest.State.FINAL
    contest.save(update_fields=["state"])
    return contest


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")
