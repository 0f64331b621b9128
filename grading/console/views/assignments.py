"""The console's grading groups and assignments: each problem's group, how many jurors grade
each of its papers and the load slack; the assignment under the jury's constraints previewed
by a background job (`grading.assigning.preview_job`: the page follows its progress by problem,
then shows each problem's sentences, each juror's load and languages, each paper's jurors with
the flagged ones first), then saved by a second job (`grading.assigning.confirm_job`: the page
follows its progress by problem saved, then says what was saved) in one transaction by
`assignments_create(plan=…)`, the service the `assign_jurors` command calls, which checks the
plan again and enforces the late-assignment rule (its sentence is shown here). Who is in a
problem's group is set on the people pages."""

from collections import defaultdict

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Prefetch
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from grading.assigning import confirm_job as confirmations
from grading.assigning import preview_job as previews
from grading.assigning.in_conflict import conflicted_assignments
from grading.assigning.preview import preview_problems
from grading.console.forms import AssignmentsForm, GroupsForm
from grading.console.people import person_update
from grading.console.views.guards import contest_for_organizer, organizer_required
from grading.jobs import running as jobs
from grading.jobs.worker_liveness import alive_worker_ids
from grading.models import Assignment, GradingGroup, Job
from grading.rules import roles
from grading.rules.capacity import over_capacity
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


def _preview(contest, summary, numbers) -> dict:
    """What the page shows of a plan: the loads table and each problem's preview."""
    loads: dict[str, dict[int, int]] = defaultdict(dict)
    for problem in summary.problems:
        for username, count in problem.loads.items():
            loads[username][problem.number] = count
    return {
        "summary": summary,
        "rows": _table(loads, numbers),
        "problems": preview_problems(contest, summary),
    }


def _job_context(contest, job: Job | None, numbers) -> dict:
    """The preview job's progress and, once done, its plan."""
    if job is None:
        return {"job_status": None, "preview": None}
    status = jobs.job_status(job, alive=alive_worker_ids())
    summary = previews.preview_summary(job)
    return {
        "job_status": status,
        "preview": _preview(contest, summary, numbers) if summary is not None else None,
    }


def _confirm_context(confirm: Job | None) -> dict:
    """The confirmation job's progress, then what it saved or why it refused."""
    if confirm is None:
        return {}
    return {"confirm_status": jobs.job_status(confirm, alive=alive_worker_ids())}


def _page(
    request, contest, form, *, job=None, summary=None, groups_form=None, confirm=None, status=200
):
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
    following = _job_context(contest, job, numbers)
    if summary is not None:
        following["preview"] = _preview(contest, summary, numbers)
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
            "in_conflict": sum(len(pairs) for pairs in conflicted_assignments(contest).values()),
            "over_capacity": over_capacity(contest=contest),
            "form": form,
            **following,
            **_confirm_context(confirm),
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


def _job_form(contest, job: Job) -> AssignmentsForm:
    """The counts and slack a preview job was asked with, as the form they were typed in."""
    numbers = list(contest.problems.order_by("number").values_list("number", flat=True))
    data = {f"p{number}": count for number, count in previews.params_counts(job).items()}
    data["load_slack"] = previews.params_slack(job)
    form = AssignmentsForm(data, numbers=numbers)
    form.is_valid()
    return form


def _followed_job(request, contest) -> Job | None:
    """The preview job named by `?job=`, the contest's own; a 404 for any other number."""
    pk = request.GET.get("job", "")
    if not pk:
        return None
    job = previews.preview_job(contest, int(pk)) if pk.isdigit() else None
    if job is None:
        raise Http404("No such preview.")
    return job


def _followed_confirm(request, contest) -> Job | None:
    """The confirmation job named by `?confirm=`, the contest's own; a 404 for any other."""
    pk = request.GET.get("confirm", "")
    if not pk:
        return None
    confirm = confirmations.confirm_job(contest, int(pk)) if pk.isdigit() else None
    if confirm is None:
        raise Http404("No such confirmation.")
    return confirm


@organizer_required
def assignments_page(request, contest: str):
    """GET: the groups, today's loads, the counts and slack, and the preview job named by
    `?job=` (its progress, then its plan) or the confirmation job named by `?confirm=` (its
    progress, then what it saved or why not). POST: the preview job started (nothing
    written)."""
    contest_obj = contest_for_organizer(contest)
    if request.method != "POST":
        confirm = _followed_confirm(request, contest_obj)
        if confirm is not None:
            form = _job_form(contest_obj, confirm)
            return _page(request, contest_obj, form, confirm=confirm)
        job = _followed_job(request, contest_obj)
        form = _job_form(contest_obj, job) if job else _form(request, contest_obj)
        return _page(request, contest_obj, form, job=job)
    form = _form(request, contest_obj)
    if not form.is_valid():
        return _page(request, contest_obj, form, status=422)
    job = previews.assignment_preview_start(
        contest=contest_obj,
        user=request.user,
        counts=form.counts(),
        load_slack=form.load_slack(),
    )
    url = reverse("console:assignments", args=[contest_obj.slug])
    return redirect(f"{url}?job={job.pk}#preview")


@organizer_required
@require_GET
def assignments_preview(request, contest: str, pk: int):
    """The preview job's section, which the page swaps in every two seconds while it runs."""
    contest_obj = contest_for_organizer(contest)
    job = previews.preview_job(contest_obj, pk)
    if job is None:
        raise Http404("No such preview.")
    numbers = list(contest_obj.problems.order_by("number").values_list("number", flat=True))
    response = render(
        request,
        "console/_assignment_preview.html",
        {
            "contest": contest_obj,
            "numbers": numbers,
            "form": _job_form(contest_obj, job),
            **_job_context(contest_obj, job, numbers),
        },
    )
    response["Cache-Control"] = "no-store"
    return response


@organizer_required
@require_GET
def assignments_confirmation(request, contest: str, pk: int):
    """The confirmation job's section, which the page swaps in every two seconds while it
    runs. Once it has saved, the page is loaded afresh (htmx's `HX-Redirect`) with the sentence
    of what was saved as its message, as the page after a confirmation always was; a refusal
    is said in the section."""
    contest_obj = contest_for_organizer(contest)
    confirm = confirmations.confirm_job(contest_obj, pk)
    if confirm is None:
        raise Http404("No such confirmation.")
    context = _confirm_context(confirm)
    status = context["confirm_status"]
    if status.state == Job.State.DONE and request.headers.get("HX-Request"):
        messages.success(request, status.sentence)
        response = HttpResponse(status=204)
        response["HX-Redirect"] = reverse("console:assignments", args=[contest_obj.slug])
    else:
        response = render(
            request,
            "console/_assignment_confirmation.html",
            {"contest": contest_obj, **context},
        )
    response["Cache-Control"] = "no-store"
    return response


@organizer_required
@require_POST
def assignments_confirm(request, contest: str):
    """The previewed plan (the preview job named by `job`) saved by a confirmation job, which
    the page then follows: the service checks it again and writes all or nothing. Without a
    job, the counts posted are assigned as the service plans them (the `assign_jurors`
    command's way), by the same job. Refusals known at once (a final contest, a preview not
    finished or saved already) are said on the counts' form."""
    contest_obj = contest_for_organizer(contest)
    job = None
    if request.POST.get("job"):
        pk = request.POST["job"]
        job = previews.preview_job(contest_obj, int(pk)) if pk.isdigit() else None
        if job is None:
            raise Http404("No such preview.")
        form = _job_form(contest_obj, job)
    else:
        form = _form(request, contest_obj)
        if not form.is_valid():
            return _page(request, contest_obj, form, status=422)
    try:
        if job is not None:
            confirm = confirmations.assignment_confirm_start(
                contest=contest_obj, user=request.user, preview=job
            )
        else:
            confirm = confirmations.assignment_confirm_start(
                contest=contest_obj,
                user=request.user,
                counts=form.counts(),
                load_slack=form.load_slack(),
            )
    except ValidationError as error:
        # Said on the counts' form, which keeps the counts as typed (or as the preview had them).
        return _page(request, contest_obj, form, job=job, status=refusal_on_form(form, error))
    url = reverse("console:assignments", args=[contest_obj.slug])
    return redirect(f"{url}?confirm={confirm.pk}#confirmation")


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
