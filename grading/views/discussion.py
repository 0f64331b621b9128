"""The discussion of one (paper, criterion) and the chair's queue of open cells: comments,
revisions by the cell's jurors, and the chair's decisions.

Who may do what is `grading.access`'s; refusals become answers in `grading.views.errors`."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from grading import access
from grading.forms import CommentForm, DecideForm, ReviseForm, form_error
from grading.models import Mark, PaperLabel
from grading.selectors import comparison
from grading.selectors.collector import collector_paused
from grading.services.resolution import comment_add, discrepancy_decide, mark_revise
from grading.views.errors import refusal_messages
from grading.views.lookups import (
    SubmitFirst,
    contest_for_chair,
    problem_for_comparison,
    submit_first_page,
)
from grading.views.rendering import render_and_release
from rubrics.models import Contest, Criterion


def _cell_for_reader(request, contest: str, problem: int, label: str, code: str):
    problem_obj = problem_for_comparison(request, contest, problem)
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
    except SubmitFirst:
        return submit_first_page(request)
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
    except SubmitFirst:
        return submit_first_page(request)
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
    except SubmitFirst:
        return submit_first_page(request)
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
    except SubmitFirst:
        return submit_first_page(request)
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
    contest_obj = contest_for_chair(request, contest)
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
