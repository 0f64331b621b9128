"""Pages of the resolution phase: a problem's comparison, results, the contest's transitions
(resolution, finalization, reopening), reveal and exports. The discussion of a cell and the
chair's queue are in `grading.resolution.discussion_views`.

Who may do what is `grading.rules.access`'s; refusals become answers in `grading.web.errors`. A
juror of the problem's group who has not submitted gets a 403 page saying so; outsiders a 404."""

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import render

from grading.papers.page_views import scan_viewer_context
from grading.resolution import comparison
from grading.resolution.comparison_screen import comparison_screen, offered_shows
from grading.results import exports
from grading.results.selectors import automatic_scores, paper_cells, provisional_lines
from grading.rules import access
from grading.web.lookups import (
    SubmitFirst,
    contest_for_chair,
    problem_for_comparison,
    submit_first_page,
)
from grading.web.rendering import render_and_release
from rubrics.models import Problem

COMPARISON_VIEWS = ("grid", "totals")


@login_required
def comparison_view(request, contest: str, problem: int):
    """A problem's comparison: the paper × criterion grid of every juror's marks (`view=grid`),
    one row of totals per paper (`view=totals`), or one criterion drilled down (`criterion=`);
    each narrowed by the same filters."""
    try:
        problem_obj = problem_for_comparison(request, contest, problem)
    except SubmitFirst:
        # The juror is in the problem's group: the page leads to their sheet.
        problem_obj = Problem.objects.select_related("contest").get(
            contest__slug=contest, number=problem
        )
        return submit_first_page(request, problem_obj)
    only = request.GET.get("only") == "discrepancies"
    paper_label = request.GET.get("paper", "").strip().upper()
    criterion_code = request.GET.get("criterion", "").strip()
    view = request.GET.get("view", "")
    if view not in COMPARISON_VIEWS:
        view = "grid"
    chair_reader = access.reads_every_paper(request.user)
    show = request.GET.get("show", "")
    # The straddle is shown to a reader of every paper only; nor does it narrow for another.
    if show not in comparison.SHOWS or (show == "straddling" and not chair_reader):
        show = ""
    everything = request.GET.get("all") == "1"
    data = comparison.problem_comparison(
        problem_obj,
        discrepancies_only=only,
        paper_label=paper_label,
        criterion_code=criterion_code,
        name_pending=access.may_see_pending_jurors(request.user),
        kept_from_reader=access.papers_kept_from(request.user, problem_obj.contest_id),
        # To the juror a seed is a paper: it stays a row of what they read after submitting.
        seeds_of=request.user if access.lists_own_seeds(request.user) else None,
        show=show,
        reader=request.user.username,
        # A screenful of rows reads only its own papers' straddles (below); the whole grid all.
        straddles=everything,
    )
    criterion = data.criteria[0] if criterion_code and len(data.criteria) == 1 else None
    codes = [c.code for c in data.all_criteria]
    here = codes.index(criterion.code) if criterion else None
    reader = _reader(problem_obj, data, criterion, request.GET.get("read", "").strip().upper())
    # The filters that every view of the comparison keeps (the criterion is a view).
    filters = [("only", "discrepancies")] * only + [("paper", paper_label)] * bool(paper_label)
    if criterion:
        here_view = [("criterion", criterion.code)]
    else:
        here_view = [("view", "totals")] * (view == "totals")
    screen = comparison_screen(
        data.rows,
        paper_count=data.paper_count,
        kept=here_view + filters,
        show=show,
        offered=offered_shows(straddle_shown=chair_reader, reader_grades=data.reader_grades),
        page=request.GET.get("page", ""),
        everything=everything,
    )
    comparison.read_straddles(data, screen.rows)
    return render_and_release(
        request,
        "grading/comparison.html",
        {
            "contest": problem_obj.contest,
            "problem": problem_obj,
            "data": data,
            "screen": screen,
            "view": "criterion" if criterion else view,
            "criterion": criterion,
            "previous_code": codes[here - 1] if criterion and here > 0 else "",
            "next_code": codes[here + 1] if criterion and here + 1 < len(codes) else "",
            "only": only,
            "paper_label": paper_label,
            "criterion_code": criterion_code,
            "show": show,
            "everything": everything,
            "chair_reader": chair_reader,
            "may_amend_scheme": access.may_amend_scheme(request.user),
            # The group's jurors and the chair may walk the open cells together in the room.
            "session_offered": problem_obj.contest.state == problem_obj.contest.State.RESOLUTION
            and (access.is_chair(request.user) or access.is_juror(request.user)),
            "filter_query": urlencode(
                filters + [("show", show)] * bool(show) + [("all", "1")] * everything
            ),
            **reader,
        },
    )


def _reader(problem_obj, data, criterion, label: str) -> dict:
    """The paper a reader opened in the one-criterion view (`read=<label>`, one of the rows
    shown): its pages in the sheet's viewer if it was answered on paper, else its answers to
    the criterion's task. Four queries, none without `read`."""
    row = next((row for row in data.rows if row.label == label), None) if criterion else None
    if row is None:
        return {}
    paper, tasks = comparison.criterion_reading(
        problem=problem_obj, paper_id=row.paper_id, criterion=criterion
    )
    return {
        "reader": {"label": label, "tasks": tasks},
        **scan_viewer_context(problem=problem_obj, paper=paper, label=label),
    }


@login_required
def results_view(request, contest: str):
    contest_obj = contest_for_chair(request, contest, organizer_too=True)
    identities = access.may_see_identities(request.user, contest_obj)
    results = comparison.contest_results(contest_obj, identities=identities)
    return render_and_release(
        request,
        "grading/results.html",
        {
            "contest": contest_obj,
            "results": results,
            "identities": identities,
            "is_chair": access.is_chair(request.user),
            "may_reopen": access.may_run_contest(request.user),
            "events": contest_obj.events.select_related("actor").order_by("created_at", "id"),
            "open": len(results.open_cells),
            "pending": len(results.pending_cells),
            "provisional": provisional_lines(contest_obj),
        },
    )


@login_required
def results_paper_view(request, contest: str, public_code: str):
    """One paper's cells: the results page loads them into the paper's row when it is opened
    (htmx); without JS its link opens them as a page of their own."""
    contest_obj = contest_for_chair(request, contest, organizer_too=True)
    paper, cells = paper_cells(contest_obj, public_code=public_code.upper())
    template = "grading/_results_paper.html" if request.htmx else "grading/results_paper.html"
    return render(request, template, {"contest": contest_obj, "paper": paper, "cells": cells})


@login_required
def reveal_view(request, contest: str):
    contest_obj = contest_for_chair(request, contest, organizer_too=True)
    if not access.may_see_identities(request.user, contest_obj):
        raise PermissionDenied("Identities are revealed to the chair once the contest is final.")
    results = comparison.contest_results(contest_obj, identities=True)
    return render(request, "grading/reveal.html", {"contest": contest_obj, "results": results})


@login_required
def export_view(request, contest: str, fmt: str):
    contest_obj = contest_for_chair(request, contest, organizer_too=True)
    if fmt not in exports.FORMATS:
        raise Http404("Exports are CSV or XLSX.")
    long = request.GET.get("table") == "long"
    identities = access.may_export_identities(request.user, contest_obj)
    results = comparison.contest_results(contest_obj, identities=identities, with_marks=long)
    content = exports.results_export(
        results,
        long=long,
        identities=identities,
        fmt=fmt,
        provisional=provisional_lines(contest_obj),
        # The long table has no automatic score: its rows are criteria, which the metric has not.
        automatic=None if long else automatic_scores(contest_obj),
    )
    name = exports.file_name(contest_obj, long=long, fmt=fmt)
    response = HttpResponse(content, content_type=exports.FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
