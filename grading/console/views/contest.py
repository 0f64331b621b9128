"""The console's contest pages: the list with a form to create one, and a contest's settings
(name, maximum total, working language, medal cut-offs), editable until the contest is final."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.shortcuts import redirect, render

from grading.console.forms import ContestCreateForm, ContestSettingsForm
from grading.console.views.guards import contest_for_organizer, organizer_required
from grading.results.cutoffs import contest_create, contest_update, current_cutoffs
from grading.web.errors import refusal_on_form
from rubrics.models import Contest


@organizer_required
def console_index(request):
    form = ContestCreateForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                contest = contest_create(actor=request.user, **form.cleaned_data)
            except ValidationError as error:
                # Said on the form, which keeps what was typed (a slug taken meanwhile).
                status = refusal_on_form(form, error)
            else:
                messages.success(request, f"{contest.name} is created, in set-up.")
                return redirect("console:contest", contest=contest.slug)
        else:
            status = 422
    contests = Contest.objects.annotate(n_problems=Count("problems")).prefetch_related("cutoffs")
    return render(
        request, "console/index.html", {"form": form, "contests": contests}, status=status
    )


@organizer_required
def contest_settings(request, contest: str):
    contest_obj = contest_for_organizer(contest)
    initial = {
        "name": contest_obj.name,
        "max_total": contest_obj.max_total,
        "working_language": contest_obj.working_language,
    }
    initial.update(current_cutoffs(contest_obj))
    form = ContestSettingsForm(request.POST or None, initial=initial)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                contest_obj = contest_update(
                    contest=contest_obj,
                    actor=request.user,
                    name=form.cleaned_data["name"],
                    max_total=form.cleaned_data["max_total"],
                    working_language=form.cleaned_data["working_language"],
                    cutoffs=form.cutoffs(),
                )
            except ValidationError as error:
                # Said on the form, which keeps what was typed (cut-offs out of order, a final
                # contest).
                status = refusal_on_form(form, error)
            else:
                messages.success(request, f"{contest_obj.name}: settings saved.")
                return redirect("console:contest", contest=contest_obj.slug)
        else:
            status = 422
    return render(
        request,
        "console/contest.html",
        {"contest": contest_obj, "form": form},
        status=status,
    )
