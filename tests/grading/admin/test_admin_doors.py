"""The admin is a door like the pages: it keeps identities and the links between a paper's
problems from whoever may not see them (the chair before final), and once a contest is final
nothing it owns changes through it, for anyone."""

import re
from decimal import Decimal

import pytest
from django.contrib import admin
from django.core.exceptions import FieldError
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from grading.console.contest_life import contest_finalize
from grading.intake.importers.human_scores import human_scores_import
from grading.models import (
    AppealEvening,
    AppealMeeting,
    AppealTables,
    Assignment,
    BankNote,
    Comment,
    ContestEvent,
    DeclaredConflict,
    DiscussionSession,
    HumanCriterionRate,
    HumanScore,
    JurorProfile,
    Mark,
    MarkEvent,
    Paper,
    PaperLabel,
    Resolution,
    SessionMember,
    SessionOutcome,
    Sheet,
    Solution,
)
from grading.resolution.decisions import comment_add
from rubrics.models import Contest, Criterion, MedalCutoff, SchemeVersion
from tests.crawl import refetched, shared_data
from tests.grading import scenario
from tests.grading.assigning_scenario import contest_with_assignment_facts
from tests.grading.calibration.scenario import calibration_rows

D = Decimal
FINAL = (
    "Contest iol is final: its {} are read-only. "
    "An organizer can reopen it, with a reason, from its results page."
)


def _build_graded():
    """The scenario in its resolution phase, with human scores and a criterion rate: bob's
    revision makes a consensus, the chair has decided Orca's P1 T1, and there is a comment;
    not final yet."""
    graded = scenario.build()
    users, papers, p1 = graded["users"], graded["papers"], graded["problems"][1]
    human_scores_import(contest=graded["contest"], text=scenario.HUMANS_CSV)
    HumanCriterionRate.objects.create(criterion=p1.criteria.get(code="A1"), share_met=D("0.5"))
    scenario.resolve(graded)
    comment_add(
        paper=papers["Team Orca"],
        criterion=p1.criteria.get(code="T1"),
        author=users["alice"],
        text="Rule 2 is stated but not applied.",
    )
    return graded


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield _build_graded()


@pytest.fixture
def graded(graded_once, db):
    return refetched(graded_once)


@pytest.fixture
def final(graded):
    contest_finalize(contest=graded["contest"], actor=graded["chair"])
    graded["contest"].refresh_from_db()
    return graded


def _changelist(name: str) -> str:
    return reverse(f"admin:grading_{name}_changelist")


def _change(obj) -> str:
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])


def _delete(obj) -> str:
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_delete", args=[obj.pk])


# Finding 1: identities, letter by letter, through the paper list's filters.
IDENTITY_FILTERS = [
    {"identity__startswith": "Team O"},
    {"identity__icontains": "orca"},
    {"identity__regex": "^Team O"},
    {"metadata__team": "Team Orca"},
    {"metadata__icontains": "orca"},
]


@pytest.mark.parametrize("query", IDENTITY_FILTERS, ids=lambda query: next(iter(query)))
def test_the_chair_cannot_filter_papers_by_identity_in_the_admin_before_final(
    client, graded, query
):
    client.force_login(graded["chair"])
    assert client.get(_changelist("paper"), query).status_code == 400


@pytest.mark.parametrize("query", IDENTITY_FILTERS, ids=lambda query: next(iter(query)))
def test_the_organizer_still_filters_papers_by_identity(client, graded, organizer, query):
    client.force_login(organizer)
    response = client.get(_changelist("paper"), query)
    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == [graded["papers"]["Team Orca"]]


def test_the_chair_cannot_collect_one_papers_work_across_problems_by_filter(client, graded):
    orca = graded["papers"]["Team Orca"]
    label = orca.labels.get(problem__number=1)
    client.force_login(graded["chair"])
    statuses = [
        client.get(url, query).status_code
        for url, query in (
            (_changelist("mark"), {"paper": orca.pk}),
            (_changelist("mark"), {"paper__id__exact": orca.pk}),
            (_changelist("paperlabel"), {"paper": orca.pk}),
            (_changelist("solution"), {"paper_id": orca.pk}),
            (_changelist("assignment"), {"paper__exact": orca.pk}),
            (_changelist("comment"), {"paper": orca.pk}),
            (_changelist("resolution"), {"paper": orca.pk}),
            (_changelist("markevent"), {"mark__paper": orca.pk}),
            (_changelist("paper"), {"labels": label.pk}),
            (_changelist("paper"), {"marks__id__exact": orca.marks.first().pk}),
        )
    ]
    assert statuses == [400] * 10


def test_the_organizer_still_filters_marks_by_paper(client, graded, organizer):
    orca = graded["papers"]["Team Orca"]
    client.force_login(organizer)
    response = client.get(_changelist("mark"), {"paper": orca.pk})
    assert response.status_code == 200
    assert response.context["cl"].result_count == Mark.objects.filter(paper=orca).count() == 10


def test_before_final_the_chair_sees_no_labels_nor_paper_ids_on_the_admins_pages(client, graded):
    pages = [_changelist(name) for name in ("paper", "paperlabel", "solution", "assignment")]
    pages += [_changelist(name) for name in ("mark", "markevent", "comment", "resolution")]
    client.force_login(graded["chair"])
    responses = {url: client.get(url) for url in pages}
    assert {url: response.status_code for url, response in responses.items()} == dict.fromkeys(
        pages, 200
    )
    # "Paper #12": a database id follows import order and links the problems; so does a public
    # code, the same in every problem, and so does a link to a row's page by its id.
    codes = [paper.public_code for paper in graded["papers"].values()]
    traced = [
        url
        for url, response in responses.items()
        if "paper #" in _text(response).lower()
        or any(c in _text(response) for c in codes)
        or re.search(r"/admin/grading/\w+/\d+/", _text(response))
    ]
    assert traced == []


def test_before_final_the_chair_opens_no_page_by_id_of_anything_that_refers_to_a_paper(
    client, graded
):
    orca = graded["papers"]["Team Orca"]
    objects = [
        orca,
        orca.labels.first(),
        orca.solutions.first(),
        orca.assignments.first(),
        orca.marks.exclude(version=0).first(),
        MarkEvent.objects.filter(mark__paper=orca).first(),
        Comment.objects.get(paper=orca),
        Resolution.objects.get(paper=orca),
    ]
    pages = [_change(obj) for obj in objects]
    pages.append(reverse("admin:grading_solution_history", args=[orca.solutions.first().pk]))
    # Which ids exist is itself import order: an id that exists answers as one that does not.
    pages.append(reverse("admin:grading_paper_change", args=[10_000]))
    client.force_login(graded["chair"])
    assert [
        (response.status_code, response["Location"])
        for response in (client.get(url) for url in pages)
    ] == [(302, "/admin/")] * len(pages)


def _labels_against_import_order(contest) -> None:
    """Relabel every problem so that the first imported paper has the last label."""
    for problem in contest.problems.all():
        links = list(PaperLabel.objects.filter(problem=problem).order_by("paper_id"))
        for link in links:
            link.label = f"tmp{link.pk}"
            link.save()
        for index, link in enumerate(links):
            link.label = f"Z{9 - index}Q{problem.number}"
            link.save()


def test_the_chairs_admin_lists_rows_by_label_in_their_problem_not_in_import_order(client, graded):
    _labels_against_import_order(graded["contest"])
    client.force_login(graded["chair"])
    rows = {
        name: list(client.get(_changelist(name)).context["cl"].result_list)
        for name in ("paperlabel", "mark", "solution", "assignment")
    }
    assert [str(link) for link in rows["paperlabel"]] == [
        "P1 Z7Q1",
        "P1 Z8Q1",
        "P1 Z9Q1",
        "P2 Z7Q2",
        "P2 Z8Q2",
        "P2 Z9Q2",
    ]
    papers_in_order = [paper.pk for paper in sorted(graded["papers"].values(), key=_pk)][::-1]
    alices_p1 = [m.paper_id for m in rows["mark"] if m.sheet == _sheet(graded, "alice", 1)]
    # Each paper's marks together (one per criterion), the papers by label.
    assert list(dict.fromkeys(alices_p1)) == papers_in_order
    p1_solutions = [s.paper_id for s in rows["solution"] if s.task.problem.number == 1]
    assert p1_solutions == papers_in_order
    alices = [a.paper_id for a in rows["assignment"] if a.juror.username == "alice"]
    assert alices[:3] == papers_in_order


def _pk(obj) -> int:
    return obj.pk


def _sheet(graded, username: str, number: int) -> Sheet:
    return Sheet.objects.get(juror__username=username, problem=graded["problems"][number])


def test_the_organizer_sees_the_papers_labels_and_identity_on_its_page(client, graded, organizer):
    orca = graded["papers"]["Team Orca"]
    client.force_login(organizer)
    page = _text(client.get(_change(orca)))
    labels = [scenario.label(graded, "Team Orca", number) for number in (1, 2)]
    assert [label for label in labels if label in page] == labels
    assert ("Team Orca" in page, f"paper {orca.public_code}" in page) == (True, True)


def test_after_final_the_chair_sees_the_identity_and_labels_on_a_papers_page_but_lists_filter_by_none(
    client, final
):
    orca = final["papers"]["Team Orca"]
    client.force_login(final["chair"])
    page = _text(client.get(_change(orca)))
    labels = [scenario.label(final, "Team Orca", number) for number in (1, 2)]
    assert [label for label in labels if label in page] == labels
    assert "Team Orca" in page
    # Lists span contests: their filters stay the organizer's.
    assert client.get(_changelist("paper"), {"identity__startswith": "Team O"}).status_code == 400


def _text(response) -> str:
    return response.content.decode()


# Finding 2: after final, nothing changes in the admin.


def test_after_final_the_organizers_admin_writes_are_refused_and_nothing_changes(
    client, final, organizer
):
    contest, papers, users = final["contest"], final["papers"], final["users"]
    orca = papers["Team Orca"]
    cutoff = MedalCutoff.objects.get(contest=contest, order=1)
    sheet = Sheet.objects.get(juror=users["alice"], problem__number=1)
    resolution = Resolution.objects.get(paper=orca, kind="chair")
    assignment = Assignment.objects.filter(paper=orca).first()
    solution = Solution.objects.filter(paper=orca).first()
    before = _snapshot(contest)
    client.force_login(organizer)
    sheet_form = {"juror": sheet.juror_id, "problem": sheet.problem_id, "state": "draft"}
    writes = [
        (_change(cutoff), {"contest": contest.pk, "name": "gold", "min_total": "1", "order": 1}),
        (_change(sheet), sheet_form),
        (_delete(resolution), {"post": "yes"}),
        (_delete(assignment), {"post": "yes"}),
        (_change(solution), {"paper": orca.pk, "task": solution.task_id, "explanation": "New."}),
        (_change(orca), {"contest": contest.pk, "identity": "Team Kite", "source": "ai"}),
        (_change(contest), {"name": contest.name, "slug": contest.slug, "state": "grading"}),
        (_delete(contest), {"post": "yes"}),
    ]
    assert [client.post(url, data).status_code for url, data in writes] == [403] * len(writes)
    assert _snapshot(contest) == before


def test_after_final_an_add_form_refuses_to_save_into_the_contest_with_the_final_sentence(
    client, final, organizer
):
    contest = final["contest"]
    client.force_login(organizer)
    before = _snapshot(contest)
    response = client.post(
        reverse("admin:grading_humanscore_add"),
        {"contest": contest.pk, "contestant": "H9", "problem_points": "{}", "total": "50"},
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.non_field_errors() == [FINAL.format("human scores")]
    response = client.post(
        reverse("admin:rubrics_medalcutoff_add"),
        {"contest": contest.pk, "name": "bronze", "min_total": "20", "order": 4},
    )
    assert response.context["adminform"].form.non_field_errors() == [FINAL.format("medal cutoffs")]
    assert _snapshot(contest) == before


def test_after_final_bulk_deletion_is_refused(client, final, organizer):
    contest = final["contest"]
    client.force_login(organizer)
    response = client.post(
        reverse("admin:rubrics_medalcutoff_changelist"),
        {
            "action": "delete_selected",
            "_selected_action": [c.pk for c in contest.cutoffs.all()],
            "post": "yes",
        },
    )
    assert response.status_code == 403
    assert contest.cutoffs.count() == 3


def test_after_final_everything_a_contest_owns_is_read_only_in_the_admin_inlines_included(
    final, organizer
):
    # Delegations, provisional results and appeals too, as a contest finalized after them has,
    # and papers moved and questions for language help during its grading.
    users = final["users"]
    contest_with_assignment_facts(
        final["contest"],
        juror=users["alice"],
        other_juror=users["bob"],
        chair=final["chair"],
        state=Contest.State.FINAL,
    )
    # And an amendment of a scheme during its grading (a record the admin only lists).
    SchemeVersion.objects.create(problem=final["problems"][1], number=2, reason="Wording.")
    # And a note in a criterion's comment bank.
    BankNote.objects.create(
        criterion=Criterion.objects.filter(problem__contest=final["contest"]).first(),
        text="Vowel harmony rule missed.",
    )
    # And a calibration round before its grading (grading/calibration/).
    calibration_rows(
        final["contest"].problems.get(number=1), chair=final["chair"], juror=users["alice"]
    )
    # And a conflict the organizer declared with a delegation (one with a contestant is the
    # paper's: tests/test_declared_conflicts.py).
    DeclaredConflict.objects.create(
        juror=users["bob"],
        delegation=final["contest"].delegations.get(code="EST"),
        reason="Coached the team.",
    )
    # And an appeals evening's timetable, with a group's tables (grading/appeals/evening.py).
    evening = AppealEvening.objects.create(contest=final["contest"], starts_at=timezone.now())
    AppealTables.objects.create(evening=evening, problem=final["problems"][1], tables=2)
    AppealMeeting.objects.create(
        evening=evening,
        delegation=final["contest"].delegations.get(code="EST"),
        problem=final["problems"][1],
        slot=0,
    )
    # And a group's discussion session, with a member and an outcome on record
    # (grading/resolution/sessions.py).
    session = DiscussionSession.objects.create(
        problem=final["problems"][1], started_by=users["alice"], ended_at=timezone.now()
    )
    SessionMember.objects.create(session=session, user=users["alice"])
    SessionOutcome.objects.create(
        session=session,
        paper=final["papers"]["Team Orca"],
        criterion=Criterion.objects.filter(problem=final["problems"][1]).first(),
        kind=SessionOutcome.Kind.LEFT_OPEN,
        recorded_by=users["alice"],
    ).present.add(users["alice"])
    request = RequestFactory().get("/admin/")
    request.user = organizer
    open_rights = {}
    for model, model_admin in admin.site._registry.items():
        # A person's facts belong to no contest: they stay the organizer's to set
        # (tests/grading/admin/test_admin_assigning.py).
        if model._meta.app_label not in ("rubrics", "grading") or model is JurorProfile:
            continue
        obj = _owned(model, final["contest"])
        assert obj is not None, model
        rights = [
            model_admin.has_change_permission(request, obj),
            model_admin.has_delete_permission(request, obj),
        ]
        for inline in model_admin.get_inline_instances(request, obj):
            rights += [
                inline.has_add_permission(request, obj),
                inline.has_change_permission(request, obj),
                inline.has_delete_permission(request, obj),
            ]
        if any(rights):
            open_rights[model._meta.model_name] = rights
    assert open_rights == {}


def test_before_final_the_organizer_still_edits_a_cutoff_but_not_a_contests_state(
    client, graded, organizer
):
    contest = graded["contest"]
    cutoff = MedalCutoff.objects.get(contest=contest, order=1)
    client.force_login(organizer)
    form = {"contest": contest.pk, "name": "gold", "min_total": "71", "order": 1}
    assert client.post(_change(cutoff), form).status_code == 302
    cutoff.refresh_from_db()
    assert cutoff.min_total == D("71")
    form = {"name": contest.name, "slug": contest.slug, "state": "final", "max_total": "100"}
    form["working_language"] = contest.working_language
    form["scan_mask_percent"] = str(contest.scan_mask_percent)
    form["scan_mask_pages"] = contest.scan_mask_pages
    form.update(_empty_inlines(client.get(_change(contest))))
    # The appeals deadline is the life page's (published, then extended with a reason on
    # record): a date posted to the admin changes nothing.
    form["appeals_deadline_0"], form["appeals_deadline_1"] = "2030-01-01", "12:00:00"
    deadline = contest.appeals_deadline
    assert client.post(_change(contest), form).status_code == 302
    contest.refresh_from_db()
    assert (contest.state, contest.appeals_deadline) == ("resolution", deadline)


def test_resolutions_and_records_are_never_changed_or_deleted_in_the_admin(
    client, graded, organizer
):
    orca = graded["papers"]["Team Orca"]
    resolution = Resolution.objects.get(paper=orca, kind="chair")
    mark_event = MarkEvent.objects.filter(mark__paper=orca).first()
    contest_event = ContestEvent.objects.filter(contest=graded["contest"]).first()
    client.force_login(organizer)
    statuses = [
        client.post(_delete(resolution), {"post": "yes"}).status_code,
        client.post(_change(resolution), {"points": "1", "reason": "x"}).status_code,
        client.post(_delete(mark_event), {"post": "yes"}).status_code,
        client.post(_delete(contest_event), {"post": "yes"}).status_code,
        client.post(_change(contest_event), {"reason": "x"}).status_code,
        client.get(reverse("admin:grading_contestevent_changelist")).status_code,
    ]
    assert statuses == [403, 403, 403, 403, 403, 200]
    resolution.refresh_from_db()
    assert (resolution.points, resolution.reason) == (D("7"), "Rule 2 stated, not applied.")


def test_the_organizer_opens_grading_from_the_contest_list_and_it_is_on_record(client, organizer):
    from grading.rules import roles
    from tests.factories import make_contest, make_user

    # Beside the module's contest (there already if an earlier test built it): a chair of
    # another name than its "chen".
    chair = make_user("cleo", roles.CHAIR)
    contest = make_contest("fresh")
    Contest.objects.filter(pk=contest.pk).update(state="setup")
    changelist = reverse("admin:rubrics_contest_changelist")
    data = {"action": "open_grading", "_selected_action": [contest.pk]}
    client.force_login(chair)
    client.post(changelist, data)
    contest.refresh_from_db()
    assert contest.state == "setup"
    client.force_login(organizer)
    assert client.post(changelist, data).status_code == 302
    contest.refresh_from_db()
    assert contest.state == "grading"
    events = ContestEvent.objects.filter(contest=contest)
    assert [(e.from_state, e.to_state, e.actor) for e in events] == [
        ("setup", "grading", organizer)
    ]


# How each model of the two apps reaches its contest, tried in order.
CONTEST_LOOKUPS = (
    "pk",
    "contest",
    "problem__contest",
    "delegation__contest",
    "paper__contest",
    "mark__paper__contest",
    "criterion__problem__contest",
    "appeal__paper__contest",
)


def _owned(model, contest):
    """One object of the model that the contest owns."""
    lookups = CONTEST_LOOKUPS if model is Contest else CONTEST_LOOKUPS[1:]
    for lookup in lookups:
        try:
            return model._default_manager.filter(**{lookup: contest.pk}).first()
        except FieldError:
            continue
    return None


def _empty_inlines(response) -> dict[str, str]:
    """The management forms of a change page's inlines, each with its rows as they are."""
    data = {}
    for formset in response.context["inline_admin_formsets"]:
        management = formset.formset.management_form
        for name in management.fields:
            data[f"{management.prefix}-{name}"] = str(management.initial.get(name, ""))
        for form in formset.formset.initial_forms:
            for name in form.fields:
                value = form.initial.get(name, "")
                data[f"{form.prefix}-{name}"] = "" if value is None else str(value)
            data[f"{form.prefix}-id"] = str(form.instance.pk)
            data[f"{form.prefix}-{formset.formset.fk.name}"] = str(form.instance.contest_id)
    return data


def _snapshot(contest) -> list:
    """What the contest owns that the writes above could touch."""
    contest = Contest.objects.get(pk=contest.pk)
    return [
        (contest.state, contest.name),
        list(MedalCutoff.objects.filter(contest=contest).values_list("name", "min_total")),
        list(Sheet.objects.filter(problem__contest=contest).values_list("pk", "state")),
        list(Resolution.objects.filter(paper__contest=contest).values_list("pk", "points")),
        list(Assignment.objects.filter(problem__contest=contest).values_list("pk", flat=True)),
        list(Solution.objects.filter(paper__contest=contest).values_list("pk", "explanation")),
        list(Paper.objects.filter(contest=contest).values_list("pk", "identity")),
        list(HumanScore.objects.filter(contest=contest).values_list("pk", "total")),
    ]


def test_comments_are_read_not_written_in_the_admin(client, graded, organizer):
    """A comment goes through the discussion page, which checks who takes part; the admin can
    neither add one in a juror's name nor rewrite or delete one."""
    from grading.models import Comment

    comment = Comment.objects.get()
    client.force_login(organizer)
    statuses = [
        client.post(
            reverse("admin:grading_comment_add"),
            {
                "paper": comment.paper_id,
                "criterion": comment.criterion_id,
                "author": graded["users"]["alice"].pk,
                "text": "Said in alice's name.",
            },
        ).status_code,
        client.post(_change(comment), {"text": "Rewritten."}).status_code,
        client.post(_delete(comment), {"post": "yes"}).status_code,
        client.get(_change(comment)).status_code,
    ]
    assert statuses == [403, 403, 403, 200]
    assert list(Comment.objects.values_list("text", flat=True)) == [comment.text]


# The medal cut-off rule (each better medal above the ones below, none above the maximum) has
# its home in grading.results.cutoffs; the admin's two ways to the cut-offs call it too.


def test_the_admins_cutoff_page_refuses_what_the_console_refuses(client, graded, organizer):
    contest = graded["contest"]
    gold = MedalCutoff.objects.get(contest=contest, name="gold")
    silver = MedalCutoff.objects.get(contest=contest, name="silver")
    before = _snapshot(contest)
    client.force_login(organizer)
    form = {"contest": contest.pk, "name": "silver", "min_total": "75", "order": silver.order}
    response = client.post(_change(silver), form)
    assert response.context["adminform"].form.non_field_errors() == [
        f"The gold cut-off ({gold.min_total.normalize():f}) must be higher than the silver "
        "cut-off (75)."
    ]
    form = {"contest": contest.pk, "name": "gold", "min_total": "120", "order": gold.order}
    response = client.post(_change(gold), form)
    assert response.context["adminform"].form.non_field_errors() == [
        "The gold cut-off 120 is above the contest's maximum total of 100."
    ]
    assert _snapshot(contest) == before


def test_the_contest_pages_cutoffs_are_checked_against_its_new_maximum(client, graded, organizer):
    contest = graded["contest"]
    before = _snapshot(contest)
    client.force_login(organizer)
    form = {"name": contest.name, "slug": contest.slug, "max_total": "50"}
    form.update(_empty_inlines(client.get(_change(contest))))
    response = client.post(_change(contest), form)
    (cutoffs,) = [
        f for f in response.context["inline_admin_formsets"] if f.opts.model is MedalCutoff
    ]
    assert list(cutoffs.formset.non_form_errors()) == [
        "The gold cut-off 70 is above the contest's maximum total of 50.",
        "The silver cut-off 58.4 is above the contest's maximum total of 50.",
    ]
    assert _snapshot(contest) == before
    assert Contest.objects.get(pk=contest.pk).max_total == contest.max_total
