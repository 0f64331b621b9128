"""The inbox's groups in a real browser: a group opens to list its notices, and stays open while
the page takes in a new notice of the same group by itself."""

import pytest
from playwright.sync_api import expect

from grading.resolution.decisions import comment_add
from tests.browser.test_live import LIVE_TIMEOUT, READY, _signed_in
from tests.grading import scenario

pytestmark = pytest.mark.browser


@pytest.fixture
def graded(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    settings.LIVE_POLL_SECONDS = 0.2  # as test_live.py: a change shows within a fifth of a second
    graded = scenario.build()
    scenario.open_resolution(graded)
    return graded


def test_an_open_group_stays_open_while_it_takes_in_a_new_notice(browser, live_server, graded):
    orca = graded["papers"]["Team Orca"]
    t1 = graded["problems"][1].criteria.get(code="T1")
    comment_add(paper=orca, criterion=t1, author=graded["users"]["bob"], text="Item 3?")
    alice = _signed_in(browser, live_server, graded["users"]["alice"])
    try:
        alice.goto(f"{live_server.url}/inbox/")
        group = alice.locator("details.notice-group", has_text="comment")
        expect(group.locator(".notifications li").first).to_be_hidden()
        group.locator("summary").click()
        expect(group.locator(".notifications li")).to_have_count(1)
        expect(group.locator(".notifications li").first).to_be_visible()
        alice.wait_for_selector(READY, state="attached")

        comment_add(paper=orca, criterion=t1, author=graded["users"]["dan"], text="Item 4?")
        expect(group.locator(".headline")).to_have_text(
            "2 comments on cells in P1.", timeout=LIVE_TIMEOUT
        )
        expect(group.locator(".notifications li")).to_have_count(2)
        expect(group).to_have_attribute("open", "")
        expect(group.locator(".group-unread")).to_have_text("2 unread")
    finally:
        alice.context.close()
