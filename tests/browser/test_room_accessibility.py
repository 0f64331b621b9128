"""axe-core on the pages of the room (issue 34), each as the role that works in it: a discussion
session's page as a member with a cell (its revision, agreed value and chair forms) and as the
projector; the appeals evening's console page with its timetable, "My appeals evening" and a
meeting's page as its leader and as the jury. No violation at all, as for the site's other pages
(tests/browser/test_accessibility.py, whose audit this reuses)."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from grading.appeals.appeals import appeal_file
from grading.appeals.evening import evening_propose, evening_publish, evening_set
from grading.models import AppealMeeting
from grading.resolution import sessions
from tests.browser.test_accessibility import Audit
from tests.grading import scenario as shared
from tests.grading.appeals import provisional
from tests.grading.resolution import session_scenario

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def _fast_hashers(db, settings):
    settings.PASSWORD_HASHERS = shared.FAST_HASHERS


def test_a_discussion_sessions_pages_pass_axe_core(browser, live_server):
    room = session_scenario.build()
    users = room["users"]
    session = sessions.session_start(problem=room["problems"][1], actor=users["alice"])
    sessions.session_join(session=session, actor=users["bob"])
    sessions.session_agree_value(
        session=session, actor=users["bob"], points=Decimal("8"), reason="Half of item 2."
    )
    audit = Audit(browser, live_server.url)
    page = reverse("session", args=["room", 1])
    audit.visit("juror", users["alice"], "session", {"session": page})
    audit.visit("chair", users["chen"], "session", {"projector": f"{page}?projector=1"})
    audit.visit("juror2", users["erin"], "session", {"not yet joined": page})
    assert audit.failures == []
    assert len(audit.seen) == 3


def test_the_appeals_evenings_pages_pass_axe_core(browser, live_server):
    built = provisional.build()
    users = built["users"]
    appeal_file(
        paper=built["papers"]["est-1"],
        problem=built["problems"][1],
        criteria=provisional.criteria(built, 1, "A1"),
        argument="Right.",
        actor=users["lena"],
    )
    evening = evening_set(
        built["contest"],
        starts_at=timezone.now() + timedelta(hours=1),
        slot_minutes=20,
        slots=3,
        tables={},
    )
    evening_propose(evening)
    evening_publish(evening)
    meeting = reverse("appeal_meeting", args=["iol", AppealMeeting.objects.get().pk])
    audit = Audit(browser, live_server.url)
    audit.visit(
        "organizer",
        users["olga"],
        "evening",
        {"console": reverse("console:appeals_evening", args=["iol"])},
    )
    mine = reverse("evening_mine", args=["iol"])
    audit.visit("leader", users["lena"], "evening", {"mine": mine, "meeting": meeting})
    audit.visit("juror", users["erin"], "evening", {"mine": mine, "meeting": meeting})
    assert audit.failures == []
    assert len(audit.seen) == 3
