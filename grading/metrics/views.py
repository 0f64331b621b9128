"""The organizer's automatic ranking of a contest, where the papers for jury grading are chosen.
It shows systems' identities, so it is the organizer's alone: the chair and jurors get a 404."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import ngettext

from grading.metrics import autoscore
from grading.metrics.jury_selection import papers_select_for_jury
from grading.rules import access
from grading.web.errors import on_refusal
from rubrics.models import Contest


def _contest_for_organizer(request, slug: str) -> Contest:
    """The contest, or 404 for anyone but an organizer (the page lists identities, and a 404
    does not even confirm that the page exists)."""
    if not access.is_organizer(request.user):
        raise Http404("No such page.")
    return get_object_or_404(Contest, slug=slug)


@login_required
@on_refusal(redirect="autoscore_ranking")
def autoscore_ranking(request, contest: str):
    contest_obj = _contest_for_organizer(request, contest)
    if request.method == "POST":
        selected = papers_select_for_jury(
            contest=contest_obj, paper_ids=request.POST.getlist("selected")
        )
        if selected:
            messages.success(
                request,
                ngettext(
                    "%d AI paper selected for jury grading; jurors will be assigned only "
                    "selected AI papers and every contestant's paper.",
                    "%d AI papers selected for jury grading; jurors will be assigned only "
                    "selected AI papers and every contestant's paper.",
                    selected,
                )
                % selected,
            )
        else:
            messages.success(request, "No paper is selected: jurors will be assigned every paper.")
        return redirect("autoscore_ranking", contest=contest_obj.slug)

    results = autoscore.contest_autoscore(contest=contest_obj)
    has_private = any(r.private.score is not None for r in results)
    return render(
        request,
        "grading/autoscore.html",
        {
            "contest": contest_obj,
            "results": results,
            "has_private": has_private,
            "selected_count": sum(1 for r in results if r.selected_for_jury),
            # A final contest's selection is on record as it was: nothing is offered to change.
            "may_select": not contest_obj.is_final,
        },
    )
