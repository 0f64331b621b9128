"""A problem's comparison as each reader gets it: the grid, the totals per paper and one
criterion drilled down; chair decisions and pending cells shown as such; jurors who have not
submitted named for the chair only; and the links that lead the chair to every comparison."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from grading.resolution.decisions import discrepancy_decide
from grading.rules import roles
from tests.factories import make_user
from tests.grading import scenario
from tests.grading.results.test_results import _graded_contest, _queries

D = Decimal


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture
def draft_dan(db):
    """The scenario with alice's and bob's P1 sheets submitted and dan's still a draft."""
    graded = scenario.build(submit_sheets=False)
    for name in ("alice", "bob"):
        scenario.submit(graded["users"][name], graded["problems"][1])
    return graded


def _get(client, user, query=None, number=1):
    client.force_login(user)
    response = client.get(reverse("comparison", args=["iol", number]), query or {})
    assert response.status_code == 200
    return response


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def _row(html: str, table: str, label: str) -> str:
    body = html.split(f'id="{table}"', 1)[1]
    row = re.search(rf'<tr id="paper-{label}"[^>]*>(.*?)</tr>', body, re.S)
    return _text(row.group(1))


def test_a_juror_who_has_not_submitted_is_pending_and_named_for_the_chair(draft_dan, client):
    response = _get(client, draft_dan["chair"])
    data = response.context["data"]
    assert [(c.key, c.name, c.submitted) for c in data.juror_columns] == [
        ("J1", "alice", True),
        ("J2", "bob", True),
        ("J3", "dan", False),
    ]
    orca = scenario.label(draft_dan, "Team Orca", 1)
    html = response.content.decode()
    # dan's draft marks (12 and 6) are not shown: his columns say pending, in every cell.
    assert _row(html, "comparison-grid", orca) == f"{orca} 12 12 pending 8 8 pending 20 20 pending"
    # An open cell says so even while a mark is still to come.
    heron = scenario.label(draft_dan, "Team Heron", 1)
    assert _row(html, "comparison-grid", heron) == (
        f"{heron} 8 9 pending open 4 4 pending 12 13 pending"
    )
    assert "J3 dan (not yet submitted)" in _text(html)
    assert (
        "A cell is pending while a juror assigned to the paper has not submitted their sheet"
        in html
    )


def test_a_juror_reader_sees_a_colleague_who_has_not_submitted_as_pending_without_a_name(
    draft_dan, client
):
    response = _get(client, draft_dan["users"]["alice"], {"view": "totals"})
    assert response.context["data"].jurors == ["alice", "bob", "juror not yet submitted"]
    html = response.content.decode()
    assert re.findall(r"\bdan\b", html) == []
    orca = scenario.label(draft_dan, "Team Orca", 1)
    # Totals: alice 20, bob 20, the third pending; nothing settled, both cells pending.
    assert _row(html, "comparison-totals", orca) == f"{orca} 20 20 pending 0 0 of 2 0 0 0 0 2"


def test_the_totals_view_counts_each_papers_cells_and_the_points_settled_so_far(db, client):
    graded = scenario.build()
    discrepancy_decide(
        paper=graded["papers"]["Team Orca"],
        criterion=graded["problems"][1].criteria.get(code="T1"),
        points=D("7"),
        reason="Rule 2 stated, not applied.",
        actor=graded["chair"],
    )
    html = _get(client, graded["chair"], {"view": "totals"}).content.decode()
    orca, heron, lynx = (
        scenario.label(graded, team, 1) for team in ("Team Orca", "Team Heron", "Team Lynx")
    )
    # Columns: alice, bob, dan, settled so far, cells settled, agreed, discussed, chair, open,
    # pending, flags (the chair's only).
    assert [_row(html, "comparison-totals", label) for label in (orca, heron, lynx)] == [
        f"{orca} 20 20 18 19 2 of 2 1 0 1 0 0",
        f"{heron} 12 13 12 4 1 of 2 1 0 0 1 0",
        f"{lynx} 6 6 6 6 2 of 2 2 0 0 0 0",
    ]
    assertInHTML('<th scope="col">Flags</th>', html)


def test_a_chair_decision_is_marked_in_the_grid_with_its_value(db, client):
    graded = scenario.build()
    discrepancy_decide(
        paper=graded["papers"]["Team Orca"],
        criterion=graded["problems"][1].criteria.get(code="T1"),
        points=D("7"),
        reason="Rule 2 stated, not applied.",
        actor=graded["chair"],
    )
    html = _get(client, graded["users"]["alice"]).content.decode()
    orca = scenario.label(graded, "Team Orca", 1)
    assert _row(html, "comparison-grid", orca) == f"{orca} 12 12 12 8 8 6 chair 7 20 20 18"
    assert "decided by the chair (here at 7 points" in _text(html)


def test_one_criterion_drilled_down_lists_each_papers_marks_status_and_discussion(db, client):
    graded = scenario.build()
    discrepancy_decide(
        paper=graded["papers"]["Team Orca"],
        criterion=graded["problems"][1].criteria.get(code="T1"),
        points=D("7"),
        reason="Rule 2 stated, not applied.",
        actor=graded["chair"],
    )
    response = _get(client, graded["chair"], {"criterion": "A1"})
    html = response.content.decode()
    assert response.context["view"] == "criterion"
    assert (response.context["previous_code"], response.context["next_code"]) == ("", "T1")
    orca, heron = (scenario.label(graded, team, 1) for team in ("Team Orca", "Team Heron"))
    assert _row(html, "comparison-criterion", heron) == (
        f"{heron} 8 9 8 open – 0 Read Discuss / decide"
    )
    assert f'href="{reverse("discussion", args=["iol", 1, heron, "A1"])}"' in html
    t1 = _get(client, graded["chair"], {"criterion": "T1"})
    assert (t1.context["previous_code"], t1.context["next_code"]) == ("A1", "")
    assert _row(t1.content.decode(), "comparison-criterion", orca) == (
        f"{orca} 8 8 6 decided by the chair: Rule 2 stated, not applied. 7 chair 0 "
        "Read Open the discussion"
    )


def test_the_straddle_flag_and_the_contest_navigation_are_the_chairs(db, client):
    marks = {
        "Team Close": {
            1: {"alice": ("8", "6"), "bob": ("7.5", "5.5"), "dan": ("8", "6")},
            2: {"charlie": ("10", "4"), "erin": ("10", "4")},
        },
    }
    graded = scenario.build(marks=marks, tolerances={(1, "A1"): "0.5", (1, "T1"): "0.5"})
    nav = 'class="contest-nav"'
    for view in ({}, {"view": "totals"}):
        chair = _get(client, graded["chair"], view).content.decode()
        juror = _get(client, graded["users"]["alice"], view).content.decode()
        assert ("straddles" in chair, nav in chair) == (True, True)
        assert ("straddle" in juror, nav in juror) == (False, False)


def _nav_links(html: str) -> list[str]:
    nav = re.search(r'<nav class="contest-nav".*?</nav>', html, re.S).group(0)
    return re.findall(r'href="([^"]+)"', nav)


def test_the_contest_navigation_leads_to_the_queue_results_every_comparison_bank_and_analysis(
    db, client
):
    graded = scenario.build()
    expected = [
        reverse("chair_queue", args=["iol"]),
        reverse("results", args=["iol"]),
        reverse("comparison", args=["iol", 1]),
        reverse("comparison", args=["iol", 2]),
        # Each problem's comment bank and calibration round.
        reverse("bank", args=["iol", 1]),
        reverse("bank", args=["iol", 2]),
        reverse("calibration", args=["iol", 1]),
        reverse("calibration", args=["iol", 2]),
        reverse("analysis", args=["iol"]),
    ]
    client.force_login(graded["chair"])
    for url in (reverse("comparison", args=["iol", 2]), reverse("results", args=["iol"])):
        assert _nav_links(client.get(url).content.decode()) == expected
    # The organizer has no queue: the same navigation without it.
    client.force_login(make_user("olga", roles.ORGANIZER))
    html = client.get(reverse("results", args=["iol"])).content.decode()
    assert _nav_links(html) == expected[1:]


def test_breadcrumbs_go_home_then_to_the_contest_then_the_page(db, client):
    graded = scenario.build()
    client.force_login(graded["chair"])

    def crumbs(url):
        html = client.get(url).content.decode()
        nav = re.search(r'<nav class="crumbs".*?</nav>', html, re.S).group(0)
        return _text(nav), re.findall(r'href="([^"]+)"', nav)

    home = reverse("home")
    comparison = reverse("comparison", args=["iol", 1])
    assert crumbs(reverse("results", args=["iol"])) == (
        "Home › Contest iol › Results",
        [home, f"{home}#contest-iol"],
    )
    assert crumbs(comparison) == (
        "Home › Contest iol › P1 comparison",
        [home, f"{home}#contest-iol"],
    )
    assert crumbs(comparison + "?criterion=T1") == (
        "Home › Contest iol › P1 comparison › Criterion T1",
        [home, f"{home}#contest-iol", comparison],
    )


def test_the_chairs_home_links_every_problems_comparison(db, client):
    graded = scenario.build()
    client.force_login(graded["chair"])
    html = client.get(reverse("home")).content.decode()
    row = re.search(r'<tr id="contest-iol">.*?</tr>', html, re.S).group(0)
    links = re.search(r'<span class="comparisons">.*?</span>', row, re.S).group(0)
    assert re.findall(r'href="([^"]+)"', links) == [
        reverse("comparison", args=["iol", 1]),
        reverse("comparison", args=["iol", 2]),
    ]


def test_every_view_of_the_comparison_runs_the_same_queries_for_5_and_300_papers(db, client):
    client.force_login(make_user("chen", roles.CHAIR))
    counts = {}
    for papers in (5, 300):
        url = reverse("comparison", args=[f"q{papers}", 1])
        _graded_contest(papers)
        counts[papers] = [
            _queries(client, url + query) for query in ("", "?view=totals", "?criterion=T1")
        ]
    # The totals and the drill-down read what the grid reads: no query per paper or cell.
    assert counts[5] == counts[300] == [counts[5][0]] * 3


def test_the_results_table_heads_each_problems_column_with_a_link_to_its_comparison(db, client):
    graded = scenario.build()
    client.force_login(graded["chair"])
    html = client.get(reverse("results", args=["iol"])).content.decode()
    head = re.search(r'<table class="grid" id="results">\s*<thead>.*?</thead>', html, re.S)
    assert re.findall(r'href="([^"]+)"', head.group(0)) == [
        reverse("comparison", args=["iol", 1]),
        reverse("comparison", args=["iol", 2]),
    ]


def test_a_juror_who_has_not_submitted_is_led_to_their_own_sheet(draft_dan, client):
    client.force_login(draft_dan["users"]["dan"])
    response = client.get(reverse("comparison", args=["iol", 1]))
    html = response.content.decode()
    assert response.status_code == 403
    assert re.search(r'id="own-sheet" href="([^"]+)"', html).group(1) == reverse(
        "sheet", args=["iol", 1]
    )
    assert scenario.label(draft_dan, "Team Orca", 1) not in html
