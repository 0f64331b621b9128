"""A contest's progress, for the organizer and the chair (`selectors.progress`): per problem
and per juror, cells graded, sheets submitted, discrepancies open and resolved, and the drafts
nobody has touched for an hour, apart from the jurors not signed in yet and the drafts
not started. Jurors get a 404."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from grading.resolution.progress import IDLE_AFTER, contest_progress
from grading.rules import access
from grading.rules.capacity import over_capacity
from grading.web.lookups import contest_for_chair


@login_required
def contest_progress_page(request, contest: str):
    contest_obj = contest_for_chair(request, contest, organizer_too=True)
    return render(
        request,
        "console/progress.html",
        {
            "contest": contest_obj,
            "progress": contest_progress(contest_obj),
            "idle_minutes": int(IDLE_AFTER.total_seconds() // 60),
            "is_organizer": access.may_run_contest(request.user),
            "over_capacity": over_capacity(contest=contest_obj),
        },
    )
