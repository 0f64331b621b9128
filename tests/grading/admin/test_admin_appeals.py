"""Delegations, provisional results and appeals in the admin: the organizer sets delegations up
(code, name, leaders; the list counts contestants); appeals, results and deadline changes are
read, never written, there; the chair's lists before final name no paper but by its label in the
appeal's problem, nor who filed it; once final, nothing of these changes through the admin."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains

from grading.console.contest_life import contest_finalize
from grading.models import Appeal, AppealDeadlineChange, Delegation, Paper, ProvisionalResult
from grading.rules import roles
from rubrics.models import Contest
from tests.crawl import refetched, shared_data
from tests.factories import make_user
from tests.grading import scenario
from tests.grading.appeals_scenario import contest_with_appeals

FINAL = (
    "Contest iol is final: its {} are read-only. "
    "An organizer can reopen it, with a reason, from its results page."
)


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _build_appealed():
    graded = scenario.build()
    scenario.resolve(graded)
    users = graded["users"]
    contest_with_appeals(
        graded["contest"], juror=users["alice"], other_juror=users["bob"], chair=graded["chair"]
    )
    return graded


@pytest.fixture(scope="module")
def appealed_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield _build_appealed()


@pytest.fixture
def appealed(appealed_once, db):
    """The scenario, resolved, then at provisional results with delegations and appeals."""
    return refetched(appealed_once)


@pytest.fixture
def final(appealed):
    """`appealed`, finalized, with a delegation of no contestants too (which nothing protects
    from deletion but the contest's being final)."""
    contest = appealed["contest"]
    Delegation.objects.create(contest=contest, code="SWE")
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.RESOLUTION)
    contest_finalize(contest=contest, actor=appealed["chair"])
    contest.refresh_from_db()
    return appealed


def _url(model, view: str, *args) -> str:
    return reverse(f"admin:grading_{model._meta.model_name}_{view}", args=args)


def _delegations() -> list:
    return [
        (d.code, d.name, sorted(u.username for u in d.leaders.all()))
        for d in Delegation.objects.order_by("code")
    ]


def test_the_organizer_lists_delegations_with_their_contestant_counts(client, appealed, organizer):
    client.force_login(organizer)
    response = client.get(_url(Delegation, "changelist"))
    rows = [(d.code, d.contestant_count) for d in response.context["cl"].result_list]
    assert rows == [("EST", 1), ("FIN", 1)]
    assertContains(response, '<td class="field-contestants">1</td>', count=2, html=True)


def test_the_organizer_sets_a_delegations_name_and_leaders_with_a_filter_widget(
    client, appealed, organizer
):
    fin = Delegation.objects.get(code="FIN")
    cy = make_user("cy")
    client.force_login(organizer)
    page = client.get(_url(Delegation, "change", fin.pk))
    assert page.context["adminform"].form.fields["leaders"].widget.widget.is_stacked is False
    form = {"contest": fin.contest_id, "code": "FIN", "name": "Finland", "leaders": [cy.pk]}
    assert client.post(_url(Delegation, "change", fin.pk), form).status_code == 302
    assert _delegations() == [
        ("EST", "Delegation EST", ["ada", "bob"]),
        ("FIN", "Finland", ["cy"]),
    ]
    # Chosen here, Cy leads with the role the leaders' pages ask for, as `leaders_add` gives it.
    assert list(cy.groups.values_list("name", flat=True)) == [roles.LEADER]


def test_appeals_results_and_deadline_changes_are_read_not_written_in_the_admin(
    client, appealed, organizer
):
    appeal = Appeal.objects.filter(state="decided").first()
    result = ProvisionalResult.objects.first()
    change = AppealDeadlineChange.objects.first()
    client.force_login(organizer)
    statuses = [
        client.get(_url(Appeal, "change", appeal.pk)).status_code,
        client.post(_url(Appeal, "change", appeal.pk), {"state": "open"}).status_code,
        client.post(_url(Appeal, "delete", appeal.pk), {"post": "yes"}).status_code,
        client.post(_url(Appeal, "add"), {"argument": "x"}).status_code,
        client.post(_url(ProvisionalResult, "change", result.pk), {"total": "99"}).status_code,
        client.post(_url(ProvisionalResult, "delete", result.pk), {"post": "yes"}).status_code,
        client.post(_url(AppealDeadlineChange, "change", change.pk), {"reason": "x"}).status_code,
        client.post(_url(AppealDeadlineChange, "delete", change.pk), {"post": "yes"}).status_code,
    ]
    assert statuses == [200, 403, 403, 403, 403, 403, 403, 403]
    assert (Appeal.objects.count(), ProvisionalResult.objects.count()) == (5, 3)
    appeal.refresh_from_db()
    assert appeal.state == "decided"


def test_before_final_the_chairs_appeal_list_names_papers_by_label_and_no_leader(client, appealed):
    client.force_login(appealed["chair"])
    responses = [
        client.get(_url(model, "changelist"))
        for model in (Appeal, ProvisionalResult, Delegation, AppealDeadlineChange)
    ]
    assert [response.status_code for response in responses] == [200] * 4
    appeals = responses[0]
    codes = [paper.public_code for paper in appealed["papers"].values()]
    texts = [response.content.decode() for response in responses]
    assert [c for c in codes if any(c in text for text in texts)] == []
    # Rows that refer to a paper link to no page by id (ids follow import order).
    assert [t for t in texts[:2] if re.search(r"/admin/grading/\w+/\d+/", t)] == []
    assert ("ada" in texts[0], "bea" in texts[0]) == (False, False)
    # Results are totals alone, best first.
    assert [r.total for r in responses[1].context["cl"].result_list] == [
        Decimal("30.50"),
        Decimal("28.00"),
        Decimal("12.25"),
    ]
    orca_p1 = scenario.label(appealed, "Team Orca", 1)
    assertContains(appeals, f'<td class="field-labelled">paper {orca_p1}</td>', count=2, html=True)


def test_before_final_the_chair_cannot_reach_an_appeal_by_id_nor_filter_by_paper_or_leader(
    client, appealed
):
    appeal = Appeal.objects.first()
    orca = appealed["papers"]["Team Orca"]
    client.force_login(appealed["chair"])
    statuses = [
        client.get(_url(Appeal, "changelist"), query).status_code
        for query in (
            {"paper": orca.pk},
            {"filed_by__username": "ada"},
            {"id__gt": 0},
            {"o": "1"},
        )
    ]
    statuses += [client.get(_url(Paper, "changelist"), {"delegation__code": "EST"}).status_code]
    assert statuses == [400] * 5
    response = client.get(_url(Appeal, "change", appeal.pk))
    assert (response.status_code, response["Location"]) == (302, "/admin/")


def test_after_final_delegations_appeals_and_results_refuse_every_write_in_the_admin(
    client, final, organizer
):
    contest = final["contest"]
    est, swe = (Delegation.objects.get(code=code) for code in ("EST", "SWE"))
    appeal = Appeal.objects.first()
    before = (_delegations(), list(Appeal.objects.values_list("pk", "state", "outcome")))
    client.force_login(organizer)
    form = {"contest": contest.pk, "code": "EST", "name": "Estonia", "leaders": []}
    statuses = [
        client.post(_url(Delegation, "change", est.pk), form).status_code,
        client.post(_url(Delegation, "delete", est.pk), {"post": "yes"}).status_code,
        client.post(
            _url(Delegation, "changelist"),
            {"action": "delete_selected", "_selected_action": [swe.pk], "post": "yes"},
        ).status_code,
        client.post(_url(Appeal, "delete", appeal.pk), {"post": "yes"}).status_code,
    ]
    response = client.post(_url(Delegation, "add"), form | {"code": "NOR"})
    assert statuses == [403, 403, 403, 403]
    assert response.context["adminform"].form.non_field_errors() == [FINAL.format("delegations")]
    assert (_delegations(), list(Appeal.objects.values_list("pk", "state", "outcome"))) == before
    assertContains(client.get(_url(Delegation, "change", est.pk)), FINAL.format("delegations"))


def test_the_appeal_list_runs_the_same_queries_for_few_appeals_or_many(
    client, appealed, organizer, django_assert_max_num_queries
):
    client.force_login(organizer)
    with django_assert_max_num_queries(12) as few:
        client.get(_url(Appeal, "changelist"))
    contest = appealed["contest"]
    orca = appealed["papers"]["Team Orca"]
    for number in (1, 2):
        Appeal.objects.filter(paper=orca, problem__number=number).exclude(state="withdrawn").update(
            state="withdrawn", outcome=""
        )
    for _ in range(20):
        for problem in contest.problems.all():
            Appeal.objects.create(
                paper=orca,
                problem=problem,
                filed_by=Appeal.objects.first().filed_by,
                argument="Again.",
                state="withdrawn",
            )
    with django_assert_max_num_queries(len(few)):
        response = client.get(_url(Appeal, "changelist"))
    assert response.context["cl"].result_count == 45
