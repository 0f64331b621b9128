"""Who gets what from the foundation's pages: anonymous, juror of the group, juror of another
group, the chair and the organizer."""

import pytest
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from grading.models import PaperLabel
from tests.crawl import crawl, response_text
from tests.factories import PASSWORD


def _label(contest, number: int) -> str:
    return PaperLabel.objects.filter(problem__contest=contest, problem__number=number).first().label


def _client_for(client, user):
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("who", "expected"),
    [
        (None, {"home": 302, "p1": 302, "p2": 302, "admin": 302, "login": 200}),
        ("juror", {"home": 200, "p1": 200, "p2": 404, "admin": 302, "login": 200}),
        ("outside_juror", {"home": 200, "p1": 404, "p2": 200, "admin": 302, "login": 200}),
        ("chair", {"home": 200, "p1": 200, "p2": 200, "admin": 200, "login": 200}),
        ("organizer", {"home": 200, "p1": 200, "p2": 200, "admin": 200, "login": 200}),
    ],
)
def test_each_role_gets_the_expected_status_from_every_page(
    request, client, contest, who, expected
):
    user = request.getfixturevalue(who) if who else None
    _client_for(client, user)
    urls = {
        "home": reverse("home"),
        "p1": reverse("paper_detail", args=[contest.slug, 1, _label(contest, 1)]),
        "p2": reverse("paper_detail", args=[contest.slug, 2, _label(contest, 2)]),
        "admin": reverse("admin:index"),
        "login": reverse("login"),
    }
    assert {name: client.get(url).status_code for name, url in urls.items()} == expected


def test_anonymous_visitor_is_sent_to_log_in_with_the_page_to_return_to(client, contest):
    url = reverse("paper_detail", args=[contest.slug, 1, _label(contest, 1)])
    response = client.get(url)
    assert response["Location"] == f"{reverse('login')}?next={url}"


def test_a_label_that_does_not_exist_is_404_like_a_paper_outside_the_assignment(
    client, contest, juror
):
    client.force_login(juror)
    assert client.get(reverse("paper_detail", args=[contest.slug, 1, "ZZZZ"])).status_code == 404


def test_log_in_with_the_form_leads_home(client, contest, juror):
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert (response.status_code, response["Location"]) == (302, reverse("home"))


def test_juror_paper_page_shows_answers_beside_references_and_sanitized_explanation(
    client, contest, juror
):
    solution = contest.papers.first().solutions.get(task__problem__number=1)
    solution.explanation = (
        "| rule | form |\n|---|---|\n| plural | *-ri* |\n\n<script>alert(1)</script>"
    )
    solution.answers = ["the dog sleeps", ""]
    solution.parse_notes = ["1 answer for 2 items: padded with 1 empty answer."]
    solution.save()
    label = solution.paper.labels.get(problem__number=1).label
    client.force_login(juror)
    html = client.get(reverse("paper_detail", args=[contest.slug, 1, label])).content.decode()
    assert "<td>plural</td>\n<td><em>-ri</em></td>" in html
    assert "<script>alert(1)</script>" not in html
    assertInHTML('<em class="empty">(empty)</em>', html)
    assert "water / the water" in html
    assert "padded with 1 empty answer." in html


def test_organizer_sees_the_identity_on_the_paper_page_and_the_juror_does_not(
    client, contest, juror, organizer
):
    paper = contest.papers.get(identity="Team Orca")
    url = reverse("paper_detail", args=[contest.slug, 1, paper.labels.get(problem__number=1).label])
    client.force_login(organizer)
    assert "Team Orca" in client.get(url).content.decode()
    client.force_login(juror)
    assert "Team Orca" not in client.get(url).content.decode()


@pytest.mark.parametrize("who", ["juror", "other_juror", "outside_juror"])
def test_no_identity_is_reachable_by_a_juror(request, client, contest, who):
    client.force_login(request.getfixturevalue(who))
    pages = crawl(client)
    assert len(pages) >= 4  # home, and the papers of the juror's problem
    identities = ["Team Orca", "Team Heron", "Team Lynx"]
    leaks = {
        url: [name for name in identities if name in response_text(response)]
        for url, response in pages.items()
    }
    assert {url: found for url, found in leaks.items() if found} == {}
    assert {response.status_code for response in pages.values()} == {200}


def test_home_lists_only_the_juror_s_own_progress(client, contest, juror, other_juror):
    from decimal import Decimal

    from grading.marking.marks import mark_set
    from grading.models import Mark

    for mark in Mark.objects.filter(sheet__juror=other_juror, criterion__code="T1"):
        mark_set(mark=mark, points=Decimal("7.5"), actor=other_juror, channel="browser")
    client.force_login(juror)
    html = client.get(reverse("home")).content.decode()
    assert "0 of 6 cells graded" in html
    client.force_login(other_juror)
    assert "3 of 6 cells graded" in client.get(reverse("home")).content.decode()


def test_home_query_count_does_not_grow_with_papers(client, db):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests import factories

    juror = factories.make_user("zed", "juror")
    organizer = factories.make_user("oz", "organizer")
    counts = []
    for size, slug in ((5, "small"), (60, "large")):
        contest = factories.make_contest(slug, papers=size)
        factories.assign(contest, [juror])
        for user in (juror, organizer):
            client.force_login(user)
            with CaptureQueriesContext(connection) as queries:
                assert client.get(reverse("home")).status_code == 200
            counts.append(len(queries))
    assert counts[:2] == counts[2:]
