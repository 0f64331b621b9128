"""The discussion of one (paper, criterion) and the chair's queue of open cells: comments,
revisions by the cell's jurors, and the chair's decisions.

Who may do what is `grading.rules.access`'s; refusals become answers in `grading.web.errors`."""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from grading.marking.forms import (
    AFTER_CHOICES,
    DECISION_REASONS,
    TAKE_HIGHER,
    TAKE_JUROR,
    TAKE_LOWER,
    CommentForm,
    DecideForm,
    QueueFilterForm,
    ReviseForm,
    form_error,
)
from grading.models import CalibrationMark, Mark, Sheet
from grading.papers.page_views import scan_viewer_context
from grading.resolution import comparison, queue_walk
from grading.resolution.cell_lookup import reader_cell
from grading.resolution.decisions import (
    comment_add,
    discrepancy_decide,
    discrepancy_take,
    mark_revise,
    seed_comment_add,
    seed_mark_revise,
)
from grading.resolution.seed_rows import seed_cell_discussion
from grading.rules import access
from grading.rules.domain import points_text
from grading.rules.refusals import http_status
from grading.web.errors import refusal_messages
from grading.web.lookups import SubmitFirst, contest_for_chair, submit_first_page
from grading.web.rendering import render_and_release
from rubrics.models import Contest

PROVISIONAL = Contest.State.PROVISIONAL


def _discussion_url(problem_obj, label, criterion, queue: str = "") -> str:
    url = reverse(
        "discussion",
        args=[problem_obj.contest.slug, problem_obj.number, label, criterion.code],
    )
    return f"{url}?{queue}" if queue else url


def _queue_filters(data) -> dict:
    return QueueFilterForm(data).filters()


def _walk_token(data) -> str:
    """The walk a discussion is part of (`grading.resolution.queue_walk`), or "" for none."""
    token = data.get("walk", "")
    return token if queue_walk.TOKEN.fullmatch(token) else ""


def _queue_query(filters: dict, walk: str = "") -> str:
    """The queue's filters as a query string, the defaults left out, and the walk's token:
    carried from the queue to a discussion and on, so that next and previous walk the queue as
    the chair narrowed it, in the order it had when the walk started."""
    pairs = []
    if filters["problem"] is not None:
        pairs.append(("problem", filters["problem"]))
    if filters["status"] != "open":
        pairs.append(("status", filters["status"]))
    if filters["straddle"]:
        pairs.append(("straddle", "1"))
    if filters["label"]:
        pairs.append(("label", filters["label"]))
    if walk:
        pairs.append(("walk", walk))
    return urlencode(pairs)


def _quick_takes(data) -> list[dict]:
    """The chair's one-action decisions for the cell: each juror's mark (keys 1, 2, 3 … in the
    order the marks are listed), the lower and the higher (keys l and h)."""
    marks = [mark for mark in data.marks if mark.points is not None]
    if not marks:
        return []
    takes = [
        {
            "take": f"{TAKE_JUROR}{mark.sheet.juror.username}",
            "key": str(index) if index < 10 else "",
            "text": f"Take {mark.sheet.juror.username}'s mark",
            "points": mark.points,
        }
        for index, mark in enumerate(marks, start=1)
    ]
    if len({mark.points for mark in marks}) > 1:
        takes.append(
            {"take": TAKE_LOWER, "key": "l", "text": "Take the lower", "points": data.cell.lo}
        )
        takes.append(
            {"take": TAKE_HIGHER, "key": "h", "text": "Take the higher", "points": data.cell.hi}
        )
    return takes


def _render_discussion(
    request,
    problem_obj,
    paper,
    label: str,
    criterion,
    *,
    queue: str,
    decide_form: DecideForm | None = None,
    decide_error: ValidationError | None = None,
    comment_text: str = "",
    comment_error: ValidationError | None = None,
    seed=None,
):
    if seed is None:
        data = comparison.cell_discussion(
            problem=problem_obj, paper=paper, label=label, criterion=criterion
        )
    else:
        data = seed_cell_discussion(
            problem=problem_obj,
            seed=seed,
            criterion=criterion,
            sheet=_seed_sheet(seed, problem_obj),
        )
    own_mark = next((mark for mark in data.marks if mark.sheet.juror_id == request.user.pk), None)
    is_chair = access.is_chair(request.user)
    if decide_form is None:
        chair_decided = data.resolution is not None and data.resolution.kind == "chair"
        decide_form = DecideForm(
            initial={
                "points": points_text(data.resolution.points) if data.resolution else "",
                "reason_text": data.resolution.reason if chair_decided else "",
                "next": "cell",
            }
        )
    template = "grading/_discussion.html" if request.htmx else "grading/discussion.html"
    at = f"{problem_obj.number}:{label}:{criterion.code}"
    step = reverse("chair_queue_step", args=[problem_obj.contest.slug])
    response = render(
        request,
        template,
        {
            "contest": problem_obj.contest,
            "problem": problem_obj,
            "d": data,
            "own_mark": own_mark,
            "is_chair": is_chair,
            "reads_every_paper": access.reads_every_paper(request.user),
            "may_discuss": access.may_discuss(request.user, problem_obj),
            # A juror on a cell they grade alone (a seed's too) is told so, not given a form.
            "discusses_alone": access.discusses_alone(request.user, graders=data.graders),
            "alone_sentence": access.ALONE,
            "writable": not problem_obj.contest.is_final,
            "revisable": problem_obj.contest.state == Contest.State.RESOLUTION,
            "queue": queue,
            "queue_url": reverse("chair_queue", args=[problem_obj.contest.slug])
            + (f"?{queue}" if queue else ""),
            "previous_url": f"{step}?{urlencode({'at': at, 'dir': 'previous'})}"
            + (f"&{queue}" if queue else ""),
            "next_url": f"{step}?{urlencode({'at': at, 'dir': 'next'})}"
            + (f"&{queue}" if queue else ""),
            # No quick decision once final, nor in provisional results, where only an
            # appeal's decision moves a cell.
            "takes": _quick_takes(data)
            if is_chair and problem_obj.contest.state not in (Contest.State.FINAL, PROVISIONAL)
            else [],
            "reasons": DECISION_REASONS,
            "after_choices": AFTER_CHOICES,
            "decide_form": decide_form,
            "decide_error": decide_error.messages if decide_error else [],
            "comment_text": comment_text,
            "comment_error": comment_error.messages if comment_error else [],
            # A human paper's pages, read where an AI paper's answers are (one query).
            **scan_viewer_context(problem=problem_obj, paper=paper, label=label),
        },
    )
    # A refusal shown on a full page says so in its status; htmx swaps only a 200.
    refused = decide_error or comment_error
    if refused is not None and not request.htmx:
        response.status_code = http_status(refused)
    return response


def _seed_sheet(seed, problem_obj) -> Sheet:
    """The seed's juror's live sheet in the problem, which a seed's marks are shown on."""
    return Sheet.objects.select_related("juror").get(juror_id=seed.juror_id, problem=problem_obj)


@login_required
def discussion_view(request, contest: str, problem: int, label: str, code: str):
    try:
        problem_obj, paper, criterion, seed = reader_cell(request, contest, problem, label, code)
    except SubmitFirst:
        return submit_first_page(request)
    queue = _queue_query(_queue_filters(request.GET), _walk_token(request.GET))
    return _render_discussion(request, problem_obj, paper, label, criterion, queue=queue, seed=seed)


def _posted_queue(request) -> tuple[dict, str]:
    """The queue's filters and walk a discussion form carries back (its hidden `queue` field)."""
    data = QueryDict(request.POST.get("queue", ""))
    return _queue_filters(data), _walk_token(data)


def _after_post(
    request, problem_obj, paper, label, criterion, error: ValidationError | None, seed=None
):
    if error is not None:
        refusal_messages(request, error)
    queue = _queue_query(*_posted_queue(request))
    if request.htmx:
        return _render_discussion(
            request, problem_obj, paper, label, criterion, queue=queue, seed=seed
        )
    return redirect(_discussion_url(problem_obj, label, criterion, queue))


def _write_cell(form, write) -> ValidationError | None:
    """Validate the form and run one write of the discussion page with its cleaned data; the
    refusal, to show, or None."""
    try:
        if not form.is_valid():
            raise form_error(form)
        write(form.cleaned_data)
    except ValidationError as error:
        # Caught, not left to the middleware: the discussion shows it beside the form it
        # re-renders with what was typed (a comment, a decision), or, for htmx, in the partial
        # it swaps in.
        return error
    return None


@login_required
@require_POST
def discussion_comment(request, contest: str, problem: int, label: str, code: str):
    try:
        problem_obj, paper, criterion, seed = reader_cell(request, contest, problem, label, code)
    except SubmitFirst:
        return submit_first_page(request)
    if not access.may_discuss(request.user, problem_obj):
        raise PermissionDenied("Comments are the group's jurors' and the chair's.")

    def write(data):
        if seed is not None:
            seed_comment_add(author=request.user)
        else:
            comment_add(paper=paper, criterion=criterion, author=request.user, text=data["text"])

    error = _write_cell(CommentForm(request.POST), write)
    if error is not None:
        # What was typed stays, with the refusal beside it.
        return _render_discussion(
            request,
            problem_obj,
            paper,
            label,
            criterion,
            queue=_queue_query(*_posted_queue(request)),
            comment_text=request.POST.get("text", ""),
            comment_error=error,
            seed=seed,
        )
    return _after_post(request, problem_obj, paper, label, criterion, None, seed)


@login_required
@require_POST
def discussion_revise(request, contest: str, problem: int, label: str, code: str):
    try:
        problem_obj, paper, criterion, seed = reader_cell(request, contest, problem, label, code)
    except SubmitFirst:
        return submit_first_page(request)
    if seed is None:
        mark = Mark.objects.filter(
            paper=paper, criterion=criterion, sheet__juror=request.user, sheet__problem=problem_obj
        ).first()
    else:
        mark = (
            CalibrationMark.objects.select_related("seed", "criterion")
            .filter(seed=seed, criterion=criterion)
            .first()
        )
    if mark is None:
        raise PermissionDenied("You have no mark for this paper and criterion.")

    def revise(data):
        if seed is None:
            mark_revise(
                mark=mark,
                points=data["points"],
                actor=request.user,
                expected_version=data["version"],
            )
        else:
            # Revised as the juror's own mark on a paper they grade alone is: through the
            # seed's own mark service, never a `Mark`.
            seed_mark_revise(
                mark=mark,
                sheet=_seed_sheet(seed, problem_obj),
                points=data["points"],
                actor=request.user,
                expected_version=data["version"],
            )

    error = _write_cell(ReviseForm(request.POST, where=f"Paper {label}"), revise)
    if error is None:
        messages.success(request, "Your revised mark is saved; the original stays in the history.")
    return _after_post(request, problem_obj, paper, label, criterion, error, seed)


@login_required
@require_POST
def discussion_decide(request, contest: str, problem: int, label: str, code: str):
    try:
        # A seed's label names a cell to its juror alone, who is refused below as on a paper.
        problem_obj, paper, criterion, _ = reader_cell(request, contest, problem, label, code)
    except SubmitFirst:
        return submit_first_page(request)
    if not access.may_decide(request.user):
        raise PermissionDenied("Only the jury chair decides discrepancies.")
    form = DecideForm(request.POST, where=f"Paper {label}")
    filters, walk = _posted_queue(request)
    queue = _queue_query(filters, walk)
    after = form.cleaned_data.get("next") if form.is_valid() else ""
    at = f"{problem_obj.number}:{label}:{criterion.code}"
    if after == "cell":
        walk = _walk_begin(request, problem_obj.contest, filters, walk, at)

    def decide(data):
        if data["take"]:
            which, seen = data["take"]
            discrepancy_take(
                paper=paper,
                criterion=criterion,
                take=which,
                seen=seen,
                reason=data["reason"],
                actor=request.user,
            )
        else:
            discrepancy_decide(
                paper=paper,
                criterion=criterion,
                points=data["points"],
                reason=data["reason"],
                actor=request.user,
            )

    error = _write_cell(form, decide)
    if error is not None:
        # What was typed stays, with the refusal beside it.
        return _render_discussion(
            request,
            problem_obj,
            paper,
            label,
            criterion,
            queue=queue,
            decide_form=form,
            decide_error=error,
        )
    messages.success(request, f"Decision recorded for {label} {criterion.code}.")
    if after == "cell":
        # The walk goes on from this cell, in the order the queue had when the walk began:
        # the decision has just moved this paper's other cells in the queue as it is now.
        target = _walk_to(request, problem_obj.contest, filters, walk, at, last=True)
    elif after == "queue":
        target = reverse("chair_queue", args=[problem_obj.contest.slug])
        target += f"?{_queue_query(filters)}" if _queue_query(filters) else ""
    else:
        return _after_post(request, problem_obj, paper, label, criterion, None)
    # An htmx post would swap the next page into this one: have the browser go.
    if request.htmx:
        return HttpResponseClientRedirect(target)
    return redirect(target)


@login_required
def chair_queue_view(request, contest: str):
    contest_obj = contest_for_chair(request, contest)
    filter_form = QueueFilterForm(request.GET)
    filters = filter_form.filters()
    items, results = comparison.chair_queue(contest_obj, **filters)
    return render_and_release(
        request,
        "grading/chair_queue.html",
        {
            "contest": contest_obj,
            "items": items,
            "results": results,
            "straddling": [paper for paper in results.papers if paper.straddle],
            "pending": len(results.pending_cells),
            "filters": filters,
            "filtered": filters != _queue_filters(QueryDict()),
            "statuses": QueueFilterForm.STATUSES,
            "queue": _queue_query(filters),
        },
    )


def _walk_begin(request, contest_obj, filters: dict, walk: str, at: str) -> str:
    """The walk through cell `at`, begun now from the queue as it stands if there is none yet:
    read before a decision, so that a walk begun by deciding goes on below the cell decided,
    where the chair saw it, not from the top of the queue it has just left."""
    if queue_walk.walk_load(request.session, walk, at) is not None:
        return walk
    items, _ = comparison.chair_queue(contest_obj, **filters)
    keys = [queue_walk.cell_key(item) for item in items]
    return queue_walk.walk_save(request.session, None, queue_walk.walk_start(keys, at))


def _walk_to(request, contest_obj, filters: dict, walk: str, at: str, *, last=False, back=False):
    """Where the walk goes from cell `at` (`grading.resolution.queue_walk`): the next (or previous)
    cell's discussion, saying how many cells remain after it, or the queue at an end, saying
    so and how many cells the walk went past that are still open. `last`: the chair has just
    decided `at`."""
    items, _ = comparison.chair_queue(contest_obj, **filters)
    by_key = {queue_walk.cell_key(item): item for item in items}
    keys = list(by_key)
    order = queue_walk.walk_load(request.session, walk, at)
    if order is None:
        walk, order = "", queue_walk.walk_start(keys, at)
    walked, step = queue_walk.walk_step(order, keys, at, backwards=back)
    if not walk or walked != order:
        walk = queue_walk.walk_save(request.session, walk or None, walked)
    # One and many of what the walk counts (ngettext below).
    what = (
        ("open cell", "open cells")
        if filters["status"] == "open"
        else ("cell of the queue", "cells of the queue")
    )
    if step.target is None:
        if back:
            messages.info(request, "No cell before this one in the queue.")
        else:
            # "The last cell" only when nothing is left: cells the walk went past without
            # deciding, or above where it began, are counted instead.
            if step.passed:
                text = "No cell after this one in the queue; " + ngettext(
                    "%(n)d %(one)s above it remains.",
                    "%(n)d %(many)s above it remain.",
                    step.passed,
                ) % {"n": step.passed, "one": what[0], "many": what[1]}
            elif last:
                text = "That was the last cell of the queue."
            else:
                text = "No cell after this one in the queue."
            messages.info(request, text)
        url = reverse("chair_queue", args=[contest_obj.slug])
        return f"{url}?{_queue_query(filters)}" if _queue_query(filters) else url
    if not back:
        messages.info(
            request,
            ngettext(
                "%(n)d %(one)s remains after this one.",
                "%(n)d %(many)s remain after this one.",
                step.remaining,
            )
            % {"n": step.remaining, "one": what[0], "many": what[1]},
        )
    target = by_key[step.target]
    queue = _queue_query(filters, walk)
    return _discussion_url(target.problem, target.label, target.cell.criterion, queue)


@login_required
@require_GET
def chair_queue_step(request, contest: str):
    """The next (or previous, `dir=previous`) cell of the queue after the cell `at`
    ("<problem>:<label>:<criterion code>"), with the queue's filters and the walk (`walk`, a
    token): the discussion page's keys and links go through here, so the discussion page need
    not read the whole queue."""
    contest_obj = contest_for_chair(request, contest)
    filters = _queue_filters(request.GET)
    at = request.GET.get("at", "")
    back = request.GET.get("dir") == "previous"
    return redirect(
        _walk_to(request, contest_obj, filters, _walk_token(request.GET), at, back=back)
    )
