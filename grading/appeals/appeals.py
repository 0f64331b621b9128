"""The appeals' writes: a team leader files an appeal (per paper and problem, naming criteria,
with an argument, before the deadline) and may withdraw it until it is decided; the problem's
jurors and the chair comment on it among themselves and may ask the leader a question, which
the leader answers; a juror of the group who did not mark the paper, or the
chair, decides it. A changed criterion's agreed value becomes a `Resolution` of kind appeal,
naming the appeal in its reason, so that the results count it and its history stays on record.

Each service checks who may act (`grading.rules.access`), refuses every write once the contest
is final (`grading.rules.phase`), records an `AppealEvent`, and raises a typed refusal with a
sentence the reader can act on."""

from datetime import datetime
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import ngettext

from grading.appeals import notices
from grading.marking.reconcile import resolution_write
from grading.models import Appeal, AppealCriterion, AppealEvent, Paper, Resolution
from grading.results.selectors import paper_cells
from grading.rules import access, appeal_access
from grading.rules.domain import points_text
from grading.rules.phase import refuse_if_final, refuse_if_final_now
from grading.rules.refusals import NotAllowed, Stale, WrongState
from rubrics.models import Contest, Criterion, Problem
from rubrics.validators import validate_points

ARGUMENT_MAX = 8000
COMMENT_MAX = 4000
WHAT = "its appeals"


def deadline_text(moment: datetime) -> str:
    """A deadline in the reader's time zone (the one the request activated), with its name."""
    local = timezone.localtime(moment)
    return f"{local:%Y-%m-%d %H:%M} ({timezone.get_current_timezone_name()})"


def _provisional(contest: Contest) -> Contest:
    """The contest as it is now, its row held: refused when final, or when its results are not
    provisional (appeals belong to that phase alone)."""
    contest = refuse_if_final_now(contest, WHAT)
    if contest.state != Contest.State.PROVISIONAL:
        raise WrongState(
            f"{contest.name} has no provisional results: appeals open when they are published."
        )
    return contest


def _text(text: str, *, what: str, limit: int) -> str:
    text = (text or "").strip()
    if not text:
        raise ValidationError(f"Write the {what}; it is what the jury reads.")
    if len(text) > limit:
        raise ValidationError(f"The {what} holds at most {limit} characters; it has {len(text)}.")
    return text


def agreed_points(paper: Paper, problem: Problem) -> dict[int, Decimal]:
    """The paper's agreed points now, per criterion of the problem (by criterion id), as the
    results count them. Six queries."""
    _, cells = paper_cells(paper.contest, public_code=paper.public_code)
    return {
        cell.criterion.pk: cell.points for cell in cells if cell.criterion.problem_id == problem.pk
    }


@transaction.atomic
def appeal_file(
    *, paper: Paper, problem: Problem, criteria: list[Criterion], argument: str, actor
) -> Appeal:
    """A leader of the paper's delegation appeals the agreed points of one or more criteria of
    one problem, before the deadline; one appeal per paper and problem at a time (a withdrawn
    one may be filed again). The problem's jurors and the chair are told."""
    # A final contest says so first, to whoever asks: it is the reason nothing can be filed.
    refuse_if_final(paper.contest, WHAT)
    access.require(
        appeal_access.may_appeal(actor, paper),
        "Only a team leader of this contestant's delegation can appeal, while the results are "
        "provisional.",
    )
    contest = _provisional(paper.contest)
    if contest.appeals_deadline and timezone.now() > contest.appeals_deadline:
        raise WrongState(
            f"The appeals deadline was {deadline_text(contest.appeals_deadline)}; no appeal can "
            "be filed after it."
        )
    if problem.contest_id != contest.pk:
        raise ValidationError(f"{problem.code} is not a problem of {contest.name}.")
    chosen = sorted({c.pk: c for c in criteria}.values(), key=lambda c: (c.order, c.code))
    if not chosen:
        raise ValidationError(f"Name at least one criterion of {problem.code} you appeal.")
    foreign = [c.code for c in chosen if c.problem_id != problem.pk]
    if foreign:
        raise ValidationError(
            ngettext(
                "%(codes)s is not a criterion of %(problem)s.",
                "%(codes)s are not criteria of %(problem)s.",
                len(foreign),
            )
            % {"codes": ", ".join(foreign), "problem": problem.code}
        )
    argument = _text(argument, what="argument", limit=ARGUMENT_MAX)
    if (
        Appeal.objects.filter(paper=paper, problem=problem)
        .exclude(state=Appeal.State.WITHDRAWN)
        .exists()
    ):
        raise WrongState(
            f"This contestant already has an appeal on {problem.code}; withdraw it to file "
            "another, or wait for its decision."
        )
    agreed = agreed_points(paper, problem)
    appeal = Appeal.objects.create(paper=paper, problem=problem, filed_by=actor, argument=argument)
    AppealCriterion.objects.bulk_create(
        AppealCriterion(appeal=appeal, criterion=c, points_before=agreed[c.pk]) for c in chosen
    )
    AppealEvent.objects.create(
        appeal=appeal, actor=actor, kind=AppealEvent.Kind.FILED, text=argument
    )
    notices.notify_appeal_filed(appeal=appeal)
    return appeal


def _held(appeal: Appeal) -> Appeal:
    """The appeal as it is now, its row held, with its paper, problem and contest."""
    return (
        Appeal.objects.select_for_update(of=("self",))
        .select_related("paper__contest", "problem")
        .get(pk=appeal.pk)
    )


@transaction.atomic
def appeal_withdraw(*, appeal: Appeal, actor) -> Appeal:
    """A leader of the paper's delegation withdraws an appeal that is not decided yet."""
    appeal = _held(appeal)
    refuse_if_final(appeal.paper.contest, WHAT)
    access.require(
        appeal_access.may_appeal(actor, appeal.paper),
        "Only a team leader of this contestant's delegation can withdraw its appeal.",
    )
    _provisional(appeal.paper.contest)
    if appeal.state != Appeal.State.OPEN:
        raise Stale(
            f"This appeal on {appeal.problem.code} is {appeal.get_state_display().lower()} "
            "already; it can no longer be withdrawn."
        )
    appeal.state, appeal.withdrawn_at = Appeal.State.WITHDRAWN, timezone.now()
    appeal.save(update_fields=["state", "withdrawn_at"])
    AppealEvent.objects.create(appeal=appeal, actor=actor, kind=AppealEvent.Kind.WITHDRAWN)
    return appeal


@transaction.atomic
def appeal_comment(*, appeal: Appeal, text: str, actor) -> AppealEvent:
    """A juror of the problem or the chair comments on an open appeal (a juror who marked the
    paper too: they may comment, not decide)."""
    appeal = _held(appeal)
    refuse_if_final(appeal.paper.contest, WHAT)
    access.require(
        appeal_access.may_handle_appeal(actor, problem=appeal.problem, paper=appeal.paper),
        "Comments on an appeal are the problem's jurors' and the chair's.",
    )
    _provisional(appeal.paper.contest)
    _refuse_unless_open(appeal, "comments")
    text = _text(text, what="comment", limit=COMMENT_MAX)
    return AppealEvent.objects.create(
        appeal=appeal, actor=actor, kind=AppealEvent.Kind.COMMENT, text=text
    )


def _refuse_unless_open(appeal: Appeal, what: str) -> None:
    # The pages offer no form once the appeal is withdrawn or decided; a post made anyway (an
    # open tab, a script) is refused here, as every write on an appeal is.
    if appeal.state != Appeal.State.OPEN:
        raise Stale(
            f"This appeal on {appeal.problem.code} is {appeal.get_state_display().lower()}; "
            f"it takes no more {what}."
        )


@transaction.atomic
def appeal_ask(*, appeal: Appeal, text: str, actor) -> AppealEvent:
    """Whoever may comment on an open appeal (a juror of the group, the chair) asks the team
    leader a question before the decision. The leader reads it as the jury's, never under a
    juror's name, in their inbox and on their appeal's page, and may answer it there."""
    appeal = _held(appeal)
    refuse_if_final(appeal.paper.contest, WHAT)
    access.require(
        appeal_access.may_handle_appeal(actor, problem=appeal.problem, paper=appeal.paper),
        "Questions to the team leader are the problem's jurors' and the chair's.",
    )
    _provisional(appeal.paper.contest)
    _refuse_unless_open(appeal, "questions")
    text = _text(text, what="question", limit=COMMENT_MAX)
    event = AppealEvent.objects.create(
        appeal=appeal, actor=actor, kind=AppealEvent.Kind.QUESTION, text=text
    )
    notices.notify_appeal_question(appeal=appeal)
    return event


@transaction.atomic
def appeal_answer(*, appeal: Appeal, text: str, actor) -> AppealEvent:
    """A leader of the paper's delegation answers the jury's question on an open appeal (after
    the filing deadline too: the jury asked). The jurors who handle it and the chair are told."""
    appeal = _held(appeal)
    refuse_if_final(appeal.paper.contest, WHAT)
    access.require(
        appeal_access.may_appeal(actor, appeal.paper),
        "Only a team leader of this contestant's delegation answers the jury on its appeal.",
    )
    _provisional(appeal.paper.contest)
    _refuse_unless_open(appeal, "answers")
    if not appeal.events.filter(kind=AppealEvent.Kind.QUESTION).exists():
        raise WrongState(
            f"The jury has asked no question on this appeal on {appeal.problem.code}; your "
            "argument is what it reads."
        )
    text = _text(text, what="answer", limit=COMMENT_MAX)
    event = AppealEvent.objects.create(
        appeal=appeal, actor=actor, kind=AppealEvent.Kind.ANSWER, text=text
    )
    notices.notify_appeal_answer(appeal=appeal)
    return event


def outcome_of(changed: int, named: int) -> str:
    """The outcome the new points make: every criterion changed, some, or none."""
    if not changed:
        return Appeal.Outcome.REJECTED
    return Appeal.Outcome.UPHELD if changed == named else Appeal.Outcome.PARTLY


@transaction.atomic
def appeal_decide(
    *, appeal: Appeal, points: dict[str, Decimal], reason: str, actor, outcome: str = ""
) -> Appeal:
    """Decide an open appeal: `points` gives the new points per criterion code it names (a
    criterion left out keeps its points). Upheld when every criterion changes, partly upheld
    when some do, rejected when none does; `outcome`, when given, must say the same. A changed
    criterion's agreed value is written as a `Resolution` of kind appeal, with the appeal in
    its reason; the leaders of the paper's delegation are told, with the reason."""
    appeal = _held(appeal)
    problem, paper = appeal.problem, appeal.paper
    refuse_if_final(paper.contest, WHAT)
    if not appeal_access.may_decide_appeal(actor, problem=problem, paper=paper):
        if appeal_access.may_handle_appeal(actor, problem=problem, paper=paper):
            raise NotAllowed(
                "You marked this paper for this problem: comment on the appeal, and another "
                "juror of the group or the chair decides it."
            )
        raise NotAllowed("Only a juror of the problem's group or the chair can decide an appeal.")
    _provisional(paper.contest)
    if appeal.state != Appeal.State.OPEN:
        raise Stale(
            f"This appeal on {problem.code} is {appeal.get_state_display().lower()} already."
        )
    reason = _text(reason, what="reason for the decision", limit=COMMENT_MAX)
    named = list(appeal.criteria.select_related("criterion"))
    codes = {row.criterion.code for row in named}
    unknown = sorted(set(points) - codes)
    if unknown:
        raise ValidationError(
            f"{', '.join(unknown)}: this appeal names only {', '.join(sorted(codes))}."
        )
    changed = []
    for row in named:
        new = points.get(row.criterion.code)
        new = row.points_before if new is None else new
        # The same rule as a juror's mark: within the criterion's maximum and on its step.
        validate_points(new, row.criterion)
        row.points_after = new
        if new != row.points_before:
            changed.append(row)
    derived = outcome_of(len(changed), len(named))
    if outcome and outcome != derived:
        raise ValidationError(
            f"The new points make this appeal {Appeal.Outcome(derived).label.lower()}, not "
            f"{Appeal.Outcome(outcome).label.lower()}: change the points or the outcome."
        )
    AppealCriterion.objects.bulk_update(named, ["points_after"])
    for row in changed:
        _write_agreed(appeal, row, reason=reason, actor=actor)
    appeal.state, appeal.outcome, appeal.reason = Appeal.State.DECIDED, derived, reason
    appeal.decided_by, appeal.decided_at = actor, timezone.now()
    appeal.save(update_fields=["state", "outcome", "reason", "decided_by", "decided_at"])
    summary = "; ".join(
        f"{row.criterion.code} {points_text(row.points_before)} → {points_text(row.points_after)}"
        for row in named
    )
    AppealEvent.objects.create(
        appeal=appeal,
        actor=actor,
        kind=AppealEvent.Kind.DECIDED,
        text=f"{appeal.get_outcome_display()} ({summary}): {reason}",
    )
    notices.notify_appeal_decided(appeal=appeal, criteria=named)
    return appeal


def _write_agreed(appeal: Appeal, row: AppealCriterion, *, reason: str, actor) -> Resolution:
    existing = (
        Resolution.objects.select_for_update()
        .filter(paper=appeal.paper, criterion=row.criterion)
        .first()
    )
    return resolution_write(
        paper=appeal.paper,
        criterion=row.criterion,
        kind=Resolution.Kind.APPEAL,
        points=row.points_after,
        reason=f"Appeal {appeal.pk} on {appeal.problem.code}: {reason}",
        actor=actor,
        existing=existing,
    )
