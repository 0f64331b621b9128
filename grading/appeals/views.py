"""The appeals' pages: the leader's filing page (one paper and problem), list of their appeals
with withdrawal, and each appeal's own page (its decision and the thread with the jury, where
the leader answers the jury's questions); the appeals queue per problem for its jurors and the
chair, and the appeal page with its comments, questions to the leader and, for who may decide
it, the decision form.

Who may do what is `grading.rules.access`'s: outsiders get 404 (a leader on another
delegation's paper, a juror on an appeal of their own delegation); refusals rise to
`grading.web.errors`. A refused form is shown again with what was typed."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from grading.appeals import meeting_record, selectors
from grading.appeals.appeals import (
    agreed_points,
    appeal_answer,
    appeal_ask,
    appeal_comment,
    appeal_decide,
    appeal_file,
    appeal_withdraw,
)
from grading.appeals.evening import meetings_due
from grading.appeals.forms import AppealCommentForm, AppealDecideForm, AppealFileForm
from grading.appeals.meetings import (
    appeal_acknowledge,
    meeting_change_token,
    meeting_role,
    meeting_view,
)
from grading.models import Appeal, AppealMeeting, Delegation
from grading.papers.page_views import scan_viewer_context
from grading.resolution.live_views import token_answer
from grading.rules import access, appeal_access
from grading.web.errors import on_refusal, refusal_on_form
from rubrics.models import Contest, Problem

# A meeting's page follows the table's decisions within about two seconds (live.js): only its
# few readers poll it, for the length of a meeting.
MEETING_POLL_SECONDS = 2


def _contest(slug: str) -> Contest:
    return get_object_or_404(Contest, slug=slug)


@login_required
def appeal_file_view(request, contest: str, code: str, problem: int):
    """GET: the problem's criteria with the agreed points now, checkboxes and the argument.
    POST: the appeal, filed through `appeal_file`. 404 for anyone who may not appeal the
    paper (`appeal_access.may_appeal`)."""
    paper = selectors.paper_for_leader(request.user, contest, code)
    if paper is None:
        raise Http404("No such contestant.")
    problem_obj = get_object_or_404(Problem, contest=paper.contest, number=problem)
    criteria = list(problem_obj.criteria.order_by("order", "code"))
    codes = [c.code for c in criteria]
    form = AppealFileForm(request.POST if request.method == "POST" else None, codes=codes)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            chosen = [c for c in criteria if c.code in form.cleaned_data["criteria"]]
            try:
                appeal_file(
                    paper=paper,
                    problem=problem_obj,
                    criteria=chosen,
                    argument=form.cleaned_data["argument"],
                    actor=request.user,
                )
            except ValidationError as error:
                # Shown in the form it refused, which keeps the argument as typed.
                status = refusal_on_form(form, error)
            else:
                messages.success(
                    request, f"Your appeal on {problem_obj.code} is filed; the jury reviews it."
                )
                return redirect("appeals_mine", contest=paper.contest.slug)
        else:
            status = 422
    agreed = agreed_points(paper, problem_obj)
    return render(
        request,
        "grading/appeal_file.html",
        {
            "contest": paper.contest,
            "paper": paper,
            "problem": problem_obj,
            "rows": [
                selectors.AppealableCriterion(criterion=c, agreed=agreed[c.pk]) for c in criteria
            ],
            "form": form,
            "chosen": set(form["criteria"].value() or []),
            "live": selectors.live_appeal(paper, problem_obj),
        },
        status=status,
    )


@login_required
@require_GET
def appeals_mine(request, contest: str):
    """The leader's appeals in the contest, with state, decision and a withdraw button."""
    contest_obj = _contest(contest)
    if not appeal_access.is_leader(request.user):
        raise Http404("No such page.")
    return render(
        request,
        "grading/appeals_mine.html",
        {"contest": contest_obj, "appeals": selectors.leader_appeals(request.user, contest_obj)},
    )


def _leader_page(request, leader_appeal, *, answer_form=None, status=200):
    appeal = leader_appeal.appeal
    return render(
        request,
        "grading/appeal_mine.html",
        {
            "contest": appeal.paper.contest,
            "problem": appeal.problem,
            "la": leader_appeal,
            "answer_form": answer_form or AppealCommentForm(),
            "answerable": appeal_access.may_appeal(request.user, appeal.paper)
            and appeal.state == Appeal.State.OPEN
            and leader_appeal.asked,
        },
        status=status,
    )


def _led(request, contest: str, pk: int):
    leader_appeal = selectors.appeal_for_leader(request.user, contest, pk)
    if leader_appeal is None:
        raise Http404("No such appeal.")
    return leader_appeal


@login_required
@require_GET
def appeal_mine_view(request, contest: str, pk: int):
    """The leader's own appeal: its state, criteria, decision and reason, and the thread with
    the jury, with the answer form while a question waits on an open appeal."""
    return _leader_page(request, _led(request, contest, pk))


@login_required
@require_POST
@on_refusal(redirect="appeal_mine")
def appeal_answer_view(request, contest: str, pk: int):
    leader_appeal = _led(request, contest, pk)
    form = AppealCommentForm(request.POST)
    if not form.is_valid():
        return _leader_page(request, leader_appeal, answer_form=form, status=422)
    appeal_answer(appeal=leader_appeal.appeal, text=form.cleaned_data["text"], actor=request.user)
    messages.success(request, "Your answer is sent to the jury.")
    return redirect("appeal_mine", contest=contest, pk=pk)


@login_required
@require_POST
@on_refusal(redirect=lambda request, contest, pk: reverse("appeals_mine", args=[contest]))
def appeal_withdraw_view(request, contest: str, pk: int):
    appeal = get_object_or_404(
        Appeal.objects.select_related("paper__contest"), pk=pk, paper__contest__slug=contest
    )
    if not appeal_access.leads_paper_delegation(request.user, appeal.paper):
        raise Http404("No such appeal.")
    appeal_withdraw(appeal=appeal, actor=request.user)
    messages.success(request, f"Your appeal on {appeal.problem.code} is withdrawn.")
    return redirect("appeals_mine", contest=contest)


@login_required
@require_GET
def appeal_queue_view(request, contest: str):
    """The appeals the reader handles, per problem (`?problem=N` for one), oldest first."""
    contest_obj = _contest(contest)
    if not (access.is_chair(request.user) or access.is_juror(request.user)):
        raise Http404("No such page.")
    number = request.GET.get("problem", "")
    return render(
        request,
        "grading/appeal_queue.html",
        {
            "contest": contest_obj,
            "queues": selectors.appeal_queue(
                request.user,
                contest_obj,
                problem_number=int(number) if number.isdigit() else None,
            ),
        },
    )


def _appeal_page(
    request,
    appeal: Appeal,
    *,
    decide_form=None,
    comment_form=None,
    question_form=None,
    status=200,
):
    view = selectors.appeal_view(appeal)
    problem, paper = appeal.problem, appeal.paper
    may_decide = appeal_access.may_decide_appeal(request.user, problem=problem, paper=paper)
    codes = [row.criterion.code for row in view.criteria]
    if decide_form is None:
        decide_form = AppealDecideForm(codes=codes)
    return render(
        request,
        "grading/appeal.html",
        {
            "contest": paper.contest,
            "problem": problem,
            "v": view,
            "may_decide": may_decide,
            "decide_form": decide_form,
            "decide_rows": [
                (row, decide_form[f"points_{row.criterion.code}"].value()) for row in view.criteria
            ],
            "comment_form": comment_form or AppealCommentForm(),
            "question_form": question_form or AppealCommentForm(),
            "writable": paper.contest.state == Contest.State.PROVISIONAL
            and appeal.state == Appeal.State.OPEN,
            **scan_viewer_context(problem=problem, paper=paper, label=view.label),
        },
        status=status,
    )


def _handled(request, contest: str, pk: int) -> Appeal:
    appeal = selectors.appeal_for_handler(request.user, contest, pk)
    if appeal is None:
        raise Http404("No such appeal.")
    return appeal


@login_required
@require_GET
def appeal_view(request, contest: str, pk: int):
    return _appeal_page(request, _handled(request, contest, pk))


@login_required
@require_POST
@on_refusal(redirect="appeal")
def appeal_comment_view(request, contest: str, pk: int):
    appeal = _handled(request, contest, pk)
    form = AppealCommentForm(request.POST)
    if not form.is_valid():
        return _appeal_page(request, appeal, comment_form=form, status=422)
    appeal_comment(appeal=appeal, text=form.cleaned_data["text"], actor=request.user)
    messages.success(request, "Your comment is posted.")
    return redirect("appeal", contest=contest, pk=pk)


@login_required
@require_POST
@on_refusal(redirect="appeal")
def appeal_ask_view(request, contest: str, pk: int):
    appeal = _handled(request, contest, pk)
    form = AppealCommentForm(request.POST)
    if not form.is_valid():
        return _appeal_page(request, appeal, question_form=form, status=422)
    appeal_ask(appeal=appeal, text=form.cleaned_data["text"], actor=request.user)
    messages.success(request, "Your question is sent to the team leader, from the jury.")
    return redirect("appeal", contest=contest, pk=pk)


@login_required
@require_POST
def appeal_decide_view(request, contest: str, pk: int):
    appeal = _handled(request, contest, pk)
    codes = list(appeal.criteria.values_list("criterion__code", flat=True))
    form = AppealDecideForm(request.POST, codes=codes)
    if not form.is_valid():
        return _appeal_page(request, appeal, decide_form=form, status=422)
    try:
        appeal_decide(
            appeal=appeal,
            points=form.points(),
            reason=form.cleaned_data["reason"],
            outcome=form.cleaned_data["outcome"],
            actor=request.user,
        )
    except ValidationError as error:
        # Shown in the decision form it refused, with the points and reason as typed.
        status = refusal_on_form(form, error)
        return _appeal_page(request, appeal, decide_form=form, status=status)
    messages.success(request, "The appeal is decided; the leader is told.")
    return redirect("appeal", contest=contest, pk=pk)


@login_required
@require_GET
def evening_mine_view(request, contest: str):
    """The published appeals evening's meetings the reader is due at: a leader's meetings
    with their contestants, a juror's tables with the papers by their labels (never the
    delegation nor a leader's name); a person with both roles sees both."""
    contest_obj = _contest(contest)
    return render(
        request,
        "grading/appeals_evening_mine.html",
        {"contest": contest_obj, "meetings": meetings_due(request.user, contest_obj)},
    )


def _meeting(request, contest: str, pk: int) -> AppealMeeting:
    return get_object_or_404(
        AppealMeeting.objects.select_related("evening__contest", "problem", "delegation"),
        pk=pk,
        evening__contest__slug=contest,
        evening__published_at__isnull=False,
    )


@login_required
@require_GET
def appeal_meeting_view(request, contest: str, pk: int):
    """A meeting of the published appeals evening, as the reader sits at it
    (`meetings.meeting_view`): 404 for anyone it does not concern."""
    view = meeting_view(request.user, _meeting(request, contest, pk))
    if view is None:
        raise Http404("No such meeting.")
    return render(
        request,
        "grading/appeal_meeting.html",
        {"contest": view.meeting.evening.contest, "v": view, "live_interval": MEETING_POLL_SECONDS},
    )


@login_required
@require_GET
def appeal_meeting_stamp(request, contest: str, pk: int):
    meeting = _meeting(request, contest, pk)
    if meeting_role(request.user, meeting) is None:
        raise Http404("No such meeting.")
    return token_answer(request, meeting_change_token(meeting))


def _after_acknowledging(request, contest: str, pk: int) -> str:
    """Back to the table: the meeting the appeal is heard at, else the leader's appeal."""
    meeting = (
        AppealMeeting.objects.filter(
            evening__contest__slug=contest,
            evening__published_at__isnull=False,
            delegation__papers__appeals=pk,
            problem__appeals=pk,
        )
        .values_list("pk", flat=True)
        .first()
    )
    if meeting is None:
        return reverse("appeal_mine", args=[contest, pk])
    return reverse("appeal_meeting", args=[contest, meeting])


@login_required
@require_POST
@on_refusal(redirect=_after_acknowledging)
def appeal_acknowledge_view(request, contest: str, pk: int):
    leader_appeal = _led(request, contest, pk)
    appeal_acknowledge(appeal=leader_appeal.appeal, actor=request.user)
    messages.success(request, "You acknowledged the jury's decision.")
    return redirect(_after_acknowledging(request, contest, pk))


@login_required
@require_GET
def evening_record_pdf(request, contest: str, code: str):
    """The record of a delegation's meetings (who, when, criteria before and after, the reason,
    the acknowledgement) as one PDF: for the organizer and the chair, and for the delegation's
    own leaders; 404 for anyone else."""
    contest_obj = _contest(contest)
    delegation = get_object_or_404(Delegation, contest=contest_obj, code=code)
    if not meeting_record.may_read_record(request.user, delegation):
        raise Http404("No such record.")
    response = HttpResponse(meeting_record.record_pdf(delegation), content_type="application/pdf")
    response["Content-Disposition"] = (
        f'inline; filename="{contest_obj.slug}-{delegation.code}-appeals-record.pdf"'
    )
    return response
