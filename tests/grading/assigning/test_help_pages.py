"""Language help's pages: the question asked from the sheet and its answer read there, the help
queue with its helpers (those who read the paper's language first) in a fixed number of
queries, the helper's list and question page with that paper's pages, the discussion's
translation notes and the inbox's links."""

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains

from grading.models import HelpRequest, Notification
from tests.factories import assign, make_contest, make_delegation, make_user
from tests.grading.assigning.help_scenario import (
    answered,
    asked,
    assigned,
    human_paper,
    label,
    specialist,
)
from tests.grading.scan_pages import add_scans


@pytest.fixture
def paper(contest):
    paper = human_paper(contest)
    add_scans(paper, contest.problems.get(number=1), 2)
    return paper


@pytest.fixture
def sara(db):
    return specialist("sara", "Tagalog", first_name="Sara", last_name="Reyes")


@pytest.fixture
def ivan(db):
    return specialist("ivan", "Russian", first_name="Ivan", last_name="Petrov")


def _solution(client, paper):
    return client.get(reverse("sheet_solution", args=["test", 1, label(paper)]))


def test_the_sheet_offers_to_ask_for_help_and_the_question_is_posted_from_it(
    client, contest, paper, juror, chair
):
    client.force_login(juror)
    response = _solution(client, paper)
    ask = reverse("help_ask", args=["test", 1, label(paper)])
    assertContains(response, f'<form method="post" action="{ask}">', count=1)
    assertContains(response, "<summary>Ask for help on paper", count=1)
    response = client.post(ask, {"question": "Is line 2 a plural?"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("sheet", args=["test", 1]))
    assert list(HelpRequest.objects.values_list("question", "asked_by__username")) == [
        ("Is line 2 a plural?", "alice")
    ]
    assertContains(_solution(client, paper), "waiting for a helper", count=1)


def test_an_empty_question_goes_back_to_the_sheet_with_why_and_writes_nothing(
    client, contest, paper, juror
):
    client.force_login(juror)
    response = client.post(
        reverse("help_ask", args=["test", 1, label(paper)]), {"question": ""}, follow=True
    )
    assertContains(response, "Write your question: what you need read or translated.")
    assert HelpRequest.objects.count() == 0


def test_asking_about_a_paper_one_does_not_mark_is_a_404(client, contest, paper, outside_juror):
    client.force_login(outside_juror)
    response = client.post(
        reverse("help_ask", args=["test", 1, label(paper)]), {"question": "Line 2?"}
    )
    assert response.status_code == 404
    assert HelpRequest.objects.count() == 0


def test_the_juror_reads_the_answer_in_the_sheet(client, contest, paper, juror, organizer, sara):
    answered(assigned(asked(juror, paper), sara, by=organizer), "Line 2 is 'the dogs'.")
    client.force_login(juror)
    response = _solution(client, paper)
    assertContains(
        response,
        '<blockquote class="help-answer">Line 2 is &#x27;the dogs&#x27;.</blockquote>',
        html=True,
    )
    # The helper's name is not the sheet's to say.
    assertNotContains(response, "Sara")


def test_the_help_queue_lists_readers_of_the_papers_language_first_and_never_its_jurors(
    client, contest, paper, juror, chair, ivan, sara, outside_juror
):
    request = asked(juror, paper)
    client.force_login(chair)
    response = client.get(reverse("help_queue", args=["test"]))
    row = response.context["rows"][0]
    assert (row.request, row.label, row.language) == (request, label(paper), "Tagalog")
    assert [c.username for c in row.readers] == ["sara"]
    assert [c.username for c in row.others] == ["ivan", "charlie"]
    assertContains(response, '<optgroup label="Read Tagalog">', count=1)
    # Issue 31, finding 17: the helper list showed no one's languages.
    assertContains(
        response,
        '<option value="sara">Sara Reyes (language specialist; reads Tagalog)</option>',
        html=True,
    )
    assertContains(
        response,
        '<option value="ivan">Ivan Petrov (language specialist; reads Russian)</option>',
        html=True,
    )


def test_an_ai_paper_is_read_in_the_contests_working_language(client, contest, juror, chair, sara):
    english = specialist("emma", "english")
    paper = contest.papers.exclude(source="human").first()
    asked(juror, paper)
    client.force_login(chair)
    row = client.get(reverse("help_queue", args=["test"])).context["rows"][0]
    assert (row.language, [c.username for c in row.readers]) == ("English", [english.username])


def test_the_help_queue_runs_the_same_queries_for_2_and_20_questions(
    client, db, django_assert_num_queries
):
    chair = make_user("chen", "chair")
    specialist("sara", "Tagalog")
    counts = []
    for slug, papers in (("small", 2), ("large", 20)):
        contest = make_contest(slug, papers=papers)
        jurors = [make_user(f"{slug}-{n}", "juror") for n in range(3)]
        assign(contest, jurors[:2], problems=[1])
        assign(contest, jurors[2:], problems=[2])
        make_delegation(contest, "PHL", papers=list(contest.papers.all()))
        for paper in contest.papers.all():
            asked(jurors[0], paper)
        client.force_login(chair)
        url = reverse("help_queue", args=[slug])
        client.get(url)
        # The session, the user and their roles, the contest, the questions, their labels, the
        # papers' jurors and their delegations' leaders, the people with their roles and
        # languages, the header's inbox count.
        with django_assert_num_queries(12) as captured:
            response = client.get(url)
        assert len(response.context["rows"]) == papers
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]


def test_a_juror_and_a_specialist_get_no_help_queue(client, contest, juror, sara):
    for user in (juror, sara):
        client.force_login(user)
        assert client.get(reverse("help_queue", args=["test"])).status_code == 404


def test_the_organizer_assigns_from_the_queue_and_the_helper_is_told(
    client, contest, paper, juror, organizer, sara
):
    request = asked(juror, paper)
    client.force_login(organizer)
    response = client.post(
        reverse("help_assign", args=["test", request.pk]), {"helper": "sara"}, follow=True
    )
    assertContains(
        response, f"sara helps on P1 paper {label(paper)}; they are told in their inbox."
    )
    request.refresh_from_db()
    assert request.helper == sara
    assert Notification.objects.filter(recipient=sara, kind="help_assigned").count() == 1


def test_assigning_a_juror_of_the_paper_goes_back_to_the_queue_with_why(
    client, contest, paper, juror, other_juror, organizer
):
    request = asked(juror, paper)
    client.force_login(organizer)
    response = client.post(
        reverse("help_assign", args=["test", request.pk]), {"helper": "bob"}, follow=True
    )
    assertContains(response, "bob marks this paper in P1; a helper must not be one of its jurors.")
    request.refresh_from_db()
    assert request.helper is None


def test_the_helper_reads_the_question_and_the_papers_pages_and_answers(
    client, contest, paper, juror, organizer, sara
):
    request = assigned(asked(juror, paper, question="Line 2?"), sara, by=organizer)
    client.force_login(sara)
    listed = client.get(reverse("help_mine"))
    page = reverse("help_request", args=[request.pk])
    assertContains(listed, f'<a href="{page}">P1 paper {label(paper)}</a>', html=True)
    response = client.get(page)
    assertContains(response, '<p class="question">Line 2?</p>', html=True)
    images = [
        reverse("scan_page_image", args=["test", 1, label(paper), position]) for position in (1, 2)
    ]
    for image in images:
        assertContains(response, f'src="{image}"', count=1)
        assert client.get(image).status_code == 200
    assertNotContains(response, "alice")
    response = client.post(
        reverse("help_answer", args=[request.pk]), {"answer": "Line 2: 'water'."}, follow=True
    )
    assertContains(response, "Your answer is saved; the juror who asked is told.")
    request.refresh_from_db()
    assert request.answer == "Line 2: 'water'."


def test_another_specialist_gets_404_for_the_question_and_its_pages(
    client, contest, paper, juror, organizer, sara, ivan
):
    request = assigned(asked(juror, paper), sara, by=organizer)
    client.force_login(ivan)
    for url in (
        reverse("help_request", args=[request.pk]),
        reverse("scan_page_image", args=["test", 1, label(paper), 1]),
    ):
        assert client.get(url).status_code == 404
    assert (
        client.post(reverse("help_answer", args=[request.pk]), {"answer": "x"}).status_code == 404
    )


def test_the_helpers_list_runs_the_same_queries_for_1_and_10_questions(
    client, db, django_assert_num_queries
):
    organizer = make_user("olga", "organizer")
    sara = specialist("sara", "Tagalog")
    contest = make_contest("big", papers=10)
    alice = make_user("alice", "juror")
    assign(contest, [alice], problems=[1])
    papers = list(contest.papers.order_by("pk"))
    client.force_login(sara)
    counts = []
    for batch in (papers[:1], papers[1:]):
        for paper in batch:
            assigned(asked(alice, paper), sara, by=organizer)
        client.get(reverse("help_mine"))
        # The session, the user, the questions, their labels, the header's inbox count.
        with django_assert_num_queries(5) as captured:
            client.get(reverse("help_mine"))
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]


def test_the_discussion_shows_the_papers_answered_translation_notes(
    client, contest, paper, juror, organizer, chair, sara
):
    answered(assigned(asked(juror, paper, question="Line 2?"), sara, by=organizer), "'water'.")
    asked(juror, paper, question="Unanswered question")
    client.force_login(chair)
    response = client.get(reverse("discussion", args=["test", 1, label(paper), "A1"]))
    assertContains(
        response, '<blockquote class="help-answer">&#x27;water&#x27;.</blockquote>', html=True
    )
    assertNotContains(response, "Unanswered question")


def test_the_inbox_leads_each_help_notice_to_its_page(
    client, contest, paper, juror, organizer, sara
):
    answered(assigned(asked(juror, paper), sara, by=organizer))
    where = {
        user.username: [
            (entry.notification.kind, entry.url)
            for group in client_groups(client, user)
            for entry in group.entries
        ]
        for user in (organizer, sara, juror)
    }
    sheet = reverse("sheet", args=["test", 1])
    assert where == {
        "olga": [("help_asked", reverse("help_queue", args=["test"]))],
        "sara": [("help_assigned", reverse("help_mine"))],
        "alice": [("help_answered", f"{sheet}?row={label(paper)}#help-{label(paper)}")],
    }


def client_groups(client, user):
    client.force_login(user)
    return client.get(reverse("inbox")).context["groups"]


def test_two_questions_on_one_paper_read_apart_in_the_helpers_list(
    client, contest, paper, juror, organizer, sara, outside_juror
):
    """Issue 31, finding 17: two questions on one paper showed as one line twice."""
    first = assigned(asked(juror, paper, question="Line 2?"), sara, by=organizer)
    second = assigned(asked(juror, paper, question="Is -ir a plural?"), sara, by=organizer)
    client.force_login(sara)
    listed = client.get(reverse("help_mine"))
    for request, question in ((first, "Line 2?"), (second, "Is -ir a plural?")):
        assertContains(listed, f'<q class="question">{question}</q>', html=True)
        assertContains(listed, f'id="help-{request.pk}"')
