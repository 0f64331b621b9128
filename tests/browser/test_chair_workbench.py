"""The chair works through the queue with the keyboard: down the queue, into a cell, take a
juror's mark with a reason, land on the next cell; a refused decision keeps what was typed, and
no key is taken for a command while the chair types."""

import re
import urllib.request
from decimal import Decimal

import pytest

from grading.marking.forms import DECISION_REASONS
from grading.models import Resolution
from tests.grading import scenario

pytestmark = pytest.mark.browser


@pytest.fixture
def graded(db, settings, live_server):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    # The live server's first answer imports every view (seconds on a loaded machine): paid
    # here rather than in the browser's first page load, which has a ten-second limit.
    urllib.request.urlopen(f"{live_server.url}/accounts/login/", timeout=60).read()
    return scenario.build()


def test_the_chair_walks_the_queue_adopts_a_mark_and_lands_on_the_next_cell(
    log_in, live_server, graded
):
    heron, orca = (scenario.label(graded, name, 1) for name in ("Team Heron", "Team Orca"))
    heron_a1 = f"{live_server.url}/contests/iol/p1/papers/{heron}/criteria/A1/"
    orca_t1 = f"{live_server.url}/contests/iol/p1/papers/{orca}/criteria/T1/"
    page = log_in(graded["chair"])
    page.get_by_role("link", name="Queue").first.click()
    page.wait_for_url(f"{live_server.url}/contests/iol/queue/")
    # Heron's A1 (8, 9, 8) heads the queue, Orca's T1 (8, 8, 6) follows.
    assert [
        page.locator("#queue tbody tr").nth(i).get_attribute("data-label") for i in range(2)
    ] == [heron, orca]

    # j down to the second row, k back up to the first, Enter opens it.
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("k")
    page.keyboard.press("Enter")
    page.wait_for_url(heron_a1)
    assert page.locator("#cell-status").inner_text() == "open"
    assert (
        page.locator("#discussion-keys")
        .inner_text()
        .startswith(
            "Keys: j next and k previous in the queue · 1 take alice's mark · 2 take bob's mark"
        )
    )

    # 2: bob's mark (9) fills the points and the focus goes to the reasons; Enter decides.
    page.keyboard.press("2")
    assert page.input_value("#decide-points") == "9"
    assert page.evaluate("document.activeElement.id") == "decide-reason-choice"
    assert page.locator("#decide-hint").inner_text() == (
        "Take bob's mark (9): choose or write the reason, then press Enter to decide."
    )
    page.select_option("#decide-reason-choice", DECISION_REASONS[0])
    page.keyboard.press("Enter")

    # The next cell of the queue, in the walk begun by that decision.
    page.wait_for_url(re.compile(re.escape(orca_t1) + r"\?walk=[\w-]+$"))
    assert page.locator("#cell-status").inner_text() == "open"
    resolution = Resolution.objects.get(paper=graded["papers"]["Team Heron"])
    assert (resolution.kind, resolution.points, resolution.reason) == (
        "chair",
        Decimal("9"),
        DECISION_REASONS[0],
    )

    # k goes back to Heron's A1? It is decided and out of the queue: Orca's T1 is the first
    # and only cell, so k has nothing before it and shows the queue.
    page.keyboard.press("k")
    page.wait_for_url(f"{live_server.url}/contests/iol/queue/")
    assert page.locator(".messages li").inner_text() == "No cell before this one in the queue."


def test_a_refused_decision_keeps_what_was_typed_and_typing_is_never_a_command(
    log_in, live_server, graded
):
    orca = scenario.label(graded, "Team Orca", 1)
    orca_t1 = f"{live_server.url}/contests/iol/p1/papers/{orca}/criteria/T1/"
    page = log_in(graded["chair"])
    page.goto(orca_t1)
    page.evaluate("window.notReloaded = true")

    # Letters and digits typed in the fields stay text: no j, k, c, 2 or h takes effect.
    page.click("#decide-reason")
    page.keyboard.type("just 2 items; check h and k")
    page.click("#decide-points")
    page.keyboard.type("9")
    assert page.url == orca_t1
    page.select_option("#decide-reason-choice", DECISION_REASONS[2])
    page.focus("#decide-points")
    page.keyboard.press("Enter")

    page.locator("#decide-error").wait_for()
    assert page.locator("#decide-error").inner_text() == (
        "Criterion T1: 9 is more than the 8 points this criterion allows."
    )
    assert page.input_value("#decide-points") == "9"
    assert page.input_value("#decide-reason") == "just 2 items; check h and k"
    assert page.input_value("#decide-reason-choice") == DECISION_REASONS[2]
    assert page.evaluate("document.activeElement.id") == "decide-error"
    assert page.evaluate("window.notReloaded") is True
    assert Resolution.objects.count() == 0

    # c goes to the comment box; what is typed there stays there.
    page.keyboard.press("c")
    assert page.evaluate("document.activeElement.id") == "comment-text"
    page.keyboard.type("j and k")
    assert page.input_value("#comment-text") == "j and k"
    assert page.url == orca_t1


def test_one_click_takes_a_jurors_mark_with_the_reason_chosen(log_in, live_server, graded):
    orca = scenario.label(graded, "Team Orca", 1)
    page = log_in(graded["chair"])
    page.goto(f"{live_server.url}/contests/iol/p1/papers/{orca}/criteria/T1/")
    page.select_option("#decide-reason-choice", DECISION_REASONS[1])
    page.fill("#decide-reason", "Item 3 is right.")
    page.get_by_role("button", name="Take dan's mark (6)").click()
    # Orca's T1 follows Heron's A1 in the queue: nothing after it, so the queue, which says so
    # and that Heron's A1, above, is still open.
    page.wait_for_url(f"{live_server.url}/contests/iol/queue/")
    assert page.locator(".messages li").all_inner_texts() == [
        f"Decision recorded for {orca} T1.",
        "No cell after this one in the queue; 1 open cell above it remains.",
    ]
    resolution = Resolution.objects.get()
    assert (resolution.paper, resolution.points, resolution.reason) == (
        graded["papers"]["Team Orca"],
        Decimal("6"),
        f"{DECISION_REASONS[1]} Item 3 is right.",
    )
