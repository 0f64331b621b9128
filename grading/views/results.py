"""Pages of the resolution phase: a problem's comparison, the discussion of one (paper,
criterion), the chair's queue and decisions, results, finalization, reveal and exports.

Who may do what is `grading.access`'s; refusals become answers in `grading.views.errors`. A
juror of the problem's group who has not submitted gets a 403 page saying so; outsiders a 404."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from grading import access, exports
from grading.forms import CommentForm, DecideForm, ReopenForm, ReviseForm, form_error
from grading.models import Mark, PaperLabel
from grading.selectors import comparison
from grading.selectors.collector import collector_paused
from grading.services.contest_life import (
    contest_finalize,
    contest_reopen,
    contest_resolution_open,
)
from grading.services.resolution import comment_add, discrepancy_decide, mark_revise
from grading.views.errors import refusal_messages
from grading.views.rendering import render_and_release
from rubrics.models import Contest, Criterion, Problem


class _SubmitFirst(Exception):
    pass


def _problem_for_comparison(request, contest: str, problem: int) -> Problem:
    """The problem, if the user may compare its marks. Raises Http404 for outsiders and
    _SubmitFirst for a juror of the group whose sheet is not submitted yet."""
    problem_obj = get_object_or_404(
        Problem.objects.select_related("contest"), contest__slug=contest, number=problem
    )
    allowed = access.comparison_access(request.user, problem_obj)
    if allowed == access.ComparisonAccess.NONE:
        raise Http404("No such problem.")
    if allowed == access.ComparisonAccess.SUBMIT_FIRST:
        raise _SubmitFirst
    return problem_obj


def _submit_first(request, problem_obj=None):
    return render(request, "grading/comparison_locked.html", {"problem": problem_obj}, status=403)


def _contest_for_chair(request, contest: str, *, organizer_too: bool = False) -> Contest:
    contest_obj = get_object_or_404(Contest, slug=contest)
    user = request.user
    if access.may_decide(user) or (organizer_too and access.may_read_results(user)):
        return contest_obj
    raise Http404("No such page.")


@login_required
@collector_paused
def comparison_view(request, contest: str, problem: int):
    try:
        problem_obj = _problem_for_comparison(request, contest, problem)
    except _SubmitFirst:
        return _submit_first(request)
    only = request.GET.get("only") == "discrepancies"
    paper_label = request.GET.get("paper", "").strip().upper()
    criterion_code = request.GET.get("criterion", "").strip()
    data = comparison.problem_comparison(
        problem_obj,
        discrepancies_only=only,
        paper_label=paper_label,
        criterion_code=criterion_code,
    )
    return render_and_release(
        request,
        "grading/comparison.html",
        {
            "contest": problem_obj.contest,
            "problem": problem_obj,
            "data": data,
            "only": only,
            "paper_label": paper_label,
            "criterion_code": criterion_code,
        },
    )


def _cell_for_reader(request, contest: str, problem: int, label: str, code: str):
    problem_obj = _problem_for_comparison(request, contest, problem)
    link = (
        PaperLabel.objects.select_related("paper").filter(problem=problem_obj, label=label).first()
    )
    if link is None or not problem_obj.assignments.filter(paper=link.paper).exists():
        raise Http404("No paper has this label in this problem.")
    criterion = get_object_or_404(Criterion, problem=problem_obj, code=code)
    return problem_obj, link.paper, criterion


def _discussion_url(problem_obj, label, criterion) -> str:
    return reverse(
        "discussion",
        args=[problem_obj.contest.slug, problem_obj.number, label, criterion.code],
    )


@login_required
def discussion_view(request, contest: str, problem: int, label: str, code: str):
    try:
        problem_obj, paper, criterion = _cell_for_reader(request, contest, problem, label, code)
    except _SubmitFirst:
        return _submit_first(request)
    data = comparison.cell_discussion(
        problem=problem_obj, paper=paper, label=label, criterion=criterion
    )
    own_mark = next((mark for mark in data.marks if mark.sheet.juror_id == request.user.pk), None)
    template = "grading/_discussion.html" if request.htmx else "grading/discussion.html"
    return render(
        request,
        template,
        {
            "contest": problem_obj.contest,
            "problem": problem_obj,
            "d": data,
            "own_mark": own_mark,
            "is_chair": access.is_chair(request.user),
            "may_discuss": access.may_discuss(request.user, problem_obj),
            "writable": not problem_obj.contest.is_final,
            "revisable": problem_obj.contest.state == Contest.State.RESOLUTION,
        },
    )


def _after_post(request, problem_obj, label, criterion, error: ValidationError | None):
    if error is not None:
        refusal_messages(request, error)
    if request.htmx:
        return discussion_view(
            request, problem_obj.contest.slug, problem_obj.number, label, criterion.code
        )
    return redirect(_discussion_url(problem_obj, label, criterion))


def _write_cell(form, write) -> ValidationError | None:
    """Validate the form and run one write of the discussion page with its cleaned data; the
    refusal, to show, or None."""
    try:
        if not form.is_valid():
            raise form_error(form)
        write(form.cleaned_data)
    except ValidationError as error:
        return error
    return None


@login_required
@require_POST
def discussion_comment(request, contest: str, problem: int, label: str, code: str):
    try:
        problem_obj, paper, criterion = _cell_for_reader(request, contest, problem, label, code)
    except _SubmitFirst:
        return _submit_first(request)
    if not access.may_discuss(request.user, problem_obj):
        raise PermissionDenied("Comments are the group's jurors' and the chair's.")
    error = _write_cell(
        CommentForm(request.POST),
        lambda data: comment_add(
            paper=paper, criterion=criterion, author=request.user, text=data["text"]
        ),
    )
    return _after_post(request, problem_obj, label, criterion, error)


@login_required
@require_POST
def discussion_revise(request, contest: str, problem: int, label: str, code: str):
    try:
        problem_obj, paper, criterion = _cell_for_reader(request, contest, problem, label, code)
    except _SubmitFirst:
        return _submit_first(request)
    mark = Mark.objects.filter(
        paper=paper, criterion=criterion, sheet__juror=request.user, sheet__problem=problem_obj
    ).first()
    if mark is None:
        raise PermissionDenied("You have no mark for this paper and criterion.")
    error = _write_cell(
        ReviseForm(request.POST, where=f"Paper {label}"),
        lambda data: mark_revise(
            mark=mark,
            points=data["points"],
            actor=request.user,
            expected_version=data["version"],
        ),
    )
    if error is None:
        messages.success(request, "Your revised mark is saved; the original stays in the history.")
    return _after_post(request, problem_obj, label, criterion, error)


@login_required
@require_POST
def discussion_decide(request, contest: str, problem: int, label: str, code: str):
    try:
        problem_obj, paper, criterion = _cell_for_reader(request, contest, problem, label, code)
    except _SubmitFirst:
        return _submit_first(request)
    if not access.may_decide(request.user):
        raise PermissionDenied("Only the jury chair decides discrepancies.")
    error = _write_cell(
        DecideForm(request.POST, where=f"Paper {label}"),
        lambda data: discrepancy_decide(
            paper=paper,
            criterion=criterion,
            points=data["points"],
            reason=data["reason"],
            actor=request.user,
        ),
    )
    if error is None:
        messages.success(request, f"Decision recorded for {label} {criterion.code}.")
        if request.POST.get("next") == "queue":
            queue = reverse("chair_queue", args=[problem_obj.contest.slug])
            # An htmx post would swap the queue into the discussion: have the browser go.
            if request.htmx:
                return HttpResponseClientRedirect(queue)
            return redirect(queue)
    return _after_post(request, problem_obj, label, criterion, error)


@login_required
@collector_paused
def chair_queue_view(request, contest: str):
    contest_obj = _contest_for_chair(request, contest)
    items, results = comparison.chair_queue(contest_obj)
    return render_and_release(
        request,
        "grading/chair_queue.html",
        {
            "contest": contest_obj,
            "items": items,
            "results": results,
            "straddling": [paper for paper in results.papers if paper.straddle],
            "pending": len(results.pending_cells),
        },
    )


@login_required
@collector_paused
def results_view(request, contest: str):
    contest_obj = _contest_for_chair(request, contest, organizer_too=True)
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
        },
    )


@login_required
@require_POST
def finalize_view(request, contest: str):
    contest_obj = _contest_for_chair(request, contest)
    try:
        contest_finalize(contest=contest_obj, actor=request.user)
    except ValidationError as error:
        refusal_messages(request, error)
        return redirect("results", contest=contest_obj.slug)
    messages.success(request, f"{contest_obj.name} is final. Identities are now revealed to you.")
    return redirect("reveal", contest=contest_obj.slug)


@login_required
@require_POST
def resolution_open_view(request, contest: str):
    contest_obj = _contest_for_chair(request, contest)
    try:
        contest_resolution_open(contest=contest_obj, actor=request.user)
    except ValidationError as error:
        refusal_messages(request, error)
    else:
        messages.success(
            request, "The resolution phase is open: jurors may now revise their submitted marks."
        )
    return redirect("chair_queue", contest=contest_obj.slug)


@login_required
@require_POST
def reopen_view(request, contest: str):
    """An organizer reopens a final contest, with a reason that stays on the results page."""
    contest_obj = _contest_for_chair(request, contest, organizer_too=True)
    if not access.may_run_contest(request.user):
        raise PermissionDenied("Only an organizer can reopen a final contest.")
    form = ReopenForm(request.POST)
    try:
        if not form.is_valid():
            raise form_error(form)
        contest_reopen(contest=contest_obj, actor=request.user, reason=form.cleaned_data["reason"])
    except ValidationError as error:
        refusal_messages(request, error)
    else:
        messages.success(
            request,
            f"{contest_obj.name} is open again, in the resolution phase; the reason is on record.",
        )
    return redirect("results", contest=contest_obj.slug)


@login_required
def reveal_view(request, contest: str):
    contest_obj = _contest_for_chair(request, contest, organizer_too=True)
    if not access.may_see_identities(request.user, contest_obj):
        raise PermissionDenied("Identities are revealed to the chair once the contest is final.")
    results = comparison.contest_results(contest_obj, identities=True)
    return render(request, "grading/reveal.html", {"contest": contest_obj, "results": results})


@login_required
def export_view(request, contest: str, fmt: str):
    contest_obj = _contest_for_chair(request, contest, organizer_too=True)
    if fmt not in exports.FORMATS:
        raise Http404("Exports are CSV or XLSX.")
    long = request.GET.get("table") == "long"
    # Identity columns only after finalization, even for the organizer: an export travels.
    identities = contest_obj.is_final and access.may_see_identities(request.user, contest_obj)
    results = comparison.contest_results(contest_obj, identities=identities, with_marks=long)
    content = exports.results_export(results, long=long, identities=identities, fmt=fmt)
    name = exports.file_name(contest_obj, long=long, fmt=fmt)
    response = HttpResponse(content, content_type=exports.FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
