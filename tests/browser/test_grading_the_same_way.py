"""Grading the same way, the whole of it in Chromium, as a grading group lives it: the chair
picks two calibration papers, keeps a third out of the round for seeding and enters the
reference of all three; two jurors grade the two by keyboard and
each sees the comparison with the reference only after submitting; the chair amends a
criterion's guidance (version 2, the group told) and then moves a point between criteria (the
calibration marks it affects listed, then reopened for their jurors); the chair opens grading;
the paper kept for seeding is in a juror's live sheet like any other row (never one she saw in
the round), and once she submits, the chair's
seeds page shows her deviation from the reference."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from grading.models import Assignment, CalibrationMark, PaperLabel, Seed
from rubrics.models import Problem
from tests.browser.test_calibration import _grade_by_keyboard, _signed_in, _submit

pytestmark = pytest.mark.browser

# The reference (criteria A1 out of 12 and T1 out of 8): K1 A1 10, K1 T1 6, K2 A1 4, K2 T1 8,
# and K3 (kept out of the round for seeding) A1 7, T1 3.
REFERENCE = (
    ("K1", "A1", "10"),
    ("K1", "T1", "6"),
    ("K2", "A1", "4"),
    ("K2", "T1", "8"),
    ("K3", "A1", "7"),
    ("K3", "T1", "3"),
)


def _amend(chair, fields: dict, reason: str) -> None:
    for name, value in fields.items():
        chair.fill(f"#id_{name}", value)
    chair.fill("#id_reason", reason)
    chair.click("button[value=preview]")
    expect(chair.locator("#scheme-preview")).to_be_visible()


def test_a_group_calibrates_amends_its_scheme_and_is_checked_by_seeds_while_grading(
    browser, live_server, contest, chair, juror, other_juror
):
    base = f"{live_server.url}/contests/{contest.slug}/p1"
    labels = sorted(
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1).values_list(
            "label", flat=True
        )
    )
    # 1. The chair's round: two papers graded in it, one kept out for seeding, seeded checks,
    # the reference of the three, open to the group.
    chair_page = _signed_in(browser, live_server, chair)
    chair_page.goto(f"{base}/calibration/")
    chair_page.check(f"input[name=labels][value='{labels[0]}']")
    chair_page.check(f"input[name=labels][value='{labels[1]}']")
    chair_page.check(f"input[name=kept][value='{labels[2]}']")
    chair_page.check("input[name=seeded]")
    chair_page.get_by_role("button", name="Create the calibration round").click()
    chair_page.wait_for_selector("#reference-grid")
    for label, code, points in REFERENCE:
        chair_page.get_by_label(f"{label} {code} reference points").fill(points)
    chair_page.get_by_role("button", name="Save the reference").click()
    expect(chair_page.locator(".messages li")).to_have_text("6 references saved.")
    chair_page.get_by_role("button", name="Open the round to the jurors").click()

    # 2. Two jurors grade the calibration papers; the reference only after submitting.
    for user, values in ((juror, ("10", "5", "8", "4")), (other_juror, ("9", "6", "7.5", "4"))):
        page = _signed_in(browser, live_server, user)
        page.goto(f"{base}/calibration/sheet/")
        page.wait_for_selector("#cell-tools:not([hidden])")
        _grade_by_keyboard(page, values)
        expect(page.locator("#calibration-comparison")).to_have_count(0)
        _submit(page)
        expect(page.locator("#calibration-comparison")).to_be_visible()
        page.context.close()

    # 3. The guidance of A1 read two ways: version 2, which applies at once, the group told.
    chair_page.goto(f"{base}/scheme/")
    _amend(chair_page, {"A1-guidance": "Accept the plural without its article."}, "Read alike.")
    expect(chair_page.locator("#scheme-preview")).to_contain_text("version 2")
    chair_page.click("#scheme-confirm")
    expect(chair_page.locator("#version-2")).to_contain_text("Read alike.")
    alice = _signed_in(browser, live_server, juror)
    alice.goto(f"{live_server.url}/inbox/")
    expect(alice.locator(".notice-group", has_text="Grading scheme amended")).to_contain_text(
        "P1: the grading scheme is amended (version 2: guidance of A1); it applies at once."
    )

    # 4. A point moves from A1 to T1: the calibration marks it affects are listed, then reopened.
    _amend(chair_page, {"A1-points": "11", "T1-points": "9"}, "The rule matters more.")
    expect(chair_page.locator("#scheme-preview")).to_contain_text("version 3")
    expect(chair_page.locator("#reopen-calibration-list tbody tr")).to_have_count(8)
    chair_page.click("#scheme-confirm")
    assert CalibrationMark.objects.filter(reopened_by__number=3).count() == 8
    alice.goto(f"{base}/calibration/sheet/")
    expect(alice.locator("#reopened-count")).to_contain_text("4 marks to re-confirm")
    # Her marks are as she gave them: never rescaled.
    assert sorted(
        CalibrationMark.objects.filter(sheet__juror=juror).values_list("points", flat=True)
    ) == [Decimal(v) for v in ("4", "5", "8", "10")]

    # 5. Grading opens. The assignment gave K1 and K3 to bob alone, so alice's live sheet has
    # her paper (K2: graded in the round, no seed of it) and the seed of K3, rows alike.
    Assignment.objects.filter(
        juror=juror, problem__number=1, paper__labels__label__in=[labels[0], labels[2]]
    ).delete()
    chair_page.goto(f"{base}/calibration/")
    chair_page.get_by_role("button", name="Close the round and open grading").click()
    expect(chair_page.locator(".messages li")).to_have_text("Grading of P1 is open.")
    seeds = dict(Seed.objects.filter(juror=juror).values_list("label", "calibration_paper__label"))
    assert sorted(seeds.values()) == ["K3"]
    assert not set(seeds) & set(labels)
    alice.goto(f"{base}/sheet/")
    alice.wait_for_selector("#cell-tools:not([hidden])")
    rows = alice.locator("#sheet-grid tbody tr")
    shown = [rows.nth(i).get_attribute("data-label") for i in range(rows.count())]
    assert shown == sorted([labels[1], *seeds])
    # Every cell by keyboard, `n` to the next ungraded one: the seed one point over the
    # reference on A1 (8 against 7), on it on T1.
    reference = {(label, code): points for label, code, points in REFERENCE}
    typed = []
    for label in shown:
        for code in ("A1", "T1"):
            if label in seeds:
                points = reference[(seeds[label], code)]
                typed.append("8" if (seeds[label], code) == ("K3", "A1") else points)
            else:
                typed.append("6")
    for index, value in enumerate(typed):
        alice.keyboard.type(value)
        alice.keyboard.press("n" if index < len(typed) - 1 else "Tab")
    expect(alice.locator("#sheet-count")).to_have_text(f"{len(typed)} of {len(typed)}")
    expect(alice.locator("input.cell.saving")).to_have_count(0)
    alice.on("dialog", lambda dialog: dialog.accept())
    alice.get_by_role("button", name="Submit my sheet").click()
    expect(alice.locator(".messages li").first).to_contain_text("Your sheet for P1 is submitted")

    # 6. The chair's seeds page: alice one point generous on A1.
    chair_page.goto(f"{base}/calibration/seeds/")
    row = chair_page.locator("#seeds-alice")
    expect(row.locator(".deviation")).to_have_text(["+1", "0"])
    expect(row.locator(".graded")).to_have_text("2")
    assert Problem.objects.get(contest=contest, number=1).scheme_version == 3
    chair_page.context.close()
    alice.context.close()
