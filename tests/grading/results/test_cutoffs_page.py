"""The chair's medal cut-offs from the distribution: the proposal for the human contestants'
totals with each cut-off's effect, its shares editable (htmx recomputes the proposal), and its
confirmation, which alone sets the cut-offs; refused when final or when the totals moved; the
chair's and organizers' page only."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains

from grading.models import HumanScore
from rubrics.models import Contest, MedalCutoff
from tests.crawl import refetched, shared_data
from tests.grading import scenario

D = Decimal


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _humans(contest, totals, prefix: str = "H") -> None:
    HumanScore.objects.bulk_create(
        HumanScore(
            contest=contest, contestant=f"{prefix}{n:03d}", problem_points={}, total=D(total)
        )
        for n, total in enumerate(totals)
    )


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """The scenario, resolved (its three AI papers total 85, 57.5 and 22.5; cut-offs gold 70,
    silver 58.4, honourable mention 35.3, no bronze), with twelve human contestants' totals
    95, 90, …, 40. Built once for the module; each test runs in a savepoint of it
    (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        graded = scenario.build()
        scenario.resolve(graded)
        _humans(graded["contest"], range(95, 35, -5))
        yield graded


@pytest.fixture
def graded(graded_once, db):
    return refetched(graded_once)


def _url(name: str, contest="iol") -> str:
    return reverse(name, args=[contest])


def _cutoffs(contest) -> list:
    return list(MedalCutoff.objects.filter(contest=contest).values_list("name", "min_total"))


def _confirmation(**changes) -> dict:
    """The confirmation the default proposal's page posts."""
    form = {
        "share_gold": "8.33",
        "share_silver": "16.67",
        "share_hm": "16.67",
        "cutoff_gold": "95",
        "cutoff_silver": "85",
        "cutoff_hm": "75",
        "confirm": "on",
    }
    return {key: value for key, value in (form | changes).items() if value is not None}


def test_the_chair_sees_the_proposal_for_the_contests_own_medals_with_each_effect(client, graded):
    client.force_login(graded["chair"])
    response = client.get(_url("cutoffs"))

    assert response.status_code == 200
    assert [row.cutoff.medal.key for row in response.context["rows"]] == ["gold", "silver", "hm"]
    assertContains(
        response,
        """<tr id="proposal-silver"><th scope="row">silver</th><td class="num">16.67%</td>
        <td class="num cutoff">≥ 85</td><td class="num">3 <small>(the share asks for 3)</small></td>
        <td class="num">9</td><td class="num">2</td><td class="num">80</td><td class="num">1</td>
        <td>1 contestant has exactly 85; the share is met.</td></tr>""",
        html=True,
    )
    # The AI papers (85, 57.5, 22.5) are placed, not counted: one silver, one mention.
    rows = response.context["rows"]
    assert [(r.cutoff.min_total, r.cutoff.awarded, r.ai_awarded) for r in rows] == [
        (D(95), 1, 0),
        (D(85), 2, 1),
        (D(75), 2, 0),
    ]
    assertContains(response, "totals of the 12 human contestants", html=False)
    assert _cutoffs(graded["contest"]) == [
        ("gold", D("70.00")),
        ("silver", D("58.40")),
        ("honourable mention", D("35.30")),
    ]


def test_the_results_page_leads_to_the_proposal_until_final(client, graded):
    client.force_login(graded["chair"])
    assertContains(
        client.get(_url("results")),
        f'<a href="{_url("cutoffs")}" id="propose-cutoffs">Propose cut-offs from the '
        "distribution</a>",
        html=True,
    )


def test_edited_shares_give_a_new_proposal_and_htmx_gets_the_proposal_alone(client, graded):
    _humans(graded["contest"], [D(90)] * 2, prefix="T")  # two more contestants tied at 90: fourteen
    client.force_login(graded["chair"])
    response = client.get(
        _url("cutoffs"),
        {"share_gold": "10", "share_silver": "10", "share_hm": "30"},
        headers={"HX-Request": "true"},
    )

    assert [t.name for t in response.templates] == ["grading/_cutoffs_proposal.html"]
    rows = response.context["rows"]
    assert [(r.cutoff.min_total, r.cutoff.at_or_above, r.cutoff.rounding) for r in rows] == [
        (D(95), 1, "none"),
        (D(90), 4, "up"),
        (D(75), 7, "none"),
    ]
    assertContains(
        response,
        "<td>3 contestants are tied at 90, all at or above; a cut-off never splits equal "
        "totals, so it rounds up: more contestants than the share's 3 are at or above it.</td>",
        html=True,
    )


@pytest.mark.parametrize(
    ("shares", "errors"),
    [
        (
            {"share_gold": "lots", "share_silver": "0", "share_hm": "10"},
            [
                "The gold share “lots” is not a number.",
                "The silver share must be more than 0% and at most 100%, not 0.",
            ],
        ),
        (
            {"share_gold": "50", "share_silver": "40", "share_hm": "20,5"},
            [
                "The shares add up to 110.5%, more than every contestant; make them add up to "
                "100% at most."
            ],
        ),
    ],
)
def test_shares_that_do_not_fit_are_said_in_sentences_and_nothing_is_proposed(
    client, graded, shares, errors
):
    client.force_login(graded["chair"])
    response = client.get(_url("cutoffs"), shares)
    assert response.status_code == 422
    assert [e for field in response.context["form"].errors.values() for e in field] == errors
    assert response.context["rows"] == []
    assertNotContains(response, 'id="confirm-form"', status_code=422)


def test_confirming_the_proposal_sets_its_cut_offs(client, graded):
    client.force_login(graded["chair"])
    response = client.post(_url("cutoffs_confirm"), _confirmation())

    assert (response.status_code, response["Location"]) == (302, _url("results"))
    assert _cutoffs(graded["contest"]) == [
        ("gold", D("95.00")),
        ("silver", D("85.00")),
        ("honourable mention", D("75.00")),
    ]
    assertContains(
        client.get(response["Location"]),
        "Medal cut-offs set: gold ≥ 95, silver ≥ 85, honourable mention ≥ 75.",
    )


def test_without_the_box_ticked_nothing_is_set_and_the_proposal_asks_again(client, graded):
    before = _cutoffs(graded["contest"])
    client.force_login(graded["chair"])
    response = client.post(_url("cutoffs_confirm"), _confirmation(confirm=None))

    assert response.status_code == 422
    assertContains(
        response,
        '<p class="error" id="confirm-error">Tick the box to confirm that these cut-offs replace '
        "the current ones.</p>",
        html=True,
        status_code=422,
    )
    assert _cutoffs(graded["contest"]) == before


def test_a_proposal_the_totals_no_longer_give_is_refused_as_stale(client, graded):
    before = _cutoffs(graded["contest"])
    client.force_login(graded["chair"])
    response = client.post(_url("cutoffs_confirm"), _confirmation(cutoff_silver="80"))

    assert response.status_code == 302
    assert response["Location"] == (
        _url("cutoffs") + "?share_gold=8.33&share_silver=16.67&share_hm=16.67"
    )
    assertContains(
        client.get(response["Location"]),
        "The contestants&#x27; totals changed since this proposal was shown; look at the new "
        "proposal and confirm it again.",
    )
    assert _cutoffs(graded["contest"]) == before


def test_a_final_contest_shows_the_proposal_but_refuses_to_set_it(client, graded):
    Contest.objects.filter(pk=graded["contest"].pk).update(state=Contest.State.FINAL)
    before = _cutoffs(graded["contest"])
    client.force_login(graded["chair"])
    page = client.get(_url("cutoffs"))
    response = client.post(_url("cutoffs_confirm"), _confirmation())

    assertContains(
        page,
        '<p id="final-note">The contest is final: its medal cut-offs are read-only.</p>',
        html=True,
    )
    assertNotContains(page, 'id="confirm-form"')
    assert response.status_code == 302
    assertContains(
        client.get(response["Location"]),
        "Contest iol is final: its medal cut-offs are read-only.",
    )
    assert _cutoffs(graded["contest"]) == before


def test_an_organizer_may_confirm_too_but_jurors_and_visitors_get_no_page(
    client, graded, organizer
):
    client.force_login(graded["users"]["alice"])
    assert client.get(_url("cutoffs")).status_code == 404
    assert client.post(_url("cutoffs_confirm"), _confirmation()).status_code == 404
    client.logout()
    assert client.get(_url("cutoffs")).status_code == 302
    client.force_login(organizer)
    assert client.post(_url("cutoffs_confirm"), _confirmation()).status_code == 302
    assert _cutoffs(graded["contest"])[0] == ("gold", D("95.00"))


def test_without_human_totals_nothing_is_proposed(client, graded):
    HumanScore.objects.all().delete()
    client.force_login(graded["chair"])
    response = client.get(_url("cutoffs"))
    assertContains(
        response,
        '<p id="no-humans">No human contestant has a total yet: there is nothing to propose '
        "cut-offs from.</p>",
        html=True,
    )


def test_the_proposal_runs_the_same_queries_for_a_dozen_contestants_or_three_hundred(
    client, graded, django_assert_num_queries
):
    client.force_login(graded["chair"])
    client.get(_url("cutoffs"))  # the session and the user, as every later page reads them
    with CaptureQueriesContext(connection) as few:
        client.get(_url("cutoffs"))
    _humans(graded["contest"], [D(n % 100) for n in range(300)], prefix="M")
    with django_assert_num_queries(len(few)):
        response = client.get(_url("cutoffs"))
    assert response.context["humans"] == 312


def test_while_appeals_are_under_way_the_page_warns_before_cut_offs_change_the_medals(
    client, graded
):
    """Finding 11: cut-offs could be set while the leaders may appeal, with no word."""
    client.force_login(graded["chair"])
    contest = graded["contest"]
    assertNotContains(client.get(_url("cutoffs")), 'id="appeals-under-way"')
    deadline = timezone.now() + timedelta(days=1)
    Contest.objects.filter(pk=contest.pk).update(
        state=Contest.State.PROVISIONAL, appeals_deadline=deadline
    )
    warned = client.get(_url("cutoffs"))
    assertContains(warned, 'id="appeals-under-way"')
    assertContains(
        warned,
        "The provisional results are published and the team leaders read their medals from "
        "these cut-offs: they may appeal until",
    )
    assertContains(warned, "Cut-offs set now change the medals while the appeals are under way")
    # The deadline past and no appeal open: nothing is under way any more.
    Contest.objects.filter(pk=contest.pk).update(appeals_deadline=timezone.now())
    assertNotContains(client.get(_url("cutoffs")), 'id="appeals-under-way"')
