"""The contest's progress page, as the organizer and the chair: per problem and per juror,
cells graded, sheets submitted, discrepancies open and resolved, and the idle drafts."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertInHTML

from grading.marking.marks import mark_set
from grading.models import Mark, MarkEvent
from grading.resolution.progress import contest_progress
from grading.rules import roles
from tests.factories import assign, make_contest, make_user
from tests.grading import scenario


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _row(tally) -> tuple[int, int, int, int, int, int]:
    return (tally.graded, tally.cells, tally.submitted, tally.sheets, tally.open, tally.resolved)


def test_progress_counts_per_problem_and_per_juror(db):
    graded = scenario.build()
    # Problem 1's three sheets and problem 2's two are submitted; two P1 cells are open and
    # one P2 cell agreed within tolerance (not a discrepancy).
    progress = contest_progress(graded["contest"])
    assert {number: _row(tally) for number, tally in progress.problems.items()} == {
        1: (18, 18, 3, 3, 2, 0),
        2: (12, 12, 2, 2, 0, 0),
    }
    scenario.resolve(graded)
    progress = contest_progress(graded["contest"])
    assert {number: _row(tally) for number, tally in progress.problems.items()} == {
        1: (18, 18, 3, 3, 0, 2),
        2: (12, 12, 2, 2, 0, 0),
    }
    assert {name: _row(tally) for name, tally in progress.jurors.items()} == {
        "alice": (6, 6, 1, 1, 0, 2),
        "bob": (6, 6, 1, 1, 0, 2),
        "charlie": (6, 6, 1, 1, 0, 0),
        "dan": (6, 6, 1, 1, 0, 2),
        "erin": (6, 6, 1, 1, 0, 0),
    }


def test_drafts_with_marks_untouched_for_an_hour_are_named(db, chair):
    alice, bob, carl = (make_user(name, roles.JUROR) for name in ("alice", "bob", "carl"))
    contest = make_contest("iol", problems=1, papers=2)
    assign(contest, [alice, bob, carl])
    now = timezone.now()
    User.objects.update(last_login=now - timedelta(hours=2))
    for juror, minutes_ago in ((alice, 90), (bob, 20)):
        mark = Mark.objects.filter(sheet__juror=juror).order_by("pk").first()
        mark_set(mark=mark, points=Decimal("1"), actor=juror, channel="browser")
        MarkEvent.objects.filter(mark=mark).update(created_at=now - timedelta(minutes=minutes_ago))
    progress = contest_progress(contest, now=now)
    # alice last changed a mark an hour and a half ago; bob is at work; carl has not begun.
    assert [(s.username, s.last_change) for s in progress.idle] == [
        ("alice", now - timedelta(minutes=90)),
    ]
    html = _client(chair).get(reverse("console:progress", args=["iol"])).content.decode()
    idle = html.split('<section id="idle">')[1].split("</section>")[0]
    assert re.findall(r"<li>(.*?)</li>", idle) == [
        "<strong>alice</strong>, P1: last change 1\xa0hour, 30\xa0minutes ago, 1 of 4 cells graded"
    ]


def test_jurors_not_signed_in_and_drafts_not_started_are_told_apart_from_idle_ones(db, chair):
    """Right after grading opens nothing has changed for an hour: who cannot get in and who has
    not begun are two lists of their own, not "untouched for 60 minutes"."""
    names = ("alice", "bob", "carl", "dora")
    alice, bob, carl, dora = (make_user(name, roles.JUROR) for name in names)
    contest = make_contest("iol", problems=2, papers=2)
    assign(contest, [alice, bob, carl, dora])
    now = timezone.now()
    User.objects.filter(username__in=["alice", "bob", "carl"]).update(last_login=now)
    for juror, minutes_ago in ((alice, 90), (bob, 5)):
        mark = Mark.objects.filter(sheet__juror=juror, sheet__problem__number=1).first()
        mark_set(mark=mark, points=Decimal("1"), actor=juror, channel="browser")
        MarkEvent.objects.filter(mark=mark).update(created_at=now - timedelta(minutes=minutes_ago))
    progress = contest_progress(contest, now=now)
    assert {
        name: [s.problem_number for s in sheets] for name, sheets in progress.not_signed_in.items()
    } == {"dora": [1, 2]}
    assert [(s.username, s.problem_number) for s in progress.not_started] == [
        ("alice", 2),
        ("bob", 2),
        ("carl", 1),
        ("carl", 2),
    ]
    assert [(s.username, s.problem_number) for s in progress.idle] == [("alice", 1)]

    html = _client(chair).get(reverse("console:progress", args=["iol"])).content.decode()
    sections = {
        name: re.findall(
            r"<li>(.*?)</li>", html.split(f'<section id="{name}">')[1].split("</section>")[0]
        )
        for name in ("not-signed-in", "not-started", "idle")
    }
    assert sections == {
        "not-signed-in": ["<strong>dora</strong>: P1, P2"],
        "not-started": [
            "<strong>alice</strong>, P2: no mark yet of 4 cells",
            "<strong>bob</strong>, P2: no mark yet of 4 cells",
            "<strong>carl</strong>, P1: no mark yet of 4 cells",
            "<strong>carl</strong>, P2: no mark yet of 4 cells",
        ],
        "idle": [
            "<strong>alice</strong>, P1: last change 1\xa0hour, 30\xa0minutes ago, 1 of 4 cells graded"
        ],
    }
    dora_row = html.split('<tr id="juror-dora">')[1].split("</tr>")[0]
    assert dora_row.endswith("<td>P1 draft (not signed in); P2 draft (not signed in)</td>")


def test_the_organizer_and_the_chair_see_it_jurors_do_not(db, organizer):
    graded = scenario.build()
    chair = graded["chair"]
    url = reverse("console:progress", args=["iol"])
    for user in (organizer, chair):
        response = _client(user).get(url)
        assert response.status_code == 200
        assert '<tr id="problem-1"><th scope="row">P1</th><td class="num">18 of 18' in (
            response.content.decode()
        )
    assert _client(graded["users"]["alice"]).get(url).status_code == 404
    home = _client(chair).get(reverse("home")).content.decode()
    assertInHTML(f'<a href="{url}">Progress</a>', home)


def _contest_of(papers: int, jurors: int):
    users = [make_user(f"j{papers}-{index}", roles.JUROR) for index in range(jurors)]
    contest = make_contest(f"q{papers}", problems=2, papers=papers)
    assign(contest, users)
    for user in users:
        mark = Mark.objects.filter(sheet__juror=user).order_by("pk").first()
        mark_set(mark=mark, points=Decimal("1"), actor=user, channel="browser")
    return contest


@pytest.mark.parametrize("papers,jurors", [(2, 2), (25, 6)])
def test_the_progress_page_runs_a_fixed_number_of_queries(db, organizer, papers, jurors):
    contest = _contest_of(papers, jurors)
    client = _client(organizer)
    url = reverse("console:progress", args=[contest.slug])
    client.get(url)  # sessions and caches warmed
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    # One of them for the jurors past their capacity, one for the jurors' countries (the marks
    # that count: `grading.rules.counting`).
    assert len(queries) == 18
    with CaptureQueriesContext(connection) as queries:
        contest_progress(contest)
    assert len(queries) == 12
