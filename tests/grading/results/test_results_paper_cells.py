"""The results page lists each paper's totals and leaves its per-criterion cells to a small view
of their own, loaded when a row is opened: the page no longer renders every paper's cells."""

import re

import pytest
from django.urls import reverse

from grading.resolution.comparison import contest_results
from grading.rules import roles
from grading.rules.domain import points_text as pts
from tests.crawl import refetched, shared_data
from tests.factories import make_user
from tests.grading import scenario


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield scenario.build()


@pytest.fixture
def graded(graded_once, db):
    return refetched(graded_once)


def test_the_results_page_renders_no_cell_lists_but_links_each_paper_to_its_cells(graded, client):
    client.force_login(graded["chair"])
    page = client.get(reverse("results", args=["iol"])).content.decode()
    codes = [paper.public_code for paper in contest_results(graded["contest"]).papers]
    assert page.count('class="criteria"') == 0
    assert re.findall(r'<a href="/contests/iol/results/([A-Z0-9]+)/">', page) == codes
    assert re.findall(r'hx-get="/contests/iol/results/([A-Z0-9]+)/"', page) == codes


def test_a_papers_cells_come_from_their_own_view_as_the_results_count_them(graded, client):
    orca = graded["papers"]["Team Orca"]
    client.force_login(graded["chair"])
    response = client.get(
        reverse("results_paper", args=["iol", orca.public_code]), headers={"HX-Request": "true"}
    )
    result = next(
        paper for paper in contest_results(graded["contest"]).papers if paper.paper_id == orca.pk
    )
    expected = [
        f"{cell.criterion.problem.code} {cell.criterion.code}: {pts(cell.points)} "
        f"{cell.status.label}"
        for cell in result.cells.values()
    ]
    items = re.findall(r"<li>(.*?)</li>", response.content.decode())
    assert [re.sub(r"</?small>", "", item) for item in items] == expected
    # The htmx answer is the list alone, without the site's header.
    assert response.content.decode().lstrip().startswith('<ul class="criteria"')


def test_without_js_a_papers_cells_open_as_a_page_of_their_own(graded, client):
    orca = graded["papers"]["Team Orca"]
    client.force_login(graded["chair"])
    page = client.get(reverse("results_paper", args=["iol", orca.public_code])).content.decode()
    assert re.findall(r"<h1>(.*?)</h1>", page) == [
        f"Paper {orca.public_code} <small>each criterion's points</small>"
    ]
    assert page.count("<li>") == sum(
        problem.criteria.count() for problem in graded["problems"].values()
    )
    assert "Team Orca" not in page


def test_a_papers_cells_are_for_the_results_pages_readers_only(graded, client):
    orca = graded["papers"]["Team Orca"]
    url = reverse("results_paper", args=["iol", orca.public_code])
    organizer = make_user("olga", roles.ORGANIZER)
    statuses = {}
    statuses["anonymous"] = client.get(url).status_code
    for name, user in (
        ("chair", graded["chair"]),
        ("organizer", organizer),
        ("alice", graded["users"]["alice"]),
    ):
        client.force_login(user)
        statuses[name] = client.get(url).status_code
    client.force_login(graded["chair"])
    statuses["unknown code"] = client.get(
        reverse("results_paper", args=["iol", "XXXXX"])
    ).status_code
    assert statuses == {
        "anonymous": 302,
        "chair": 200,
        "organizer": 200,
        "alice": 404,
        "unknown code": 404,
    }
