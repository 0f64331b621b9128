"""The inbox's notices, written by the resolution services in their own transactions: who is
told, in which words, and that nobody is told what they may not yet read."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from grading.console.contest_life import contest_resolution_open
from grading.models import Comment, Mark, Notification
from grading.resolution.decisions import comment_add, discrepancy_decide, mark_revise
from grading.resolution.inbox import notifications_read
from grading.resolution.revision_requests import revision_request
from grading.rules.refusals import NotAllowed, WrongState
from tests.crawl import refetched, shared_data
from tests.grading import scenario
from tests.grading.scenario import label

Kind = Notification.Kind


@pytest.fixture(scope="module")
def entered_once(django_db_setup, django_db_blocker, pdf_cache):
    """scenario.build(submit_sheets=False), built once for the module; each test runs in a
    savepoint of it (tests/crawl.py). `graded` and `drafting` both start from it: two of
    scenario.build's worlds, with its fixed names, could not be in the database at once."""
    with shared_data(django_db_blocker, pdf_cache):
        yield scenario.build(submit_sheets=False)


@pytest.fixture
def entered(entered_once, db):
    return refetched(entered_once)


@pytest.fixture
def graded(entered):
    """scenario.build(): the module's scenario with its sheets submitted in this test."""
    return scenario.submit_all(entered)


@pytest.fixture
def drafting(entered):
    """The scenario with dan's sheet of problem 1 still a draft (alice and bob submitted)."""
    graded = entered
    for name in ("alice", "bob"):
        scenario.submit(graded["users"][name], graded["problems"][1])
    return graded


def notices(**where) -> list[tuple[str, str, str]]:
    """(recipient, kind, sentence) of every notification, by recipient."""
    return sorted(
        Notification.objects.filter(**where).values_list("recipient__username", "kind", "sentence")
    )


def _cell(graded, identity="Team Orca", code="T1", number=1):
    return graded["papers"][identity], graded["problems"][number].criteria.get(code=code)


def test_opening_the_resolution_phase_tells_every_juror_of_the_contest(graded):
    contest_resolution_open(contest=graded["contest"], actor=graded["chair"])
    sentence = (
        "The resolution phase of Contest iol is open: you may revise your submitted marks "
        "and discuss the open cells."
    )
    assert notices() == [
        (name, Kind.RESOLUTION_OPEN, sentence)
        for name in ("alice", "bob", "charlie", "dan", "erin")
    ]
    assert set(Notification.objects.values_list("contest", flat=True)) == {graded["contest"].pk}


def test_a_comment_tells_the_cells_other_jurors_and_the_chair_but_not_its_author(graded):
    paper, criterion = _cell(graded)
    comment = comment_add(
        paper=paper, criterion=criterion, author=graded["users"]["alice"], text="I gave 8: rule 3."
    )
    cell = f"P1 paper {label(graded, 'Team Orca', 1)}, criterion T1"
    assert notices() == [
        (name, Kind.COMMENT, f"alice commented on {cell}.") for name in ("bob", "chen", "dan")
    ]
    # The cell it is about, by its parts; the comment it announces.
    assert set(Notification.objects.values_list("problem", "paper", "criterion", "comment")) == {
        (criterion.problem_id, paper.pk, criterion.pk, comment.pk)
    }


def test_a_juror_still_drafting_is_not_told_of_a_comment_on_a_cell_of_theirs(drafting):
    paper, criterion = _cell(drafting)
    comment_add(paper=paper, criterion=criterion, author=drafting["chair"], text="Why 6?")
    assert [name for name, _, _ in notices()] == ["alice", "bob"]


def test_a_chair_decision_tells_the_value_only_to_jurors_whose_sheet_is_in(drafting):
    paper, criterion = _cell(drafting)
    discrepancy_decide(
        paper=paper,
        criterion=criterion,
        points=Decimal("7"),
        reason="Rule 2.",
        actor=drafting["chair"],
    )
    cell = f"P1 paper {label(drafting, 'Team Orca', 1)}, criterion T1"
    assert notices() == [
        ("alice", Kind.DECISION, f"The chair decided {cell}: 7 points."),
        ("bob", Kind.DECISION, f"The chair decided {cell}: 7 points."),
        ("dan", Kind.DECISION, f"The chair decided {cell}; your mark there can no longer change."),
    ]


def test_a_request_to_revise_is_a_comment_flagged_by_the_jurors_notice(graded):
    scenario.open_resolution(graded)
    Notification.objects.all().delete()
    paper, criterion = _cell(graded)
    bob = graded["users"]["bob"]
    notice = revision_request(
        paper=paper, criterion=criterion, juror=bob, actor=graded["chair"], text="See item 2."
    )
    comment = Comment.objects.get()
    assert comment.text == "Request to bob to revise their mark: See item 2."
    assert comment.author == graded["chair"]
    cell = f"P1 paper {label(graded, 'Team Orca', 1)}, criterion T1"
    assert notices() == [
        ("alice", Kind.COMMENT, f"chen commented on {cell}."),
        (
            "bob",
            Kind.REVISE_REQUEST,
            f"The chair asks you to revise your mark for {cell}; the reason is in its discussion.",
        ),
        ("dan", Kind.COMMENT, f"chen commented on {cell}."),
    ]
    assert (notice.recipient, notice.comment) == (bob, comment)


def test_only_the_chair_asks_for_a_revision_and_only_in_the_resolution_phase(graded):
    paper, criterion = _cell(graded)
    bob, alice = graded["users"]["bob"], graded["users"]["alice"]
    with pytest.raises(WrongState):
        revision_request(
            paper=paper, criterion=criterion, juror=bob, actor=graded["chair"], text="Again."
        )
    scenario.open_resolution(graded)
    with pytest.raises(NotAllowed):
        revision_request(paper=paper, criterion=criterion, juror=bob, actor=alice, text="Again.")
    # Charlie grades problem 2: he has no mark in this cell.
    with pytest.raises(NotAllowed):
        revision_request(
            paper=paper,
            criterion=criterion,
            juror=graded["users"]["charlie"],
            actor=graded["chair"],
            text="Again.",
        )
    with pytest.raises(ValidationError):
        revision_request(
            paper=paper, criterion=criterion, juror=bob, actor=graded["chair"], text=" "
        )
    assert (Comment.objects.count(), notices(kind=Kind.REVISE_REQUEST)) == (0, [])


def test_a_refused_write_leaves_no_notice(graded):
    paper, criterion = _cell(graded)
    with pytest.raises(ValidationError):
        comment_add(paper=paper, criterion=criterion, author=graded["users"]["alice"], text="  ")
    with pytest.raises(ValidationError):
        discrepancy_decide(
            paper=paper, criterion=criterion, points=Decimal("7"), reason="", actor=graded["chair"]
        )
    assert notices() == []


def test_a_revision_by_a_juror_writes_no_notice_but_the_chairs_decision_does(graded):
    scenario.open_resolution(graded)
    Notification.objects.all().delete()
    paper, criterion = _cell(graded)
    dan = graded["users"]["dan"]
    mark = Mark.objects.get(sheet__juror=dan, paper=paper, criterion=criterion)
    mark_revise(mark=mark, points=Decimal("7"), actor=dan)
    assert notices() == []


def test_no_notice_names_a_system(graded):
    scenario.resolve(graded)
    paper, criterion = _cell(graded, "Team Heron", "A1")
    comment_add(paper=paper, criterion=criterion, author=graded["chair"], text="Agreed.")
    sentences = " ".join(Notification.objects.values_list("sentence", flat=True))
    assert len(sentences) > 0
    assert [name for name in scenario.MARKS if name in sentences] == []
    assert [f"#{paper.pk}" in sentences for paper in graded["papers"].values()] == [False] * 3


def test_reading_marks_only_the_readers_own_unread_notices(graded):
    paper, criterion = _cell(graded)
    comment_add(paper=paper, criterion=criterion, author=graded["chair"], text="Why?")
    alice, bob = graded["users"]["alice"], graded["users"]["bob"]
    assert notifications_read(user=alice) == 1
    assert notifications_read(user=alice) == 0
    assert {
        name: read is not None
        for name, read in Notification.objects.values_list("recipient__username", "read_at")
    } == {"alice": True, "bob": False, "dan": False}
    assert notifications_read(user=bob, ids=[]) == 0
