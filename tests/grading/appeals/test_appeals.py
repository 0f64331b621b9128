"""The appeals' services: who files, withdraws, comments on and decides an appeal; the deadline;
what a decision writes (the agreed value as a resolution of kind appeal, events, notices); and
a final contest refusing every appeal write."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from grading.appeals.appeals import (
    appeal_answer,
    appeal_ask,
    appeal_comment,
    appeal_decide,
    appeal_file,
    appeal_withdraw,
)
from grading.appeals.selectors import appeal_queue
from grading.console.contest_life import contest_finalize
from grading.models import (
    Appeal,
    AppealEvent,
    GradingGroup,
    Notification,
    Resolution,
    ResolutionEvent,
)
from grading.resolution.comparison import contest_results
from grading.rules import roles
from grading.rules.domain import CellStatus
from grading.rules.refusals import ContestFinal, NotAllowed, Stale, WrongState
from tests.crawl import refetched, shared_data
from tests.factories import make_user
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


def _file(scenario, leader="lena", paper="est-1", codes=("A1", "T1")):
    return appeal_file(
        paper=scenario["papers"][paper],
        problem=scenario["problems"][1],
        criteria=provisional.criteria(scenario, 1, *codes),
        argument="Item 2 is a correct translation: the plural is marked.",
        actor=scenario["users"][leader],
    )


def _messages(excinfo) -> list[str]:
    return excinfo.value.messages


def test_a_leader_files_an_appeal_with_the_agreed_points_of_each_criterion(scenario):
    appeal = _file(scenario)
    assert appeal.state == Appeal.State.OPEN
    assert [(r.criterion.code, r.points_before, r.points_after) for r in appeal.criteria.all()] == [
        ("A1", Decimal("10.00"), None),
        ("T1", Decimal("6.00"), None),
    ]
    assert list(appeal.events.values_list("kind", flat=True)) == ["filed"]


def test_the_problems_jurors_and_the_chair_are_told_of_a_new_appeal_but_not_its_leaders(scenario):
    _file(scenario)
    told = set(
        Notification.objects.filter(kind=Notification.Kind.APPEAL).values_list(
            "recipient__username", flat=True
        )
    )
    # mia is a juror of P1 and a leader of EST: she is not told of EST's appeal.
    assert told == {"alice", "bob", "erin", "chen"}


def test_a_leader_of_another_delegation_may_not_appeal(scenario):
    with pytest.raises(NotAllowed) as excinfo:
        _file(scenario, leader="liam")
    assert _messages(excinfo) == [
        "Only a team leader of this contestant's delegation can appeal, while the results are "
        "provisional."
    ]


def test_a_juror_may_not_appeal(scenario):
    with pytest.raises(NotAllowed):
        _file(scenario, leader="alice")


def test_after_the_deadline_an_appeal_is_refused_with_the_deadline(scenario):
    contest = scenario["contest"]
    contest.appeals_deadline = timezone.make_aware(timezone.datetime(2026, 7, 25, 18, 0))
    contest.save(update_fields=["appeals_deadline"])
    with pytest.raises(WrongState) as excinfo:
        _file(scenario)
    assert _messages(excinfo) == [
        "The appeals deadline was 2026-07-25 18:00 (UTC); no appeal can be filed after it."
    ]
    assert not Appeal.objects.exists()


def test_an_appeal_needs_a_criterion_and_an_argument(scenario):
    with pytest.raises(ValidationError) as excinfo:
        _file(scenario, codes=())
    assert _messages(excinfo) == ["Name at least one criterion of P1 you appeal."]
    with pytest.raises(ValidationError) as excinfo:
        appeal_file(
            paper=scenario["papers"]["est-1"],
            problem=scenario["problems"][1],
            criteria=provisional.criteria(scenario, 1, "A1"),
            argument="  ",
            actor=scenario["users"]["lena"],
        )
    assert _messages(excinfo) == ["Write the argument; it is what the jury reads."]


def test_a_criterion_of_another_problem_is_refused(scenario):
    with pytest.raises(ValidationError) as excinfo:
        appeal_file(
            paper=scenario["papers"]["est-1"],
            problem=scenario["problems"][1],
            criteria=provisional.criteria(scenario, 2, "A1"),
            argument="Wrong problem.",
            actor=scenario["users"]["lena"],
        )
    assert _messages(excinfo) == ["A1 is not a criterion of P1."]


def test_one_live_appeal_per_paper_and_problem_and_a_withdrawn_one_may_be_filed_again(scenario):
    first = _file(scenario)
    with pytest.raises(WrongState) as excinfo:
        _file(scenario, codes=("A1",))
    assert _messages(excinfo) == [
        "This contestant already has an appeal on P1; withdraw it to file another, or wait for "
        "its decision."
    ]
    appeal_withdraw(appeal=first, actor=scenario["users"]["lena"])
    again = _file(scenario, codes=("A1",))
    assert [a.state for a in Appeal.objects.order_by("id")] == ["withdrawn", "open"]
    assert again.pk != first.pk


def test_only_a_leader_of_the_delegation_withdraws_and_only_until_it_is_decided(scenario):
    appeal = _file(scenario)
    with pytest.raises(NotAllowed):
        appeal_withdraw(appeal=appeal, actor=scenario["users"]["liam"])
    appeal_decide(
        appeal=appeal,
        points={},
        reason="The marks follow the scheme.",
        actor=scenario["users"]["chen"],
    )
    with pytest.raises(Stale) as excinfo:
        appeal_withdraw(appeal=appeal, actor=scenario["users"]["lena"])
    assert _messages(excinfo) == [
        "This appeal on P1 is decided already; it can no longer be withdrawn."
    ]


@pytest.mark.parametrize("ended", ["withdrawn", "decided"])
def test_an_appeal_withdrawn_or_decided_takes_no_comment(scenario, ended):
    appeal = _file(scenario)
    if ended == "withdrawn":
        appeal_withdraw(appeal=appeal, actor=scenario["users"]["lena"])
    else:
        appeal_decide(
            appeal=appeal, points={}, reason="As marked.", actor=scenario["users"]["chen"]
        )
    events = AppealEvent.objects.count()
    with pytest.raises(Stale) as excinfo:
        appeal_comment(appeal=appeal, text="One more thought.", actor=scenario["users"]["chen"])
    assert _messages(excinfo) == [f"This appeal on P1 is {ended}; it takes no more comments."]
    assert AppealEvent.objects.count() == events


def test_a_juror_who_marked_the_paper_comments_but_may_not_decide(scenario):
    appeal = _file(scenario)
    comment = appeal_comment(
        appeal=appeal, text="I gave 10 for A1.", actor=scenario["users"]["alice"]
    )
    assert comment.kind == AppealEvent.Kind.COMMENT
    with pytest.raises(NotAllowed) as excinfo:
        appeal_decide(
            appeal=appeal,
            points={"A1": Decimal("12")},
            reason="Fine.",
            actor=scenario["users"]["alice"],
        )
    assert _messages(excinfo) == [
        "You marked this paper for this problem: comment on the appeal, and another juror of "
        "the group or the chair decides it."
    ]


def test_a_juror_who_leads_the_papers_delegation_may_neither_comment_nor_decide(scenario):
    appeal = _file(scenario)
    mia = scenario["users"]["mia"]
    with pytest.raises(NotAllowed):
        appeal_comment(appeal=appeal, text="Ours.", actor=mia)
    with pytest.raises(NotAllowed) as excinfo:
        appeal_decide(appeal=appeal, points={}, reason="Ours.", actor=mia)
    assert _messages(excinfo) == [
        "Only a juror of the problem's group or the chair can decide an appeal."
    ]


def test_a_juror_of_another_problem_may_not_decide(scenario):
    appeal = _file(scenario)
    with pytest.raises(NotAllowed):
        appeal_decide(appeal=appeal, points={}, reason="No.", actor=scenario["users"]["charlie"])


def test_partly_upheld_writes_the_changed_criterion_as_an_appeal_resolution_and_tells_the_leaders(
    scenario,
):
    appeal = _file(scenario)
    erin = scenario["users"]["erin"]
    decided = appeal_decide(
        appeal=appeal,
        points={"A1": Decimal("12"), "T1": Decimal("6")},
        reason="Item 2 is right; the rule is not stated.",
        actor=erin,
    )
    assert (decided.state, decided.outcome, decided.decided_by) == ("decided", "partly", erin)
    assert [(r.criterion.code, r.points_after) for r in decided.criteria.all()] == [
        ("A1", Decimal("12.00")),
        ("T1", Decimal("6.00")),
    ]
    resolution = Resolution.objects.get(paper=appeal.paper)
    assert (resolution.kind, resolution.points, resolution.criterion.code) == (
        "appeal",
        Decimal("12.00"),
        "A1",
    )
    assert (
        resolution.reason == f"Appeal {appeal.pk} on P1: Item 2 is right; the rule is not stated."
    )
    assert ResolutionEvent.objects.filter(resolution=resolution).count() == 1
    results = contest_results(scenario["contest"])
    paper = results.paper(appeal.paper.pk)
    a1 = next(
        c
        for c in paper.cells.values()
        if c.criterion.code == "A1" and c.criterion.problem.number == 1
    )
    assert (a1.status, a1.points) == (CellStatus.APPEAL, Decimal("12.00"))
    # (12 + 6 + 9 + 5) of 40, scaled to 100.
    assert paper.total == Decimal("80.00")
    notices = Notification.objects.filter(kind=Notification.Kind.APPEAL_DECISION)
    assert sorted(notices.values_list("recipient__username", flat=True)) == ["lena", "mia"]
    assert notices.first().sentence == (
        f"Your appeal on P1 for contestant {appeal.paper.identity} is partly upheld "
        "(A1 10 → 12, T1 stays 6): Item 2 is right; the rule is not stated."
    )
    assert list(decided.events.values_list("kind", flat=True)) == ["filed", "decided"]


def test_the_outcome_follows_the_points(scenario):
    appeal = _file(scenario)
    with pytest.raises(ValidationError) as excinfo:
        appeal_decide(
            appeal=appeal,
            points={"A1": Decimal("12")},
            reason="All of it.",
            outcome="upheld",
            actor=scenario["users"]["chen"],
        )
    assert _messages(excinfo) == [
        "The new points make this appeal partly upheld, not upheld: change the points or the "
        "outcome."
    ]
    decided = appeal_decide(
        appeal=appeal,
        points={"A1": Decimal("12"), "T1": Decimal("8")},
        reason="All of it.",
        actor=scenario["users"]["chen"],
    )
    assert decided.outcome == "upheld"


def test_a_rejected_appeal_changes_no_mark_and_needs_a_reason(scenario):
    appeal = _file(scenario)
    with pytest.raises(ValidationError) as excinfo:
        appeal_decide(appeal=appeal, points={}, reason="", actor=scenario["users"]["erin"])
    assert _messages(excinfo) == ["Write the reason for the decision; it is what the jury reads."]
    decided = appeal_decide(
        appeal=appeal, points={}, reason="The scheme is clear.", actor=scenario["users"]["erin"]
    )
    assert decided.outcome == "rejected"
    assert not Resolution.objects.exists()


def test_new_points_are_validated_as_a_mark_is(scenario):
    appeal = _file(scenario)
    with pytest.raises(ValidationError) as excinfo:
        appeal_decide(
            appeal=appeal,
            points={"A1": Decimal("12.3")},
            reason="More.",
            actor=scenario["users"]["chen"],
        )
    assert "A1" in _messages(excinfo)[0]
    with pytest.raises(ValidationError) as excinfo:
        appeal_decide(
            appeal=appeal,
            points={"X9": Decimal("1")},
            reason="More.",
            actor=scenario["users"]["chen"],
        )
    assert _messages(excinfo) == ["X9: this appeal names only A1, T1."]
    appeal.refresh_from_db()
    assert appeal.state == "open"


def test_a_decision_stands_against_a_juror_revision_after_reopening(scenario):
    """An appeal's value moves only by the chair, as a chair decision does."""
    from grading.marking.marks import mark_set
    from grading.models import Mark
    from grading.rules.refusals import DecidedByChair

    appeal = _file(scenario)
    appeal_decide(
        appeal=appeal, points={"A1": Decimal("12")}, reason="Yes.", actor=scenario["users"]["erin"]
    )
    mark = Mark.objects.get(
        sheet__juror=scenario["users"]["alice"],
        paper=appeal.paper,
        criterion__code="A1",
        criterion__problem__number=1,
    )
    with pytest.raises(DecidedByChair):
        mark_set(
            mark=mark, points=Decimal("11"), actor=scenario["users"]["alice"], channel="browser"
        )


def test_a_final_contest_refuses_every_appeal_write(scenario):
    users = scenario["users"]
    open_appeal = _file(scenario)
    appeal_withdraw(appeal=open_appeal, actor=users["lena"])
    decided = _file(scenario, codes=("A1",))
    appeal_decide(appeal=decided, points={}, reason="No.", actor=users["chen"])
    provisional.deadline_passes(scenario["contest"])
    contest_finalize(contest=scenario["contest"], actor=users["chen"])
    writes = [
        lambda: _file(scenario, paper="est-2"),
        lambda: appeal_withdraw(appeal=decided, actor=users["lena"]),
        lambda: appeal_comment(appeal=decided, text="Late.", actor=users["chen"]),
        lambda: appeal_decide(appeal=decided, points={}, reason="Again.", actor=users["chen"]),
    ]
    for write in writes:
        with pytest.raises(ContestFinal) as excinfo:
            write()
        assert _messages(excinfo) == [
            "Contest iol is final: its appeals are read-only. An organizer can reopen it, with "
            "a reason, from its results page."
        ]
    assert AppealEvent.objects.count() == 4


def test_nothing_is_appealed_before_provisional_results(resolving):
    with pytest.raises(NotAllowed):
        _file(resolving)


def test_the_deadline_passing_does_not_stop_a_decision(scenario):
    appeal = _file(scenario)
    scenario["contest"].appeals_deadline = timezone.now() - timedelta(hours=1)
    scenario["contest"].save(update_fields=["appeals_deadline"])
    assert (
        appeal_decide(
            appeal=appeal, points={}, reason="No.", actor=scenario["users"]["chen"]
        ).outcome
        == "rejected"
    )


def test_a_juror_added_to_the_group_later_reads_and_decides_an_appeal_every_grader_marked(
    scenario,
):
    """Finding 10: alice and bob marked est-1 for P1, so only the chair decided its appeal; a
    juror who joins P1's group afterwards (no paper of P1 to grade) finds it in their queue
    and decides it."""
    appeal = _file(scenario)
    gus = make_user("gus", roles.JUROR)
    assert appeal_queue(gus, scenario["contest"]) == []
    GradingGroup.objects.get(problem=scenario["problems"][1]).jurors.add(gus)
    queues = appeal_queue(gus, scenario["contest"])
    assert [(q.problem.code, [row.appeal.pk for row in q.rows]) for q in queues] == [
        ("P1", [appeal.pk])
    ]
    appeal_comment(appeal=appeal, text="Reading it now.", actor=gus)
    decided = appeal_decide(appeal=appeal, points={}, reason="The marks stand.", actor=gus)
    assert (decided.state, decided.decided_by) == (Appeal.State.DECIDED, gus)
    # A juror of P2 only, in no group of P1, still reads none of it.
    assert appeal_queue(scenario["users"]["charlie"], scenario["contest"]) == []


def test_the_jury_asks_the_leader_who_answers_before_the_decision_each_told_in_their_inbox(
    scenario,
):
    """Finding 12: a question from a juror reaches the delegation's leaders as the jury's,
    their answer reaches the jury as the team leader's; nobody's name crosses over."""
    appeal = _file(scenario)
    users = scenario["users"]
    question = appeal_ask(appeal=appeal, text="Which plural do you mean?", actor=users["alice"])
    assert question.kind == AppealEvent.Kind.QUESTION
    asked = Notification.objects.filter(kind=Notification.Kind.APPEAL_QUESTION)
    assert {n.recipient.username for n in asked} == {"lena", "mia"}
    assert {n.sentence for n in asked} == {
        "The jury asks a question on your appeal on P1 for contestant est-1; answer it on the "
        "appeal's page."
    }
    answer = appeal_answer(appeal=appeal, text="The plural in -ir.", actor=users["lena"])
    assert answer.kind == AppealEvent.Kind.ANSWER
    answered = Notification.objects.filter(kind=Notification.Kind.APPEAL_ANSWER)
    # P1's group and the chair; mia is of P1's group but leads EST.
    assert {n.recipient.username for n in answered} == {"alice", "bob", "erin", "chen"}
    assert {n.sentence for n in answered} == {
        f"The team leader answered the jury on the appeal on P1 paper "
        f"{provisional.label(scenario, 'est-1', 1)}."
    }
    appeal_decide(appeal=appeal, points={}, reason="The marks stand.", actor=users["erin"])
    with pytest.raises(Stale) as excinfo:
        appeal_ask(appeal=appeal, text="One more?", actor=users["chen"])
    assert _messages(excinfo) == ["This appeal on P1 is decided; it takes no more questions."]
    with pytest.raises(Stale):
        appeal_answer(appeal=appeal, text="Late.", actor=users["lena"])


def test_only_the_delegations_leaders_answer_and_only_a_question_asked(scenario):
    appeal = _file(scenario)
    users = scenario["users"]
    with pytest.raises(WrongState) as excinfo:
        appeal_answer(appeal=appeal, text="More.", actor=users["lena"])
    assert _messages(excinfo) == [
        "The jury has asked no question on this appeal on P1; your argument is what it reads."
    ]
    appeal_ask(appeal=appeal, text="Which plural?", actor=users["chen"])
    for name in ("liam", "alice", "chen"):
        with pytest.raises(NotAllowed):
            appeal_answer(appeal=appeal, text="Mine.", actor=users[name])
    # A juror of another problem, and a juror of the group who leads the delegation, ask nothing.
    for name in ("charlie", "mia"):
        with pytest.raises(NotAllowed):
            appeal_ask(appeal=appeal, text="Why?", actor=users[name])
    assert AppealEvent.objects.filter(kind=AppealEvent.Kind.ANSWER).count() == 0
