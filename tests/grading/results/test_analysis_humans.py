"""Human contestants' papers beside the AI systems' in the analysis: the AI papers' equivalent
rank among the humans' jury totals (or, without any, the imported totals), the share of humans
and of AI systems meeting each criterion with Spearman's ρ between them, the difficulty chart,
and the page's query count; every figure computed by hand on a small contest."""

import math
import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from grading.intake.importers.human_scores import human_scores_import
from grading.results.analysis import contest_analysis
from grading.results.analysis_selectors import analysis_data
from grading.rules import roles
from tests.factories import make_user
from tests.grading import humans_scenario, scenario
from tests.grading.results.test_analysis import _graded_contest, _page_queries

D = Decimal
SVG = "{http://www.w3.org/2000/svg}"

# (A1 of 12, T1 of 8) in P1 and P2: 40 points scaled to a total out of 100 (×2.5).
HUMANS = {
    "H-101": ((12, 8), (12, 8)),  # 40 → 100
    "H-102": ((12, 4), (12, 0)),  # 28 → 70
    "H-103": ((6, 8), (0, 8)),  # 22 → 55
    "H-104": ((0, 0), (12, 4)),  # 16 → 40
}
SYSTEMS = {
    "Team Walrus": ((12, 8), (0, 0)),  # 20 → 50
    "Team Xerus": ((12, 8), (12, 8)),  # 40 → 100
    "Team Yak": ((0, 0), (0, 4)),  # 4 → 10
}


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _contest(slug: str, *, humans=HUMANS, systems=SYSTEMS, submit_p2: bool = True):
    return humans_scenario.build(slug, systems=systems, humans=humans, submit_p2=submit_p2)


def _analysis(contest, *, identities=True):
    return contest_analysis(analysis_data(contest, identities=identities), identities=identities)


def test_each_ai_paper_is_ranked_among_the_human_contestants_jury_totals(db):
    analysis = _analysis(_contest("mixed"))
    # Human totals 100, 70, 55, 40: 100 ties with the best (rank 1, three below: 75%), 50 has
    # three humans above it (rank 4, one below: 25%), 10 is below every human (rank 5, 0%).
    assert [(row.name, row.rank, row.percentile) for row in analysis.papers] == [
        ("Team Xerus", 1, D("75.0")),
        ("Team Walrus", 4, D("25.0")),
        ("Team Yak", 5, D("0.0")),
    ]
    assert (analysis.rank_basis, analysis.rank_humans, analysis.human_papers) == ("jury", 4, 4)
    # The jury-versus-automatic figures are the AI papers' alone: humans have no automatic score.
    assert analysis.totals.n == 3


def test_without_human_papers_the_rank_falls_back_to_the_imported_human_totals(db):
    contest = _contest("ai-only", humans={})
    human_scores_import(contest=contest, text="contestant,p1,p2\nc1,20,18\nc2,12,12\nc3,4,2\n")
    analysis = _analysis(contest)
    # Imported totals (×2.5) 95, 60, 15: Xerus 100 → 1st (all three below), Walrus 50 → 3rd, Yak 10 → 4th.
    assert [(row.name, row.rank, row.percentile) for row in analysis.papers] == [
        ("Team Xerus", 1, D("100.0")),
        ("Team Walrus", 3, D("33.3")),
        ("Team Yak", 4, D("0.0")),
    ]
    assert (analysis.rank_basis, analysis.rank_humans, analysis.human_papers) == ("imported", 3, 0)


def test_the_shares_of_humans_and_ai_meeting_each_criterion_and_their_spearman_rho(db):
    analysis = _analysis(_contest("shares"))
    got = [
        (
            f"{d.criterion.problem.code}.{d.criterion.code}",
            d.n,
            d.met,
            d.human_n,
            d.human_met,
            d.human,
        )
        for d in analysis.difficulty
    ]
    assert got == [
        ("P1.A1", 3, 2, 4, 2, 0.5),
        ("P1.T1", 3, 2, 4, 2, 0.5),
        ("P2.A1", 3, 1, 4, 3, 0.75),
        ("P2.T1", 3, 1, 4, 2, 0.5),
    ]
    # Human shares rank 2, 2, 4, 2 (centred −½, −½, 3/2, −½); AI shares 2/3, 2/3, 1/3, 1/3
    # rank 3.5, 3.5, 1.5, 1.5 (centred 1, 1, −1, −1): Σxy = −2, Σx² = 3, Σy² = 4, ρ = −1/√3.
    assert analysis.difficulty_spearman == pytest.approx(-1 / math.sqrt(3), abs=1e-12)
    # t = ρ√((n − 2)/(1 − ρ²)) = −1 on 2 degrees of freedom: p = 2·P(T > 1) = 1 − 1/√3.
    assert analysis.difficulty_p == pytest.approx(1 - 1 / math.sqrt(3), abs=1e-12)
    assert (analysis.difficulty_pairs, analysis.difficulty_basis) == (4, "jury")


def test_cells_waiting_for_a_mark_do_not_count_as_met_or_not_met(db):
    analysis = _analysis(_contest("pending", submit_p2=False))
    got = [(d.n, d.met, d.human_n, d.human_met) for d in analysis.difficulty]
    assert got == [(3, 2, 4, 2), (3, 2, 4, 2), (0, 0, 0, 0), (0, 0, 0, 0)]
    # Two criteria with both shares: too few for ρ.
    assert (analysis.difficulty_spearman, analysis.difficulty_p) == (None, None)
    assert analysis.difficulty_pairs == 2


def test_the_page_says_what_met_means_and_gives_rho_n_and_p(client, db):
    contest = _contest("page")
    client.force_login(make_user("chen", roles.CHAIR))
    html = client.get(reverse("analysis", args=[contest.slug])).content.decode()
    assert "<em>meets</em> a criterion when the criterion's settled value" in html
    assertInHTML('<span id="difficulty-n">4</span>', html)
    assertInHTML('<strong id="difficulty-spearman">-0.58</strong>', html)
    assertInHTML('<span id="difficulty-p">0.423</span>', html)
    assert "The 4 human contestants' papers graded by the jury have no automatic score" in html
    ranks = [
        html.split(f'<tr id="paper-{index}">', 1)[1].split("</tr>", 1)[0] for index in (1, 2, 3)
    ]
    assert [row.split('<td class="num rank">', 1)[1].split("<", 1)[0] for row in ranks] == [
        "1",
        "4",
        "5",
    ]
    # Before the contest is final the chair sees no contestant code nor system name.
    assert [name for name in [*HUMANS, *SYSTEMS] if name in html] == []


def test_the_difficulty_chart_has_one_point_per_criterion_humans_across_ai_up(client, db):
    contest = _contest("chart")
    client.force_login(make_user("chen", roles.CHAIR))
    response = client.get(reverse("analysis_chart", args=[contest.slug, "difficulty"]))
    root = ET.fromstring(response.content)
    groups = [g for g in root.iter(f"{SVG}g") if g.get("id") == "criteria"]
    assert [len(list(group.iter(f"{SVG}use"))) for group in groups] == [4]
    texts = {t.text.strip() for t in root.iter(f"{SVG}text") if t.text and t.text.strip()}
    assert {
        "Human contestants meeting it in full (%)",
        "AI papers meeting it in full (%)",
    } <= texts


def test_the_page_runs_as_many_queries_for_200_mixed_papers_as_for_4(client, db):
    jurors = [make_user("alice", roles.JUROR), make_user("bob", roles.JUROR)]
    _graded_contest("small", 4, jurors, humans=2)
    _graded_contest("large", 200, jurors, humans=100)
    client.force_login(make_user("chen", roles.CHAIR))
    client.get(reverse("home"))
    small, large = _page_queries(client, "small"), _page_queries(client, "large")
    assert (small, large) == (small, small)
    assert small <= 25
