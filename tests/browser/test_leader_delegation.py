"""A team leader's delegation page in Chromium: signed in, the leader reaches it from the home
page, reads each contestant's points, total, rank and medal, goes by keyboard to a contestant's
problem, whose scanned page loads; both pages pass axe-core."""

from django.urls import reverse

from tests.browser.test_accessibility import Audit
from tests.grading import scenario
from tests.grading.appeals import leader_scenario


def test_a_leader_reads_their_delegation_and_opens_a_contestants_problem_by_keyboard(
    browser, live_server, db, settings
):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    leaders = leader_scenario.build("browse", pages=1)
    leader_scenario.publish(leaders)
    est1 = leaders.papers["EST-1"]
    audit = Audit(browser, live_server.url)
    try:
        page = audit.page("leader", leaders.mari)
        page.click("a.delegation-link")
        page.wait_for_url(f"{live_server.url}{reverse('leader_delegation', args=['browse'])}")
        rows = page.locator("#delegation-results tbody tr").all_inner_texts()
        audit.check(page, "leader · delegation")
        # The first problem link of EST-1, reached with the keyboard from the one before it.
        first = page.locator(f"#contestant-{est1.public_code} a").first
        first.focus()
        page.keyboard.press("Enter")
        page.wait_for_url(
            f"{live_server.url}"
            f"{reverse('leader_contestant_problem', args=['browse', est1.public_code, 1])}"
        )
        heading = page.locator("h1").inner_text()
        agreed = page.locator("#problem-points").inner_text()
        image = page.locator(".scan-page img").first
        image.wait_for()
        width = image.evaluate("img => img.complete ? img.naturalWidth : 0")
        audit.check(page, "leader · contestant's problem")
    finally:
        audit.close()
    assert [" ".join(row.split()) for row in rows] == [
        # The total now (the problems' points, scaled to 100), then the published standing.
        "EST-1 16 16 80 80 2 gold",
        "EST-2 10 10 50 50 3 honourable mention",
    ]
    assert (heading, agreed) == ("EST-1 P1: Problem 1", "16")
    assert width == 300
    assert audit.failures == []
