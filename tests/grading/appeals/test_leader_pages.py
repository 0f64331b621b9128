"""A team leader's pages: their delegation's contestants with the agreed points, the published
total, rank and medal; one contestant's problem with its pages and the agreed points per
criterion; nothing of another delegation, of an AI paper or of a juror."""

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains

from grading.marking.reconcile import resolution_write
from grading.models import Resolution
from grading.rules import roles
from rubrics.models import Contest
from tests.crawl import refetched, shared_data
from tests.factories import make_user
from tests.grading.appeals import leader_scenario
from tests.grading.scan_pages import add_human_papers


@pytest.fixture(scope="module")
def leaders_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py). Its
    page images go to the run's SCANS_DIR, set for the session already (tests/conftest.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield leader_scenario.build()


@pytest.fixture
def leaders(leaders_once, db):
    return refetched(leaders_once)


@pytest.fixture
def published(leaders):
    leader_scenario.publish(leaders)
    return leaders


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _delegation_url(leaders) -> str:
    return reverse("leader_delegation", args=[leaders.contest.slug])


def _problem_url(leaders, identity: str, number: int = 1) -> str:
    paper = leaders.papers[identity]
    return reverse(
        "leader_contestant_problem", args=[leaders.contest.slug, paper.public_code, number]
    )


def test_a_leader_sees_their_contestants_points_rank_and_medal_once_published(published):
    response = _client(published.mari).get(_delegation_url(published))
    est1 = published.papers["EST-1"]
    assertContains(
        response,
        f'<tr id="contestant-{est1.public_code}"><th scope="row">EST-1</th>'
        f'<td><a href="{_problem_url(published, "EST-1", 1)}" title="EST-1, P1: pages and points per criterion">16</a></td>'
        f'<td><a href="{_problem_url(published, "EST-1", 2)}" title="EST-1, P2: pages and points per criterion">16</a></td>'
        '<td class="total-now">80</td><td>80</td><td>2</td><td>gold</td></tr>',
        html=True,
    )
    assertContains(response, "EST-2")
    assertNotContains(response, "LAT-1")
    assertNotContains(response, "Team Orca")
    assertNotContains(response, "Alice")


def test_before_publication_the_leader_is_told_the_results_are_not_published(leaders):
    response = _client(leaders.mari).get(_delegation_url(leaders))
    assertContains(
        response,
        '<p class="notice" id="not-published">The results of Contest lead are not published '
        "yet. Your contestants' marked papers, points, ranks and medals appear here once the "
        "jury publishes the provisional results.</p>",
        html=True,
    )
    assertNotContains(response, "EST-1")
    problem = _client(leaders.mari).get(_problem_url(leaders, "EST-1"))
    assert problem.status_code == 200
    assertContains(problem, 'id="not-published"')
    assertNotContains(problem, "not agreed yet")


def test_another_delegations_contestant_and_an_ai_paper_are_not_found(published):
    client = _client(published.mari)
    assert client.get(_problem_url(published, "LAT-1")).status_code == 404
    assert client.get(_problem_url(published, "Team Orca")).status_code == 404
    lat = published.papers["LAT-1"]
    image = reverse("leader_scan_page", args=[published.contest.slug, lat.public_code, 1, 1])
    assert client.get(image).status_code == 404


@pytest.mark.parametrize("who", ["juror", "chair", "organizer", "nobody"])
def test_whoever_leads_no_delegation_of_the_contest_gets_a_404(published, who):
    user = {
        "juror": published.juror,
        "chair": make_user("chen-lead", roles.CHAIR),
        "organizer": make_user("olga-lead", roles.ORGANIZER),
        "nobody": make_user("nobody-lead"),
    }[who]
    client = _client(user)
    assert client.get(_delegation_url(published)).status_code == 404
    assert client.get(_problem_url(published, "EST-1")).status_code == 404


def test_the_contestants_problem_shows_the_scheme_the_agreed_points_and_the_pages(published):
    response = _client(published.mari).get(_problem_url(published, "EST-1"))
    assertContains(
        response,
        '<tr id="criterion-A1"><th scope="row">A1</th><td>assignment A1</td><td>—</td>'
        "<td>12</td><td>10</td></tr>",
        html=True,
    )
    assertContains(response, '<td id="problem-points">16</td>', html=True)
    paper = published.papers["EST-1"]
    image = reverse("leader_scan_page", args=[published.contest.slug, paper.public_code, 1, 1])
    assertContains(response, f'src="{image}"')
    assert _client(published.mari).get(image)["Content-Type"] == "image/png"
    # Never a juror's label, name or note.
    for label in paper.labels.values_list("label", flat=True):
        assertNotContains(response, label)
    assertNotContains(response, "Alice")
    assertNotContains(response, "alice-lead")


def test_the_appeal_link_names_the_contestant_and_problem_while_appeals_are_open(published):
    paper = published.papers["EST-1"]
    response = _client(published.mari).get(_problem_url(published, "EST-1", 2))
    url = reverse(
        "appeal_file", kwargs={"contest": "lead", "code": paper.public_code, "problem": 2}
    )
    assertContains(
        response,
        f'<p><a class="appeal" id="appeal-link" href="{url}">Appeal</a> the points of P2 for '
        "EST-1.</p>",
        html=True,
    )
    Contest.objects.filter(pk=published.contest.pk).update(state=Contest.State.FINAL)
    final = _client(published.mari).get(_problem_url(published, "EST-1", 2))
    assertNotContains(final, 'id="appeal-link"')


def test_a_final_contest_shows_the_final_total_rank_and_medal_beside_the_provisional(published):
    Contest.objects.filter(pk=published.contest.pk).update(state=Contest.State.FINAL)
    response = _client(published.mari).get(_delegation_url(published))
    assertContains(response, "The results are final.")
    est2 = published.papers["EST-2"]
    assertContains(
        response,
        f'<tr id="contestant-{est2.public_code}"><th scope="row">EST-2</th>'
        f'<td><a href="{_problem_url(published, "EST-2", 1)}" title="EST-2, P1: pages and points per criterion">10</a></td>'
        f'<td><a href="{_problem_url(published, "EST-2", 2)}" title="EST-2, P2: pages and points per criterion">10</a></td>'
        '<td class="total-now">50</td><td>50</td><td>3</td><td>honourable mention</td>'
        "<td>50</td><td>3</td><td>honourable mention</td></tr>",
        html=True,
    )


def test_the_home_page_shows_a_leader_their_delegation(published):
    response = _client(published.mari).get(reverse("home"))
    assertContains(
        response,
        f'<a class="delegation-link" href="{_delegation_url(published)}">Delegation EST at '
        "Contest lead</a>",
        html=True,
    )
    assertNotContains(response, "Delegation LAT")


@pytest.mark.parametrize("count", [2, 12])
def test_a_contestants_problem_runs_the_same_queries_whatever_the_number_of_contestants(
    published, count, django_assert_num_queries
):
    add_human_papers(published.contest, [f"EST-X{n}" for n in range(count)], pages=3)
    client = _client(published.mari)
    url = _problem_url(published, "EST-1")
    client.get(url)
    with django_assert_num_queries(18):
        client.get(url)


@pytest.mark.parametrize("count", [2, 12])
def test_the_delegation_page_runs_the_same_queries_whatever_the_number_of_contestants(
    published, count, django_assert_num_queries
):
    extra = add_human_papers(published.contest, [f"EST-X{n}" for n in range(count)], pages=1)
    est = published.contest.delegations.get(code="EST")
    for paper in extra:
        paper.delegation = est
        paper.save(update_fields=["delegation"])
    client = _client(published.mari)
    client.get(_delegation_url(published))  # the session and the role, read once
    with django_assert_num_queries(15):
        client.get(_delegation_url(published))


def test_the_delegation_row_adds_up_after_an_appeal_changes_a_problems_points(published):
    """Finding 11: after an appeal decision the problem read the new points while the total
    still read the published one, so the row did not add up; now the total now adds up the
    problems' points (scaled from 40 to 100), and the published total says it has changed."""
    est1 = published.papers["EST-1"]
    criterion = published.contest.problems.get(number=1).criteria.get(code="A1")
    resolution_write(
        paper=est1,
        criterion=criterion,
        kind=Resolution.Kind.APPEAL,
        points=Decimal("12"),
        reason="Appeal 1 on P1: item 2 is right.",
        actor=make_user("chen-lead", roles.CHAIR),
        existing=None,
    )
    response = _client(published.mari).get(_delegation_url(published))
    row = response.context["page"].rows[0]
    assert row.code == "EST-1"
    assert row.problem_points == {1: Decimal("18.00"), 2: Decimal("16.00")}
    assert row.total_now == Decimal("85.00") == (18 + 16) * Decimal("2.5")
    assertContains(
        response,
        '<td class="total-now">85</td><td>80 <small class="changed">(published; an appeal has '
        "changed the points since)</small></td>",
        html=True,
    )
    assertContains(response, "scaled from 40 to 100")
    # The deadline in the reader's time zone, with its name, and one full stop.
    deadline = timezone.localtime(published.contest.appeals_deadline)
    zone = timezone.get_current_timezone_name()
    assertContains(response, f">{deadline:%Y-%m-%d %H:%M}</time> ({zone}).</p>")
    assertNotContains(response, "..")
