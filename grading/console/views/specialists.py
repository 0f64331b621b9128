"""The console's language specialists, added in bulk (paste or upload → preview → confirm) as
team leaders are (`grading.console.views.delegations`); their sign-in slips say "Language
specialist"."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from grading.console import specialists as service
from grading.console.forms import JurorsConfirmForm, SpecialistsForm
from grading.console.views.guards import contest_for_organizer, organizer_required
from grading.rules.refusals import http_status
from grading.web.errors import on_refusal


@organizer_required
def specialists_add(request, contest: str):
    """GET: the form. POST: the preview of what the lines would do (nothing written)."""
    contest_obj = contest_for_organizer(contest)
    form = SpecialistsForm(request.POST or None, request.FILES or None)
    status = 422 if form.errors else 200
    if request.method == "POST" and form.is_valid():
        text = form.cleaned_data["text"]
        try:
            batch = service.specialists_parse(contest=contest_obj, text=text)
        except ValidationError as error:
            # A final contest: said on the form, which keeps the lines as typed.
            form.add_error(None, error)
            status = http_status(error)
        else:
            return _preview(request, contest_obj, batch, text)
    return render(
        request,
        "console/specialists_add.html",
        {"contest": contest_obj, "form": form},
        status=status,
    )


def _preview(request, contest, batch, text: str, *, status: int | None = None):
    return render(
        request,
        "console/specialists_preview.html",
        {
            "contest": contest,
            "batch": batch,
            "confirm": JurorsConfirmForm(initial={"text": text}),
            "form": SpecialistsForm(initial={"text": text}),
        },
        status=status or (422 if batch.errors else 200),
    )


def _specialists_refused(request, sentences, status, contest):
    # Something changed since the preview (a username taken meanwhile, the contest final).
    contest_obj = contest_for_organizer(contest)
    batch = service.SpecialistBatch(contest=contest_obj, errors=sentences)
    return _preview(request, contest_obj, batch, request.POST.get("text", ""), status=status)


@organizer_required
@require_POST
@on_refusal(page=_specialists_refused)
def specialists_confirm(request, contest: str):
    contest_obj = contest_for_organizer(contest)
    form = JurorsConfirmForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Nothing was added: the lines did not come with the confirmation.")
        return redirect("console:specialists_add", contest=contest_obj.slug)
    people = service.specialists_add(
        contest=contest_obj, text=form.cleaned_data["text"], actor=request.user
    )
    count = len(people)
    messages.success(
        request,
        ngettext(
            "%(count)d language specialist added; print their sign-in slip below.",
            "%(count)d language specialists added; print their sign-in slips below.",
            count,
        )
        % {"count": count},
    )
    query = "&".join(f"added={user.username}" for user in people)
    return redirect(f"{reverse('console:people')}?contest={contest_obj.slug}&{query}")
