"""The console's delegations: every delegation of a contest with its contestants and team
leaders, and leaders added in bulk (paste or upload → preview → confirm), as jurors are
(`grading.console.views.people`). Delegations themselves come through the imports page
(`grading.console.imports`, kind "delegations")."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from grading.console import delegations as delegations_service
from grading.console import leaders as leaders_service
from grading.console.forms import JurorsConfirmForm, LeadersForm
from grading.console.views.guards import contest_for_organizer, organizer_required
from grading.rules.refusals import http_status
from grading.web.errors import on_refusal


@organizer_required
def delegations_page(request, contest: str):
    contest_obj = contest_for_organizer(contest)
    return render(
        request,
        "console/delegations.html",
        {
            "contest": contest_obj,
            "overview": delegations_service.delegations_overview(contest_obj),
            "form": LeadersForm(),
        },
    )


@organizer_required
def leaders_add(request, contest: str):
    """GET: the form. POST: the preview of what the lines would do (nothing written)."""
    contest_obj = contest_for_organizer(contest)
    form = LeadersForm(request.POST or None, request.FILES or None)
    status = 422 if form.errors else 200
    if request.method == "POST" and form.is_valid():
        text = form.cleaned_data["text"]
        try:
            batch = leaders_service.leaders_parse(contest=contest_obj, text=text)
        except ValidationError as error:
            # A final contest: said on the form, which keeps the lines as typed.
            form.add_error(None, error)
            status = http_status(error)
        else:
            return _preview(request, contest_obj, batch, text)
    return render(
        request, "console/leaders_add.html", {"contest": contest_obj, "form": form}, status=status
    )


def _preview(request, contest, batch, text: str, *, status: int | None = None):
    return render(
        request,
        "console/leaders_preview.html",
        {
            "contest": contest,
            "batch": batch,
            "confirm": JurorsConfirmForm(initial={"text": text}),
            "form": LeadersForm(initial={"text": text}),
        },
        status=status or (422 if batch.errors else 200),
    )


def _leaders_refused(request, sentences, status, contest):
    # Something changed since the preview (a delegation gone, the contest final): show it.
    contest_obj = contest_for_organizer(contest)
    batch = leaders_service.LeaderBatch(contest=contest_obj, errors=sentences)
    return _preview(request, contest_obj, batch, request.POST.get("text", ""), status=status)


@organizer_required
@require_POST
@on_refusal(page=_leaders_refused)
def leaders_confirm(request, contest: str):
    contest_obj = contest_for_organizer(contest)
    form = JurorsConfirmForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Nothing was added: the lines did not come with the confirmation.")
        return redirect("console:leaders_add", contest=contest_obj.slug)
    people = leaders_service.leaders_add(
        contest=contest_obj, text=form.cleaned_data["text"], actor=request.user
    )
    count = len(people)
    messages.success(
        request,
        ngettext(
            "%(count)d team leader added to %(contest)s; print their sign-in slips below.",
            "%(count)d team leaders added to %(contest)s; print their sign-in slips below.",
            count,
        )
        % {"count": count, "contest": contest_obj.name},
    )
    query = "&".join(f"added={user.username}" for user in people)
    return redirect(f"{reverse('console:people')}?contest={contest_obj.slug}&{query}")
