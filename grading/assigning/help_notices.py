"""Language help's notices, written in the help services' transactions: the organizers and the
chair learn of a question, its helper that it is theirs to answer, the juror who asked that it
is answered (and the juror who grades the paper now, when it moved from the one who asked). A notice names the problem and the paper's label in that problem, as its reader
knows it (a seed's, to the juror who asked on a seed's row); never an identity, a mark, or (to
a helper) who asked."""

from django.contrib.auth import get_user_model
from django.db.models import Q

from grading.models import Assignment, AssignmentMove, HelpRequest, Notification, PaperLabel
from grading.resolution.inbox import write_notices
from grading.rules import roles

Kind = Notification.Kind


def help_label(request: HelpRequest) -> str:
    """The paper's label in the request's problem."""
    return (
        PaperLabel.objects.filter(paper_id=request.paper_id, problem_id=request.problem_id)
        .values_list("label", flat=True)
        .first()
        or "?"
    )


def asker_label(request: HelpRequest) -> str:
    """The paper's label as the juror who asked knows it: a seed's question names the seed's
    label, never its calibration paper's live label (that would tell the seed apart)."""
    return request.seed.label if request.seed_id else help_label(request)


def _where(request: HelpRequest) -> str:
    return f"{request.problem.code} paper {help_label(request)}"


def _common(request: HelpRequest) -> dict:
    return {
        "contest_id": request.problem.contest_id,
        "problem_id": request.problem_id,
        "paper_id": request.paper_id,
    }


def notify_help_asked(*, request: HelpRequest) -> list[Notification]:
    """The active organizers and chairs (a superuser counts as an organizer), the asker left
    out should they hold one of those roles too."""
    users = get_user_model().objects.filter(is_active=True)
    recipients = set(
        users.filter(
            Q(is_superuser=True) | Q(groups__name__in=[roles.ORGANIZER, roles.CHAIR])
        ).values_list("pk", flat=True)
    ) - {request.asked_by_id}
    return write_notices(
        recipients,
        kind=Kind.HELP_ASKED,
        sentence=(
            f"{request.asked_by.username} asked for language help on {_where(request)}"
            f"{f' (their seed {request.seed.label})' if request.seed_id else ''}; "
            "give the question a helper."
        ),
        **_common(request),
    )


def notify_help_assigned(*, request: HelpRequest) -> list[Notification]:
    """The helper: a question to answer (who asked is not said)."""
    return write_notices(
        [request.helper_id],
        kind=Kind.HELP_ASSIGNED,
        sentence=f"You are asked for language help on {_where(request)}.",
        **_common(request),
    )


def notify_help_answered(*, request: HelpRequest, revised: bool) -> list[Notification]:
    """The juror who asked: the answer is there to read (or was revised)."""
    done = "has a revised answer" if revised else "is answered"
    return write_notices(
        [request.asked_by_id],
        kind=Kind.HELP_ANSWERED,
        sentence=(
            f"Your question on {request.problem.code} paper {asker_label(request)} {done}: "
            "read it in your sheet."
        ),
        seed_id=request.seed_id,
        **_common(request),
    ) + _notify_holders(request, done)


def _notify_holders(request: HelpRequest, done: str) -> list[Notification]:
    """The jurors the paper moved to from the juror who asked, who grade it now: the question
    follows the paper (`grading.marking.selectors.sheet_help_requests` shows it on their row).
    A seed never moves."""
    if request.seed_id:
        return []
    holders = set(
        Assignment.objects.filter(
            problem_id=request.problem_id,
            paper_id=request.paper_id,
            juror_id__in=AssignmentMove.objects.filter(
                problem_id=request.problem_id,
                paper_id=request.paper_id,
                from_juror_id=request.asked_by_id,
            ).values("to_juror_id"),
        ).values_list("juror_id", flat=True)
    ) - {request.asked_by_id}
    return write_notices(
        holders,
        kind=Kind.HELP_ANSWERED,
        sentence=(
            f"A question asked on {_where(request)} before it came to you {done}: read it in "
            "your sheet."
        ),
        **_common(request),
    )
