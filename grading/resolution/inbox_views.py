"""Each person's inbox: their notifications, newest first, and for a juror in the resolution
phase the cells of theirs still open; marking read; and the chair's request that a juror revise
a mark, posted from a cell's discussion."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from grading.marking.forms import InboxFilterForm, InboxReadForm, RevisionRequestForm, form_error
from grading.resolution.cell_lookup import reader_cell
from grading.resolution.inbox import notifications_read
from grading.resolution.inbox_selectors import inbox_groups, open_cells_of
from grading.resolution.revision_requests import revision_request
from grading.rules import access
from grading.web.errors import on_refusal
from grading.web.lookups import SubmitFirst, submit_first_page


@login_required
@require_GET
def inbox_page(request):
    """The reader's notices grouped by problem and kind (a flood of decisions is one line),
    narrowed to one kind by the query string; and their cells still open."""
    filters = InboxFilterForm(request.GET)
    kind = filters.kind_chosen()
    groups = inbox_groups(request.user, kind=kind)
    return render(
        request,
        "grading/inbox.html",
        {
            "groups": groups,
            "filters": filters,
            "kind": kind,
            "unread": sum(group.unread for group in groups),
            # A juror's own marks, still open in the resolution phase: a team leader, the chair
            # or an organizer has none, and no box saying so.
            "marks_cells": access.is_juror(request.user),
            "open_cells": open_cells_of(request.user) if access.is_juror(request.user) else [],
        },
    )


def _inbox_url(request) -> str:
    """The inbox, narrowed to the kind it was narrowed to when the form was posted."""
    kind = InboxFilterForm(request.GET).kind_chosen()
    return reverse("inbox") + (f"?kind={kind}" if kind else "")


@login_required
@require_POST
@on_refusal(redirect=_inbox_url)
def inbox_read(request):
    """Mark read the reader's notices of one group (the form names it), or all of them."""
    form = InboxReadForm(request.POST)
    if not form.is_valid():
        raise form_error(form)
    group = form.cleaned_data
    marked = notifications_read(
        user=request.user,
        contest_id=group["contest"],
        problem_id=group["problem"],
        kind=group["kind"],
    )
    if marked:
        messages.success(
            request,
            ngettext("%d notification marked as read.", "%d notifications marked as read.", marked)
            % marked,
        )
    return redirect(_inbox_url(request))


@login_required
@require_POST
@on_refusal(redirect="discussion")
def revision_request_view(request, contest: str, problem: int, label: str, code: str):
    try:
        # A seed's label names a cell to its juror alone, who is refused below as on a paper.
        problem_obj, paper, criterion, _ = reader_cell(request, contest, problem, label, code)
    except SubmitFirst:
        return submit_first_page(request)
    if not access.may_decide(request.user):
        raise PermissionDenied("Only the jury chair can ask for a revision.")
    form = RevisionRequestForm(request.POST)
    if not form.is_valid():
        raise form_error(form)
    juror = (
        get_user_model()
        .objects.filter(
            username=form.cleaned_data["juror"],
            assignments__paper=paper,
            assignments__problem=problem_obj,
        )
        .first()
    )
    if juror is None:
        raise ValidationError("Choose one of this cell's jurors.")
    revision_request(
        paper=paper,
        criterion=criterion,
        juror=juror,
        actor=request.user,
        text=form.cleaned_data["text"],
    )
    messages.success(request, f"{juror.username} is asked to revise their mark.")
    return redirect(
        reverse("discussion", args=[problem_obj.contest.slug, problem_obj.number, label, code])
    )
