"""The appeals' notices, written in the services' transactions: the problem's jurors and the
chair learn of a new appeal (the paper named by its label in the problem, as jurors know it),
the leaders of the paper's delegation of each decision (the paper named by its public code,
with the reason they read). Never a juror's name to a leader, never a leader's to a juror."""

from django.contrib.auth import get_user_model

from grading.models import Appeal, AppealCriterion, GradingGroup, Notification, PaperLabel
from grading.resolution.inbox import write_notices
from grading.rules import roles
from grading.rules.domain import points_text

SENTENCE_MAX = 500


def _label(appeal: Appeal) -> str:
    return (
        PaperLabel.objects.filter(paper=appeal.paper, problem=appeal.problem)
        .values_list("label", flat=True)
        .first()
        or "?"
    )


def notify_appeal_filed(*, appeal: Appeal) -> list[Notification]:
    """The problem's jurors and the chair, except anyone who leads the paper's delegation."""
    users = get_user_model().objects.filter(is_active=True)
    jurors = users.filter(grading_groups__in=GradingGroup.objects.filter(problem=appeal.problem))
    chairs = users.filter(groups__name=roles.CHAIR)
    leaders = set(
        appeal.paper.delegation.leaders.values_list("pk", flat=True)
        if appeal.paper.delegation_id
        else ()
    )
    recipients = (
        set(jurors.values_list("pk", flat=True)) | set(chairs.values_list("pk", flat=True))
    ) - leaders
    return write_notices(
        recipients,
        kind=Notification.Kind.APPEAL,
        contest_id=appeal.paper.contest_id,
        problem_id=appeal.problem_id,
        paper=appeal.paper,
        sentence=f"A team leader appealed {appeal.problem.code} paper {_label(appeal)}.",
    )


def notify_appeal_decided(*, appeal: Appeal, criteria: list[AppealCriterion]) -> list[Notification]:
    """The leaders of the paper's delegation: the outcome, the points and the reason."""
    leaders = (
        appeal.paper.delegation.leaders.values_list("pk", flat=True)
        if appeal.paper.delegation_id
        else []
    )
    changes = ", ".join(
        f"{row.criterion.code} {points_text(row.points_before)} → {points_text(row.points_after)}"
        if row.points_after != row.points_before
        else f"{row.criterion.code} stays {points_text(row.points_before)}"
        for row in criteria
    )
    sentence = (
        f"Your appeal on {appeal.problem.code} for contestant {appeal.paper.public_code} is "
        f"{appeal.get_outcome_display().lower()} ({changes}): {appeal.reason}"
    )
    if len(sentence) > SENTENCE_MAX:
        sentence = sentence[: SENTENCE_MAX - 1] + "…"
    return write_notices(
        leaders,
        kind=Notification.Kind.APPEAL_DECISION,
        contest_id=appeal.paper.contest_id,
        problem_id=appeal.problem_id,
        paper=appeal.paper,
        sentence=sentence,
    )
