"""The console's people pages: everyone with their roles, problems and state; jurors added in
bulk (paste or upload → preview → confirm); a person's page to edit them and see their
sign-in link; deactivate, reactivate, unlock and reset a password."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import Prefetch
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from grading.console import juror_facts as facts_service
from grading.console import people as people_service
from grading.console.forms import JurorsConfirmForm, JurorsForm, PersonForm, RolesForm
from grading.console.views.guards import (
    contest_for_organizer,
    organizer_required,
    person_for_organizer,
)
from grading.models import GradingGroup
from grading.rules import access
from grading.rules.capacity import over_capacity
from grading.rules.refusals import http_status
from grading.web.errors import on_refusal
from rubrics.models import Contest

User = get_user_model()


def _problems_by_contest(person) -> list[tuple[Contest, list[int]]]:
    """(contest, problem numbers) for each contest the person grades in, from prefetched rows."""
    by_contest: dict[int, tuple[Contest, list[int]]] = {}
    for group in person.grading_groups.all():
        contest = group.problem.contest
        by_contest.setdefault(contest.pk, (contest, []))[1].append(group.problem.number)
    return [(contest, sorted(numbers)) for contest, numbers in by_contest.values()]


@organizer_required
def people_list(request):
    groups = GradingGroup.objects.select_related("problem__contest").order_by(
        "problem__contest__slug", "problem__number"
    )
    people = list(
        User.objects.order_by("username").prefetch_related(
            "groups", Prefetch("grading_groups", queryset=groups)
        )
    )
    locked = people_service.locked_usernames()
    rows = [
        {
            "person": person,
            "roles": sorted(group.name for group in person.groups.all()),
            "problems": _problems_by_contest(person),
            "locked": person.username in locked,
            "awaits_sign_in": people_service.awaits_sign_in(person),
            "manageable": access.may_manage_person(request.user, person),
        }
        for person in people
    ]
    added = request.GET.getlist("added")
    contest = Contest.objects.filter(slug=request.GET.get("contest", "")).first() if added else None
    return render(
        request,
        "console/people.html",
        {"rows": rows, "added": added, "added_contest": contest},
    )


@organizer_required
def jurors_add(request, contest: str):
    """GET: the form. POST: the preview of what the lines would create (nothing written)."""
    contest_obj = contest_for_organizer(contest)
    form = JurorsForm(request.POST or None, request.FILES or None)
    status = 422 if form.errors else 200
    if request.method == "POST" and form.is_valid():
        try:
            batch = people_service.jurors_parse(contest=contest_obj, text=form.cleaned_data["text"])
        except ValidationError as error:
            # A final contest: said on the form, which keeps the lines as typed.
            form.add_error(None, error)
            status = http_status(error)
        else:
            return render(
                request,
                "console/jurors_preview.html",
                {
                    "contest": contest_obj,
                    "batch": batch,
                    "confirm": JurorsConfirmForm(initial={"text": form.cleaned_data["text"]}),
                    "form": JurorsForm(initial={"text": form.cleaned_data["text"]}),
                },
                status=422 if batch.errors else 200,
            )
    return render(
        request,
        "console/jurors_add.html",
        {"contest": contest_obj, "form": form},
        status=status,
    )


def _jurors_refused(request, sentences, status, contest):
    # Something changed since the preview (a username taken meanwhile): show it again.
    contest_obj = contest_for_organizer(contest)
    form = JurorsConfirmForm(request.POST)
    form.is_valid()  # it was, or the lines would not have reached the service
    batch = people_service.JurorBatch(contest=contest_obj, errors=sentences)
    return render(
        request,
        "console/jurors_preview.html",
        {"contest": contest_obj, "batch": batch, "form": JurorsForm(initial=form.cleaned_data)},
        status=status,
    )


@organizer_required
@require_POST
@on_refusal(page=_jurors_refused)
def jurors_confirm(request, contest: str):
    contest_obj = contest_for_organizer(contest)
    form = JurorsConfirmForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Nothing was added: the lines did not come with the confirmation.")
        return redirect("console:jurors_add", contest=contest_obj.slug)
    created = people_service.jurors_add(
        contest=contest_obj, text=form.cleaned_data["text"], actor=request.user
    )
    messages.success(
        request,
        f"{ngettext('%d juror', '%d jurors', len(created)) % len(created)} added to "
        f"{contest_obj.name}; "
        "print their sign-in slips below.",
    )
    query = "&".join(f"added={user.username}" for user in created)
    return redirect(f"{reverse('console:people')}?contest={contest_obj.slug}&{query}")


def _contests_open_to_changes():
    return list(
        Contest.objects.exclude(state=Contest.State.FINAL).filter(problems__isnull=False).distinct()
    )


@organizer_required
def person_edit(request, username: str):
    person = person_for_organizer(request, username)
    contests = _contests_open_to_changes()
    current = {
        contest.pk: numbers
        for contest, numbers in _problems_by_contest(
            User.objects.prefetch_related(
                Prefetch(
                    "grading_groups",
                    queryset=GradingGroup.objects.select_related("problem__contest"),
                )
            ).get(pk=person.pk)
        )
    }
    initial = {"first_name": person.first_name, "last_name": person.last_name}
    initial["email"] = person.email
    facts = facts_service.facts_of(person)
    initial.update(
        country=facts.country,
        capacity="" if facts.capacity is None else str(facts.capacity),
        languages=facts.languages_text,
    )
    for contest in contests:
        initial[f"problems_{contest.slug}"] = " ".join(str(n) for n in current.get(contest.pk, []))
    form = PersonForm(request.POST or None, initial=initial, contests=contests)
    status = 200
    if request.method == "POST":
        problems = {}
        if form.is_valid():
            for contest in contests:
                key = f"problems_{contest.slug}"
                known = list(contest.problems.order_by("number").values_list("number", flat=True))
                numbers, errors = people_service.parse_problems(
                    form.cleaned_data[key],
                    contest=contest,
                    where=f"Problems in {contest.name}",
                    known=known,
                )
                for error in errors:
                    form.add_error(key, error)
                problems[contest] = numbers
            facts, errors = _facts_from_form(form)
        if form.is_valid():
            try:
                people_service.person_update(
                    person=person,
                    actor=request.user,
                    first_name=form.cleaned_data["first_name"],
                    last_name=form.cleaned_data["last_name"],
                    email=form.cleaned_data["email"],
                    problems=problems,
                    facts=facts,
                )
            except ValidationError as error:
                # Said on the form, which keeps what was typed (a juror with papers kept in a
                # group, a final contest).
                form.add_error(None, error)
                status = http_status(error)
            else:
                messages.success(request, f"{person.username}: saved.")
                return redirect("console:person", username=person.username)
        else:
            status = 422
    link = None
    if people_service.awaits_sign_in(person):
        link = request.build_absolute_uri(people_service.sign_in_path(person))
    return render(
        request,
        "console/person.html",
        {
            "person": person,
            "form": form,
            "link": link,
            "expires": people_service.link_expiry(),
            "locked": person.username in people_service.locked_usernames(),
            "is_self": person.pk == request.user.pk,
            "roles_form": RolesForm(initial={"roles": people_service.person_roles(person)}),
            "delegations_led": person.delegations_led.select_related("contest").order_by(
                "contest__slug", "code"
            ),
            "over_capacity": over_capacity(juror=person),
        },
        status=status,
    )


_FACTS_PLACES = {"country": "Country", "capacity": "Capacity", "languages": "Languages"}


def _facts_from_form(form) -> tuple[facts_service.Facts | None, list[str]]:
    """The person form's facts through the bulk lines' checks, each problem on its field."""
    facts, errors = facts_service.facts_check(
        country=form.cleaned_data["country"],
        capacity=form.cleaned_data["capacity"],
        languages=form.cleaned_data["languages"],
        where=_FACTS_PLACES,
    )
    for error in errors:
        key = next(key for key, place in _FACTS_PLACES.items() if error.startswith(place))
        form.add_error(key, error)
    return facts, errors


def _act(request, username: str, action, done: str):
    """One of the person page's buttons; its view declares that a refusal goes back to the
    person's page (`on_refusal`)."""
    person = person_for_organizer(request, username)
    action(person=person, actor=request.user)
    messages.success(request, done.format(username=person.username))
    return redirect("console:person", username=person.username)


@organizer_required
@require_POST
@on_refusal(redirect="console:person")
def person_deactivate(request, username: str):
    def deactivate(*, person, actor):
        people_service.person_set_active(person=person, actor=actor, active=False)

    return _act(
        request,
        username,
        deactivate,
        "{username} is deactivated: they can no longer sign in; their marks stay.",
    )


@organizer_required
@require_POST
@on_refusal(redirect="console:person")
def person_reactivate(request, username: str):
    def reactivate(*, person, actor):
        people_service.person_set_active(person=person, actor=actor, active=True)

    return _act(request, username, reactivate, "{username} can sign in again.")


@organizer_required
@require_POST
@on_refusal(redirect="console:person")
def person_unlock(request, username: str):
    return _act(
        request,
        username,
        people_service.person_unlock,
        "{username} is unlocked and can try their password again.",
    )


@organizer_required
@require_POST
@on_refusal(redirect="console:person")
def person_reset(request, username: str):
    return _act(
        request,
        username,
        people_service.password_reset,
        "{username}'s password no longer works: give them the new sign-in link below "
        "(or print their slip).",
    )


@organizer_required
@require_POST
@on_refusal(redirect="console:person")
def person_roles(request, username: str):
    person = person_for_organizer(request, username)
    form = RolesForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect("console:person", username=person.username)

    def set_roles(*, person, actor):
        people_service.person_set_roles(
            person=person, actor=actor, wanted=form.cleaned_data["roles"]
        )

    return _act(request, username, set_roles, "{username}: roles saved.")
