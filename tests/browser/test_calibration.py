"""A calibration round in Chromium: the chair picks two papers and enters the reference (a
wrong value marked, every value typed kept), opens the round; two jurors grade the calibration papers by keyboard and each sees the comparison
with the reference only after submitting; the chair closes the round and the live sheet opens."""

import pytest
from playwright.sync_api import expect

from grading.models import CalibrationMark, CalibrationRound, PaperLabel
from tests.browser.signing_in import submit_log_in

pytestmark = pytest.mark.browser


def _signed_in(browser, live_server, user):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    return submit_log_in(page, live_server, user)


def _grade_by_keyboard(page, values):
    """K1 A1, K1 T1, K2 T1, K2 A1: Tab, Enter and an arrow between them, as a juror moves."""
    keyboard = page.keyboard
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "K1 A1"
    keyboard.type(values[0])
    keyboard.press("Tab")
    keyboard.type(values[1])
    keyboard.press("Enter")
    keyboard.type(values[2])
    keyboard.press("ArrowLeft")
    keyboard.type(values[3])
    keyboard.press("Tab")
    expect(page.locator("#sheet-count")).to_have_text("4 of 4")
    expect(page.locator("input.cell.saving")).to_have_count(0)


def _submit(page):
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit my calibration sheet").click()
    page.wait_for_selector(".messages li")


def test_a_calibration_round_from_the_chairs_pick_to_grading_open(
    browser, live_server, contest, chair, juror, other_juror
):
    labels = sorted(
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1).values_list(
            "label", flat=True
        )
    )
    round_url = f"{live_server.url}/contests/{contest.slug}/p1/calibration/"
    chair_page = _signed_in(browser, live_server, chair)
    chair_page.goto(round_url)
    chair_page.check(f"input[name=labels][value='{labels[0]}']")
    chair_page.check(f"input[name=labels][value='{labels[2]}']")
    chair_page.get_by_role("button", name="Create the calibration round").click()
    chair_page.wait_for_selector("#reference-grid")
    # A paper picked by mistake is picked again before the round opens to the jurors.
    chair_page.get_by_text("Change the round").click()
    chair_page.uncheck(f"#change-round input[name=labels][value='{labels[0]}']")
    chair_page.check(f"#change-round input[name=labels][value='{labels[1]}']")
    chair_page.get_by_role("button", name="Save the round").click()
    expect(chair_page.locator(".messages li")).to_have_text(
        "The calibration round of P1 is changed: papers and seeded checks saved."
    )
    picked = PaperLabel.objects.filter(
        problem__contest=contest, problem__number=1, paper__calibrations__isnull=False
    ).values_list("label", flat=True)
    assert set(picked) == {labels[1], labels[2]}
    typed = (("K1", "A1", "10"), ("K1", "T1", "6"), ("K2", "A1", "4.25"), ("K2", "T1", "8"))
    for label, code, points in typed:
        chair_page.get_by_label(f"{label} {code} reference points").fill(points)
    chair_page.get_by_label("K2 T1 reference note").fill("the vowel rule is stated")
    chair_page.get_by_role("button", name="Save the reference").click()
    # One value off the step: it is marked, and every value typed stays in the grid.
    expect(chair_page.locator("#reference-errors li")).to_have_text(
        "Paper K2, criterion A1: 4.25 is not a multiple of the step 0.5."
    )
    wrong = chair_page.get_by_label("K2 A1 reference points")
    expect(wrong).to_have_attribute("aria-invalid", "true")
    expect(chair_page.locator("[aria-invalid]")).to_have_count(1)
    for label, code, points in typed:
        expect(chair_page.get_by_label(f"{label} {code} reference points")).to_have_value(points)
    expect(chair_page.get_by_label("K2 T1 reference note")).to_have_value(
        "the vowel rule is stated"
    )
    wrong.fill("4")
    chair_page.get_by_role("button", name="Save the reference").click()
    expect(chair_page.locator(".messages li")).to_have_text("4 references saved.")
    chair_page.get_by_role("button", name="Open the round to the jurors").click()
    expect(chair_page.locator(".messages li")).to_have_text(
        "The calibration round of P1 is open to the jurors."
    )

    sheet_url = f"{round_url}sheet/"
    for user, values in ((juror, ("10", "5", "8", "4")), (other_juror, ("9", "6", "7.5", "4"))):
        page = _signed_in(browser, live_server, user)
        # The home page leads to the calibration sheet; the live sheet waits.
        page.get_by_role("link", name="My calibration sheet for P1: Problem 1").click()
        page.wait_for_selector("#cell-tools:not([hidden])")
        assert page.url == sheet_url
        expect(page.locator("#calibration-comparison")).to_have_count(0)
        assert "the vowel rule is stated" not in page.content()
        _grade_by_keyboard(page, values)
        # Independence: still nothing of the reference before submitting.
        page.reload()
        page.wait_for_selector("#cell-tools:not([hidden])")
        expect(page.locator("#calibration-comparison")).to_have_count(0)
        _submit(page)
        comparison = page.locator("#calibration-comparison")
        expect(comparison).to_be_visible()
        row = page.locator('#comparison-K2 tr[data-code="T1"]')
        expect(row.locator(".reference")).to_have_text("8")
        expect(row.locator(".reference-note")).to_have_text("the vowel rule is stated")
        expect(row.locator(".own")).to_have_text(values[2])
        page.goto(f"{live_server.url}/contests/{contest.slug}/p1/sheet/")
        expect(page.locator(".notice.locked")).to_have_text(
            "Grading of P1 opens after its calibration round: grade the calibration papers first."
        )
        page.context.close()

    assert CalibrationMark.objects.filter(points__isnull=True).count() == 0
    chair_page.goto(round_url)
    expect(chair_page.locator("#progress")).to_contain_text("2 of 2 calibration sheets submitted.")
    expect(chair_page.locator('#spread tr[data-code="A1"] td').first).to_contain_text(
        "2 marks from 9 to 10, median 9.5; 1 of 2 equals the reference"
    )
    chair_page.get_by_role("button", name="Close the round and open grading").click()
    expect(chair_page.locator(".messages li")).to_have_text("Grading of P1 is open.")
    assert not CalibrationRound.objects.get().is_open

    page = _signed_in(browser, live_server, juror)
    page.goto(f"{live_server.url}/contests/{contest.slug}/p1/sheet/")
    page.wait_for_selector("#cell-tools:not([hidden])")
    expect(page.locator(".notice.locked")).to_have_count(0)
    page.keyboard.type("3")
    page.keyboard.press("Tab")
    expect(page.locator("#sheet-status")).to_contain_text("Saved")
