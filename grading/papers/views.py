"""Pages: the role-aware home and a paper's solutions to one problem. The grading sheet, PDFs,
comparison and results have their own modules as they arrive."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.views.decorators.http import require_GET

from grading.papers import selectors as papers
from grading.papers.page_views import scan_viewer_context
from grading.papers.seed_labels import juror_seed
from grading.rules import access, appeal_access
from grading.web.lookups import problem_for_reader


@login_required
def home(request):
    user = request.user
    context = {
        "is_organizer": access.is_organizer(user),
        "is_chair": access.is_chair(user),
        "is_juror": access.is_juror(user),
        "is_leader": appeal_access.is_leader(user),
        "is_specialist": access.is_specialist(user),
    }
    if context["is_organizer"] or context["is_chair"]:
        context["contests"] = papers.contest_overview()
    if context["is_juror"]:
        context["juror_problems"] = papers.juror_problems(user)
        context["calibration_sheets"] = papers.waiting_calibration_sheets(user)
    if context["is_leader"]:
        context["led_delegations"] = papers.led_delegations(user)
    return render(request, "grading/home.html", context)


@require_GET
def favicon(request):
    """Browsers and feed readers ask for /favicon.ico whatever the page links; the icon is a
    static file (with its hashed name when served in production)."""
    return redirect(static("grading/favicon.ico"))


@login_required
def paper_detail(request, contest: str, problem: int, label: str):
    problem_obj = problem_for_reader(request, contest, problem)
    try:
        paper, tasks = papers.paper_problem_detail(problem=problem_obj, label=label)
    except Http404:
        # A seed's label shows its calibration paper to the seed's juror, as their sheet does.
        seed = juror_seed(user=request.user, problem=problem_obj, label=label)
        if seed is None:
            raise
        paper = seed.calibration_paper.paper
        tasks = papers.paper_problem_tasks(problem=problem_obj, paper=paper)
    else:
        # A juror outside this paper's assignment gets the same 404 as for a label that does
        # not exist, so that probing labels reveals nothing.
        if not access.may_read_paper(request.user, problem=problem_obj, paper=paper):
            raise Http404("No paper has this label in this problem.")
    return render(
        request,
        "grading/paper_detail.html",
        {
            "problem": problem_obj,
            "contest": problem_obj.contest,
            "label": label,
            "tasks": tasks,
            "show_identity": access.may_see_identities(request.user, problem_obj.contest),
            "paper": paper,
            **scan_viewer_context(problem=problem_obj, paper=paper, label=label),
        },
    )
