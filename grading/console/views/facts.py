"""The console's pages for what the assignment knows: the jurors' facts (languages, country,
capacity) and the papers' answer languages, each given as bulk lines (paste or upload →
preview → confirm), as jurors are added (`grading.console.views.people`)."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from grading.console import answer_languages as languages_service
from grading.console import juror_facts as facts_service
from grading.console.forms import AnswerLanguagesForm, JurorFactsForm, JurorsConfirmForm
from grading.console.views.guards import contest_for_organizer, organizer_required
from grading.rules import roles
from grading.rules.refusals import http_status
from grading.web.errors import on_refusal

User = get_user_model()


def _jurors():
    """Everyone in the juror role with their facts: two queries whatever their number."""
    return list(
        User.objects.filter(groups__name=roles.JUROR)
        .distinct()
        .order_by("username")
        .select_related("juror_profile")
        .prefetch_related("reading_languages")
    )


def _facts_page(request, form, *, status=200):
    jurors = _jurors()
    rows = [(juror, facts_service.facts_of(juror)) for juror in jurors]
    return render(
        request,
        "console/juror_facts.html",
        {"form": form, "rows": rows, "current": facts_service.facts_lines_text(jurors)},
        status=status,
    )


def _facts_preview(request, batch, text: str, *, status: int | None = None):
    return render(
        request,
        "console/juror_facts_preview.html",
        {
            "batch": batch,
            "confirm": JurorsConfirmForm(initial={"text": text}),
            "form": JurorFactsForm(initial={"text": text}),
        },
        status=status or (422 if batch.errors else 200),
    )


@organizer_required
def juror_facts(request):
    """GET: every juror's facts and the form. POST: the preview of the lines (nothing
    written)."""
    form = JurorFactsForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        text = form.cleaned_data["text"]
        batch = facts_service.juror_facts_parse(text=text, actor=request.user)
        return _facts_preview(request, batch, text)
    return _facts_page(request, form, status=422 if form.errors else 200)


def _facts_refused(request, sentences, status):
    # Something changed since the preview (an account gone): show the lines again with why.
    batch = facts_service.FactsBatch(errors=sentences)
    return _facts_preview(request, batch, request.POST.get("text", ""), status=status)


@organizer_required
@require_POST
@on_refusal(page=_facts_refused)
def juror_facts_confirm(request):
    form = JurorsConfirmForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Nothing was set: the lines did not come with the confirmation.")
        return redirect("console:juror_facts")
    batch = facts_service.juror_facts_set(text=form.cleaned_data["text"], actor=request.user)
    messages.success(request, batch.line())
    return redirect("console:juror_facts")


def _languages_preview(request, contest, batch, text: str, *, status: int | None = None):
    return render(
        request,
        "console/answer_languages_preview.html",
        {
            "contest": contest,
            "batch": batch,
            "confirm": JurorsConfirmForm(initial={"text": text}),
            "form": AnswerLanguagesForm(initial={"text": text}),
        },
        status=status or (422 if batch.errors else 200),
    )


@organizer_required
def answer_languages(request, contest: str):
    """GET: the human papers with their answer languages and the form. POST: the preview of
    the lines (nothing written)."""
    contest_obj = contest_for_organizer(contest)
    form = AnswerLanguagesForm(request.POST or None, request.FILES or None)
    status = 422 if form.errors else 200
    if request.method == "POST" and form.is_valid():
        text = form.cleaned_data["text"]
        try:
            batch = languages_service.answer_languages_parse(contest=contest_obj, text=text)
        except ValidationError as error:
            # A final contest: said on the form, which keeps the lines as typed.
            form.add_error(None, error)
            status = http_status(error)
        else:
            return _languages_preview(request, contest_obj, batch, text)
    return render(
        request,
        "console/answer_languages.html",
        {
            "contest": contest_obj,
            "form": form,
            "papers": languages_service.human_papers_languages(contest_obj),
        },
        status=status,
    )


def _languages_refused(request, sentences, status, contest):
    contest_obj = contest_for_organizer(contest)
    batch = languages_service.LanguagesBatch(contest=contest_obj, errors=sentences)
    return _languages_preview(
        request, contest_obj, batch, request.POST.get("text", ""), status=status
    )


@organizer_required
@require_POST
@on_refusal(page=_languages_refused)
def answer_languages_confirm(request, contest: str):
    contest_obj = contest_for_organizer(contest)
    form = JurorsConfirmForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Nothing was set: the lines did not come with the confirmation.")
        return redirect("console:answer_languages", contest=contest_obj.slug)
    batch = languages_service.answer_languages_set(
        contest=contest_obj, text=form.cleaned_data["text"], actor=request.user
    )
    count = len(batch.lines)
    messages.success(
        request,
        ngettext(
            "The answer language of %(count)d paper of %(contest)s is set.",
            "The answer languages of %(count)d papers of %(contest)s are set.",
            count,
        )
        % {"count": count, "contest": contest_obj.name},
    )
    return redirect("console:answer_languages", contest=contest_obj.slug)
