"""Writes of the resolution phase: comments, juror revisions, chair decisions, and keeping a
cell's consensus on record. (The phases themselves are `grading.console.contest_life`'s.)

Every function is atomic and raises a `ValidationError` (a typed refusal from
`grading.rules.refusals` where the change may not happen) with a sentence the user can act on. Once a
contest is final every one of them refuses, as `mark_set` does for every other writer."""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction

from grading.marking.marks import mark_set
from grading.marking.reconcile import cell_reconcile, resolution_write
from grading.marking.seed_marks import seed_mark_set
from grading.models import Assignment, CalibrationMark, Comment, Mark, MarkEvent, Paper, Resolution
from grading.resolution import inbox
from grading.rules import access
from grading.rules.counting import counted_marks
from grading.rules.domain import points_text
from grading.rules.phase import refuse_if_final
from grading.rules.refusals import NotAllowed, SheetLocked, Stale, WrongState
from rubrics.models import Contest, Criterion
from rubrics.validators import validate_points

COMMENT_MAX = 4000


def _check_cell(paper: Paper, criterion: Criterion) -> Contest:
    # Read the state afresh and hold the contest row: the caller's objects may predate a
    # finalization, and one committing meanwhile (it locks the row too) must not be slipped past.
    contest = Contest.objects.select_for_update(of=("self",)).get(problems__criteria=criterion)
    if paper.contest_id != contest.pk:
        # Not the paper's id nor its code: the message may reach a juror, and either links the
        # paper to its labels in other problems.
        raise ValidationError(f"This paper is not one of {contest.name}'s papers.")
    refuse_if_final(contest, "its marks, resolutions and comments")
    return contest


@transaction.atomic
def comment_add(*, paper: Paper, criterion: Criterion, author, text: str) -> Comment:
    """Add a remark to the discussion of one (paper, criterion): the group's jurors and the
    chair take part; the organizer only reads."""
    access.require(
        access.may_discuss_paper(author, problem=criterion.problem, paper=paper),
        "Comments are the group's jurors' and the chair's.",
    )
    graders = Assignment.objects.filter(paper=paper, problem_id=criterion.problem_id).count()
    access.require(not access.discusses_alone(author, graders=graders), access.ALONE)
    _check_cell(paper, criterion)
    text = (text or "").strip()
    if not text:
        raise ValidationError("Write something before posting a comment.")
    if len(text) > COMMENT_MAX:
        raise ValidationError(
            f"A comment holds at most {COMMENT_MAX} characters; this one has {len(text)}."
        )
    comment = Comment.objects.create(paper=paper, criterion=criterion, author=author, text=text)
    inbox.notify_comment(comment=comment)
    return comment


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
        raise NotAllowed("You can revise only your own marks.")
    access.require(
        not access.conflicted_with(actor, paper),
        "This paper is no longer yours to grade; the chair settles its cells.",
    )
    if not mark.sheet.is_submitted:
        raise SheetLocked(
            "Your sheet for this problem is still a draft: change the mark in your sheet."
        )
    if contest.state != Contest.State.RESOLUTION:
        raise WrongState(
            f"Revisions open when the chair starts the resolution phase of {contest.name}."
        )
    if not counted_marks().filter(pk=mark.pk).exists():
        # The paper was moved to a colleague: the mark stays on record and counts for nothing.
        raise NotAllowed("This paper is no longer assigned to you; its marks are not revised.")
    # mark_set refuses a blank and a cell the chair decided, whichever door the change uses.
    mark = mark_set(
        mark=mark,
        points=points,
        actor=actor,
        channel=MarkEvent.Channel.BROWSER,
        expected_version=expected_version,
    )
    cell_reconcile(paper=paper, criterion=criterion, actor=actor)
    return mark


def seed_comment_add(*, author) -> None:
    """A comment on a seed's cell: refused, as on the cell of a paper its juror grades alone (a
    seed always is), with the same sentence. Never stored: a `Comment` on the calibration paper
    would reach whoever grades that paper live."""
    access.require(not access.discusses_alone(author, graders=1), access.ALONE)


@transaction.atomic
def seed_mark_revise(
    *, mark: CalibrationMark, sheet, points: Decimal | None, actor, expected_version=None
) -> CalibrationMark:
    """A juror revises their own mark on a seed during the resolution phase, as `mark_revise`
    lets them revise a paper's they grade alone, with the same refusals in the same order;
    through the seed's own mark service, so that nothing counts it. (The seed's cell then
    reads as consensus, as `cell_reconcile` closes such a paper's: `grading.resolution.seed_rows`.)"""
    contest = Contest.objects.select_for_update(of=("self",)).get(pk=sheet.problem.contest_id)
    refuse_if_final(contest, "its marks, resolutions and comments")
    if mark.seed.juror_id != actor.pk or sheet.juror_id != actor.pk:
        raise NotAllowed("You can revise only your own marks.")
    sheet.refresh_from_db(fields=["state", "submitted_at"])
    if not sheet.is_submitted:
        raise SheetLocked(
            "Your sheet for this problem is still a draft: change the mark in your sheet."
        )
    if contest.state != Contest.State.RESOLUTION:
        raise WrongState(
            f"Revisions open when the chair starts the resolution phase of {contest.name}."
        )
    return seed_mark_set(
        sheet=sheet,
        mark=mark,
        points=points,
        actor=actor,
        channel=MarkEvent.Channel.BROWSER,
        expected_version=expected_version,
    )


@transaction.atomic
def discrepancy_decide(
    *, paper: Paper, criterion: Criterion, points: Decimal | None, reason: str, actor
) -> Resolution:
    """The chair sets the agreed value of one (paper, criterion) with a reason. Closes the cell
    as *chair*; a later change is again the chair's, and every change is recorded."""
    access.require(access.may_decide(actor), "Only the jury chair can decide a discrepancy.")
    criterion = Criterion.objects.select_related("problem__contest").get(pk=criterion.pk)
    contest = _check_cell(paper, criterion)
    if contest.state == Contest.State.PROVISIONAL:
        # The leaders appeal against the published values: those move only by an appeal.
        raise WrongState(
            f"{contest.name}'s results are provisional: a cell's points change only through "
            "an appeal's decision."
        )
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
    submitted = counted_marks().filter(paper=paper, criterion=criterion)
    if not submitted.exists():
        raise ValidationError(
            f"Criterion {criterion.code}: no juror has submitted a mark for this cell yet; "
            "decide once the sheets are in."
        )
    existing = (
        Resolution.objects.select_for_update().filter(paper=paper, criterion=criterion).first()
    )
    resolution = resolution_write(
        paper=paper,
        criterion=criterion,
        kind=Resolution.Kind.CHAIR,
        points=points,
        reason=reason,
        actor=actor,
        existing=existing,
    )
    inbox.notify_decision(resolution=resolution, actor=actor)
    return resolution


@transaction.atomic
def discrepancy_take(
    *,
    paper: Paper,
    criterion: Criterion,
    take: str,
    reason: str,
    actor,
    seen: Decimal | None = None,
) -> Resolution:
    """The chair's quick decision: take one of the cell's submitted marks as the agreed value,
    a juror's (`take` "juror:<username>"), the lower ("lower") or the higher ("higher"), with
    a reason. The points are read from the submitted marks as they stand now; when the page
    said which points it showed (`seen`) and the mark has changed since, the decision is
    refused as stale rather than taking a value the chair did not see. Then decided through
    `discrepancy_decide`, which checks the rest."""
    access.require(access.may_decide(actor), "Only the jury chair can decide a discrepancy.")
    marks = dict(
        counted_marks()
        .filter(
            paper=paper,
            criterion=criterion,
            points__isnull=False,
        )
        .values_list("sheet__juror__username", "points")
    )
    code = criterion.code
    if not marks:
        raise ValidationError(
            f"Criterion {code}: no juror has submitted a mark for this cell yet; "
            "decide once the sheets are in."
        )
    if take == "lower":
        points = min(marks.values())
    elif take == "higher":
        points = max(marks.values())
    elif take.startswith("juror:") and take.removeprefix("juror:") in marks:
        points = marks[take.removeprefix("juror:")]
    elif take.startswith("juror:"):
        raise ValidationError(
            f"Criterion {code}: {take.removeprefix('juror:')} has no submitted mark here; "
            "reload the page to see the marks as they are."
        )
    else:
        raise ValidationError(f"Criterion {code}: say which mark to take.")
    if seen is not None and points != seen:
        which = {"lower": "the lower mark", "higher": "the higher mark"}.get(
            take, f"{take.removeprefix('juror:')}'s mark"
        )
        raise Stale(
            f"Criterion {code}: {which} is now {points_text(points)}, not "
            f"{points_text(seen)}; look at the marks again before deciding."
        )
    return discrepancy_decide(
        paper=paper, criterion=criterion, points=points, reason=reason, actor=actor
    )
