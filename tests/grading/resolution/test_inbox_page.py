"""The inbox page, the unread count in the header, marking read, the chair's request to revise,
and the change stamps the live pages poll."""

import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from grading.console.contest_life import contest_resolution_open
from grading.models import Comment, Mark, Notification
from grading.resolution.decisions import comment_add, discrepancy_decide, mark_revise
from grading.rules import roles
from tests.crawl import refetched, shared_data
from tests.factories import assign, make_contest, make_user
from tests.grading import scenario
from tests.grading.scenario import label

Kind = Notification.Kind


@pytest.fixture(scope="module")
def entered_once(django_db_setup, django_db_blocker, pdf_cache):
    """scenario.build(submit_sheets=False), built once for the module; each test runs in a
    savepoint of it (tests/crawl.py). Its names are scenario.build's, fixed: the tests of
    drafts take it rather than build another beside it."""
    with shared_data(django_db_blocker, pdf_cache):
        yield scenario.build(submit_sheets=False)


@pytest.fixture
def entered(entered_once, db):
    return refetched(entered_once)


@pytest.fixture
def graded(entered):
    """scenario.build(): the module's scenario with its sheets submitted in this test."""
    return scenario.submit_all(entered)


def _cell(graded, identity="Team Orca", code="T1", number=1):
    return graded["papers"][identity], graded["problems"][number].criteria.get(code=code)


def _discussion(graded, identity="Team Orca", code="T1", number=1) -> str:
    return reverse(
        "discussion", args=[graded["contest"].slug, number, label(graded, identity, number), code]
    )


def _links(html: str) -> list[tuple[str, str]]:
    """(href, text) of each notification's link, in page order, across the groups."""
    blocks = [part.split("</ul>")[0] for part in html.split('class="notifications"')[1:]]
    return [
        link for block in blocks for link in re.findall(r'<a href="([^"]+)">([^<]+)</a>', block)
    ]


def _header_count(html: str) -> str | None:
    found = re.search(
        r'id="inbox-link"[^>]*>Inbox(?: <span class="count"[^>]*>(\d+)</span>)?', html
    )
    return found.group(1)


def test_the_inbox_lists_the_readers_notifications_newest_first_with_their_pages(client, graded):
    alice = graded["users"]["alice"]
    scenario.open_resolution(graded)
    paper, criterion = _cell(graded)
    comment_add(paper=paper, criterion=criterion, author=graded["users"]["bob"], text="Hmm.")
    discrepancy_decide(
        paper=paper,
        criterion=criterion,
        points=Decimal("7"),
        reason="Rule 2.",
        actor=graded["chair"],
    )
    client.force_login(alice)
    html = client.get(reverse("inbox")).content.decode()
    cell = f"P1 paper {label(graded, 'Team Orca', 1)}, criterion T1"
    assert _links(html) == [
        (_discussion(graded), f"The chair decided {cell}: 7 points."),
        (_discussion(graded), f"bob commented on {cell}."),
        (
            reverse("home"),
            "The resolution phase of Contest iol is open: you may revise your submitted marks "
            "and discuss the open cells.",
        ),
    ]
    assert _header_count(html) == "3"


def test_a_juror_still_drafting_is_sent_to_their_sheet(client, entered):
    graded = entered
    for name in ("alice", "bob"):
        scenario.submit(graded["users"][name], graded["problems"][1])
    paper, criterion = _cell(graded)
    discrepancy_decide(
        paper=paper,
        criterion=criterion,
        points=Decimal("7"),
        reason="Rule 2.",
        actor=graded["chair"],
    )
    client.force_login(graded["users"]["dan"])
    html = client.get(reverse("inbox")).content.decode()
    assert [href for href, _ in _links(html)] == [reverse("sheet", args=["iol", 1])]


def test_marking_read_is_one_post_and_empties_the_count(client, graded):
    paper, criterion = _cell(graded)
    comment_add(paper=paper, criterion=criterion, author=graded["chair"], text="Why?")
    alice = graded["users"]["alice"]
    client.force_login(alice)
    # Reading the page marks nothing: the crawl and the live refresh read it too.
    assert _header_count(client.get(reverse("inbox")).content.decode()) == "1"
    assert _header_count(client.get(reverse("home")).content.decode()) == "1"
    response = client.post(reverse("inbox_read"))
    assert response.status_code == 302
    assert _header_count(client.get(response["Location"]).content.decode()) is None
    # Only her own.
    assert sorted(
        Notification.objects.filter(read_at__isnull=True).values_list(
            "recipient__username", flat=True
        )
    ) == ["bob", "dan"]


def test_a_juror_in_resolution_sees_their_own_open_cells_and_not_the_others_marks(client, graded):
    scenario.open_resolution(graded)
    client.force_login(graded["users"]["dan"])
    html = client.get(reverse("inbox")).content.decode()
    section = html.split('id="open-cells"')[1].split("</section>")[0]
    # Orca's P1 T1 is the scenario's open cell where dan gave 6 (alice and bob 8); Heron's A1
    # (8, 9, 8) is open too.
    assert re.findall(r'<a href="([^"]+)">([^<]+)</a>', section) == sorted(
        [
            (
                _discussion(graded, "Team Heron", "A1"),
                f"P1 paper {label(graded, 'Team Heron', 1)}, criterion A1",
            ),
            (
                _discussion(graded, "Team Orca", "T1"),
                f"P1 paper {label(graded, 'Team Orca', 1)}, criterion T1",
            ),
        ],
        key=lambda link: link[1],
    )
    assert re.findall(r"your mark ([\d.]+)", section) == [
        "8" if "Heron" in first else "6"
        for first in sorted(["Heron", "Orca"], key=lambda name: label(graded, f"Team {name}", 1))
    ]
    # Once the chair decides the cell, it needs dan no more.
    paper, criterion = _cell(graded)
    discrepancy_decide(
        paper=paper,
        criterion=criterion,
        points=Decimal("7"),
        reason="Rule 2.",
        actor=graded["chair"],
    )
    html = client.get(reverse("inbox")).content.decode()
    section = html.split('id="open-cells"')[1].split("</section>")[0]
    assert "criterion T1" not in section and "criterion A1" in section


def test_before_the_resolution_phase_no_cell_is_listed(client, graded):
    client.force_login(graded["users"]["dan"])
    html = client.get(reverse("inbox")).content.decode()
    assert "None of your cells is open." in html


def _many(papers: int, *, chair: str = "chen") -> tuple[User, dict]:
    """A contest of `papers` papers in resolution where alice and bob disagree on every T1,
    with a comment and a decision per paper, all of which reach alice's inbox; `chair` names
    the chair (made beforehand) who decides."""
    alice, bob = make_user(f"alice{papers}", roles.JUROR), make_user(f"bob{papers}", roles.JUROR)
    chair = User.objects.get(username=chair)
    contest = make_contest(f"c{papers}", papers=papers, problems=1)
    assign(contest, [alice, bob])
    problem = contest.problems.get()
    for juror, t1 in ((alice, "2"), (bob, "6")):
        for mark in Mark.objects.filter(sheet__juror=juror).select_related("criterion"):
            scenario_points = t1 if mark.criterion.code == "T1" else "4"
            from grading.marking.marks import mark_set

            mark_set(mark=mark, points=Decimal(scenario_points), actor=juror, channel="browser")
        scenario.submit(juror, problem)
    contest_resolution_open(contest=contest, actor=chair)
    t1 = problem.criteria.get(code="T1")
    for paper in contest.papers.all():
        comment_add(paper=paper, criterion=t1, author=bob, text="Six.")
    for paper in contest.papers.all()[: papers // 2]:
        discrepancy_decide(
            paper=paper, criterion=t1, points=Decimal("4"), reason="Half.", actor=chair
        )
    return alice, {"contest": contest}


# Its people and contests have names of their own: the module's contest may be there already.
def test_the_inbox_runs_the_same_queries_for_3_and_30_papers(client, django_assert_num_queries, db):
    make_user("cleo", roles.CHAIR)
    for papers in (3, 30):
        alice, _ = _many(papers, chair="cleo")
        client.force_login(alice)
        # The notices' groups are one query more than the notices themselves; the juror's
        # conflicts one more (grading.rules.conflicts: her open cells leave out her own
        # delegation's papers), and two for the jurors' and delegations' countries of the marks
        # that count (grading.rules.counting: twice, her own marks and the cells' others).
        with django_assert_num_queries(16):
            response = client.get(reverse("inbox"))
        html = response.content.decode()
        assert len(_links(html)) == 1 + papers + papers // 2
        section = html.split('id="open-cells"')[1].split("</section>")[0]
        assert section.count("<li>") == papers - papers // 2


def test_the_inbox_is_each_persons_own(client, graded):
    paper, criterion = _cell(graded)
    comment_add(paper=paper, criterion=criterion, author=graded["users"]["alice"], text="Hmm.")
    client.force_login(graded["users"]["charlie"])
    html = client.get(reverse("inbox")).content.decode()
    assert "Nothing yet" in html and _header_count(html) is None
    client.logout()
    response = client.get(reverse("inbox"))
    assert response.status_code == 302 and "login" in response["Location"]


def _ask(client, graded, juror="bob", text="See item 2."):
    paper, criterion = _cell(graded)
    url = reverse(
        "discussion_ask_revise", args=["iol", 1, label(graded, "Team Orca", 1), criterion.code]
    )
    return client.post(url, {"juror": juror, "text": text})


def test_the_chair_asks_a_juror_to_revise_from_the_discussion(client, graded):
    scenario.open_resolution(graded)
    client.force_login(graded["chair"])
    html = client.get(_discussion(graded)).content.decode()
    response = _ask(client, graded)
    assert (response.status_code, response["Location"]) == (302, _discussion(graded))
    assert Comment.objects.get().text == "Request to bob to revise their mark: See item 2."
    assert Notification.objects.filter(kind=Kind.REVISE_REQUEST).get().recipient.username == "bob"
    # A juror who is not the cell's is refused with a message; nothing written.
    response = _ask(client, graded, juror="charlie")
    assert response.status_code == 302
    assert Comment.objects.count() == 1
    # The form is on the chair's discussion page, with the cell's jurors to choose from.
    form = html.split('id="ask-revise-form"')[1].split("</form>")[0]
    assert re.findall(r'<option value="([^"]+)"', form) == ["alice", "bob", "dan"]
    client.force_login(graded["users"]["alice"])
    assert 'id="ask-revise-form"' not in client.get(_discussion(graded)).content.decode()


def test_a_live_refresh_between_a_redirect_and_its_page_leaves_the_message_for_the_page(
    client, graded
):
    scenario.open_resolution(graded)
    client.force_login(graded["chair"])
    said = "bob is asked to revise their mark."
    assert _ask(client, graded).status_code == 302
    # The discussion page of another tab polls and fetches itself again meanwhile.
    refreshed = client.get(_discussion(graded), headers={"X-Live-Refresh": "1"})
    shown = client.get(_discussion(graded))
    assert (said in refreshed.content.decode(), said in shown.content.decode()) == (False, True)


def test_only_the_chair_may_ask_for_a_revision(client, graded):
    scenario.open_resolution(graded)
    client.force_login(graded["users"]["alice"])
    assert _ask(client, graded).status_code == 403
    client.force_login(graded["users"]["charlie"])
    assert _ask(client, graded).status_code == 404
    assert Comment.objects.count() == 0


def test_a_stamp_changes_with_a_comment_and_answers_304_while_it_holds(client, graded):
    scenario.open_resolution(graded)
    client.force_login(graded["users"]["alice"])
    urls = {
        "discussion": reverse(
            "discussion_stamp", args=["iol", 1, label(graded, "Team Orca", 1), "T1"]
        ),
        "comparison": reverse("comparison_stamp", args=["iol", 1]),
        "inbox": reverse("inbox_stamp"),
    }
    before = {name: client.get(url) for name, url in urls.items()}
    for name, url in urls.items():
        again = client.get(url, headers={"If-None-Match": before[name]["ETag"]})
        assert (name, again.status_code) == (name, 304)
    paper, criterion = _cell(graded)
    comment_add(paper=paper, criterion=criterion, author=graded["users"]["bob"], text="Hmm.")
    after = {
        name: client.get(url, headers={"If-None-Match": before[name]["ETag"]})
        for name, url in urls.items()
    }
    assert {name: response.status_code for name, response in after.items()} == dict.fromkeys(
        urls, 200
    )
    assert [after[name].content != before[name].content for name in urls] == [True] * 3
    # A comment elsewhere leaves the discussion's stamp alone.
    other, _ = _cell(graded, "Team Lynx")
    comment_add(paper=other, criterion=criterion, author=graded["users"]["bob"], text="Hmm.")
    response = client.get(
        urls["discussion"], headers={"If-None-Match": after["discussion"]["ETag"]}
    )
    assert response.status_code == 304


def test_a_draft_save_does_not_move_a_stamp_but_a_revision_does(client, entered):
    graded = entered
    for name in ("alice", "bob"):
        scenario.submit(graded["users"][name], graded["problems"][1])
    client.force_login(graded["chair"])
    url = reverse("comparison_stamp", args=["iol", 1])
    first = client.get(url).content
    from grading.marking.marks import mark_set

    dan_mark = Mark.objects.filter(sheet__juror=graded["users"]["dan"]).first()
    mark_set(mark=dan_mark, points=Decimal("1"), actor=graded["users"]["dan"], channel="browser")
    assert client.get(url).content == first
    scenario.submit(graded["users"]["dan"], graded["problems"][1])
    second = client.get(url).content
    assert second != first
    scenario.open_resolution(graded)
    bob_mark = Mark.objects.filter(
        sheet__juror=graded["users"]["bob"], criterion__code="T1"
    ).first()
    mark_revise(mark=bob_mark, points=Decimal("1"), actor=graded["users"]["bob"])
    assert client.get(url).content not in (first, second)


def test_stamps_are_refused_as_their_pages_are(client, entered):
    graded = entered
    discussion = reverse("discussion_stamp", args=["iol", 1, label(graded, "Team Orca", 1), "T1"])
    comparison = reverse("comparison_stamp", args=["iol", 1])
    queue = reverse("queue_stamp", args=["iol"])
    statuses = {}
    for name in ("alice", "charlie", "chen"):
        client.force_login(User.objects.get(username=name))
        statuses[name] = [client.get(url).status_code for url in (discussion, comparison, queue)]
    client.logout()
    statuses["anonymous"] = [client.get(url).status_code for url in (discussion, comparison, queue)]
    assert statuses == {
        # Alice is drafting: "submit first", as the pages say; the queue is the chair's.
        "alice": [403, 403, 404],
        "charlie": [404, 404, 404],
        "chen": [200, 200, 200],
        "anonymous": [302, 302, 302],
    }


def test_the_open_cells_box_is_a_jurors_alone(client, graded):
    # The chair, an organizer or a team leader has no marks of their own: no box saying so.
    client.force_login(graded["chair"])
    html = client.get(reverse("inbox")).content.decode()
    assert 'id="open-cells"' not in html and 'id="notifications"' in html
