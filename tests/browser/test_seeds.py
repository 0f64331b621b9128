"""Seeded checks in Chromium: a calibration paper is back in a juror's live sheet under a fresh
label, a row like the others; the juror grades it by keyboard with the rest and submits; their
own calibration opens from the sheet; the chair's seeds page shows their deviation."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from grading.models import CalibrationMark, PaperLabel, Seed
from tests.browser.test_accessibility import AXE, EVERY_IMPACT, RUN_AXE
from tests.grading.calibration import seed_scenario

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser):
    """As conftest's, with the page's CSP bypassed so that axe-core can be injected."""
    context = browser.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def _axe(page) -> list:
    page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN_AXE, list(EVERY_IMPACT))


@pytest.fixture
def world(transactional_db):
    return seed_scenario.build()


def test_a_juror_grades_a_seed_by_keyboard_and_the_chair_sees_the_deviation(
    log_in, live_server, world
):
    alice = world["jurors"][0]
    seed = Seed.objects.get(juror=alice).label
    labels = sorted(
        [
            *PaperLabel.objects.filter(paper__in=world["live"]).values_list("label", flat=True),
            seed,
        ]
    )
    page = log_in(alice)
    page.goto(f"{live_server.url}/contests/seeded/p1/sheet/")
    page.wait_for_selector("#cell-tools:not([hidden])")
    rows = page.locator("#sheet-grid tbody tr")
    assert [rows.nth(i).get_attribute("data-label") for i in range(rows.count())] == labels
    expect(page.locator("#sheet-count")).to_have_text("0 of 8")
    # The sheet starts in the first ungraded cell; `n` saves and goes to the next ungraded one.
    values = [("11", "5") if label == seed else ("4", "4") for label in labels]
    typed = [value for pair in values for value in pair]
    for index, value in enumerate(typed):
        page.keyboard.type(value)
        page.keyboard.press("n" if index < len(typed) - 1 else "Tab")
    expect(page.locator("#sheet-count")).to_have_text("8 of 8")
    expect(page.locator("input.cell.saving")).to_have_count(0)
    assert sorted(
        CalibrationMark.objects.filter(seed__juror=alice).values_list("criterion__code", "points")
    ) == [("A1", Decimal("11")), ("T1", Decimal("5"))]
    page.on("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit my sheet").click()
    expect(page.locator(".messages li").first).to_contain_text("Your sheet for P1 is submitted")
    page.get_by_role("link", name="My calibration").click()
    expect(page.locator("h1")).to_contain_text("My calibration")
    # The seed against the reference (A1 10, T1 6): +1 and −1.
    expect(page.locator("#mine-A1 .seed-deviation")).to_have_text("+1")
    expect(page.locator("#mine-T1 .seed-deviation")).to_have_text("−1")
    assert _axe(page) == []

    page.context.clear_cookies()
    log_in(world["chair"])
    page.goto(f"{live_server.url}/contests/seeded/p1/calibration/seeds/")
    row = page.locator("#seeds-alice")
    expect(row.locator(".deviation")).to_have_text(["+1", "−1"])
    expect(row.locator(".graded")).to_have_text("2")
    expect(row.locator("svg.seed-strip circle")).to_have_count(2)
    expect(page.locator("#seeds-bob .graded")).to_have_text("0")
    assert _axe(page) == []
    page.goto(f"{live_server.url}/contests/seeded/p1/calibration/jurors/")
    expect(page.locator("#calibration-alice .seed-deviation")).to_have_text(["+1", "−1"])
    assert _axe(page) == []
