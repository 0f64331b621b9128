"""The jury-versus-automatic analysis page and its SVG charts: the chair's and the organizers'.
Jurors get a 404 (the page would show other jurors' marks and the automatic metric's verdict on
papers they grade). Systems are named only where `access.may_see_identities`; otherwise papers
are "Paper 1..n" by jury total, an index that says nothing about the per-problem labels."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override

from grading.results.analysis import contest_analysis
from grading.results.analysis_selectors import analysis_data
from grading.results.charts import CHARTS
from grading.rules import access
from rubrics.models import Contest

# matplotlib writes its styling inline (style= attributes and a <style> element); an SVG opened
# on its own is a document of its own, so it gets a policy that allows that and nothing else.
SVG_POLICY = {"default-src": [CSP.NONE], "style-src": [CSP.UNSAFE_INLINE]}


def _contest_for_analysis(request, slug: str) -> Contest:
    user = request.user
    if not (access.is_chair(user) or access.is_organizer(user)):
        raise Http404("No such page.")
    return get_object_or_404(Contest, slug=slug)


def _analysis(request, contest: Contest):
    identities = access.may_see_identities(request.user, contest)
    data = analysis_data(contest, identities=identities)
    return contest_analysis(data, identities=identities, calibration=access.is_chair(request.user))


@login_required
def analysis_page(request, contest: str):
    contest_obj = _contest_for_analysis(request, contest)
    analysis = _analysis(request, contest_obj)
    return render(
        request,
        "grading/analysis.html",
        {
            "contest": contest_obj,
            "a": analysis,
            "compared_codes": ", ".join(f"P{number}" for number in analysis.compared),
            "has_human_rates": analysis.difficulty_pairs > 0,
        },
    )


@login_required
@csp_override(SVG_POLICY)
def analysis_chart(request, contest: str, chart: str):
    contest_obj = _contest_for_analysis(request, contest)
    draw = CHARTS.get(chart)
    if draw is None:
        raise Http404("No such chart.")
    response = HttpResponse(draw(_analysis(request, contest_obj)), content_type="image/svg+xml")
    # The figures change with every mark; a cached chart would contradict the page around it.
    response["Cache-Control"] = "private, no-cache"
    return response
