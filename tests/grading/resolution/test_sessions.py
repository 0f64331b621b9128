"""A group's discussion session (grading.resolution.sessions) on the room scenario (P1's twelve
open cells, jurors alice, bob and erin; chen the chair): started by a juror of the group who has
submitted, one at a time per problem; the open cells walked in the chosen order; a revision that
brings the marks into tolerance closes the cell as agreed; an agreed value taken by each juror
closes it with the group's reason; a cell sent to the chair is on the chair's record; every
outcome records who was present; a cell the chair decided meanwhile and the phase ending are
refused with a sentence."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from grading.models import Comment, Mark, SessionOutcome
from grading.resolution import sessions
from grading.resolution.decisions import discrepancy_decide, mark_revise
from grading.rules.domain import CellStatus
from rubrics.models import Contest
from tests.grading.resolution import session_scenario

Kind = SessionOutcome.Kind


@pytest.fixture
def room(db):
    return session_scenario.build()


def _start(room, name="alice", order="paper"):
    return sessions.session_start(
        problem=room["problems"][1], actor=room["users"][name], order=order
    )


def _mark(room, name, session) -> Mark:
    paper_id, criterion_id = session.current
    return Mark.objects.get(
        paper_id=paper_id, criterion_id=criterion_id, sheet__juror=room["users"][name]
    )


def test_a_session_walks_the_open_cells_in_the_order_chosen_one_at_a_time(room):
    session = _start(room, order="criterion")
    assert len(session.cells) == 12
    codes = [
        room["problems"][1].criteria.get(pk=criterion_id).code for _, criterion_id in session.cells
    ]
    assert codes == ["A1"] * 6 + ["T1"] * 6
    with pytest.raises(ValidationError, match="already running"):
        _start(room, name="bob")
    sessions.session_end(session=session, actor=room["users"]["alice"])
    by_paper = _start(room, name="bob")
    assert [cell[0] for cell in by_paper.cells[:2]] == [by_paper.cells[0][0]] * 2


def test_only_the_groups_jurors_who_submitted_and_the_chair_join(room):
    session = _start(room)
    with pytest.raises(ValidationError):
        sessions.session_join(session=session, actor=room["users"]["charlie"])
    sessions.session_join(session=session, actor=room["users"]["chen"])
    assert set(sessions.present(session)) == {room["users"]["alice"].pk, room["users"]["chen"].pk}


def test_a_revision_into_tolerance_closes_the_cell_and_moving_on_records_who_was_there(room):
    users = room["users"]
    session = _start(room)
    sessions.session_join(session=session, actor=users["bob"])
    mark = _mark(room, "bob", session)
    mark_revise(mark=mark, points=Decimal("10"), actor=users["bob"])
    assert sessions.current_cell(session).status == CellStatus.CONSENSUS
    sessions.session_move(session=session, actor=users["alice"], position=1)
    (outcome,) = session.outcomes.all()
    assert (outcome.kind, outcome.points) == (Kind.AGREED, Decimal("10.00"))
    assert {u.username for u in outcome.present.all()} == {"alice", "bob"}


def test_an_agreed_value_is_taken_by_each_juror_and_closes_the_cell_with_its_reason(room):
    users = room["users"]
    session = _start(room)
    for name in ("bob", "erin"):
        sessions.session_join(session=session, actor=users[name])
    with pytest.raises(ValidationError, match="reason"):
        sessions.session_agree_value(
            session=session, actor=users["erin"], points=Decimal("8"), reason=""
        )
    sessions.session_agree_value(
        session=session, actor=users["erin"], points=Decimal("8"), reason="Item 2 half right."
    )
    for name in ("alice", "bob", "erin"):
        sessions.session_take_value(session=session, actor=users[name])
    cell = sessions.current_cell(session)
    assert (cell.status, cell.points) == (CellStatus.CONSENSUS, Decimal("8.00"))
    outcome = session.outcomes.get(kind=Kind.VALUE)
    assert outcome.reason == "Item 2 half right."
    assert {u.username for u in outcome.present.all()} == {"alice", "bob", "erin"}
    # Nobody changed another juror's mark: each took it on their own.
    for name in ("alice", "bob", "erin"):
        assert _mark(room, name, session).events.latest("id").actor == users[name]


def test_a_cell_sent_to_the_chair_is_on_the_cells_discussion_and_the_record(room):
    users = room["users"]
    session = _start(room)
    sessions.session_to_chair(session=session, actor=users["alice"], reason="The scheme is silent.")
    paper_id, criterion_id = session.current
    assert Comment.objects.get(paper_id=paper_id, criterion_id=criterion_id).text == (
        "Sent to the chair by the discussion session: The scheme is silent."
    )
    assert session.outcomes.get().kind == Kind.CHAIR


def test_a_cell_the_chair_decided_meanwhile_is_refused_and_recorded_as_decided(room):
    users = room["users"]
    session = _start(room)
    paper_id, criterion_id = session.current
    paper = room["contest"].papers.get(pk=paper_id)
    criterion = room["problems"][1].criteria.get(pk=criterion_id)
    discrepancy_decide(
        paper=paper, criterion=criterion, points=Decimal("7"), reason="Mine.", actor=users["chen"]
    )
    with pytest.raises(ValidationError, match="The chair decided .* meanwhile"):
        sessions.session_agree_value(
            session=session, actor=users["alice"], points=Decimal("8"), reason="Ours."
        )
    sessions.session_move(session=session, actor=users["alice"], position=1)
    assert session.outcomes.get().kind == Kind.DECIDED


def test_a_member_who_left_acts_no_more_and_the_phase_ending_ends_the_session(room):
    users = room["users"]
    session = _start(room)
    sessions.session_leave(session=session, actor=users["alice"])
    with pytest.raises(ValidationError, match="Join the session first"):
        sessions.session_move(session=session, actor=users["alice"], position=1)
    sessions.session_join(session=session, actor=users["alice"])
    Contest.objects.filter(pk=room["contest"].pk).update(state=Contest.State.PROVISIONAL)
    with pytest.raises(ValidationError, match="resolution phase of .* is over"):
        sessions.session_move(session=session, actor=users["alice"], position=1)


def test_the_groups_jurors_who_may_join_and_the_chair_hear_that_a_session_started(room, client):
    from django.urls import reverse

    from grading.models import Notification

    _start(room)
    told = set(
        Notification.objects.filter(kind=Notification.Kind.SESSION_STARTED).values_list(
            "recipient__username", flat=True
        )
    )
    assert told == {"bob", "erin", "chen"}
    client.force_login(room["users"]["bob"])
    inbox = client.get(reverse("inbox")).content.decode()
    assert reverse("session", args=["room", 1]) in inbox
    assert "alice started a discussion session on P1" in inbox


def test_a_member_in_conflict_with_a_paper_reads_nothing_of_its_cells_in_the_session(room, client):
    from django.urls import reverse

    from grading.models import DeclaredConflict, PaperLabel

    users = room["users"]
    session = _start(room)
    sessions.session_join(session=session, actor=users["bob"])
    paper_id, _ = session.current
    label = PaperLabel.objects.get(paper_id=paper_id, problem=room["problems"][1]).label
    sessions.session_agree_value(
        session=session, actor=users["alice"], points=Decimal("8"), reason="Half of item 2."
    )
    DeclaredConflict.objects.create(juror=users["bob"], paper_id=paper_id, reason="Coached.")
    client.force_login(users["bob"])
    text = client.get(reverse("session", args=["room", 1])).content.decode()
    assert "kept from you" in text
    assert label not in text and "Half of item 2." not in text


def test_the_session_page_names_papers_by_label_never_by_identity(room, client):
    from django.urls import reverse

    users = room["users"]
    session = _start(room)
    for position in range(3):
        sessions.session_move(session=session, actor=users["alice"], position=position)
        for name in ("alice", "chen"):
            client.force_login(users[name])
            for query in ("", "?projector=1"):
                text = client.get(reverse("session", args=["room", 1]) + query).content.decode()
                assert "Cell " in text
                for paper in room["contest"].papers.all():
                    assert paper.identity not in text, (name, paper.identity)
                    assert paper.public_code not in text, (name, paper.public_code)


def test_a_member_whose_juror_role_is_taken_away_mid_session_acts_no_more(room):
    from django.contrib.auth.models import Group

    from grading.rules import roles

    users = room["users"]
    session = _start(room)
    sessions.session_join(session=session, actor=users["bob"])
    users["bob"].groups.remove(Group.objects.get(name=roles.JUROR))
    bob = type(users["bob"]).objects.get(pk=users["bob"].pk)
    with pytest.raises(ValidationError, match="for the group's jurors who have submitted"):
        sessions.session_move(session=session, actor=bob, position=1)
    assert session.outcomes.count() == 0
