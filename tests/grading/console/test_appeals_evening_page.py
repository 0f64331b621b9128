"""The appeals evening's console page, as the organizer uses it: the slots and tables saved,
a timetable proposed from the live appeals and shown as a grid (leaders and the jurors at each
table), a move that breaks a rule refused on the page with its sentence, the timetable published
to the leaders' and jurors' inboxes; a form typed wrong comes back with what was typed; the page
reads a fixed number of queries whatever the number of meetings."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.appeals.appeals import appeal_file
from grading.models import AppealEvening, AppealMeeting, Notification
from tests.grading.appeals import provisional


@pytest.fixture
def scenario(db):
    return provisional.build()


@pytest.fixture
def organizer(client, scenario):
    client.force_login(scenario["users"]["olga"])
    return client


def _appeal(scenario, identity: str, number: int):
    leader = "lena" if identity.startswith("est") else "liam"
    appeal_file(
        paper=scenario["papers"][identity],
        problem=scenario["problems"][number],
        criteria=provisional.criteria(scenario, number, "A1"),
        argument="Right.",
        actor=scenario["users"][leader],
    )


def _url(scenario, name: str, *args) -> str:
    return reverse(f"console:{name}", args=[scenario["contest"].slug, *args])


def _settings(slots: int = 3, **tables) -> dict:
    return {
        "starts_at": "2026-07-25T19:00",
        "slot_minutes": "20",
        "slots": str(slots),
        "tables_1": tables.get("tables_1", "1"),
        "tables_2": tables.get("tables_2", "1"),
    }


def test_the_organizer_sets_proposes_moves_and_publishes_the_evening(scenario, organizer):
    _appeal(scenario, "est-1", 1)
    _appeal(scenario, "est-2", 2)
    _appeal(scenario, "lat-1", 1)
    page = _url(scenario, "appeals_evening")
    assert organizer.post(page, _settings()).status_code == 302
    evening = AppealEvening.objects.get(contest=scenario["contest"])
    assert (evening.slots, evening.slot_minutes) == (3, 20)

    answer = organizer.post(_url(scenario, "appeals_evening_propose"), follow=True)
    text = answer.content.decode()
    assert "A timetable of 3 meetings in" in text
    assert "3 live appeals call for 3 meetings; the timetable holds 3." in text
    assert "Leaders: lena, mia" in text and "Leaders: liam" in text
    assert 'id="evening-breaches"' not in text

    est_p1 = AppealMeeting.objects.get(delegation__code="EST", problem__number=1)
    est_p2 = AppealMeeting.objects.get(delegation__code="EST", problem__number=2)
    answer = organizer.post(
        _url(scenario, "appeals_meeting_move", est_p2.pk), {"slot": est_p1.slot + 1}, follow=True
    )
    assert f"In slot {est_p1.slot + 1}, lena is due at EST on P1 and EST on P2." in (
        answer.content.decode()
    )
    est_p2.refresh_from_db()
    assert est_p2.slot != est_p1.slot

    answer = organizer.post(_url(scenario, "appeals_evening_publish"), follow=True)
    assert "The timetable is published:" in answer.content.decode()
    assert Notification.objects.filter(
        kind=Notification.Kind.APPEAL_MEETING, recipient__username="lena"
    ).exists()
    assert "(published " in organizer.get(page).content.decode()


def test_an_evening_too_short_is_refused_on_the_page_with_the_reason(scenario, organizer):
    _appeal(scenario, "est-1", 1)
    _appeal(scenario, "est-2", 2)
    organizer.post(_url(scenario, "appeals_evening"), _settings(slots=1))
    answer = organizer.post(_url(scenario, "appeals_evening_propose"), follow=True)
    assert "lena leads 2 meetings, but the evening has 1 slot." in answer.content.decode()
    assert not AppealMeeting.objects.exists()


def test_a_form_typed_wrong_comes_back_with_what_was_typed(scenario, organizer):
    answer = organizer.post(
        _url(scenario, "appeals_evening"), _settings(slots=0) | {"starts_at": "tonight"}
    )
    assert answer.status_code == 422
    text = answer.content.decode()
    assert "Write the start as 2026-07-25 19:00." in text
    assert 'value="tonight"' in text
    assert not AppealEvening.objects.exists()


def test_the_page_reads_the_same_number_of_queries_for_more_meetings(scenario, organizer):
    page = _url(scenario, "appeals_evening")
    organizer.post(page, _settings(slots=4, tables_1="2", tables_2="2"))
    _appeal(scenario, "est-1", 1)
    organizer.post(_url(scenario, "appeals_evening_propose"))
    with CaptureQueriesContext(connection) as few:
        assert organizer.get(page).status_code == 200
    for identity, number in (("est-2", 2), ("lat-1", 1), ("lat-2", 2)):
        _appeal(scenario, identity, number)
    organizer.post(_url(scenario, "appeals_evening_propose"))
    with CaptureQueriesContext(connection) as more:
        assert organizer.get(page).status_code == 200
    assert AppealMeeting.objects.count() == 4
    assert len(more) == len(few)
