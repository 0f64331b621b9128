"""The inbox's writes: who is told what, in one sentence worded for its reader.

The services of the resolution phase call these inside their own transactions, so a notice is
written exactly when what it announces is (and rolled back with it). A notice names a cell by
its problem, the paper's label in that problem and the criterion; never a paper's id or
identity. Independence holds here as on the pages: a juror is told about a cell's discussion or
decided value only once their own sheet for the problem is submitted (until then the comparison
and the discussion are closed to them), and a comment's text, which may quote marks, is never
copied into a notice."""

from django.contrib.auth import get_user_model
from django.utils import timezone

from grading.models import Assignment, Comment, Notification, Paper, PaperLabel, Sheet
from grading.rules import conflicts, roles
from grading.rules.domain import points_with_word
from rubrics.models import Contest, Criterion

Kind = Notification.Kind


def cell_name(paper: Paper, criterion: Criterion) -> str:
    problem = criterion.problem
    label = PaperLabel.objects.get(paper=paper, problem=problem).label
    return f"{problem.code} paper {label}, criterion {criterion.code}"


def _chairs():
    return get_user_model().objects.filter(groups__name=roles.CHAIR, is_active=True)


def _cell_jurors(paper: Paper, criterion: Criterion) -> dict[int, bool]:
    """The jurors assigned the cell, each with whether their sheet for the problem is in; not
    a juror conflicted with the paper, who hears nothing of its cells."""
    assigned = set(
        Assignment.objects.filter(paper=paper, problem_id=criterion.problem_id).values_list(
            "juror_id", flat=True
        )
    )
    jurors = sorted(assigned - conflicts.jurors_conflicted_with(paper, assigned))
    submitted = set(
        Sheet.objects.submitted()
        .filter(problem_id=criterion.problem_id, juror_id__in=jurors)
        .values_list("juror_id", flat=True)
    )
    return {juror_id: juror_id in submitted for juror_id in jurors}


def write_notices(recipients, **fields) -> list[Notification]:
    return Notification.objects.bulk_create(
        Notification(recipient_id=recipient, **fields) for recipient in sorted(set(recipients))
    )


def notify_resolution_open(*, contest: Contest, actor) -> list[Notification]:
    """Every juror of the contest: the resolution phase is open."""
    jurors = (
        Assignment.objects.filter(problem__contest=contest)
        .order_by()
        .values_list("juror_id", flat=True)
        .distinct()
    )
    return write_notices(
        [juror for juror in jurors if juror != getattr(actor, "pk", None)],
        kind=Kind.RESOLUTION_OPEN,
        contest=contest,
        sentence=(
            f"The resolution phase of {contest.name} is open: you may revise your submitted "
            "marks and discuss the open cells."
        ),
    )


def notify_comment(*, comment: Comment) -> list[Notification]:
    """The cell's jurors who have submitted their sheet, and the chair; not the author."""
    paper, criterion = comment.paper, comment.criterion
    jurors = [juror for juror, submitted in _cell_jurors(paper, criterion).items() if submitted]
    recipients = [
        user
        for user in jurors + list(_chairs().values_list("pk", flat=True))
        if user != comment.author_id
    ]
    return write_notices(
        recipients,
        kind=Kind.COMMENT,
        contest_id=paper.contest_id,
        problem_id=criterion.problem_id,
        paper=paper,
        criterion=criterion,
        comment=comment,
        sentence=f"{comment.author.username} commented on {cell_name(paper, criterion)}.",
    )


def notify_decision(*, resolution, actor) -> list[Notification]:
    """The cell's jurors: the chair decided it. Only those whose sheet is in read the value (it
    may be another juror's mark); the others learn that their mark there can no longer change."""
    paper, criterion = resolution.paper, resolution.criterion
    cell = cell_name(paper, criterion)
    common = {
        "kind": Kind.DECISION,
        "contest_id": paper.contest_id,
        "problem_id": criterion.problem_id,
        "paper": paper,
        "criterion": criterion,
    }
    jurors = _cell_jurors(paper, criterion)
    return write_notices(
        [juror for juror, submitted in jurors.items() if submitted and juror != actor.pk],
        sentence=f"The chair decided {cell}: {points_with_word(resolution.points)}.",
        **common,
    ) + write_notices(
        [juror for juror, submitted in jurors.items() if not submitted and juror != actor.pk],
        sentence=f"The chair decided {cell}; your mark there can no longer change.",
        **common,
    )


def notifications_read(
    *,
    user,
    ids: list[int] | None = None,
    contest_id: int | None = None,
    problem_id: int | None = None,
    kind: str = "",
) -> int:
    """Mark the user's unread notifications read: those of `ids` only, when given, or one
    group's (the inbox's: a contest, a problem or None for contest-wide notices, and a kind)
    when `contest_id` is given; the number marked."""
    unread = Notification.objects.unread().filter(recipient=user)
    if ids is not None:
        unread = unread.filter(pk__in=ids)
    if contest_id is not None:
        unread = unread.filter(contest_id=contest_id, problem_id=problem_id, kind=kind)
    return unread.update(read_at=timezone.now())
