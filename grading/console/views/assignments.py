"""The console's grading groups and assignments: each problem's group and how many jurors
grade each of its papers, a balanced assignment previewed (juror → papers per problem), then
saved in one transaction by `services.assignment.assignments_create`, the service the
`assign_jurors` command calls, which also enforces the late-assignment rule (its sentence is
shown here). Who is in a problem's group is set on the people pages."""

from collections import defaultdict

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Prefetch
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from grading.assigning.assignments import assignments_create
from grading.console.forms import AssignmentsForm, GroupsForm
from grading.console.people import person_update
from grading.console.views.guards import contest_for_organizer, organizer_required
from grading.models import Assignment, GradingGroup
from grading.rules import roles
from grading.web.errors import refusal_on_form
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


def _page(request, contest, form, *, summary=None, groups_form=None, status=200):
    problems = list(contest.problems.order_by("number"))
    numbers = [problem.number for problem in problems]
    groups = {
        group.problem_id: [juror.username for juror in group.jurors.all()]
        for group in GradingGroup.objects.filter(problem__contest=contest).prefetch_related(
            Prefetch("jurors", queryset=User.objects.filter(is_active=True).order_by("username"))
        )
    }
    # Inactive jurors too: their ticks must survive a save of the groups.
    members = set(
        GradingGroup.jurors.through.objects.filter(
            gradinggroup__problem__contest=contest
        ).values_list("user__username", "gradinggroup__problem__number")
    )
    groups_form = groups_form or _groups_form(request, contest, numbers, bound=False)
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
            "groups_form": groups_form,
            "group_rows": [
                (juror, [(number, (juror.username, number) in members) for number in numbers])
                for juror in groups_form.jurors
            ],
        },
        status=status,
    )


def _form(request, contest, *, bound: bool = True) -> AssignmentsForm:
    numbers = contest.problems.order_by("number").values_list("number", flat=True)
    data = request.POST if bound and request.method == "POST" else None
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
        # Said on the counts' form, which keeps the counts as typed.
        return _page(request, contest_obj, form, status=refusal_on_form(form, error))
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
        # Said on the counts' form, which keeps the counts as typed.
        return _page(request, contest_obj, form, status=refusal_on_form(form, error))
    messages.success(request, str(summary))
    return redirect("console:assignments", contest=contest_obj.slug)


def _groups_form(request, contest, numbers, *, bound=True) -> GroupsForm:
    """Every active juror, and anyone already in one of the contest's groups."""
    jurors = (
        (
            User.objects.filter(is_active=True, groups__name=roles.JUROR)
            | User.objects.filter(grading_groups__problem__contest=contest)
        )
        .distinct()
        .order_by("username")
    )
    data = request.POST if bound and request.method == "POST" else None
    return GroupsForm(data, jurors=jurors, numbers=numbers)


@organizer_required
@require_POST
def groups_save(request, contest: str):
    """Who grades which problem, saved for every juror through `people.person_update` (which
    keeps a juror with papers of a problem in its group), all or nothing."""
    contest_obj = contest_for_organizer(contest)
    numbers = list(contest_obj.problems.order_by("number").values_list("number", flat=True))
    groups_form = _groups_form(request, contest_obj, numbers)
    form = _form(request, contest_obj, bound=False)
    if not groups_form.is_valid():
        return _page(request, contest_obj, form, groups_form=groups_form, status=422)
    refusals: list[ValidationError] = []
    with transaction.atomic():
        for juror, chosen in groups_form.problems():
            try:
                with transaction.atomic():
                    person_update(
                        person=juror,
                        actor=request.user,
                        first_name=juror.first_name,
                        last_name=juror.last_name,
                        email=juror.email,
                        problems={contest_obj: chosen},
                    )
            except ValidationError as error:
                # Every juror's refusal is gathered, to be said on the groups' form at once.
                refusals.append(error)
        if refusals:
            # All or nothing: every refusal is shown, and no juror's groups change.
            transaction.set_rollback(True)
    if refusals:
        status = max([refusal_on_form(groups_form, error) for error in refusals])
        return _page(request, contest_obj, form, groups_form=groups_form, status=status)
    messages.success(request, f"{contest_obj.name}: grading groups saved.")
    return redirect("console:assignments", contest=contest_obj.slug)
