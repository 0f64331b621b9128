"""A problem's comparison a screenful at a time (`grading.resolution.comparison_screen`): a page
of rows with the whole grid one click away, the "open", "straddling" and "mine" narrowings, the
same queries whatever the number of papers, and nothing of it where every paper fits on one
screen."""

import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.models import Assignment, Mark, PaperLabel, Sheet
from grading.resolution.comparison import problem_comparison
from grading.resolution.comparison_screen import PAGE_SIZE
from grading.rules import roles
from tests.factories import make_user
from tests.grading.results.test_results import _graded_contest

D = Decimal
LARGE = PAGE_SIZE + 10


def _labels(html: str) -> list[str]:
    return re.findall(r'<tr id="paper-([^"]+)"', html)


def _get(client, contest, query: str = "") -> str:
    response = client.get(reverse("comparison", args=[contest.slug, 1]) + query)
    assert response.status_code == 200
    return response.content.decode()


def _world(papers: int) -> dict:
    """`_graded_contest`: every other paper open on T1. Bob marks A1 4 on three papers, which
    puts those papers' totals on both sides of a medal cut-off (20 against 40 of 100); alice is
    no longer assigned the last two papers (her marks there no longer count)."""
    contest = _graded_contest(papers)
    alice, bob = (User.objects.get(username=f"{name}{papers}") for name in ("alice", "bob"))
    ordered = list(contest.papers.order_by("pk"))
    Mark.objects.filter(sheet__juror=bob, paper__in=ordered[0:6:2], criterion__code="A1").update(
        points=D("4")
    )
    Assignment.objects.filter(juror=alice, paper__in=ordered[-2:]).delete()
    problem = contest.problems.get(number=1)
    label = dict(
        PaperLabel.objects.filter(problem=problem).values_list("paper_id", "label")
    ).__getitem__
    return {
        "contest": contest,
        "problem": problem,
        "alice": alice,
        "straddling": sorted(label(paper.pk) for paper in ordered[0:6:2]),
        "alices": sorted(label(paper.pk) for paper in ordered[:-2]),
        "all": sorted(label(paper.pk) for paper in ordered),
    }


@pytest.fixture
def chair(db):
    return make_user("cleo", roles.CHAIR)


def test_where_every_paper_fits_the_comparison_is_the_whole_grid_as_before(chair, client):
    world = _world(5)
    client.force_login(chair)
    html = _get(client, world["contest"])
    assert sorted(_labels(html)) == world["all"]
    assert 'id="comparison-screen"' not in html
    assert "?show=" not in html and "all=1" not in html


def test_a_large_problem_comes_a_screenful_at_a_time_with_the_whole_grid_one_click_away(
    chair, client
):
    world = _world(LARGE)
    client.force_login(chair)
    first = _get(client, world["contest"])
    assert len(_labels(first)) == PAGE_SIZE
    assert f"Papers 1–{PAGE_SIZE} of {LARGE}" in first
    assert f'<a href="?all=1" id="show-all">Show all {LARGE} papers</a>' in first
    second = _get(client, world["contest"], "?page=2")
    assert len(_labels(second)) == LARGE - PAGE_SIZE
    assert _labels(first) + _labels(second) == world["all"]
    everything = _get(client, world["contest"], "?all=1")
    assert _labels(everything) == world["all"]
    # Each view keeps its screen: the totals, a page at a time too.
    totals = _get(client, world["contest"], "?view=totals&page=2")
    assert _labels(totals) == _labels(second)
    assert 'href="?view=totals&amp;all=1"' in totals


def test_the_straddles_of_a_screen_are_those_of_the_whole_grid(chair, client):
    world = _world(LARGE)
    client.force_login(chair)
    flagged = re.compile(
        r'<tr id="paper-([^"]+)"><th scope="row"><a [^>]*>[^<]*</a> <span class="flag straddle"'
    )
    pages = _get(client, world["contest"]) + _get(client, world["contest"], "?page=2")
    assert sorted(flagged.findall(pages)) == world["straddling"]
    assert sorted(flagged.findall(_get(client, world["contest"], "?all=1"))) == world["straddling"]


def test_the_chair_narrows_to_open_and_straddling_papers(chair, client):
    world = _world(LARGE)
    client.force_login(chair)
    data = problem_comparison(world["problem"])
    unsettled = [
        row.label
        for row in data.rows
        if any(not item["cell"].status.is_settled for item in row.cells)
    ]
    assert 0 < len(unsettled) < LARGE
    assert _labels(_get(client, world["contest"], "?show=open")) == unsettled
    straddling = _get(client, world["contest"], "?show=straddling")
    assert _labels(straddling) == world["straddling"]
    assert '<a href="?show=straddling" title="' in straddling
    assert 'aria-current="true">straddling</a>' in straddling
    # The chair grades no paper: no "mine".
    assert "show=mine" not in straddling


def test_a_juror_narrows_to_their_papers_and_is_not_told_the_straddles(chair, client):
    world = _world(LARGE)
    client.force_login(world["alice"])
    html = _get(client, world["contest"], "?show=mine&all=1")
    assert _labels(html) == world["alices"]
    assert 'aria-current="true">mine</a>' in html
    # The straddle is the chair's: no link, and asking for it narrows nothing.
    assert "straddl" not in html
    assert _labels(_get(client, world["contest"], "?show=straddling&all=1")) == world["all"]


def test_a_juror_who_has_not_submitted_sees_no_narrowing_of_the_comparison(chair, client):
    world = _world(LARGE)
    Sheet.objects.filter(juror=world["alice"]).update(state=Sheet.State.DRAFT)
    client.force_login(world["alice"])
    for query in ("?show=open", "?show=mine&all=1", "?page=2"):
        response = client.get(reverse("comparison", args=[world["contest"].slug, 1]) + query)
        assert response.status_code == 403
        assert "paper-" not in response.content.decode()


def test_each_screen_of_the_comparison_runs_the_same_queries_for_5_and_60_papers(chair, client):
    worlds = [_world(papers) for papers in (5, LARGE)]
    queries = ("", "?page=2", "?all=1", "?show=open", "?show=straddling", "?view=totals&page=2")
    counts = []
    for world in worlds:
        client.force_login(chair)
        for query in queries:
            with CaptureQueriesContext(connection) as captured:
                _get(client, world["contest"], query)
            counts.append(len(captured))
        client.force_login(world["alice"])
        with CaptureQueriesContext(connection) as captured:
            _get(client, world["contest"], "?show=mine")
        counts.append(len(captured))
    small, large = counts[: len(counts) // 2], counts[len(counts) // 2 :]
    assert small == large
    # A screenful reads the straddles of its own papers (one query); the whole grid and the
    # straddling papers read every paper's in the problem's read instead.
    assert small[:6] == [16, 16, 15, 16, 15, 16]
