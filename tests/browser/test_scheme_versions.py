"""Scheme versions in a real browser: the chair changes a criterion's guidance (version 2, the
jurors told in their inbox), then moves a point between two criteria (the marks it reopens
listed in the preview, then reopened on confirming); a juror finds the reopened cell in their
submitted sheet with the amendment's reason and re-confirms it by keyboard."""

import re

import pytest
from playwright.sync_api import expect

from grading.models import Mark
from tests.browser.test_live import _signed_in
from tests.grading import scenario

pytestmark = pytest.mark.browser


@pytest.fixture
def graded(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    return scenario.build()


def _amend(chair, fields: dict, reason: str) -> None:
    for name, value in fields.items():
        chair.fill(f"#id_{name}", value)
    chair.fill("#id_reason", reason)
    chair.click("button[value=preview]")
    expect(chair.locator("#scheme-preview")).to_be_visible()


def test_the_chair_amends_and_the_juror_re_confirms_a_reopened_mark_by_keyboard(
    browser, live_server, graded
):
    chair = _signed_in(browser, live_server, graded["chair"])
    alice = _signed_in(browser, live_server, graded["users"]["alice"])
    try:
        chair.goto(f"{live_server.url}/contests/iol/p1/comparison/")
        chair.click("#scheme-link a")
        expect(chair.locator("h1")).to_contain_text("Amend the scheme of P1")

        # 1. Guidance: a new version that applies at once.
        _amend(chair, {"A1-guidance": "Accept the plural without its article."}, "Agreed reading.")
        expect(chair.locator("#scheme-preview")).to_contain_text(
            "It makes version 2 and applies at once; no mark reopens."
        )
        chair.click("#scheme-confirm")
        expect(chair.locator("#version-2")).to_contain_text("Version 2")
        expect(chair.locator("#version-2")).to_contain_text("Agreed reading.")
        alice.goto(f"{live_server.url}/inbox/")
        expect(alice.locator(".notice-group", has_text="Grading scheme amended")).to_contain_text(
            "P1: the grading scheme is amended (version 2: guidance of A1); it applies at once."
        )

        # 2. A point moves from A1 to T1: the preview lists the marks it reopens.
        _amend(chair, {"A1-points": "11", "T1-points": "9"}, "T1 weighs more: the rule matters.")
        expect(chair.locator("#reopen-count")).to_have_text(
            "18 marks will reopen for their jurors to re-confirm or re-mark (version 3)."
        )
        expect(chair.locator("#reopen-list tbody tr")).to_have_count(18)
        expect(chair.locator("#reopen-list tbody tr").first.locator("td").first).to_have_text(
            "alice"
        )
        # Orca's three 12s on A1 are above its new maximum: flagged, with what their jurors do.
        expect(chair.locator("#reopen-unfit")).to_have_text(
            "3 reopened marks no longer fit the amended criterion: their jurors must type new "
            "points, since Enter cannot re-confirm them (flagged below, and in the juror's sheet "
            "beside the cell)."
        )
        expect(chair.locator("#reopen-list tbody tr.unfit")).to_have_count(3)
        chair.click("#scheme-confirm")
        expect(chair.locator("ul.messages")).to_contain_text(
            "Scheme version 3 of P1 is in force. 18 marks reopened for their jurors."
        )

        # 3. Alice's submitted sheet: the reopened cells, their reason, re-confirmed with Enter.
        alice.goto(f"{live_server.url}/contests/iol/p1/sheet/")
        expect(alice.locator("#reopened-count strong")).to_have_text("6 marks to re-confirm")
        orca = scenario.label(graded, "Team Orca", 1)
        cell = alice.locator(f"#row-{orca} input.cell[data-code=T1]")
        expect(cell).to_have_class(re.compile(r"\breopened\b"))
        sentence = (
            "Reopened by scheme version 3: T1 weighs more: the rule matters. Press Enter to "
            "re-confirm 8, or type new points."
        )
        expect(cell).to_have_attribute("aria-description", sentence)
        # The keys' line and the cell say one thing: the reopened cells take points.
        expect(alice.locator("p.keys")).to_have_text(
            "Read-only but for the reopened cells (marked “re-confirm”, each saying what it "
            "takes): arrows, Tab and Enter move · h history."
        )
        cell.focus()
        expect(alice.locator("#cell-reopened")).to_have_text(sentence)
        alice.keyboard.press("Enter")
        expect(alice.locator("#sheet-status")).to_have_text(f"Re-confirmed {orca} T1: 8.")
        expect(alice.locator("#reopened-count strong")).to_have_text("5 marks to re-confirm")
        expect(cell).not_to_have_class(re.compile(r"\breopened\b"))

        # 12 on A1, above its new maximum of 11: the cell asks for new points.
        above = alice.locator(f"#row-{orca} input.cell[data-code=A1]")
        above.focus()
        expect(alice.locator("#cell-reopened")).to_have_text(
            "Reopened by scheme version 3: T1 weighs more: the rule matters. 12 is more than "
            "the 11 points this criterion allows, so Enter cannot re-confirm it: type new points."
        )
        alice.keyboard.type("11")
        alice.keyboard.press("Enter")
        expect(alice.locator("#sheet-status")).to_have_text(f"Re-marked {orca} A1: 11.")
        expect(alice.locator("#reopened-count strong")).to_have_text("4 marks to re-confirm")
        mark = Mark.objects.get(
            sheet__juror=graded["users"]["alice"],
            paper=graded["papers"]["Team Orca"],
            criterion__code="T1",
        )
        assert (mark.reopened_by, mark.scheme_version, str(mark.points)) == (None, 3, "8.00")
    finally:
        chair.context.close()
        alice.context.close()
