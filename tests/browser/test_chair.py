import re
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from grading.resolution.decisions import comment_add
from tests.grading import scenario

pytestmark = pytest.mark.browser


@pytest.fixture
def graded(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    graded = scenario.build()
    comment_add(
        paper=graded["papers"]["Team Orca"],
        criterion=graded["problems"][1].criteria.get(code="T1"),
        author=graded["users"]["dan"],
        text="Rule 2 is stated but never applied to item 3.",
    )
    return graded


def test_chair_decides_a_discrepancy_from_the_queue_and_the_results_update(
    log_in, live_server, graded
):
    orca = graded["papers"]["Team Orca"]
    orca_label = scenario.label(graded, "Team Orca", 1)
    page = log_in(graded["chair"])

    page.get_by_role("link", name="Results").click()
    orca_row = page.locator(f"#result-{orca.public_code}")
    assert orca_row.locator("td.total").inner_text() == "88.33"
    expect(orca_row.locator(".flag.provisional")).to_have_count(1)

    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="Queue").click()
    assert page.locator("#queue-count").inner_text() == "2 open discrepancies"
    row = page.locator(f'#queue tr[data-label="{orca_label}"][data-criterion="T1"]')
    assert row.locator("td").nth(4).inner_text() == "alice 8 · bob 8 · dan 6"
    row.get_by_role("link", name="Discuss / decide").click()

    # all_inner_texts() reads the page at once, maybe before the discussion's has come.
    expect(page.locator(".comments li").first).to_have_text(
        re.compile(r"Rule 2 is stated but never applied to item 3\.$"), use_inner_text=True
    )
    assert page.locator("#cell-status").inner_text() == "open"
    page.fill("#decide-points", "7")
    page.fill("#decide-reason", "Rule 2 stated, not applied: 7 of 8.")
    page.check('input[name=next][value="queue"]')
    page.get_by_role("button", name="Decide").click()

    page.wait_for_url(f"{live_server.url}/contests/iol/queue/")
    assert page.locator("#queue-count").inner_text() == "1 open discrepancy"
    assert page.locator(f'#queue tr[data-label="{orca_label}"]').count() == 0

    page.goto(f"{live_server.url}/contests/iol/results/")
    orca_row = page.locator(f"#result-{orca.public_code}")
    assert orca_row.locator("td.total").inner_text() == "87.5"
    assert orca_row.locator("td.medal").inner_text() == "gold"
    assert orca_row.locator(".flag.provisional").count() == 0
    assert "Team Orca" not in page.content()
    resolution = orca.resolutions.get()
    assert (resolution.kind, resolution.points) == ("chair", Decimal("7"))


def test_chair_takes_the_contest_from_open_discrepancies_to_final_and_the_reveal(
    log_in, live_server, graded
):
    page = log_in(graded["chair"])
    page.get_by_role("link", name="Queue").click()
    page.get_by_label("I understand that jurors will be able to revise").check()
    page.get_by_role("button", name="Start the resolution phase").click()
    assert page.locator(".messages li").inner_text() == (
        "The resolution phase is open: jurors may now revise their submitted marks."
    )
    for points in ("7", "8"):
        page.locator("#queue").get_by_role("link", name="Discuss / decide").first.click()
        page.fill("#decide-points", points)
        page.fill("#decide-reason", "Decided in the jury meeting.")
        page.check('input[name=next][value="queue"]')
        page.get_by_role("button", name="Decide").click()
        page.wait_for_url(f"{live_server.url}/contests/iol/queue/")
    assert page.locator("#queue-count").inner_text() == "0 open discrepancies"

    page.goto(f"{live_server.url}/contests/iol/results/")
    page.get_by_role("button", name="Finalize the contest").click()
    # Finalizing is confirmed on its own page, which says what it reveals.
    page.get_by_label(
        "I understand that the identities will be revealed to the chair and that nothing can "
        "change afterwards."
    ).check()
    page.get_by_role("button", name="Finalize and reveal the identities").click()
    page.wait_for_url(f"{live_server.url}/contests/iol/reveal/")
    rows = page.locator("#reveal tbody tr")
    assert [rows.nth(i).locator("td.identity").inner_text() for i in range(3)] == [
        "Team Orca",
        "Team Heron",
        "Team Lynx",
    ]
    assert [rows.nth(i).locator("td").last.inner_text() for i in range(3)] == [
        "gold",
        "honourable mention",
        "",
    ]


def test_the_discussion_page_posts_in_place_through_htmx_without_breaking_the_policy(
    log_in, live_server, graded
):
    """htmx swaps the discussion after a comment or a refused decision: the page is not
    reloaded (a marker set on `window` survives), the refusal is shown in the swapped part, and
    the strict Content-Security-Policy reports nothing."""
    orca_label = scenario.label(graded, "Team Orca", 1)
    page = log_in(graded["chair"])
    problems = []
    page.on("console", lambda message: message.type == "error" and problems.append(message.text))
    page.goto(f"{live_server.url}/contests/iol/p1/papers/{orca_label}/criteria/T1/")
    page.evaluate("window.notReloaded = true")

    page.fill("#comment-text", "Item 3 needs the plural rule.")
    page.get_by_role("button", name="Post comment").click()
    page.locator(".comments li", has_text="Item 3 needs the plural rule.").wait_for()

    page.check('input[name=next][value="stay"]')
    page.fill("#decide-points", "9")
    page.fill("#decide-reason", "Too generous?")
    page.get_by_role("button", name="Decide").click()
    page.locator("#decide-error").wait_for()
    assert page.locator("#decide-error").inner_text() == (
        "Criterion T1: 9 is more than the 8 points this criterion allows."
    )
    assert page.evaluate("window.notReloaded") is True
    assert problems == []
    assert graded["papers"]["Team Orca"].resolutions.count() == 0
