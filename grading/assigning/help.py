"""Language help's writes: a juror's question on a paper (`help_ask`), the helper the organizer
or the chair gives it (`help_assign`), the helper's translation note (`help_answer`).

Each refuses on its own: who may (`grading.rules.access`), a final contest
(`refuse_if_final_now`), and writes its inbox notice in its own transaction. An answer may be
edited by its helper until the contest is final: a translation note corrected is better than a
wrong one kept; the juror is told again, and the note says when it was last changed."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from grading.assigning import help_notices
from grading.models import Assignment, HelpRequest, JurorProfile, Paper, Seed
from grading.rules import access, appeal_access
from grading.rules.phase import refuse_if_final_now
from grading.rules.refusals import WrongState
from rubrics.models import Problem

QUESTION_MAX = 2000
ANSWER_MAX = 10000
WHAT = "its papers' language help"


def _text(value: str, *, what: str, limit: int) -> str:
    text = (value or "").strip()
    if not text:
        raise ValidationError(f"The {what} is empty; write it in a sentence or two.")
    if len(text) > limit:
        raise ValidationError(f"The {what} is {len(text)} characters long; keep it under {limit}.")
    return text


@transaction.atomic
def help_ask(
    *, actor, problem: Problem, paper: Paper, question: str, seed: Seed | None = None
) -> HelpRequest:
    """A juror's question on a paper they mark in the problem, or on a seed of their sheet
    (`seed`, whose calibration paper is then `paper`: the helper reads that paper's pages as
    for any question); the organizers and the chair are told."""
    allowed = (
        access.may_ask_help(actor, problem=problem, paper=paper)
        if seed is None
        else access.may_ask_help_on_seed(actor, problem=problem, seed=seed)
        and seed.calibration_paper.paper_id == paper.pk
    )
    access.require(
        allowed,
        "Only a juror marking this paper, while the contest is grading or resolving, can ask "
        "for help on it.",
    )
    refuse_if_final_now(problem.contest, what=WHAT)
    request = HelpRequest.objects.create(
        paper=paper,
        problem=problem,
        seed=seed,
        asked_by=actor,
        question=_text(question, what="question", limit=QUESTION_MAX),
    )
    help_notices.notify_help_asked(request=request)
    return request


def helper_refusal(request: HelpRequest, helper) -> str:
    """Why `helper` may not help on the request, in a sentence, or "" when they may: an active
    language specialist or juror, not the asker, not marked unavailable (they left), not
    assigned the paper in the problem (they would mark what they translate) and not a leader of
    its delegation."""
    if not helper.is_active:
        return f"{helper.username} is deactivated and cannot sign in to help."
    if JurorProfile.objects.filter(user=helper, unavailable_since__isnull=False).exists():
        return f"{helper.username} is marked unavailable (they left) and cannot help."
    if not (access.is_specialist(helper) or access.is_juror(helper)):
        return f"{helper.username} is neither a juror nor a language specialist."
    if helper.pk == request.asked_by_id:
        return "The juror who asked cannot answer their own question; choose someone else."
    if Assignment.objects.filter(
        paper_id=request.paper_id, problem_id=request.problem_id, juror=helper
    ).exists():
        return (
            f"{helper.username} marks this paper in {request.problem.code}; a helper must not "
            "be one of its jurors."
        )
    if appeal_access.leads_paper_delegation(helper, request.paper):
        return f"{helper.username} leads this paper's delegation and cannot help on it."
    return ""


@transaction.atomic
def help_assign(*, actor, request: HelpRequest, helper) -> HelpRequest:
    """Give the question its helper (or another one, while it is unanswered); the helper is
    told. Who assigned it, and when, is kept."""
    access.require(
        access.may_assign_help(actor), "Only an organizer or the chair can assign language help."
    )
    refuse_if_final_now(request.problem.contest, what=WHAT)
    request = HelpRequest.objects.select_for_update(of=("self",)).get(pk=request.pk)
    if request.answered_at is not None:
        raise WrongState("This question is answered already; its helper can no longer change.")
    refusal = helper_refusal(request, helper)
    if refusal:
        raise ValidationError(refusal)
    if request.helper_id == helper.pk:
        return request
    request.helper = helper
    request.assigned_by = actor
    request.assigned_at = timezone.now()
    request.save(update_fields=["helper", "assigned_by", "assigned_at"])
    help_notices.notify_help_assigned(request=request)
    return request


@transaction.atomic
def help_answer(*, actor, request: HelpRequest, answer: str) -> HelpRequest:
    """The helper's translation note, or its revision; the juror who asked is told."""
    access.require(access.may_help(actor, request), "Only this question's helper can answer it.")
    refuse_if_final_now(request.problem.contest, what=WHAT)
    request = HelpRequest.objects.select_for_update(of=("self",)).get(pk=request.pk)
    access.require(access.may_help(actor, request), "Only this question's helper can answer it.")
    text = _text(answer, what="answer", limit=ANSWER_MAX)
    if text == request.answer:
        return request
    revised = request.answered_at is not None
    request.answer = text
    request.answered_at = timezone.now()
    request.save(update_fields=["answer", "answered_at"])
    help_notices.notify_help_answered(request=request, revised=revised)
    return request
