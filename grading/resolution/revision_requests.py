"""The chair's requests to revise a submitted mark: a comment in the cell's discussion, flagged as
a request by the juror's notification."""

from django.core.exceptions import ValidationError
from django.db import transaction

from grading.models import Notification, Paper
from grading.resolution.decisions import comment_add
from grading.resolution.inbox import Kind, cell_name, write_notices
from grading.rules import access, conflicts
from grading.rules.counting import counted_marks
from grading.rules.refusals import NotAllowed, WrongState
from rubrics.models import Contest, Criterion

REQUEST_MAX = 1000


@transaction.atomic
def revision_request(
    *, paper: Paper, criterion: Criterion, juror, actor, text: str
) -> Notification:
    """The chair asks one juror of a cell to revise their submitted mark, with a reason: a
    comment in the cell's discussion, flagged as a request by the juror's notification (which
    replaces the plain comment notice they would get)."""

    access.require(access.may_decide(actor), "Only the jury chair can ask for a revision.")
    criterion = Criterion.objects.select_related("problem__contest").get(pk=criterion.pk)
    contest = criterion.problem.contest
    if contest.state != Contest.State.RESOLUTION:
        raise WrongState(
            f"Revisions open when the chair starts the resolution phase of {contest.name}."
        )
    mark = (
        counted_marks()
        .filter(
            paper=paper,
            criterion=criterion,
            sheet__juror=juror,
        )
        .first()
    )
    if mark is None:
        raise NotAllowed(
            f"{juror.username} has no submitted mark for this cell; ask a juror who has one."
        )
    if juror.pk in conflicts.jurors_conflicted_with(paper, [juror.pk]):
        raise NotAllowed(
            f"{juror.username} is in conflict with this paper; their mark is not theirs to "
            "revise. Move the paper on the console's leaving page."
        )
    text = (text or "").strip()
    if not text:
        raise ValidationError(f"Say what {juror.username} should look at again.")
    if len(text) > REQUEST_MAX:
        raise ValidationError(
            f"A request holds at most {REQUEST_MAX} characters; this one has {len(text)}."
        )
    comment = comment_add(
        paper=paper,
        criterion=criterion,
        author=actor,
        text=f"Request to {juror.username} to revise their mark: {text}",
    )
    notice = Notification.objects.filter(comment=comment, recipient=juror).first()
    sentence = (
        f"The chair asks you to revise your mark for {cell_name(paper, criterion)}; "
        "the reason is in its discussion."
    )
    if notice is None:
        return write_notices(
            [juror.pk],
            kind=Kind.REVISE_REQUEST,
            contest=contest,
            problem_id=criterion.problem_id,
            paper=paper,
            criterion=criterion,
            comment=comment,
            sentence=sentence,
        )[0]
    notice.kind, notice.sentence = Kind.REVISE_REQUEST, sentence
    notice.save(update_fields=["kind", "sentence"])
    return notice
