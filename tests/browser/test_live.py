"""Live pages and local times in a real browser: the chair's discussion takes in a juror's comment
by itself while the chair's half-typed reason stays; a juror's inbox takes in a new notice; the
times shown are the browser's zone's (its context's timezone_id)."""

import datetime as dt
import re
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from grading.models import Mark, Notification, Resolution
from grading.resolution.decisions import comment_add, mark_revise
from tests.browser.signing_in import submit_log_in
from tests.grading import scenario

pytestmark = pytest.mark.browser

# live.js is ready once it knows the page's first stamp: a change made before then would be that
# stamp, and the page would not take it in.
READY = "html[data-live-ready]"
# A change shows within a poll (a fifth of a second here) and a fetch of the page, which a loaded
# machine can make take seconds: the bound of the expectations that wait for it (expect's own
# is five seconds), never a wait in itself.
LIVE_TIMEOUT = 15_000


@pytest.fixture
def graded(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    # The pages ask for their stamp five times a second instead of every five seconds: a
    # change shows within the expectations' usual timeout.
    settings.LIVE_POLL_SECONDS = 0.2
    graded = scenario.build()
    scenario.open_resolution(graded)
    return graded


def _signed_in(browser, live_server, user, **context):
    """A page of a browser context of its own, signed in as `user`."""
    page = browser.new_context(viewport={"width": 1400, "height": 900}, **context).new_page()
    page.set_default_timeout(10_000)
    return submit_log_in(page, live_server, user)


def test_the_chairs_discussion_takes_in_a_jurors_comment_and_keeps_the_half_typed_reason(
    browser, live_server, graded
):
    url = (
        f"{live_server.url}/contests/iol/p1/papers/"
        f"{scenario.label(graded, 'Team Orca', 1)}/criteria/T1/"
    )
    chair = _signed_in(browser, live_server, graded["chair"])
    alice = _signed_in(browser, live_server, graded["users"]["alice"])
    try:
        chair.goto(url)
        expect(chair.locator("#comments .empty")).to_have_text("No comments yet.")
        chair.wait_for_selector(READY, state="attached")
        chair.fill("#decide-points", "7")
        chair.locator("#decide-reason").click()
        chair.keyboard.type("Rule 2 is stated but not appl")

        alice.goto(url)
        alice.fill("#comment-text", "Item 3 applies rule 2 after all.")
        alice.get_by_role("button", name="Post comment").click()
        expect(alice.locator(".comments li")).to_have_count(1)

        # Without a reload, the comment appears on the chair's page, and the header counts it.
        expect(chair.locator(".comments li")).to_have_count(1, timeout=LIVE_TIMEOUT)
        expect(chair.locator(".comments li")).to_have_text(
            re.compile(r"Item 3 applies rule 2 after all\.$"), use_inner_text=True
        )
        expect(chair.locator("#inbox-link .count")).to_have_text("1")
        # What the chair was typing is still there, still focused, and typing goes on.
        expect(chair.locator("#decide-reason")).to_have_value("Rule 2 is stated but not appl")
        expect(chair.locator("#decide-points")).to_have_value("7")
        expect(chair.locator("#decide-reason")).to_be_focused()
        chair.keyboard.type("ied.")
        expect(chair.locator("#decide-reason")).to_have_value("Rule 2 is stated but not applied.")
        # And the refreshed page still works: the decision goes through.
        chair.get_by_role("button", name="Decide").click()
        chair.wait_for_url(lambda address: address != url)
        decided = Resolution.objects.get(
            paper=graded["papers"]["Team Orca"], criterion__problem__number=1, criterion__code="T1"
        )
        assert (decided.points, decided.reason) == (
            Decimal("7"),
            "Rule 2 is stated but not applied.",
        )
    finally:
        chair.context.close()
        alice.context.close()


def test_the_inbox_takes_in_a_new_notice_by_itself(browser, live_server, graded):
    alice = _signed_in(browser, live_server, graded["users"]["alice"])
    try:
        alice.goto(f"{live_server.url}/inbox/")
        expect(alice.locator(".notifications li")).to_have_count(1)
        expect(alice.locator("#inbox-link .count")).to_have_text("1")
        alice.wait_for_selector(READY, state="attached")
        comment_add(
            paper=graded["papers"]["Team Orca"],
            criterion=graded["problems"][1].criteria.get(code="T1"),
            author=graded["users"]["bob"],
            text="Look at item 3.",
        )
        expect(alice.locator(".notifications li")).to_have_count(2, timeout=LIVE_TIMEOUT)
        # Read in its group, folded: its text, not what is shown.
        assert (
            alice.locator(".notifications li a")
            .first.text_content()
            .startswith("bob commented on P1 paper ")
        )
        expect(alice.locator("#inbox-link .count")).to_have_text("2")
    finally:
        alice.context.close()


@pytest.mark.parametrize(
    ("zone", "shown"),
    [("Asia/Tokyo", "2026-07-21 08:30"), ("America/Sao_Paulo", "2026-07-20 20:30")],
)
def test_times_show_in_the_browsers_time_zone(browser, live_server, graded, zone, shown):
    Notification.objects.update(created_at=dt.datetime(2026, 7, 20, 23, 30, tzinfo=dt.UTC))
    alice = _signed_in(browser, live_server, graded["users"]["alice"], timezone_id=zone)
    try:
        alice.goto(f"{live_server.url}/inbox/")
        expect(alice.locator(".notifications .meta").first).to_have_text(re.compile(f"^{shown}"))
        assert alice.locator("#notifications").inner_text().count(f"Times in {zone}.") == 1
    finally:
        alice.context.close()


def test_the_queue_and_the_comparison_take_in_a_revision_by_themselves(
    browser, live_server, graded
):
    chair = _signed_in(browser, live_server, graded["chair"])
    comparison = _signed_in(browser, live_server, graded["chair"])
    try:
        chair.goto(f"{live_server.url}/contests/iol/queue/")
        expect(chair.locator("#queue-count")).to_contain_text("2 open discrepancies")
        chair.wait_for_selector(READY, state="attached")
        comparison.goto(f"{live_server.url}/contests/iol/p1/comparison/")
        # A mark on the region as the page loaded it: gone once the region is replaced.
        comparison.evaluate("document.getElementById('comparison-body').dataset.loaded = 'yes'")
        comparison.wait_for_selector(READY, state="attached")
        bob = graded["users"]["bob"]
        mark = Mark.objects.get(
            sheet__juror=bob, paper=graded["papers"]["Team Heron"], criterion__code="A1"
        )
        # Bob comes down to 8 with alice and dan: the cell closes as a consensus.
        mark_revise(mark=mark, points=Decimal("8"), actor=bob)
        expect(chair.locator("#queue-count")).to_contain_text(
            "1 open discrepancy", timeout=LIVE_TIMEOUT
        )
        expect(comparison.locator("#comparison-body[data-loaded]")).to_have_count(
            0, timeout=LIVE_TIMEOUT
        )
        expect(comparison.locator("#comparison-body")).to_have_count(1)
    finally:
        chair.context.close()
        comparison.context.close()
