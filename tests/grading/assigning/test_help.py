"""Language help's services: who may ask, assign and answer, what each writes (and refuses to
write), and the inbox notices they leave."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from grading.assigning.help import help_answer, help_ask, help_assign
from grading.models import HelpRequest, JurorProfile, Notification
from grading.rules.refusals import ContestFinal, NotAllowed, WrongState
from rubrics.models import Contest, Problem
from tests.factories import make_delegation
from tests.grading.assigning.help_scenario import (
    answered,
    asked,
    assigned,
    human_paper,
    label,
    specialist,
)

Kind = Notification.Kind


@pytest.fixture
def paper(contest):
    return human_paper(contest)


@pytest.fixture
def sara(db):
    return specialist("sara", "Tagalog", first_name="Sara", last_name="Reyes")


def _notices(kind):
    return sorted(
        (n.recipient.username, n.sentence) for n in Notification.objects.filter(kind=kind)
    )


def test_a_juror_asks_about_a_paper_they_mark_and_the_organizer_and_chair_are_told(
    contest, paper, juror, chair, organizer
):
    request = asked(juror, paper)
    assert (request.asked_by, request.question, request.state) == (
        juror,
        "What does line 3 say?",
        HelpRequest.State.ASKED,
    )
    sentence = (
        f"alice asked for language help on P1 paper {label(paper)}; give the question a helper."
    )
    assert _notices(Kind.HELP_ASKED) == [("chen", sentence), ("olga", sentence)]


def test_a_juror_cannot_ask_about_a_paper_they_do_not_mark(contest, paper, outside_juror, sara):
    for user in (outside_juror, sara):
        with pytest.raises(NotAllowed):
            asked(user, paper)
    assert HelpRequest.objects.count() == 0
    assert Notification.objects.count() == 0


def test_an_empty_question_is_refused_and_nothing_is_written(contest, paper, juror, chair):
    with pytest.raises(ValidationError) as refused:
        asked(juror, paper, question="   ")
    assert refused.value.messages == ["The question is empty; write it in a sentence or two."]
    assert HelpRequest.objects.count() == 0
    assert Notification.objects.count() == 0


def test_no_question_is_asked_on_a_contest_in_set_up_or_final(contest, paper, juror):
    for state in (Contest.State.SETUP, Contest.State.FINAL):
        Contest.objects.filter(pk=contest.pk).update(state=state)
        with pytest.raises(NotAllowed):
            help_ask(
                actor=juror,
                problem=Problem.objects.get(contest=contest, number=1),
                paper=paper,
                question="Line 3?",
            )
    assert HelpRequest.objects.count() == 0


def test_the_organizer_gives_a_question_a_specialist_who_is_told_without_who_asked(
    contest, paper, juror, organizer, sara
):
    request = assigned(asked(juror, paper), sara, by=organizer)
    request.refresh_from_db()
    assert (request.helper, request.assigned_by, request.state) == (
        sara,
        organizer,
        HelpRequest.State.ASSIGNED,
    )
    assert request.assigned_at is not None
    assert _notices(Kind.HELP_ASSIGNED) == [
        ("sara", f"You are asked for language help on P1 paper {label(paper)}.")
    ]


def test_only_the_organizer_or_the_chair_assign_a_helper(contest, paper, juror, other_juror, sara):
    request = asked(juror, paper)
    for actor in (juror, other_juror, sara):
        with pytest.raises(NotAllowed):
            help_assign(actor=actor, request=request, helper=sara)
    request.refresh_from_db()
    assert request.helper is None


def test_a_helper_is_a_specialist_or_a_juror_who_does_not_mark_the_paper(
    contest, paper, juror, other_juror, outside_juror, chair
):
    request = asked(juror, paper)
    refusals = {}
    for helper in (juror, other_juror, chair):
        with pytest.raises(ValidationError) as refused:
            help_assign(actor=chair, request=request, helper=helper)
        refusals[helper.username] = refused.value.messages
    assert refusals == {
        "alice": ["The juror who asked cannot answer their own question; choose someone else."],
        "bob": ["bob marks this paper in P1; a helper must not be one of its jurors."],
        "chen": ["chen is neither a juror nor a language specialist."],
    }
    # Charlie grades problem 2 only: he may help on problem 1.
    assert help_assign(actor=chair, request=request, helper=outside_juror).helper == outside_juror


def test_an_unanswered_question_may_get_another_helper_an_answered_one_may_not(
    contest, paper, juror, organizer, outside_juror, sara
):
    request = assigned(asked(juror, paper), outside_juror, by=organizer)
    request = assigned(request, sara, by=organizer)
    assert request.helper == sara
    # The first helper no longer answers it.
    with pytest.raises(NotAllowed):
        help_answer(actor=outside_juror, request=request, answer="Line 3 is…")
    answered(request)
    with pytest.raises(WrongState):
        help_assign(actor=organizer, request=request, helper=outside_juror)
    request.refresh_from_db()
    assert request.helper == sara


def test_the_helper_answers_and_may_correct_the_answer_the_juror_being_told_each_time(
    contest, paper, juror, organizer, sara
):
    request = assigned(asked(juror, paper), sara, by=organizer)
    request = answered(request, "It says 'the dog sleeps'.")
    assert (request.answer, request.state) == ("It says 'the dog sleeps'.", "answered")
    request = answered(request, "It says 'the dog is sleeping'.")
    request.refresh_from_db()
    assert request.answer == "It says 'the dog is sleeping'."
    where = f"P1 paper {label(paper)}"
    assert _notices(Kind.HELP_ANSWERED) == [
        ("alice", f"Your question on {where} has a revised answer: read it in your sheet."),
        ("alice", f"Your question on {where} is answered: read it in your sheet."),
    ]


def test_nobody_but_the_helper_answers_and_an_empty_answer_is_refused(
    contest, paper, juror, other_juror, organizer, chair, sara
):
    request = assigned(asked(juror, paper), sara, by=organizer)
    for actor in (juror, other_juror, organizer, chair):
        with pytest.raises(NotAllowed):
            help_answer(actor=actor, request=request, answer="Line 3…")
    with pytest.raises(ValidationError) as refused:
        help_answer(actor=sara, request=request, answer="")
    assert refused.value.messages == ["The answer is empty; write it in a sentence or two."]
    request.refresh_from_db()
    assert (request.answer, request.answered_at) == ("", None)


def test_a_final_contest_takes_no_assignment_and_no_answer(contest, paper, juror, organizer, sara):
    request = assigned(asked(juror, paper), sara, by=organizer)
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    request = HelpRequest.objects.get(pk=request.pk)
    with pytest.raises(ContestFinal):
        help_assign(actor=organizer, request=request, helper=sara)
    with pytest.raises(ContestFinal):
        help_answer(actor=sara, request=request, answer="Line 3…")
    request.refresh_from_db()
    assert request.answered_at is None


def test_a_juror_who_leads_the_papers_delegation_is_neither_offered_nor_accepted(
    client, contest, paper, juror, chair, outside_juror
):
    make_delegation(contest, "PHL", papers=[paper], leaders=[outside_juror])
    request = asked(juror, paper)
    with pytest.raises(ValidationError) as refused:
        help_assign(actor=chair, request=request, helper=outside_juror)
    assert refused.value.messages == [
        "charlie leads this paper's delegation and cannot help on it."
    ]
    client.force_login(chair)
    (row,) = client.get(reverse("help_queue", args=[contest.slug])).context["rows"]
    assert "charlie" not in [candidate.username for candidate in row.candidates]


def test_a_juror_who_left_is_neither_offered_nor_accepted_as_a_helper(
    client, contest, paper, juror, chair, outside_juror
):
    """Issue 31, finding 8: a juror marked unavailable was still offered as a helper."""
    JurorProfile.objects.create(user=outside_juror, unavailable_since=timezone.now())
    request = asked(juror, paper)
    with pytest.raises(ValidationError) as refused:
        help_assign(actor=chair, request=request, helper=outside_juror)
    assert refused.value.messages == ["charlie is marked unavailable (they left) and cannot help."]
    client.force_login(chair)
    (row,) = client.get(reverse("help_queue", args=[contest.slug])).context["rows"]
    assert "charlie" not in [candidate.username for candidate in row.candidates]
    JurorProfile.objects.filter(user=outside_juror).update(unavailable_since=None)
    (row,) = client.get(reverse("help_queue", args=[contest.slug])).context["rows"]
    assert "charlie" in [candidate.username for candidate in row.candidates]
