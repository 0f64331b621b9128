"""A discussion session in the room, in three browsers (tests/grading/resolution/session_scenario:
P1's twelve open cells, alice, bob and erin its jurors): alice starts it from the comparison, bob
and erin join; ten cells are walked, each member's screen following the cell alice moves to
without a reload; bob revises his mark and the first cell closes as agreed; erin records an agreed
value with a reason for the second, which each juror takes on their own screen; alice sends the
third to the chair; every outcome records who was present."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from grading.models import SessionOutcome
from tests.grading import scenario as shared
from tests.grading.resolution import session_scenario

pytestmark = pytest.mark.browser

# The page asks every second; a screen follows within about two. The tests wait longer, so
# that a loaded machine makes them slower, never red (bench/ measures the latency itself).
FOLLOW_MS = 15_000


@pytest.fixture
def room(db, settings):
    settings.PASSWORD_HASHERS = shared.FAST_HASHERS
    return session_scenario.build()


def _where(page, n: int):
    expect(page.locator("#session-where strong")).to_have_text(f"Cell {n} of 12", timeout=FOLLOW_MS)


def test_three_jurors_walk_ten_cells_and_each_outcome_records_who_was_there(
    sign_in, live_server, room
):
    users, url = room["users"], live_server.url
    session_url = f"{url}{reverse('session', args=['room', 1])}"

    alice = sign_in(users["alice"])
    alice.goto(f"{url}{reverse('comparison', args=['room', 1])}")
    alice.get_by_role("link", name="Walk the open cells with the group, in the room").click()
    alice.get_by_role("button", name="Start a session").click()
    expect(alice.locator(".messages li.success")).to_contain_text("The session walks 12 open cells")

    members = {}
    for name in ("bob", "erin"):
        page = sign_in(users[name])
        page.goto(session_url)
        page.get_by_role("button", name="Join the session").click()
        _where(page, 1)
        members[name] = page
    bob, erin = members["bob"], members["erin"]
    expect(alice.locator("#session-present")).to_have_text("alice, bob, erin", timeout=FOLLOW_MS)

    # Cell 1 (A1: 10, 4, 10): bob revises to 10, and every screen shows it agreed.
    bob.get_by_label("Revise your mark").fill("10")
    bob.get_by_role("button", name="Save revision").click()
    for page in (alice, bob, erin):
        expect(page.locator("#session-status")).to_have_text(
            "agreed in discussion", timeout=FOLLOW_MS
        )

    alice.get_by_role("button", name="Next cell").click()
    for page in (alice, bob, erin):
        _where(page, 2)

    # Cell 2 (T1: 6, 2, 6): erin records 4 with a reason; each juror takes it on their screen.
    erin.get_by_label("Agreed value").fill("4")
    erin.get_by_label("Reason").fill("Item 2 is half right.")
    erin.get_by_role("button", name="Record the agreed value").click()
    for page in (alice, bob, erin):
        expect(page.locator("#session-agreed")).to_contain_text("4", timeout=FOLLOW_MS)
        page.get_by_role("button", name="Take 4 as my mark").click()
    for page in (alice, bob, erin):
        expect(page.locator("#session-status")).to_have_text(
            "agreed in discussion", timeout=FOLLOW_MS
        )

    alice.get_by_role("button", name="Next cell").click()
    for page in (alice, bob, erin):
        _where(page, 3)

    # Cell 3: the group sends it to the chair.
    alice.get_by_label("Why the chair").fill("The scheme is silent on item 1.")
    alice.get_by_role("button", name="Send to the chair").click()
    expect(alice.locator("#session-outcomes")).to_contain_text("Sent to the chair")

    for n in range(4, 11):
        alice.get_by_role("button", name="Next cell").click()
        for page in (alice, bob, erin):
            _where(page, n)

    Kind = SessionOutcome.Kind
    # Cells 1–3 as the group settled them; cells 4 to 9, walked past, left open.
    kinds = list(SessionOutcome.objects.order_by("id").values_list("kind", flat=True))
    assert kinds == [Kind.AGREED, Kind.VALUE, Kind.CHAIR] + [Kind.LEFT_OPEN] * 6
    outcomes = {o.kind: o for o in SessionOutcome.objects.exclude(kind=Kind.LEFT_OPEN)}
    for kind in (Kind.AGREED, Kind.VALUE, Kind.CHAIR):
        assert sorted(u.username for u in outcomes[kind].present.all()) == ["alice", "bob", "erin"]
    assert outcomes[Kind.VALUE].reason == "Item 2 is half right."

    # The projector shows the same cell in large type, without the controls.
    projector = sign_in(users["chen"])
    projector.goto(f"{session_url}?projector=1")
    expect(projector.locator("#session-live.projector #session-where strong")).to_have_text(
        "Cell 10 of 12"
    )
    expect(projector.get_by_role("button", name="Next cell")).to_have_count(0)
