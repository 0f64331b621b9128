"""A problem's "Amend the scheme" page, the chair's and the organizer's: the criteria as a
form, a preview of what the amendment does (the marks it reopens, by juror, paper label and
criterion) before anything is written, and the problem's versions with their reasons."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from grading.rules import access
from grading.schemes.amend import amendment_read, scheme_amend
from grading.schemes.forms import SchemeAmendForm
from grading.schemes.selectors import scheme_problem, scheme_versions
from grading.web.errors import on_refusal
from rubrics.models import Criterion


def _problem(request, contest: str, problem: int):
    """The problem, for those who may amend its scheme; 404 to anyone else."""
    if not access.may_amend_scheme(request.user):
        raise Http404("No such page.")
    return scheme_problem(contest_slug=contest, number=problem)


def _render(request, problem, form, *, preview=None, errors=(), status=200):
    return render(
        request,
        "grading/schemes/scheme.html",
        {
            "contest": problem.contest,
            "problem": problem,
            "form": form,
            "preview": preview,
            "errors": list(errors),
            "versions": scheme_versions(problem),
        },
        status=status,
    )


def _refused_page(request, sentences, status, *, contest, problem):
    """A refused preview or amendment: the page again, with the form as typed and the
    sentences that say what to fix."""
    problem_obj = _problem(request, contest, problem)
    criteria = list(Criterion.objects.for_problem(problem_obj))
    form = SchemeAmendForm(request.POST, criteria=criteria)
    form.is_valid()
    return _render(request, problem_obj, form, errors=sentences, status=status)


@login_required
@require_http_methods(["GET", "POST"])
@on_refusal(page=_refused_page)
def scheme_page(request, contest: str, problem: int):
    problem_obj = _problem(request, contest, problem)
    criteria = list(Criterion.objects.for_problem(problem_obj))
    if request.method == "GET":
        return _render(request, problem_obj, SchemeAmendForm(criteria=criteria))
    form = SchemeAmendForm(request.POST, criteria=criteria)
    form.is_valid()  # every field is optional text: the service checks the values
    reason = form.cleaned_data.get("reason", "")
    if request.POST.get("action") != "confirm":
        preview = amendment_read(problem_obj, changes=form.changes(), reason=reason)
        return _render(request, problem_obj, form, preview=preview)
    version = scheme_amend(problem_obj, changes=form.changes(), reason=reason, actor=request.user)
    if version is None:
        messages.success(
            request,
            f"The scheme of {problem_obj.code} is changed; no mark was given under it yet, so "
            "no new version was needed.",
        )
    else:
        n = version.reopened.count()
        reopened = (
            ngettext("%d mark reopened for its juror.", "%d marks reopened for their jurors.", n)
            % n
            if version.reopens_marks
            else "The change applies at once; no mark reopened."
        )
        k = version.reopened_calibration.count() if version.reopens_marks else 0
        if k:
            reopened += (
                " "
                + ngettext(
                    "%d calibration mark reopened too.", "%d calibration marks reopened too.", k
                )
                % k
            )
        messages.success(
            request,
            f"Scheme version {version.number} of {problem_obj.code} is in force. {reopened}",
        )
    return redirect(reverse("scheme", args=[contest, problem]))
