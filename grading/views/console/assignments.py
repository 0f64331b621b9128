"""The console's grading groups and assignments: each problem's group and how many jurors
grade each of its papers, a balanced assignment previewed (juror → papers per problem), then
saved in one transaction by `services.assignment.assignments_create`, the service the
`assign_jurors` command calls, which also enforces the late-assignment rule (its sentence is
shown here). Who is in a problem's group is set on the people pages."""

from collections import defaultdict

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import Count, Prefetch
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from grading.console_forms import AssignmentsForm
from grading.models import Assignment, GradingGroup
from grading.refusals import http_status
from grading.services.assignment import assignments_create
from grading.views.console.doors import contest_for_organizer, organizer_required
from rubrics.models import Contest

User = get_user_model()


def _current_loads(contest: Contest) -> dict[str, dict[int, int]]:
    """Username → problem number → papers assigned now."""
    loads: dict[str, dict[int, int]] = defaultdict(dict)
    for username, number, n in (
        Assignment.objects.filter(problem__contest=contest)
        .values("juror__username", "problem__number")
        .annotate(n=Count("id"))
        .order_by()
        .values_list("juror__username", "problem__number", "n")
    ):
        loads[username][number] = n
    return loads


def _table(loads: dict[str, dict[int, int]], numbers: list[int]) -> list[tuple[str, list, int]]:
    """Rows of (username, papers per problem in order, total) for the juror → papers table."""
    return [
        (
            username,
            [loads[username].get(number, 0) for number in numbers],
            sum(loads[username].values()),
        )
        for username in sorted(loads)
    ]


def _page(request, contest, form, *, summary=None, status=200):
    problems = list(contest.problems.order_by("number"))
    numbers = [problem.number for problem in problems]
    groups = {
        group.problem_id: [juror.username for juror in group.jurors.all()]
        for group in GradingGroup.objects.filter(problem__contest=contest).prefetch_related(
            Prefetch("jurors", queryset=User.objects.filter(is_active=True).order_by("username"))
        )
    }
    preview = None
    if summary is not None:
        loads: dict[str, dict[int, int]] = defaultdict(dict)
        for problem in summary.problems:
            for username, count in problem.loads.items():
                loads[username][problem.number] = count
        preview = {"summary": summary, "rows": _table(loads, numbers)}
    return render(
        request,
        "console/assignments.html",
        {
            "contest": contest,
            "is_organizer": True,
            "problems": [
                (problem, groups.get(problem.pk), form[f"p{problem.number}"])
                for problem in problems
            ],
            "numbers": numbers,
            "current": _table(_current_loads(contest), numbers),
            "form": form,
            "preview": preview,
        },
        status=status,
    )


def _form(request, contest) -> AssignmentsForm:
    numbers = contest.problems.order_by("number").values_list("number", flat=True)
    data = request.POST if request.method == "POST" else None
    # Each problem's count starts at the most jurors a paper of it has now (2 before any).
    initial: dict[str, int] = {}
    for number, n in (
        Assignment.objects.filter(problem__contest=contest)
        .values("problem__number", "paper_id")
        .annotate(n=Count("id"))
        .order_by()
        .values_list("problem__number", "n")
    ):
        initial[f"p{number}"] = max(initial.get(f"p{number}", 0), n)
    return AssignmentsForm(data, numbers=list(numbers), initial=initial)


@organizer_required
def assignments_page(request, contest: str):
    """GET: the groups, today's loads and the counts. POST: the preview (nothing written)."""
    contest_obj = contest_for_organizer(contest)
    form = _form(request, contest_obj)
    if request.method != "POST":
        return _page(request, contest_obj, form)
    if not form.is_valid():
        return _page(request, contest_obj, form, status=422)
    try:
        summary = assignments_create(contest=contest_obj, overrides=form.counts(), dry_run=True)
    except ValidationError as error:
        for message in error.messages:
            form.add_error(None, message)
        return _page(request, contest_obj, form, status=http_status(error))
    return _page(request, contest_obj, form, summary=summary)


@organizer_required
@require_POST
def assignments_confirm(request, contest: str):
    """The previewed assignment, made in one transaction by the service (which checks again)."""
    contest_obj = contest_for_organizer(contest)
    form = _form(request, contest_obj)
    if not form.is_valid():
        return _page(request, contest_obj, form, status=422)
    try:
        summary = assignments_create(contest=contest_obj, overrides=form.counts())
    except ValidationError as error:
        for message in error.messages:
            form.add_error(None, message)
        return _page(request, contest_obj, form, status=http_status(error))
    messages.success(request, str(summary))
    return redirect("console:assignments", contest=contest_obj.slug)
