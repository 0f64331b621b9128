"""The contest's life in the console: each transition's preconditions as a checklist
(`life_checklist.contest_checklist`), and a confirmation page per step that performs it through
its service only once the box "I understand…" is ticked. Finalizing says that identities are
revealed to the chair and that nothing changes afterwards; reopening asks for the reason that
stays on record.

The organizer and the chair read the checklist; each performs their own steps (the organizer
opens grading and reopens, the chair opens the resolution phase and finalizes); jurors get a
404 as on every console page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from grading.console.contest_life import (
    appeals_deadline_extend,
    appeals_deadline_history,
    contest_finalize,
    contest_grading_open,
    contest_provisional_publish,
    contest_reopen,
    contest_resolution_open,
)
from grading.console.forms import DeadlineExtendForm, TransitionForm
from grading.console.life_checklist import contest_checklist
from grading.marking.forms import ReopenForm, form_error
from grading.rules import access
from grading.web.errors import on_refusal, refusal_on_form
from grading.web.lookups import contest_for_chair

# Who performs each step (the services refuse anyone else too), and what it says once done.
# What the chair confirms to open the resolution phase, on the life page's step and the queue.
RESOLUTION_UNDERSTOOD = "I understand that jurors will be able to revise their submitted marks."

PERFORMERS = {
    "grading": access.may_run_contest,
    "resolution": access.may_decide,
    "provisional": access.may_run_contest,
    "finalize": access.may_decide,
    "reopen": access.may_run_contest,
}
WHO = {
    "grading": "an organizer",
    "resolution": "the jury chair",
    "provisional": "an organizer",
    "finalize": "the jury chair",
    "reopen": "an organizer",
}


def _perform(step: str, contest, user, reason: str, deadline=None):
    if step == "grading":
        contest_grading_open(contest=contest, actor=user)
        return "Grading is open: jurors may now grade and submit their sheets.", "console:life"
    if step == "resolution":
        contest_resolution_open(contest=contest, actor=user)
        return (
            "The resolution phase is open: jurors may now revise their submitted marks.",
            "console:life",
        )
    if step == "provisional":
        contest_provisional_publish(contest=contest, deadline=deadline, actor=user)
        return (
            "The provisional results are published: team leaders may appeal until the deadline.",
            "console:life",
        )
    if step == "finalize":
        contest_finalize(contest=contest, actor=user)
        return f"{contest.name} is final. Identities are now revealed to you.", "reveal"
    contest_reopen(contest=contest, actor=user, reason=reason)
    return (
        f"{contest.name} is open again, in the resolution phase; the reason is on record.",
        "console:life",
    )


def _context(request, contest) -> dict:
    return {
        "contest": contest,
        "transitions": contest_checklist(contest),
        "is_organizer": access.may_run_contest(request.user),
        "performs": {step: rule(request.user) for step, rule in PERFORMERS.items()},
        "who": WHO,
        "events": contest.events.select_related("actor").order_by("created_at", "id"),
        "deadline_changes": appeals_deadline_history(contest),
        "extend_form": DeadlineExtendForm(),
    }


@login_required
def contest_life(request, contest: str):
    contest_obj = contest_for_chair(request, contest, organizer_too=True)
    return render(request, "console/life.html", _context(request, contest_obj))


@login_required
def contest_life_step(request, contest: str, step: str):
    """GET: the step's checklist and what it does, with the confirmation form. POST: the
    step, performed by its service once confirmed; a refusal shows its sentence here."""
    contest_obj = contest_for_chair(request, contest, organizer_too=True)
    if step not in PERFORMERS:
        raise Http404("No such step.")
    if request.method == "POST" and not PERFORMERS[step](request.user):
        raise PermissionDenied(f"Only {WHO[step]} can do this.")
    form = TransitionForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                sentence, target = _perform(
                    step,
                    contest_obj,
                    request.user,
                    form.cleaned_data["reason"],
                    form.cleaned_data["deadline"],
                )
            except ValidationError as error:
                # Said on the confirmation form, beside the checklist, which keeps the reason
                # as typed.
                status = refusal_on_form(form, error)
            else:
                messages.success(request, sentence)
                return redirect(target, contest=contest_obj.slug)
        else:
            status = 422
    context = _context(request, contest_obj)
    context.update(step=step, transition=context["transitions"][step], form=form)
    return render(request, "console/life_step.html", context, status=status)


@login_required
@require_POST
@on_refusal(redirect="results")
def finalize_view(request, contest: str):
    contest_obj = contest_for_chair(request, contest)
    # Finalizing reveals identities and freezes every mark: whatever posts here must carry the
    # confirmation the console's life page asks for, or is sent to that page.
    if not TransitionForm(request.POST).is_valid():
        messages.info(request, "Confirm that you understand what finalizing does.")
        return redirect("console:life_step", contest=contest_obj.slug, step="finalize")
    contest_finalize(contest=contest_obj, actor=request.user)
    messages.success(request, f"{contest_obj.name} is final. Identities are now revealed to you.")
    return redirect("reveal", contest=contest_obj.slug)


@login_required
@require_POST
@on_refusal(redirect="chair_queue")
def resolution_open_view(request, contest: str):
    """The chair's queue's door to the resolution phase: the same confirmation as the life
    page's step asks, ticked."""
    contest_obj = contest_for_chair(request, contest)
    if request.POST.get("confirm") != "on":
        messages.error(request, f"Tick “{RESOLUTION_UNDERSTOOD}” to open the resolution phase.")
        return redirect("chair_queue", contest=contest_obj.slug)
    contest_resolution_open(contest=contest_obj, actor=request.user)
    messages.success(
        request, "The resolution phase is open: jurors may now revise their submitted marks."
    )
    return redirect("chair_queue", contest=contest_obj.slug)


@login_required
@require_POST
@on_refusal(redirect="results")
def reopen_view(request, contest: str):
    """An organizer reopens a final contest, with a reason that stays on the results page."""
    contest_obj = contest_for_chair(request, contest, organizer_too=True)
    if not access.may_run_contest(request.user):
        raise PermissionDenied("Only an organizer can reopen a final contest.")
    form = ReopenForm(request.POST)
    if not form.is_valid():
        raise form_error(form)
    contest_reopen(contest=contest_obj, actor=request.user, reason=form.cleaned_data["reason"])
    messages.success(
        request,
        f"{contest_obj.name} is open again, in the resolution phase; the reason is on record.",
    )
    return redirect("results", contest=contest_obj.slug)


@login_required
@require_POST
@on_refusal(redirect="console:life")
def deadline_extend_view(request, contest: str):
    """The organizer moves the appeals deadline later (or earlier while no leader has appealed
    yet: a correction), with a reason on record."""
    contest_obj = contest_for_chair(request, contest, organizer_too=True)
    if not access.may_run_contest(request.user):
        raise PermissionDenied("Only an organizer can change the appeals deadline.")
    form = DeadlineExtendForm(request.POST)
    if not form.is_valid():
        # What was typed, not what the page sends: bad input (422), said on the life page.
        raise ValidationError([m for errors in form.errors.values() for m in errors])
    appeals_deadline_extend(
        contest=contest_obj,
        deadline=form.cleaned_data["deadline"],
        reason=form.cleaned_data["reason"],
        actor=request.user,
    )
    messages.success(request, "The appeals deadline is changed; the change is on record.")
    return redirect("console:life", contest=contest_obj.slug)
