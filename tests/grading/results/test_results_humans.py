"""Human contestants' papers in the results: ranked and given medals by the jury's own totals
(imported totals stand in for contestants whose paper the jury does not grade), and the kind of
each paper (AI system or human contestant) on the page and in the exports only for those who may
see identities."""

import io
from decimal import Decimal

import pandas as pd
import pytest
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from grading.console.contest_life import contest_finalize, contest_resolution_open
from grading.intake.importers.human_scores import human_scores_import
from grading.resolution.comparison import contest_results
from grading.rules import roles
from tests.factories import make_user
from tests.grading import humans_scenario, scenario

D = Decimal

SYSTEMS = {
    "Team Walrus": ((12, 8), (0, 0)),  # 20 → 50
    "Team Xerus": ((12, 8), (12, 8)),  # 40 → 100
}
HUMANS = {
    "H-101": ((12, 4), (12, 0)),  # 28 → 70
    "H-102": ((0, 0), (12, 4)),  # 16 → 40
}
# H-101's imported 100 gives way to the jury's 70; c9, whose paper the jury does not grade,
# counts with the imported 60.
IMPORTED = "contestant,p1,p2\nH-101,20,20\nc9,12,12\n"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture
def contest(db):
    contest = humans_scenario.build("mixed", systems=SYSTEMS, humans=HUMANS)
    human_scores_import(contest=contest, text=IMPORTED)
    return contest


def _finalize(contest, chair):
    contest_resolution_open(contest=contest, actor=chair)
    contest_finalize(contest=contest, actor=chair)
    contest.refresh_from_db()


def test_humans_are_ranked_and_given_medals_by_the_jurys_totals(contest):
    results = contest_results(contest, identities=True)
    # The human population: jury totals 70 and 40, and c9's imported 60.
    assert [
        (paper.identity, paper.kind, paper.total, paper.medal, paper.rank, paper.percentile)
        for paper in results.papers
    ] == [
        ("Team Xerus", "AI system", D("100.00"), "gold", 1, D("100.0")),
        ("H-101", "Human contestant", D("70.00"), "gold", 1, D("66.7")),
        ("Team Walrus", "AI system", D("50.00"), "honourable mention", 3, D("33.3")),
        ("H-102", "Human contestant", D("40.00"), "honourable mention", 3, D("0.0")),
    ]
    assert results.human_count == 3
    assert results.imported_human_totals == [D("60.00")]


def _kind_cells(html: str) -> list[str]:
    return [cell.split("</td>", 1)[0] for cell in html.split('<td class="kind">')[1:]]


def test_the_organizer_sees_each_papers_kind_and_the_chair_only_once_final(
    client, contest, organizer
):
    chair = make_user("chen", roles.CHAIR)
    url = reverse("results", args=[contest.slug])
    client.force_login(organizer)
    organizer_html = client.get(url).content.decode()
    client.force_login(chair)
    chair_before = client.get(url).content.decode()
    _finalize(contest, chair)
    chair_after = client.get(url).content.decode()
    kinds = ["AI system", "Human contestant", "AI system", "Human contestant"]
    assert (_kind_cells(organizer_html), _kind_cells(chair_before), _kind_cells(chair_after)) == (
        kinds,
        [],
        kinds,
    )
    assertInHTML("<th>Kind</th>", chair_before, count=0)
    assert "Human contestant" not in chair_before
    assert [code for code in HUMANS if code in chair_before] == []


def test_a_juror_gets_no_results_page(client, contest):
    juror = make_user("jo", roles.JUROR)
    client.force_login(juror)
    response = client.get(reverse("results", args=[contest.slug]))
    assert (response.status_code, "Human contestant" in response.content.decode()) == (404, False)


@pytest.mark.parametrize("table", ["wide", "long"])
def test_the_exports_have_a_kind_column_only_with_identities(client, contest, organizer, table):
    chair = make_user("chen", roles.CHAIR)
    url = reverse("results_export", args=[contest.slug, "csv"])
    query = {"table": "long"} if table == "long" else {}
    client.force_login(organizer)
    before = pd.read_csv(io.BytesIO(client.get(url, query).content), keep_default_na=False)
    _finalize(contest, chair)
    client.force_login(chair)
    after = pd.read_csv(io.BytesIO(client.get(url, query).content), keep_default_na=False)
    assert ("kind" in before.columns, list(after.columns[:3])) == (
        False,
        ["paper", "identity", "kind"],
    )
    kinds = dict(zip(after["identity"], after["kind"], strict=True))
    assert kinds == {
        "Team Xerus": "AI system",
        "H-101": "Human contestant",
        "Team Walrus": "AI system",
        "H-102": "Human contestant",
    }


def test_the_page_says_how_many_humans_the_rank_counts_by_jury_and_by_imported_totals(
    client, contest
):
    client.force_login(make_user("chen", roles.CHAIR))
    html = client.get(reverse("results", args=[contest.slug])).content.decode()
    assert (
        'Equivalent rank among 3 human contestants (<span id="rank-basis">2 by the jury\'s '
        "totals, 1 by imported totals</span>)."
    ) in html
