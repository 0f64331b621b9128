"""What the assignment knows, in the admin: the organizer sets a person's facts up (country,
capacity, the languages they read, on the facts' page and, for a superuser, on the person's
page), a paper's answer language, a delegation's country and the contest's working language;
the moves during grading and the questions for language help are read, never written, there;
the chair's lists before final name no paper but by its label in its problem, and reach no
page by id; once final, the chair reads which paper it was."""

import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from pytest_django.asserts import assertContains

from grading.models import (
    AssignmentMove,
    Delegation,
    HelpRequest,
    JurorLanguage,
    JurorProfile,
    Paper,
)
from rubrics.models import Contest
from tests.crawl import refetched, shared_data
from tests.factories import make_user
from tests.grading import scenario
from tests.grading.assigning_scenario import MOVED, contest_with_assignment_facts


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _build_facts():
    """The scenario, resolved, then with appeals and the assignment's facts."""
    graded = scenario.build()
    scenario.resolve(graded)
    users = graded["users"]
    contest_with_assignment_facts(
        graded["contest"], juror=users["alice"], other_juror=users["bob"], chair=graded["chair"]
    )
    return graded


@pytest.fixture(scope="module")
def facts_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield _build_facts()


@pytest.fixture
def facts(facts_once, db):
    return refetched(facts_once)


def _url(model, view: str, *args) -> str:
    meta = model._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}", args=args)


def _languages(username: str) -> list[tuple[str, str]]:
    return list(
        JurorLanguage.objects.filter(user__username=username)
        .order_by("language")
        .values_list("language", "level")
    )


def _profile_form(profile: JurorProfile, languages: list[tuple[str, str]], **facts) -> dict:
    """The facts' page as posted: its fields and the languages' formset (rows there were
    first, by id, then new ones)."""
    rows = list(JurorLanguage.objects.filter(user=profile.user).order_by("pk"))
    form = {"country": profile.country, "capacity": profile.capacity or ""} | facts
    prefix = "reading_languages"
    form |= {
        f"{prefix}-TOTAL_FORMS": str(len(languages)),
        f"{prefix}-INITIAL_FORMS": str(len(rows)),
    }
    for index, (language, level) in enumerate(languages):
        form |= {f"{prefix}-{index}-language": language, f"{prefix}-{index}-level": level}
        if index < len(rows):
            form |= {f"{prefix}-{index}-id": rows[index].pk, f"{prefix}-{index}-user": ""}
    return form


def test_the_organizer_lists_the_jurors_facts_with_the_languages_they_read(
    client, facts, organizer
):
    client.force_login(organizer)
    response = client.get(_url(JurorProfile, "changelist"))

    rows = [
        (p.user.username, p.country, p.capacity, p.unavailable_since)
        for p in response.context["cl"].result_list
    ]
    assert sorted(rows) == [("alice", "Latvia", 12, MOVED), ("bob", "Estonia", None, None)]
    assertContains(
        response,
        '<td class="field-languages">Estonian, Finnish (with help)</td>',
        count=1,
        html=True,
    )


def test_the_organizer_sets_a_jurors_country_capacity_and_languages_on_one_page(
    client, facts, organizer
):
    bob = JurorProfile.objects.get(user__username="bob")
    client.force_login(organizer)
    page = client.get(_url(JurorProfile, "change", bob.pk))
    assert [formset.opts.model for formset in page.context["inline_admin_formsets"]] == [
        JurorLanguage
    ]

    form = _profile_form(
        bob,
        [("Finnish", "with_help"), ("Estonian", "reads")],
        capacity="20",
        unavailable_since="2026-07-23 09:00:00",
    )
    response = client.post(_url(JurorProfile, "change", bob.pk), form)

    assert response.status_code == 302
    bob.refresh_from_db()
    # Unavailability is the assignment service's (it moves the juror's papers): not typed here.
    assert (bob.country, bob.capacity, bob.unavailable_since) == ("Estonia", 20, None)
    assert _languages("bob") == [("Estonian", "reads"), ("Finnish", "with_help")]


def test_one_language_typed_twice_in_another_case_is_refused_with_a_sentence(
    client, facts, organizer
):
    bob = JurorProfile.objects.get(user__username="bob")
    client.force_login(organizer)

    form = _profile_form(bob, [("Finnish", "reads"), (" finnish", "with_help")])
    response = client.post(_url(JurorProfile, "change", bob.pk), form)

    assert response.status_code == 200
    assert response.context["inline_admin_formsets"][0].formset.non_form_errors() == [
        "“finnish” and “Finnish” are one language to the assignment; list it once."
    ]
    assert _languages("bob") == [("Finnish", "reads")]


def test_a_new_persons_facts_are_added_and_then_their_languages(client, facts, organizer):
    dana = make_user("dana", first_name="Dana")
    client.force_login(organizer)
    add = client.get(_url(JurorProfile, "add"))
    assert add.context["inline_admin_formsets"] == []

    response = client.post(
        _url(JurorProfile, "add"), {"user": dana.pk, "country": "Norway", "capacity": ""}
    )

    profile = JurorProfile.objects.get(user=dana)
    assert (response.status_code, profile.country, profile.capacity) == (302, "Norway", None)
    page = client.get(_url(JurorProfile, "change", profile.pk))
    assert page.context["adminform"].form.fields.keys() == {"country", "capacity"}
    response = client.post(
        _url(JurorProfile, "change", profile.pk),
        _profile_form(profile, [("Norwegian", "reads")]),
    )
    assert (response.status_code, _languages("dana")) == (302, [("Norwegian", "reads")])


def test_a_superuser_reaches_a_persons_facts_from_their_page_in_the_user_admin(client, facts):
    root = User.objects.create_superuser("root", password="x")
    client.force_login(root)

    page = client.get(_url(User, "change", facts["users"]["alice"].pk))

    assert [formset.opts.model for formset in page.context["inline_admin_formsets"]] == [
        JurorProfile,
        JurorLanguage,
    ]
    assertContains(page, 'value="Latvia"')


def test_the_organizer_sets_answer_languages_countries_and_the_working_language(
    client, facts, organizer
):
    contest = facts["contest"]
    est = Delegation.objects.get(code="EST")
    client.force_login(organizer)
    fields = {
        _url(model, "change", obj.pk): client.get(_url(model, "change", obj.pk))
        .context["adminform"]
        .form.fields
        for model, obj in (
            (Paper, facts["papers"]["Team Lynx"]),
            (Delegation, est),
            (Contest, contest),
        )
    }
    assert [
        name in form
        for name, form in zip(
            ("answer_language", "country", "working_language"), fields.values(), strict=True
        )
    ] == [True, True, True]

    form = {"contest": contest.pk, "code": "EST", "name": "", "country": "Eesti", "leaders": []}
    response = client.post(_url(Delegation, "change", est.pk), form)

    est.refresh_from_db()
    assert (response.status_code, est.country, est.country_or_code) == (302, "Eesti", "Eesti")
    listed = client.get(_url(Paper, "changelist"))
    assertContains(listed, '<td class="field-answer_language">Estonian</td>', html=True)


def test_moves_and_questions_for_help_are_read_not_written_in_the_admin(client, facts, organizer):
    move, question = AssignmentMove.objects.first(), HelpRequest.objects.first()
    client.force_login(organizer)
    statuses = [
        client.get(_url(AssignmentMove, "change", move.pk)).status_code,
        client.post(_url(AssignmentMove, "change", move.pk), {"reason": "x"}).status_code,
        client.post(_url(AssignmentMove, "delete", move.pk), {"post": "yes"}).status_code,
        client.post(_url(AssignmentMove, "add"), {"reason": "x"}).status_code,
        client.get(_url(HelpRequest, "change", question.pk)).status_code,
        client.post(_url(HelpRequest, "change", question.pk), {"answer": "x"}).status_code,
        client.post(_url(HelpRequest, "delete", question.pk), {"post": "yes"}).status_code,
        client.post(_url(HelpRequest, "add"), {"question": "x"}).status_code,
    ]
    assert statuses == [200, 403, 403, 403, 200, 403, 403, 403]
    assert (AssignmentMove.objects.count(), HelpRequest.objects.count()) == (2, 2)
    question.refresh_from_db()
    assert question.answer == "Yes: *-ri* marks the plural of animate nouns."


def test_the_organizer_reads_which_paper_moved_and_the_state_of_each_question(
    client, facts, organizer
):
    client.force_login(organizer)
    moves = client.get(_url(AssignmentMove, "changelist")).content.decode()
    questions = client.get(_url(HelpRequest, "changelist"))

    papers = (facts["papers"][name] for name in ("Team Orca", "Team Heron"))
    assert [f"paper {paper.public_code}" in moves for paper in papers] == [True, True]
    assert [str(HelpRequest.State(r.state).label) for r in questions.context["cl"].result_list] == [
        "answered",
        "asked",
    ]
    assertContains(questions, '<td class="field-state">answered</td>', html=True)


def test_before_final_the_chairs_lists_name_papers_by_label_and_reach_no_page_by_id(client, facts):
    move, question = AssignmentMove.objects.first(), HelpRequest.objects.first()
    orca = facts["papers"]["Team Orca"]
    client.force_login(facts["chair"])
    responses = [client.get(_url(model, "changelist")) for model in (AssignmentMove, HelpRequest)]

    texts = [response.content.decode() for response in responses]
    codes = [paper.public_code for paper in facts["papers"].values()]
    assert [response.status_code for response in responses] == [200, 200]
    assert [name for name in ("Team Orca", "Team Heron") if any(name in t for t in texts)] == []
    assert [c for c in codes if any(c in text for text in texts)] == []
    assert [t for t in texts if re.search(r"/admin/grading/\w+/\d+/", t)] == []
    orca_p2 = scenario.label(facts, "Team Orca", 2)
    for response in responses:
        assertContains(response, f'<td class="field-labelled">paper {orca_p2}</td>', html=True)
    statuses = [
        client.get(_url(model, "changelist"), query).status_code
        for model in (AssignmentMove, HelpRequest)
        for query in ({"paper": orca.pk}, {"paper__identity__startswith": "Team"}, {"o": "1"})
    ]
    assert statuses == [400] * 6
    pages = [client.get(_url(type(obj), "change", obj.pk)) for obj in (move, question)]
    assert [(page.status_code, page["Location"]) for page in pages] == [(302, "/admin/")] * 2


def test_after_final_the_chair_reads_which_paper_moved_and_when(client, facts):
    Contest.objects.filter(pk=facts["contest"].pk).update(state=Contest.State.FINAL)
    move = AssignmentMove.objects.get(paper__identity="Team Orca")
    client.force_login(facts["chair"])

    page = client.get(_url(AssignmentMove, "change", move.pk))

    assert page.status_code == 200
    assertContains(page, f"paper {move.paper.public_code}")
    assertContains(page, "July 22, 2026, 2:30 p.m.")


def test_the_lists_of_moves_and_questions_run_the_same_queries_for_few_rows_or_many(
    client, facts, organizer, django_assert_max_num_queries
):
    client.force_login(organizer)
    counted = {}
    for model in (AssignmentMove, HelpRequest):
        with django_assert_max_num_queries(12) as few:
            client.get(_url(model, "changelist"))
        counted[model] = len(few)
    users, contest = facts["users"], facts["contest"]
    for number in range(20):
        for paper in facts["papers"].values():
            for problem in contest.problems.all():
                AssignmentMove.objects.create(
                    paper=paper,
                    problem=problem,
                    from_juror=users["dan"],
                    to_juror=make_user(f"j{number}-{paper.pk}-{problem.number}"),
                    actor=facts["chair"],
                    reason="More hands.",
                )
                HelpRequest.objects.create(
                    paper=paper, problem=problem, asked_by=users["erin"], question="Which?"
                )
    for model in (AssignmentMove, HelpRequest):
        with django_assert_max_num_queries(counted[model]):
            response = client.get(_url(model, "changelist"))
        assert response.context["cl"].result_count == 122
