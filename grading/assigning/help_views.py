"""Language help's pages: a juror's question posted from their sheet, the help queue of the
organizer and the chair (`/contests/<c>/help/`) where each question gets its helper, and the
helper's own list (`/help/`) and question page, with that paper's pages for that problem and the
answer form.

Who may do what is `grading.rules.access`'s; outsiders get 404, refusals rise to
`grading.web.errors` and come back as messages on the page the form was on."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from grading.assigning import help_selectors as selectors
from grading.assigning.help import help_answer, help_ask, help_assign
from grading.assigning.help_forms import HelpAnswerForm, HelpAskForm, HelpAssignForm
from grading.assigning.help_notices import help_label
from grading.models import HelpRequest, PaperLabel
from grading.papers.page_views import scan_viewer_context
from grading.papers.seed_labels import juror_seed
from grading.papers.selectors import paper_problem_detail
from grading.rules import access
from grading.web.errors import on_refusal
from rubrics.models import Contest, Problem

User = get_user_model()


def _form_refused(form) -> ValidationError:
    return ValidationError([message for errors in form.errors.values() for message in errors])


def _sheet_row(request, contest: str, problem: int, label: str) -> str:
    return reverse("sheet", args=[contest, problem]) + f"?row={label}#help-{label}"


@login_required
@require_POST
@on_refusal(redirect=_sheet_row)
def help_ask_view(request, contest: str, problem: int, label: str):
    """A juror's question on a paper of their sheet; back to the sheet, on that paper."""
    problem_obj = get_object_or_404(
        Problem.objects.select_related("contest"), contest__slug=contest, number=problem
    )
    link = PaperLabel.objects.filter(problem=problem_obj, label=label).select_related("paper")
    link = link.first()
    seed = None
    if link is not None:
        if not access.may_mark(request.user, problem=problem_obj, paper=link.paper):
            raise Http404("No paper has this label on your sheet.")
        paper = link.paper
    else:
        # A seed's label is a row of its juror's sheet like any other: the question is about
        # its calibration paper, and the juror reads it under the seed's label only.
        seed = juror_seed(user=request.user, problem=problem_obj, label=label)
        if seed is None:
            raise Http404("No paper has this label on your sheet.")
        paper = seed.calibration_paper.paper
    form = HelpAskForm(request.POST)
    if not form.is_valid():
        raise _form_refused(form)
    help_ask(
        actor=request.user,
        problem=problem_obj,
        paper=paper,
        question=form.cleaned_data["question"],
        seed=seed,
    )
    messages.success(
        request,
        f"Your question on paper {label} is sent; the organizer or the chair finds a helper.",
    )
    return redirect(_sheet_row(request, contest, problem, label))


def _contest_for_queue(request, contest: str) -> Contest:
    contest_obj = get_object_or_404(Contest, slug=contest)
    if not access.may_assign_help(request.user):
        raise Http404("No such page.")
    return contest_obj


@login_required
@require_GET
def help_queue_view(request, contest: str):
    """The contest's unanswered questions, oldest first, each with its helper's select."""
    contest_obj = _contest_for_queue(request, contest)
    return render(
        request,
        "grading/help_queue.html",
        {"contest": contest_obj, "rows": selectors.help_queue(contest_obj)},
    )


@login_required
@require_POST
@on_refusal(redirect=lambda request, contest, question: reverse("help_queue", args=[contest]))
def help_assign_view(request, contest: str, question: int):
    _contest_for_queue(request, contest)
    help_request = get_object_or_404(
        HelpRequest.objects.select_related("problem__contest", "paper"),
        pk=question,
        problem__contest__slug=contest,
    )
    form = HelpAssignForm(request.POST)
    if not form.is_valid():
        raise _form_refused(form)
    helper = User.objects.filter(username=form.cleaned_data["helper"]).first()
    if helper is None:
        raise ValidationError(f"No one has the username “{form.cleaned_data['helper']}”.")
    help_assign(actor=request.user, request=help_request, helper=helper)
    messages.success(
        request,
        f"{helper.username} helps on {help_request.problem.code} paper {help_label(help_request)}"
        "; they are told in their inbox.",
    )
    return redirect("help_queue", contest=contest)


@login_required
@require_GET
def help_mine_view(request):
    """The questions given to the reader to answer."""
    return render(
        request, "grading/help_mine.html", {"rows": selectors.helper_requests(request.user)}
    )


def _request_page(request, help_request: HelpRequest, *, form=None, status: int = 200):
    problem, paper = help_request.problem, help_request.paper
    label = help_label(help_request)
    viewer = scan_viewer_context(problem=problem, paper=paper, label=label)
    tasks = [] if viewer["scanned"] else paper_problem_detail(problem=problem, label=label)[1]
    return render(
        request,
        "grading/help_request.html",
        {
            "help": help_request,
            "problem": problem,
            "contest": problem.contest,
            "label": label,
            "language": selectors.paper_language(paper, problem.contest),
            "form": form or HelpAnswerForm(initial={"answer": help_request.answer}),
            "writable": not problem.contest.is_final,
            "tasks": tasks,
            **viewer,
        },
        status=status,
    )


def _helped(request, question: int) -> HelpRequest:
    help_request = selectors.request_for_helper(request.user, question)
    if help_request is None:
        raise Http404("No such question.")
    return help_request


@login_required
@require_GET
def help_request_view(request, question: int):
    """One question as its helper reads it: the question, the paper's pages (or answers) for
    that problem, and the answer form."""
    return _request_page(request, _helped(request, question))


@login_required
@require_POST
@on_refusal(redirect="help_request")
def help_answer_view(request, question: int):
    help_request = _helped(request, question)
    form = HelpAnswerForm(request.POST)
    if not form.is_valid():
        raise _form_refused(form)
    help_answer(actor=request.user, request=help_request, answer=form.cleaned_data["answer"])
    messages.success(request, "Your answer is saved; the juror who asked is told.")
    return redirect("help_request", question=question)
