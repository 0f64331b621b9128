"""The groups' discussion sessions in the admin (grading/admin/sessions.py), on the room scenario
(tests/grading/resolution/session_scenario.py) walked through the real services: the organizer
and the chair read who was in a session and each cell's outcome with who was present, every
paper named by its label in the problem and never by id or public code; nothing is added,
changed or deleted here; the page asks as many queries whatever the number of outcomes."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.models import DiscussionSession, Paper, PaperLabel, SessionOutcome
from grading.resolution import sessions
from tests.grading.resolution import session_scenario


@pytest.fixture
def room(db):
    return session_scenario.build()


def _walk(room, cells: int) -> DiscussionSession:
    """A session started by alice, joined by bob; its first cell sent to the chair, the next
    ones left open by moving on (a cell is recorded when the walk leaves it), `cells` outcomes
    in all, then ended."""
    users = room["users"]
    session = sessions.session_start(problem=room["problems"][1], actor=users["alice"])
    sessions.session_join(session=session, actor=users["bob"])
    sessions.session_to_chair(session=session, actor=users["alice"], reason="The scheme is silent.")
    for position in range(1, cells + 1):
        sessions.session_move(session=session, actor=users["bob"], position=position)
    sessions.session_end(session=session, actor=users["alice"])
    session.refresh_from_db()
    return session


def _text(response) -> str:
    return response.content.decode()


def _change(session) -> str:
    return reverse("admin:grading_discussionsession_change", args=[session.pk])


@pytest.mark.parametrize("reader", ["organizer", "chen"])
def test_a_sessions_record_is_read_in_the_admin_by_label_with_who_was_present(
    request, client, room, reader
):
    session = _walk(room, cells=3)
    user = request.getfixturevalue("organizer") if reader == "organizer" else room["users"]["chen"]
    client.force_login(user)
    listing = client.get(reverse("admin:grading_discussionsession_changelist"))
    assert listing.status_code == 200
    assert "P1" in _text(listing)
    page = client.get(_change(session))
    assert page.status_code == 200
    text = _text(page)
    outcomes = list(session.outcomes.select_related("criterion"))
    assert [o.kind for o in outcomes] == [
        SessionOutcome.Kind.CHAIR,
        SessionOutcome.Kind.LEFT_OPEN,
        SessionOutcome.Kind.LEFT_OPEN,
    ]
    for outcome in outcomes:
        label = PaperLabel.objects.get(paper=outcome.paper, problem=room["problems"][1]).label
        assert f"P1 {outcome.criterion.code}, paper {label}" in text
    assert "The scheme is silent." in text
    # Who was present, once for each outcome (the members' rows name one person each).
    assert text.count("alice, bob") == len(outcomes) == 3
    assert "12 cells" in text
    # No paper by id, public code or identity, no link to a paper's page, no list of cell ids.
    codes = Paper.objects.values_list("public_code", flat=True)
    assert not any(code in text for code in codes)
    assert not re.search(r"/admin/grading/paper/\d+/", text)
    assert str(session.cells) not in text


def test_a_session_is_neither_added_changed_nor_deleted_in_the_admin(client, room, organizer):
    session = _walk(room, cells=1)
    client.force_login(organizer)
    page = client.get(_change(session))
    assert 'name="_save"' not in _text(page)
    assert client.get(reverse("admin:grading_discussionsession_add")).status_code == 403
    assert client.post(_change(session), {"order": "criterion"}).status_code == 403
    delete = reverse("admin:grading_discussionsession_delete", args=[session.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    session.refresh_from_db()
    assert session.order == DiscussionSession.Order.PAPER
    assert session.outcomes.count() == 1


def test_the_sessions_page_asks_as_many_queries_for_two_outcomes_as_for_eleven(
    client, room, organizer
):
    client.force_login(organizer)
    counts = []
    for cells in (2, 11):
        DiscussionSession.objects.all().delete()
        session = _walk(room, cells=cells)
        assert session.outcomes.count() == cells
        with CaptureQueriesContext(connection) as queries:
            assert client.get(_change(session)).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_sessions_list_asks_as_many_queries_for_two_sessions_as_for_one(
    client, room, organizer
):
    client.force_login(organizer)
    listing = reverse("admin:grading_discussionsession_changelist")
    counts = []
    for _ in range(2):
        _walk(room, cells=1)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(listing)
        assert response.status_code == 200
        counts.append(len(queries))
    assert response.context["cl"].result_count == 2
    assert counts[0] == counts[1]


def test_a_running_session_says_which_cell_it_is_at(client, room, organizer):
    users = room["users"]
    session = sessions.session_start(problem=room["problems"][1], actor=users["alice"])
    sessions.session_move(session=session, actor=users["alice"], position=4)
    client.force_login(organizer)
    text = _text(client.get(_change(session)))
    assert "at cell 5 of 12" in text
    # The cell left when moving on is on record, left open, with the one present.
    (outcome,) = session.outcomes.all()
    assert outcome.kind == SessionOutcome.Kind.LEFT_OPEN
    assert "Left open" in text
