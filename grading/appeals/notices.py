"""The appeals' notices, written in the services' transactions: the problem's jurors and the
chair learn of a new appeal (the paper named by its label in the problem, as jurors know it),
the leaders of the paper's delegation of each question from the jury and of each decision (the
contestant named as their delegation knows them, with the reason they read), the jury of each
answer of the leader. Never a juror's name to a leader, never a leader's to a juror."""

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


def _leaders(appeal: Appeal) -> set[int]:
    return set(
        appeal.paper.delegation.leaders.values_list("pk", flat=True)
        if appeal.paper.delegation_id
        else ()
    )


def _jury(appeal: Appeal) -> set[int]:
    """The problem's jurors and the chair, except anyone who leads the paper's delegation."""
    users = get_user_model().objects.filter(is_active=True)
    jurors = users.filter(grading_groups__in=GradingGroup.objects.filter(problem=appeal.problem))
    chairs = users.filter(groups__name=roles.CHAIR)
    return (
        set(jurors.values_list("pk", flat=True)) | set(chairs.values_list("pk", flat=True))
    ) - _leaders(appeal)


def _shortened(sentence: str) -> str:
    return sentence if len(sentence) <= SENTENCE_MAX else sentence[: SENTENCE_MAX - 1] + "…"


def notify_appeal_filed(*, appeal: Appeal) -> list[Notification]:
    """The problem's jurors and the chair, except anyone who leads the paper's delegation."""
    return write_notices(
        _jury(appeal),
        kind=Notification.Kind.APPEAL,
        contest_id=appeal.paper.contest_id,
        problem_id=appeal.problem_id,
        paper=appeal.paper,
        sentence=f"A team leader appealed {appeal.problem.code} paper {_label(appeal)}.",
    )


def notify_appeal_question(*, appeal: Appeal) -> list[Notification]:
    """The leaders of the paper's delegation: the jury (never a juror's name) has a question."""
    return write_notices(
        _leaders(appeal),
        kind=Notification.Kind.APPEAL_QUESTION,
        contest_id=appeal.paper.contest_id,
        problem_id=appeal.problem_id,
        paper=appeal.paper,
        sentence=f"The jury asks a question on your appeal on {appeal.problem.code} for "
        f"contestant {appeal.paper.identity}; answer it on the appeal's page.",
    )


def notify_appeal_answer(*, appeal: Appeal) -> list[Notification]:
    """The problem's jurors and the chair: the team leader (never their name) answered."""
    return write_notices(
        _jury(appeal),
        kind=Notification.Kind.APPEAL_ANSWER,
        contest_id=appeal.paper.contest_id,
        problem_id=appeal.problem_id,
        paper=appeal.paper,
        sentence=f"The team leader answered the jury on the appeal on {appeal.problem.code} "
        f"paper {_label(appeal)}.",
    )


def notify_appeal_decided(*, appeal: Appeal, criteria: list[AppealCriterion]) -> list[Notification]:
    """The leaders of the paper's delegation: the outcome, the points and the reason."""
    leaders = _leaders(appeal)
    changes = ", ".join(
        f"{row.criterion.code} {points_text(row.points_before)} → {points_text(row.points_after)}"
        if row.points_after != row.points_before
        else f"{row.criterion.code} stays {points_text(row.points_before)}"
        for row in criteria
    )
    sentence = _shortened(
        f"Your appeal on {appeal.problem.code} for contestant {appeal.paper.identity} is "
        f"{appeal.get_outcome_display().lower()} ({changes}): {appeal.reason}"
    )
    return write_notices(
        leaders,
        kind=Notification.Kind.APPEAL_DECISION,
        contest_id=appeal.paper.contest_id,
        problem_id=appeal.problem_id,
        paper=appeal.paper,
        sentence=sentence,
    )
