"""Pages of the resolution phase: a problem's comparison, the discussion of one (paper,
criterion), the chair's queue and decisions, results, finalization, reveal and exports.

Access: the comparison and discussions are open to a juror of the problem's group once their own
sheet is submitted (before that, a 403 page says so; a juror of another group gets 404), and to
the chair and the organizer. Queue, decisions and finalization are the chair's; results and
exports the chair's and the organizer's. Identities only where access.may_see_identities."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from grading import access, exports
from grading.models import Mark, PaperLabel, Sheet
from grading.selectors import comparison
from grading.services.contest_life import contest_finalize, contest_resolution_open
from grading.services.resolution import comment_add, discrepancy_decide, mark_revise
from rubrics.models import Contest, Criterion, Problem
from rubrics.validators import parse_points


class _SubmitFirst(Exception):
    pass


def _problem_for_comparison(request, contest: str, problem: int) -> Problem:
    """The problem, if the user may compare its marks. Raises Http404 for outsiders and
    _SubmitFirst for a juror of the group whose sheet is not submitted yet."""
    problem_obj = get_object_or_404(
        Problem.objects.select_related("contest"), contest__slug=contest, number=problem
    )
    user = request.user
    if access.is_chair(user) or access.is_organizer(user):
        return problem_obj
    in_group = problem_obj.assignments.filter(juror=user).exists() or (
        hasattr(problem_obj, "group") and problem_obj.group.jurors.filter(pk=user.pk).exists()
    )
    if not (access.is_juror(user) and in_group):
        raise Http404("No such problem.")
    if not Sheet.objects.submitted().filter(juror=user, problem=problem_obj).exists():
        raise _SubmitFirst
    return problem_obj


def _submit_first(request, problem_obj=None):
    return render(request, "grading/comparison_locked.html", {"problem": problem_obj}, status=403)


def _contest_for_chair(request, contest: str, *, organizer_too: bool = False) -> Contest:
    contest_obj = get_object_or_404(Contest, slug=contest)
    user = request.user
    if access.is_chair(user) or (organizer_too and access.is_organizer(user)):
        return contest_obj
    raise Http404("No such page.")


@login_required
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
    return render(
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


def _may_discuss(user, problem_obj: Problem) -> bool:
    """The group's jurors and the chair take part in a discussion; the organizer only reads."""
    return access.is_chair(user) or problem_obj.assignments.filter(juror=user).exists()


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
    template = (
        "grading/_discussion.html" if getattr(request, "htmx", False) else "grading/discussion.html"
    )
    return render(
        request,
        template,
        {
            "contest": problem_obj.contest,
            "problem": problem_obj,
            "d": data,
            "own_mark": own_mark,
            "is_chair": access.is_chair(request.user),
            "may_discuss": _may_discuss(request.user, problem_obj),
            "writable": not problem_obj.contest.is_final,
            "revisable": problem_obj.contest.state == Contest.State.RESOLUTION,
        },
    )


def _after_post(request, problem_obj, label, criterion, error: ValidationError | None):
    if error is not None:
        for message in error.messages:
            messages.error(request, message)
    if getattr(request, "htmx", False):
        return discussion_view(
            request, problem_obj.contest.slug, problem_obj.number, label, criterion.code
        )
    return redirect(_discussion_url(problem_obj, label, criterion))


def _write_cell(write) -> ValidationError | None:
    """Run one write of the discussion page; its refusal, to show, or None."""
    try:
        write()
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
    if not _may_discuss(request.user, problem_obj):
        raise PermissionDenied("Comments are the group's jurors' and the chair's.")
    error = _write_cell(
        lambda: comment_add(
            paper=paper, criterion=criterion, author=request.user, text=request.POST.get("text")
        )
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
    version = request.POST.get("version")
    error = _write_cell(
        lambda: mark_revise(
            mark=mark,
            points=parse_points(request.POST.get("points"), where=f"Paper {label}"),
            actor=request.user,
            expected_version=int(version) if version and version.isdigit() else None,
        )
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
    if not access.is_chair(request.user):
        raise PermissionDenied("Only the jury chair decides discrepancies.")
    error = _write_cell(
        lambda: discrepancy_decide(
            paper=paper,
            criterion=criterion,
            points=parse_points(request.POST.get("points"), where=f"Paper {label}"),
            reason=request.POST.get("reason", ""),
            actor=request.user,
        )
    )
    if error is None:
        messages.success(request, f"Decision recorded for {label} {criterion.code}.")
        if request.POST.get("next") == "queue":
            return redirect("chair_queue", contest=problem_obj.contest.slug)
    return _after_post(request, problem_obj, label, criterion, error)


@login_required
def chair_queue_view(request, contest: str):
    contest_obj = _contest_for_chair(request, contest)
    items, results = comparison.chair_queue(contest_obj)
    return render(
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
def results_view(request, contest: str):
    contest_obj = _contest_for_chair(request, contest, organizer_too=True)
    identities = access.may_see_identities(request.user, contest_obj)
    results = comparison.contest_results(contest_obj, identities=identities)
    return render(
        request,
        "grading/results.html",
        {
            "contest": contest_obj,
            "results": results,
            "identities": identities,
            "is_chair": access.is_chair(request.user),
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
        for message in error.messages:
            messages.error(request, message)
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
        for message in error.messages:
            messages.error(request, message)
    else:
        messages.success(
            request, "The resolution phase is open: jurors may now revise their submitted marks."
        )
    return redirect("chair_queue", contest=contest_obj.slug)


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
