"""The jury-versus-automatic analysis page, its SVG charts and its tables as files (CSV, a zip
of CSVs, XLSX): the chair's and the organizers'.
Jurors get a 404 (the page would show other jurors' marks and the automatic metric's verdict on
papers they grade). Systems are named only where `access.may_see_identities`; otherwise papers
are "Paper 1..n" by jury total, an index that says nothing about the per-problem labels. The
files name them only where `access.may_export_identities`, as the results exports do."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override

from grading.results import analysis_exports
from grading.results.analysis import contest_analysis
from grading.results.analysis_selectors import analysis_data
from grading.results.analysis_tables import analysis_tables
from grading.results.charts import CHARTS
from grading.rules import access
from rubrics.models import Contest

# matplotlib writes its styling inline (style= attributes and a <style> element); an SVG opened
# on its own is a document of its own, so it gets a policy that allows that and nothing else.
SVG_POLICY = {"default-src": [CSP.NONE], "style-src": [CSP.UNSAFE_INLINE]}


def _contest_for_analysis(request, slug: str) -> Contest:
    if not access.may_read_results(request.user):
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


@login_required
def analysis_export_view(request, contest: str, fmt: str):
    """The page's tables as a file: `csv` one table (`?table=`, papers by default), `zip` every
    table's CSV with a README.csv, `xlsx` a workbook with a README sheet."""
    contest_obj = _contest_for_analysis(request, contest)
    if fmt not in analysis_exports.FORMATS:
        raise Http404("The analysis exports are CSV, a zip of CSVs or XLSX.")
    calibration = access.is_chair(request.user)
    table = request.GET.get("table", "papers") if fmt == "csv" else ""
    if fmt == "csv" and table not in analysis_exports.table_names(calibration=calibration):
        raise Http404("No such table.")
    # Identity columns only after finalization, even for the organizer: an export travels.
    identities = access.may_export_identities(request.user, contest_obj)
    data = analysis_data(contest_obj, identities=identities)
    analysis = contest_analysis(data, identities=identities, calibration=calibration)
    name = analysis_exports.file_name(contest_obj, fmt=fmt, table=table)
    content = analysis_exports.analysis_export(
        analysis_tables(analysis, data), fmt=fmt, stem=f"{contest_obj.slug}-analysis", table=table
    )
    response = HttpResponse(content, content_type=analysis_exports.FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
