"""A problem's discussion session in the room (`grading.resolution.sessions`): the page every
member keeps open, following the session's current cell (live.js polls its change token every
second), with the session's controls, the cell's paper, criterion, marks, notes and history, the
reader's own revision, the group's agreed value or its sending to the chair; a projector view of
the same in large type (`?projector=1`). Refusals come back to the page with their sentence."""

from decimal import Decimal

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from grading.marking.forms import ReviseForm, form_error
from grading.models import DiscussionSession, Mark, Paper, PaperLabel
from grading.papers.page_views import scan_viewer_context
from grading.resolution import live, sessions
from grading.resolution.cell_discussion import cell_discussion
from grading.resolution.decisions import mark_revise
from grading.resolution.live_views import token_answer
from grading.rules import access
from grading.web.errors import on_refusal
from grading.web.lookups import SubmitFirst, problem_for_comparison, submit_first_page
from rubrics.validators import parse_points

# Within about two seconds of the session moving, every member's screen shows the new cell.
FOLLOW_SECONDS = 1


def _problem(request, contest: str, problem: int):
    problem_obj = problem_for_comparison(request, contest, problem)
    if not access.may_discuss(request.user, problem_obj):
        raise Http404("No such page.")
    return problem_obj


def _page_url(request, contest: str, problem: int, **_) -> str:
    return reverse("session", args=[contest, problem])


def _session(problem_obj) -> DiscussionSession:
    session = sessions.live_session(problem_obj)
    if session is None:
        raise ValidationError(f"No discussion session is running on {problem_obj.code}.")
    return session


@login_required
@require_GET
def session_page(request, contest: str, problem: int):
    try:
        problem_obj = _problem(request, contest, problem)
    except SubmitFirst:
        return submit_first_page(request)
    session = sessions.live_session(problem_obj)
    context = {
        "contest": problem_obj.contest,
        "problem": problem_obj,
        "session": session,
        "orders": DiscussionSession.Order.choices,
        "projector": request.GET.get("projector") == "1",
        "follow_seconds": FOLLOW_SECONDS,
        "past": problem_obj.sessions.filter(ended_at__isnull=False)[:5],
    }
    if session is not None:
        context |= _session_context(request, session)
    return render(request, "grading/session.html", context)


def _session_context(request, session: DiscussionSession) -> dict:
    user = request.user
    present = sessions.present(session)
    names = dict(
        session.members.filter(user_id__in=present).values_list("user_id", "user__username")
    )
    cell = sessions.current_cell(session)
    labels = dict(
        PaperLabel.objects.filter(problem=session.problem).values_list("paper_id", "label")
    )
    # The cells of papers kept from the reader (a conflict, a seed of theirs) stay out of what
    # they read of the session, outcomes included, as out of their comparison.
    kept = access.papers_kept_from(user, session.problem.contest) | access.papers_seeded_for(
        user, session.problem
    )
    outcomes = list(
        session.outcomes.select_related("criterion", "recorded_by")
        .prefetch_related("present")
        .exclude(paper_id__in=kept)
    )
    for outcome in outcomes:
        outcome.label = labels.get(outcome.paper_id, "?")
    context = {
        "member": user.pk in present,
        "present_names": sorted(names.values()),
        "position": session.position + 1,
        "cell_count": len(session.cells),
        "cell": cell,
        "outcomes": outcomes,
    }
    if cell is None:
        return context
    paper = Paper.objects.get(pk=cell.paper_id)
    if cell.paper_id in kept or not access.may_discuss_paper(
        user, problem=session.problem, paper=paper
    ):
        # Kept from this member (a conflict, or their seed shows these answers): the group
        # discusses it without them.
        return context | {"kept_from_reader": True}
    d = cell_discussion(
        problem=session.problem, paper=paper, label=cell.label, criterion=cell.criterion
    )
    own = next((mark for mark in d.marks if mark.sheet.juror_id == user.pk), None)
    agreed = sessions.agreed_value(session, cell)
    return context | {
        "d": d,
        "own_mark": own,
        "agreed": agreed,
        "takes_agreed": own is not None and agreed is not None and own.points != agreed.points,
        **scan_viewer_context(problem=session.problem, paper=paper, label=cell.label),
    }


@login_required
@require_GET
def session_stamp(request, contest: str, problem: int):
    try:
        problem_obj = _problem(request, contest, problem)
    except SubmitFirst:
        return submit_first_page(request)
    session = sessions.live_session(problem_obj)
    if session is None:
        return token_answer(request, "none")
    present = len(sessions.present(session))
    outcomes = session.outcomes.count()
    token = f"{session.pk}-{session.position}-{present}-{outcomes}"
    if session.current is not None:
        paper_id, criterion_id = session.current
        token += "-" + live.cell_change_token(
            problem=problem_obj,
            paper=Paper(pk=paper_id),
            criterion=session.problem.criteria.get(pk=criterion_id),
        )
    return token_answer(request, token)


@login_required
@require_POST
@on_refusal(redirect=_page_url)
def session_start_view(request, contest: str, problem: int):
    try:
        problem_obj = _problem(request, contest, problem)
    except SubmitFirst:
        return submit_first_page(request)
    order = request.POST.get("order", DiscussionSession.Order.PAPER)
    if order not in DiscussionSession.Order.values:
        order = DiscussionSession.Order.PAPER
    session = sessions.session_start(problem=problem_obj, actor=request.user, order=order)
    messages.success(
        request, f"The session walks {len(session.cells)} open cells; the group can join it."
    )
    return redirect("session", contest, problem)


def _act(name):
    """A POST of the session's controls: the live session of the problem, `name`'s service."""

    @login_required
    @require_POST
    @on_refusal(redirect=_page_url)
    def view(request, contest: str, problem: int):
        try:
            problem_obj = _problem(request, contest, problem)
        except SubmitFirst:
            return submit_first_page(request)
        session = _session(problem_obj)
        ACTIONS[name](request, session)
        return redirect("session", contest, problem)

    view.__name__ = f"session_{name}"
    return view


def _join(request, session):
    sessions.session_join(session=session, actor=request.user)


def _leave(request, session):
    sessions.session_leave(session=session, actor=request.user)
    messages.info(request, "You left the session; join it again whenever you like.")


def _move(request, session):
    try:
        position = int(request.POST.get("position", "")) - 1
    except ValueError:
        raise ValidationError("Say which cell to go to.") from None
    sessions.session_move(session=session, actor=request.user, position=position)


def _revise(request, session):
    cell = sessions.current_cell(session)
    if cell is None:
        raise ValidationError("The session has walked all its cells.")
    form = ReviseForm(request.POST, where=f"Paper {cell.label}")
    if not form.is_valid():
        raise form_error(form)
    mark = Mark.objects.filter(
        paper_id=cell.paper_id, criterion=cell.criterion, sheet__juror=request.user
    ).first()
    if mark is None:
        raise ValidationError("You have no mark in this cell.")
    mark_revise(
        mark=mark,
        points=form.cleaned_data["points"],
        actor=request.user,
        expected_version=form.cleaned_data["version"],
    )
    messages.success(request, "Your revised mark is saved; the original stays in the history.")


def _agree(request, session):
    cell = sessions.current_cell(session)
    where = f"Paper {cell.label}" if cell else "The agreed value"
    points = parse_points(request.POST.get("points", ""), where=where)
    if points is None:
        raise ValidationError(f"{where}: give the agreed value.")
    sessions.session_agree_value(
        session=session,
        actor=request.user,
        points=Decimal(points),
        reason=request.POST.get("reason", ""),
    )
    messages.success(request, "The agreed value is recorded: the cell's jurors take it.")


def _take(request, session):
    sessions.session_take_value(session=session, actor=request.user)
    messages.success(request, "You took the agreed value as your mark.")


def _to_chair(request, session):
    sessions.session_to_chair(
        session=session, actor=request.user, reason=request.POST.get("reason", "")
    )
    messages.success(request, "The cell is sent to the chair.")


def _end(request, session):
    sessions.session_end(session=session, actor=request.user)
    messages.success(request, "The session has ended; its record stays.")


ACTIONS = {
    "join": _join,
    "leave": _leave,
    "move": _move,
    "revise": _revise,
    "agree": _agree,
    "take": _take,
    "to_chair": _to_chair,
    "end": _end,
}
session_join_view = _act("join")
session_leave_view = _act("leave")
session_move_view = _act("move")
session_revise_view = _act("revise")
session_agree_view = _act("agree")
session_take_view = _act("take")
session_to_chair_view = _act("to_chair")
session_end_view = _act("end")
