"""The contest's life in the console: the checklist of each transition, and each step performed
only after its confirmation; other roles' statuses are in the permission matrix."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.models import Assignment, ContestEvent
from grading.rules import roles
from rubrics.models import Contest, Criterion
from tests.factories import assign, make_contest, make_user
from tests.grading import scenario


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _checks(response, step: str) -> list[tuple[str, bool, bool, str]]:
    transition = response.context["transitions"][step]
    return [(c.sentence, c.met, c.blocks, c.detail) for c in transition.checks]


@pytest.fixture
def setup_contest(db):
    contest = make_contest("iol", problems=2, papers=3)
    contest.state = Contest.State.SETUP
    contest.save(update_fields=["state"])
    return contest


def test_the_checklist_names_a_problem_without_a_scheme_and_unassigned_papers(
    organizer, setup_contest
):
    Criterion.objects.filter(problem__number=2).delete()
    response = _client(organizer).get(reverse("console:life", args=["iol"]))
    assert response.status_code == 200
    assert _checks(response, "grading") == [
        (
            "The problem set is imported and every problem has its grading scheme.",
            False,
            True,
            "Contest iol cannot start grading: P2 has no grading scheme; load the schemes first.",
        ),
        ("The papers are imported (3 papers).", True, False, ""),
        (
            "Every paper is assigned to its jurors in every problem.",
            False,
            False,
            "P1: 3 papers without a juror; P2: 3 papers without a juror",
        ),
    ]
    assert response.context["transitions"]["grading"].ready is False
    # The confirmation page keeps its form closed while a required condition is unmet.
    page = _client(organizer).get(reverse("console:life_step", args=["iol", "grading"]))
    assert b"<fieldset disabled>" in page.content


def test_opening_grading_needs_the_box_ticked_and_is_recorded(organizer, setup_contest):
    client = _client(organizer)
    url = reverse("console:life_step", args=["iol", "grading"])
    refused = client.post(url, {})
    assert (refused.status_code, refused.context["form"].errors["confirm"]) == (
        422,
        ["Tick the box to confirm that you understand what happens."],
    )
    setup_contest.refresh_from_db()
    assert (setup_contest.state, ContestEvent.objects.count()) == ("setup", 0)
    done = client.post(url, {"confirm": "on"})
    assert (done.status_code, done["Location"]) == (302, "/console/contests/iol/life/")
    setup_contest.refresh_from_db()
    assert setup_contest.state == "grading"
    assert list(ContestEvent.objects.values_list("from_state", "to_state", "actor__username")) == [
        ("setup", "grading", "olga")
    ]


def test_a_refusal_of_the_service_shows_its_sentence_on_the_step_page(organizer, setup_contest):
    Criterion.objects.filter(problem__number=1).delete()
    response = _client(organizer).post(
        reverse("console:life_step", args=["iol", "grading"]), {"confirm": "on"}
    )
    assert (response.status_code, response.context["form"].non_field_errors()) == (
        409,
        ["Contest iol cannot start grading: P1 has no grading scheme; load the schemes first."],
    )
    setup_contest.refresh_from_db()
    assert setup_contest.state == "setup"


def test_finalizing_says_what_it_reveals_and_waits_for_every_cell(db):
    graded = scenario.build()
    chair = graded["chair"]
    client = _client(chair)
    url = reverse("console:life_step", args=["iol", "finalize"])
    page = client.get(url)
    html = page.content.decode()
    assert (
        "<strong>Finalizing reveals every paper's identity, which AI system wrote it, to the chair, "
        "and nothing can change afterwards:</strong>" in html
    )
    assert (
        "I understand that the identities will be revealed to the chair and that nothing can "
        "change afterwards." in html
    )
    # Three jurors grade each paper of P1, two of P2: every paper is assigned, counted once.
    assert _checks(page, "grading")[2] == (
        "Every paper is assigned to its jurors in every problem.",
        True,
        False,
        "",
    )
    Assignment.objects.filter(
        paper=graded["papers"]["Team Lynx"], problem=graded["problems"][2]
    ).delete()
    assert _checks(client.get(url), "grading")[2][1:] == (
        False,
        False,
        "P2: 1 paper without a juror",
    )
    assert _checks(page, "finalize") == [
        ("Papers are assigned to jurors.", True, True, ""),
        ("Every assigned juror has submitted a mark in every cell.", True, True, ""),
        (
            "No discrepancy is open.",
            False,
            True,
            "2 discrepancies are still open (P1 T1 of paper "
            f"{scenario.label(graded, 'Team Orca', 1)}, P1 A1 of paper "
            f"{scenario.label(graded, 'Team Heron', 1)})",
        ),
    ]
    # The paper's jurors come back: marks count only while their paper is assigned to them.
    Assignment.objects.bulk_create(
        Assignment(paper=graded["papers"]["Team Lynx"], problem=graded["problems"][2], juror=juror)
        for juror in (graded["users"]["charlie"], graded["users"]["erin"])
    )
    scenario.resolve(graded)
    refused = client.post(url, {})
    assert refused.status_code == 422
    graded["contest"].refresh_from_db()
    assert graded["contest"].state == "resolution"
    done = client.post(url, {"confirm": "on"})
    assert (done.status_code, done["Location"]) == (302, reverse("reveal", args=["iol"]))
    graded["contest"].refresh_from_db()
    assert graded["contest"].state == "final"


def test_the_results_page_leads_to_the_confirmation_instead_of_finalizing(db):
    graded = scenario.build()
    scenario.resolve(graded)
    html = _client(graded["chair"]).get(reverse("results", args=["iol"])).content.decode()
    assert (
        '<form method="get" action="/console/contests/iol/life/finalize/" id="finalize-form">'
        in html
    )


def test_reopening_needs_a_reason_which_stays_on_record(organizer, db):
    graded = scenario.build()
    scenario.finalize(graded)
    client = _client(organizer)
    url = reverse("console:life_step", args=["iol", "reopen"])
    refused = client.post(url, {"confirm": "on", "reason": "  "})
    assert (refused.status_code, refused.context["form"].non_field_errors()) == (
        409,
        ["Give the reason for reopening the contest; it stays on record."],
    )
    done = client.post(url, {"confirm": "on", "reason": "A juror misread rule 3."})
    assert done.status_code == 302
    event = ContestEvent.objects.order_by("-pk").first()
    assert (event.from_state, event.to_state, event.reason) == (
        "final",
        "resolution",
        "A juror misread rule 3.",
    )
    life = client.get(reverse("console:life", args=["iol"])).content.decode()
    assert "Final → Resolution: A juror misread rule 3." in life


def test_each_role_performs_only_its_own_steps(organizer, chair, setup_contest):
    url = reverse("console:life_step", args=["iol", "finalize"])
    assert _client(organizer).post(url, {"confirm": "on"}).status_code == 403
    assert "Only the jury chair can do this." in _client(organizer).get(url).content.decode()
    grading = reverse("console:life_step", args=["iol", "grading"])
    assert _client(chair).post(grading, {"confirm": "on"}).status_code == 403
    juror = make_user("jay", roles.JUROR)
    assert _client(juror).get(reverse("console:life", args=["iol"])).status_code == 404
    assert (
        _client(organizer).get(reverse("console:life_step", args=["iol", "x"])).status_code == 404
    )
    setup_contest.refresh_from_db()
    assert setup_contest.state == "setup"


@pytest.mark.parametrize("papers", [2, 25])
def test_the_life_page_runs_a_fixed_number_of_queries(organizer, papers):
    jurors = [make_user(f"j{papers}-{index}", roles.JUROR) for index in range(3)]
    contest = make_contest(f"q{papers}", problems=2, papers=papers)
    assign(contest, jurors)
    client = _client(organizer)
    url = reverse("console:life", args=[contest.slug])
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    # Blank problems are read with the assignments: one query; whether the contest has
    # delegations (which must see provisional results before finalizing): one more; the jurors'
    # countries for the marks that count (`grading.rules.counting`) one, and the papers graded
    # before a conflict came to light, waiting for the chair, three.
    assert len(queries) == 26
