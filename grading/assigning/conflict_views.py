"""The chair's page of marks given before a conflict came to light (`conflict_rulings`): each
juror's marks on each such paper, why the juror is in conflict, and a form to keep or discard
them with a reason; the decisions already made below, with who made them, when and why.

Who may do what is `grading.rules.access`'s; outsiders get 404, refusals come back as messages
on the page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from grading.assigning.conflict_rulings import conflict_ruling_make, held_papers
from grading.rules import access
from grading.web.errors import on_refusal
from rubrics.models import Contest


def _contest_for_chair(request, slug: str) -> Contest:
    if not access.may_decide(request.user):
        raise Http404("No such page.")
    return get_object_or_404(Contest, slug=slug)


@login_required
@require_GET
def conflict_rulings_view(request, contest: str):
    contest_obj = _contest_for_chair(request, contest)
    held = held_papers(contest_obj, actor=request.user)
    return render(
        request,
        "grading/conflict_rulings.html",
        {
            "contest": contest_obj,
            "waiting": [h for h in held if h.waiting],
            "decided": [h for h in held if not h.waiting],
        },
    )


def _back(request, contest: str) -> str:
    return reverse("conflict_rulings", args=[contest])


@login_required
@require_POST
@on_refusal(redirect=_back)
def conflict_ruling_view(request, contest: str):
    contest_obj = _contest_for_chair(request, contest)
    decision = request.POST.get("decision")
    if decision not in ("keep", "discard"):
        raise ValidationError("Choose whether the marks are kept or discarded.")
    try:
        problem_id, paper_id, juror_id = (
            int(request.POST.get(name, "")) for name in ("problem", "paper", "juror")
        )
    except ValueError:
        raise Http404("No such marks.") from None
    ruling = conflict_ruling_make(
        contest=contest_obj,
        problem_id=problem_id,
        paper_id=paper_id,
        juror_id=juror_id,
        keep=decision == "keep",
        reason=request.POST.get("reason", ""),
        actor=request.user,
    )
    if ruling.kept:
        messages.success(request, "The marks are kept: they count from now on.")
    else:
        messages.success(
            request,
            "The marks are discarded: they never count. The organizer's conflict moves give "
            "the paper to a colleague.",
        )
    return redirect("conflict_rulings", contest=contest)
