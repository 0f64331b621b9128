"""The appeals' pages, each tried as its owner, another leader, a juror who marked the paper,
one who did not, a juror who leads the delegation, the chair and an anonymous visitor; with
query-count guards on the lists."""

import re
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains

from grading.appeals.appeals import (
    appeal_ask,
    appeal_comment,
    appeal_decide,
    appeal_file,
    appeal_withdraw,
)
from grading.console.contest_life import contest_finalize
from grading.models import Appeal, AppealEvent, Notification
from tests.crawl import refetched, shared_data
from tests.grading.appeals import provisional


@pytest.fixture(scope="module")
def resolving_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py). Built
    unpublished, as one test needs it so and the scenario's names allow one copy only."""
    with shared_data(django_db_blocker, pdf_cache):
        yield provisional.build(publish=False)


@pytest.fixture
def resolving(resolving_once, db):
    return refetched(resolving_once)


@pytest.fixture
def scenario(resolving):
    """`provisional.build()`: the module's world, published in this test."""
    return provisional.publish_results(resolving)


def _client(scenario, name) -> Client:
    client = Client()
    if name:
        client.force_login(scenario["users"][name])
    return client


def _file_url(scenario, paper="est-1", number=1) -> str:
    return reverse("appeal_file", args=["iol", scenario["papers"][paper].public_code, number])


def _file(scenario, paper="est-1", leader="lena", number=1, codes=("A1", "T1")) -> Appeal:
    return appeal_file(
        paper=scenario["papers"][paper],
        problem=scenario["problems"][number],
        criteria=provisional.criteria(scenario, number, *codes),
        argument="Item 2 is right.",
        actor=scenario["users"][leader],
    )


def test_the_filing_page_shows_the_criteria_with_their_agreed_points(scenario):
    response = _client(scenario, "lena").get(_file_url(scenario))
    assert response.status_code == 200
    assertContains(
        response,
        '<td class="num">10 <small>/ 12</small></td>',
        html=True,
    )
    assertContains(
        response,
        '<input type="checkbox" name="criteria" value="T1" id="criterion-T1">',
        html=True,
    )


@pytest.mark.parametrize("name", ["liam", "alice", "erin", "chen", "olga"])
def test_the_filing_page_is_a_404_for_anyone_who_may_not_appeal_the_paper(scenario, name):
    assert _client(scenario, name).get(_file_url(scenario)).status_code == 404


def test_an_anonymous_visitor_is_sent_to_sign_in(scenario):
    response = _client(scenario, None).get(_file_url(scenario))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_leader_files_through_the_page_and_reads_it_in_their_list(scenario):
    client = _client(scenario, "lena")
    response = client.post(
        _file_url(scenario), {"criteria": ["A1", "T1"], "argument": "The plural is marked."}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("appeals_mine", args=["iol"])
    appeal = Appeal.objects.get()
    page = client.get(response["Location"])
    assertContains(page, '<td class="state">Open</td>', html=True)
    assertContains(
        page,
        f'<form method="post" action="{reverse("appeal_withdraw", args=["iol", appeal.pk])}">'
        f'<input type="hidden" name="csrfmiddlewaretoken" value="{page.context["csrf_token"]}">'
        '<button type="submit">Withdraw</button></form>',
        html=True,
    )
    withdrawn = client.post(reverse("appeal_withdraw", args=["iol", appeal.pk]))
    assert withdrawn.status_code == 302
    appeal.refresh_from_db()
    assert appeal.state == "withdrawn"


def test_a_refused_appeal_is_said_on_the_form_with_the_argument_kept(scenario):
    provisional.deadline_passes(scenario["contest"])
    response = _client(scenario, "lena").post(
        _file_url(scenario), {"criteria": ["A1"], "argument": "Kept as typed."}
    )
    assert response.status_code == 409
    assert response.context["form"].non_field_errors()[0].startswith("The appeals deadline was ")
    assertContains(
        response,
        '<textarea name="argument" id="id_argument" rows="6" cols="70" required>Kept as typed.'
        "</textarea>",
        html=True,
        status_code=409,
    )


def test_a_form_without_criteria_is_refused_with_a_sentence(scenario):
    response = _client(scenario, "lena").post(_file_url(scenario), {"argument": "x"})
    assert response.status_code == 422
    assert response.context["form"].errors["criteria"] == [
        "Tick at least one criterion you appeal."
    ]


def test_the_queue_lists_the_problems_appeals_oldest_first_for_its_jurors_and_the_chair(scenario):
    first = _file(scenario)
    second = _file(scenario, paper="lat-1", leader="liam")
    for name in ("alice", "erin", "chen"):
        response = _client(scenario, name).get(reverse("appeal_queue", args=["iol"]))
        assert response.status_code == 200
        rows = [row.appeal for queue in response.context["queues"] for row in queue.rows]
        assert rows == [first, second]
    # mia leads EST: its appeal is not in her queue; charlie grades P2 only.
    mia = _client(scenario, "mia").get(reverse("appeal_queue", args=["iol"]))
    assert [row.appeal for q in mia.context["queues"] for row in q.rows] == [second]
    charlie = _client(scenario, "charlie").get(reverse("appeal_queue", args=["iol"]))
    assertContains(charlie, '<p id="no-appeals">No appeal for you to review.</p>', html=True)
    assert _client(scenario, "liam").get(reverse("appeal_queue", args=["iol"])).status_code == 404


def test_the_queue_runs_a_fixed_number_of_queries(scenario, django_assert_num_queries):
    _file(scenario)
    client = _client(scenario, "chen")
    url = reverse("appeal_queue", args=["iol"])
    client.get(url)
    with django_assert_num_queries(8) as one:
        client.get(url)
    _file(scenario, paper="lat-1", leader="liam")
    _file(scenario, paper="lat-2", leader="liam")
    _file(scenario, paper="est-2", leader="lena", number=2)
    with django_assert_num_queries(len(one.captured_queries)):
        client.get(url)


def test_the_leaders_list_runs_a_fixed_number_of_queries(scenario, django_assert_num_queries):
    _file(scenario)
    client = _client(scenario, "lena")
    url = reverse("appeals_mine", args=["iol"])
    client.get(url)
    with django_assert_num_queries(7) as one:
        client.get(url)
    _file(scenario, paper="est-2")
    _file(scenario, paper="est-2", number=2)
    with django_assert_num_queries(len(one.captured_queries)):
        client.get(url)


def test_the_appeal_page_shows_the_argument_the_marks_and_who_may_decide(scenario):
    appeal = _file(scenario)
    url = reverse("appeal", args=["iol", appeal.pk])
    alice = _client(scenario, "alice").get(url)
    assert alice.status_code == 200
    assertContains(alice, '<p class="argument">Item 2 is right.</p>', html=True)
    assertContains(alice, "<strong>10</strong>", html=True)
    assertContains(
        alice,
        '<p class="why" id="why-not-decide">You marked this paper for P1: you may comment, and '
        "another juror of the group or the chair decides the appeal.</p>",
        html=True,
    )
    assertNotContains(alice, 'id="appeal-decide-form"')
    for name in ("erin", "chen"):
        page = _client(scenario, name).get(url)
        assertContains(page, '<button type="submit">Decide</button>', html=True)
    for name in ("mia", "lena", "liam", "charlie", "olga"):
        assert _client(scenario, name).get(url).status_code == 404


def test_a_decision_through_the_page_is_told_to_the_leader(scenario):
    appeal = _file(scenario)
    url = reverse("appeal_decide", args=["iol", appeal.pk])
    refused = _client(scenario, "alice").post(url, {"points_A1": "12", "reason": "Yes."})
    assert refused.status_code == 403
    response = _client(scenario, "erin").post(
        url, {"points_A1": "12", "reason": "Item 2 is right."}
    )
    assert response.status_code == 302
    appeal.refresh_from_db()
    assert appeal.outcome == "partly"
    inbox = _client(scenario, "lena").get(reverse("inbox"))
    assertContains(inbox, "Your appeal on P1 for contestant")
    notice = Notification.objects.get(recipient__username="lena")
    assert notice.kind == "appeal_decision"


def test_off_step_points_are_said_on_the_decision_form(scenario):
    appeal = _file(scenario)
    response = _client(scenario, "chen").post(
        reverse("appeal_decide", args=["iol", appeal.pk]), {"points_A1": "11.3", "reason": "r"}
    )
    assert response.status_code == 422
    assert response.context["decide_form"].non_field_errors()


@pytest.mark.parametrize("typed", ["٣", "１２", "1_0"])
def test_points_in_other_scripts_digits_or_with_underscores_are_refused_on_the_decision_form(
    scenario, typed
):
    # Issue 31, finding 14: "٣" was stored as 3.
    appeal = _file(scenario)
    response = _client(scenario, "chen").post(
        reverse("appeal_decide", args=["iol", appeal.pk]), {"points_A1": typed, "reason": "r"}
    )
    assert response.status_code == 422
    assert response.context["decide_form"].non_field_errors() == [
        f"A1: “{typed}” is not a number of points."
    ]
    appeal.refresh_from_db()
    assert appeal.state == "open"


def test_a_comment_through_the_page(scenario):
    appeal = _file(scenario)
    response = _client(scenario, "alice").post(
        reverse("appeal_comment", args=["iol", appeal.pk]), {"text": "I gave 10."}
    )
    assert response.status_code == 302
    assert appeal.events.filter(kind="comment").count() == 1


def test_a_comment_posted_on_a_withdrawn_appeal_from_an_open_tab_is_refused(scenario):
    # Issue 31, finding 9: the page hides the form, but the service took the post.
    appeal = _file(scenario)
    alice = _client(scenario, "alice")
    assert "appeal-comment-form" in alice.get(reverse("appeal", args=["iol", appeal.pk])).text
    appeal_withdraw(appeal=appeal, actor=scenario["users"]["lena"])
    response = alice.post(
        reverse("appeal_comment", args=["iol", appeal.pk]), {"text": "Late."}, follow=True
    )
    # Back on the appeal's page, with the refusal's sentence where "posted" would have been.
    assert response.redirect_chain == [(reverse("appeal", args=["iol", appeal.pk]), 302)]
    assert "This appeal on P1 is withdrawn; it takes no more comments." in response.text
    assert "Your comment is posted." not in response.text
    assert appeal.events.filter(kind="comment").count() == 0


def test_a_final_contest_refuses_every_appeal_write_through_the_pages(scenario):
    users = scenario["users"]
    appeal = _file(scenario)
    appeal_decide(appeal=appeal, points={"A1": Decimal("12")}, reason="Yes.", actor=users["chen"])
    provisional.deadline_passes(scenario["contest"])
    contest_finalize(contest=scenario["contest"], actor=users["chen"])
    posts = [
        ("lena", _file_url(scenario, paper="est-2"), {"criteria": ["A1"], "argument": "x"}),
        ("lena", reverse("appeal_withdraw", args=["iol", appeal.pk]), {}),
        ("chen", reverse("appeal_comment", args=["iol", appeal.pk]), {"text": "x"}),
        ("chen", reverse("appeal_decide", args=["iol", appeal.pk]), {"reason": "x"}),
    ]
    statuses = [_client(scenario, name).post(url, data).status_code for name, url, data in posts]
    # The filing page is no door once the results are final (a 404, as for any non-leader);
    # the others refuse as final, or go back to the page with the sentence.
    assert statuses[0] == 404
    assert all(status in (302, 403) for status in statuses[1:])
    assert appeal.events.count() == 2
    assert Appeal.objects.count() == 1


def _decided(scenario, paper, leader, number=1, points=None):
    appeal = _file(scenario, paper=paper, leader=leader, number=number)
    return appeal_decide(
        appeal=appeal,
        points=points or {"A1": Decimal("12")},
        reason="Item 2 is right.",
        actor=scenario["users"]["chen"],
    )


def test_the_results_page_shows_provisional_and_final_with_the_appeals_in_fixed_queries(
    scenario, django_assert_num_queries
):
    _decided(scenario, "est-1", "lena")
    client = _client(scenario, "chen")
    url = reverse("results", args=["iol"])
    client.get(url)
    with django_assert_num_queries(17) as one:
        response = client.get(url)
    code = scenario["papers"]["est-1"].public_code
    assertContains(response, '<td class="num provisional-total">75</td>', html=True)
    assertContains(
        response, '<td class="appeal-changes">P1 A1 10 → 12, partly upheld</td>', html=True
    )
    assert response.context["provisional"][scenario["papers"]["est-1"].pk].total == Decimal("75")
    assert f'id="result-{code}"' in response.content.decode()
    _decided(scenario, "lat-2", "liam")
    _decided(scenario, "est-2", "lena", number=2, points={"A1": Decimal("8"), "T1": Decimal("6")})
    with django_assert_num_queries(len(one.captured_queries)):
        client.get(url)


def test_the_results_page_without_provisional_results_runs_no_more_queries(resolving):
    client = Client()
    client.force_login(resolving["users"]["chen"])
    response = client.get(reverse("results", args=["iol"]))
    assert response.context["provisional"] == {}
    assertNotContains(response, "Provisional total")


def test_the_export_has_provisional_columns_and_the_appeals_that_changed_a_paper(scenario):
    import csv
    import io

    _decided(scenario, "est-1", "lena")
    response = _client(scenario, "chen").get(reverse("results_export", args=["iol", "csv"]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    code = scenario["papers"]["est-1"].public_code
    row = next(row for row in rows if row["paper"] == code)
    assert (
        row["total"],
        row["medal"],
        row["provisional total"],
        row["provisional medal"],
        row["provisional rank"],
        row["changed by appeals"],
    ) == ("80.00", "gold", "75.00", "gold", "2", "P1 A1 10 → 12, partly upheld")
    other = next(row for row in rows if row["paper"] == scenario["papers"]["lat-1"].public_code)
    assert other["changed by appeals"] == ""


def _visible_text(response) -> str:
    """The page's text as a person reads it: no markup, so no address (addresses carry the
    paper's public code by design)."""
    return re.sub(r"<[^>]*>", " ", response.content.decode())


def test_a_leader_reads_their_own_appeal_with_the_jurys_question_and_answers_it(scenario):
    """Finding 12: the leader's own appeal has a page (it was a 404): the state, the criteria,
    the jury's question under no juror's name, no comment of the jury, and an answer form."""
    appeal = _file(scenario)
    appeal_comment(appeal=appeal, text="Between us: 10 is right.", actor=scenario["users"]["bob"])
    appeal_ask(appeal=appeal, text="Which plural do you mean?", actor=scenario["users"]["alice"])
    url = reverse("appeal_mine", args=["iol", appeal.pk])
    lena = _client(scenario, "lena")
    mine = lena.get(reverse("appeals_mine", args=["iol"]))
    assertContains(mine, f'<a href="{url}">P1</a>', html=True)
    page = lena.get(url)
    assert page.status_code == 200
    assertContains(page, '<span id="appeal-state">Open</span>', html=True)
    assertContains(page, "Which plural do you mean?")
    assertContains(page, "The jury asks")
    assertNotContains(page, "Between us")
    text = _visible_text(page)
    for juror in ("alice", "bob", "erin", "chen"):
        assert juror not in text
    answered = lena.post(reverse("appeal_answer", args=["iol", appeal.pk]), {"text": "In -ir."})
    assert answered.status_code == 302
    assert AppealEvent.objects.get(kind=AppealEvent.Kind.ANSWER).text == "In -ir."
    # The jury reads the answer as the team leader's, never under lena's name.
    jury_page = _client(scenario, "erin").get(reverse("appeal", args=["iol", appeal.pk]))
    assertContains(jury_page, "In -ir.")
    assert "lena" not in _visible_text(jury_page)


@pytest.mark.parametrize("name", ["liam", "alice", "erin", "chen", "olga"])
def test_a_leaders_appeal_page_is_a_404_for_anyone_but_the_delegations_leaders(scenario, name):
    appeal = _file(scenario)
    assert (
        _client(scenario, name).get(reverse("appeal_mine", args=["iol", appeal.pk])).status_code
        == 404
    )
    refused = _client(scenario, name).post(
        reverse("appeal_answer", args=["iol", appeal.pk]), {"text": "Mine."}
    )
    assert refused.status_code == 404


def test_an_answer_before_any_question_is_refused_with_a_sentence(scenario):
    appeal = _file(scenario)
    page = _client(scenario, "mia").get(reverse("appeal_mine", args=["iol", appeal.pk]))
    assertNotContains(page, 'id="appeal-answer-form"')
    response = _client(scenario, "mia").post(
        reverse("appeal_answer", args=["iol", appeal.pk]), {"text": "More."}, follow=True
    )
    assertContains(
        response,
        "The jury has asked no question on this appeal on P1; your argument is what it reads.",
    )
    assert not AppealEvent.objects.filter(kind=AppealEvent.Kind.ANSWER).exists()


def test_a_question_through_the_jurys_page_reaches_the_leaders_inbox(scenario):
    appeal = _file(scenario)
    response = _client(scenario, "chen").post(
        reverse("appeal_ask", args=["iol", appeal.pk]), {"text": "Which item?"}
    )
    assert response.status_code == 302
    inbox = _client(scenario, "lena").get(reverse("inbox"))
    assertContains(inbox, "The jury asks a question on your appeal on P1 for contestant est-1")
    assert "chen" not in _visible_text(inbox)


def test_every_leader_page_names_a_contestant_by_one_code(scenario):
    """Finding 11: the delegation page named est-1 by its code, the appeal pages and the
    decision's notice by the paper's public code; now every page a leader reads names the
    contestant as the delegation knows them."""
    appeal = _file(scenario)
    appeal_decide(
        appeal=appeal, points={}, reason="The marks stand.", actor=scenario["users"]["erin"]
    )
    paper = scenario["papers"]["est-1"]
    lena = _client(scenario, "lena")
    urls = [
        reverse("leader_delegation", args=["iol"]),
        reverse("leader_contestant_problem", args=["iol", paper.public_code, 1]),
        _file_url(scenario),
        reverse("appeals_mine", args=["iol"]),
        reverse("appeal_mine", args=["iol", appeal.pk]),
        reverse("inbox"),
    ]
    for url in urls:
        text = _visible_text(lena.get(url))
        assert "est-1" in text, url
        assert paper.public_code not in text, url
