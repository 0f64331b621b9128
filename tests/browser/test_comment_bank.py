"""The comment bank in Chromium, by keyboard only: on a cell, `c` opens its criterion's bank, a
digit inserts that note in the mark's note (saved, and counted as a use) and offers its points,
which Enter keeps and Esc drops; the note field's "Add to the bank" proposes the cell's note,
which a co-grader reads only once the chair adopts it; and axe finds no violation on the sheet
with the bank open."""

from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import expect

from grading.models import BankNote, Mark, PaperLabel
from rubrics.models import Criterion
from tests.browser.sheet_page import open_sheet
from tests.factories import PASSWORD
from tests.grading import scenario

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}"""


@pytest.fixture(autouse=True)
def _fast_hashers(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture
def banked(contest, juror, other_juror):
    t1 = Criterion.objects.get(problem__contest=contest, problem__number=1, code="T1")
    BankNote.objects.create(criterion=t1, text="Plural marker missed.", points=1, order=0)
    BankNote.objects.create(
        criterion=t1, text="Vowel harmony rule missed.", points=Decimal("2.5"), order=1
    )
    return contest


def _first_label(contest) -> str:
    return sorted(
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1).values_list(
            "label", flat=True
        )
    )[0]


def _mark(juror, contest, code: str) -> Mark:
    return Mark.objects.get(
        sheet__juror=juror,
        sheet__problem__number=1,
        paper__labels__label=_first_label(contest),
        paper__labels__problem__number=1,
        criterion__code=code,
    )


def _focused(page) -> dict:
    return page.evaluate(
        """() => ({id: document.activeElement.id, code: document.activeElement.dataset.code,
                   role: document.activeElement.getAttribute("role"),
                   value: document.activeElement.value})"""
    )


def test_c_then_2_inserts_the_second_note_and_enter_keeps_its_points(
    log_in, live_server, banked, juror
):
    page = open_sheet(log_in(juror), live_server, banked)
    label = _first_label(banked)
    # Focus starts in the first ungraded cell, A1 of the first paper; T1 is to its right.
    page.keyboard.press("ArrowRight")
    assert _focused(page)["code"] == "T1"
    page.keyboard.press("c")
    assert _focused(page)["role"] == "listbox"
    expect(page.locator('#bank-panel .criterion-bank[data-code="T1"]')).to_be_visible()
    expect(page.locator('#bank-panel .criterion-bank[data-code="A1"]')).to_be_hidden()

    page.keyboard.press("2")
    status = page.locator("#sheet-status")
    expect(status).to_have_text(
        "Inserted the note; its 2.5 points are offered in T1: Enter keeps them, Esc drops them."
    )
    assert _focused(page) == {"id": "", "code": "T1", "role": None, "value": "2.5"}
    # Offered, not saved: only the note is.
    mark = _mark(juror, banked, "T1")
    assert (mark.points, mark.note) == (None, "Vowel harmony rule missed.")
    expect(page.locator("[data-text='Vowel harmony rule missed.'] .bank-meta")).to_have_text(
        "· 2.5 points · used 1 time"
    )

    page.keyboard.press("Enter")
    expect(status).to_have_text(f"Saved {label} T1: 2.5.")
    mark.refresh_from_db()
    assert (mark.points, mark.note) == (Decimal("2.5"), "Vowel harmony rule missed.")
    assert list(BankNote.objects.order_by("order").values_list("uses", flat=True)) == [0, 1]

    # A second insert in the same cell appends to the note; Esc drops the offered points.
    page.reload()
    page.wait_for_selector("#cell-tools:not([hidden])")
    # Focus starts in the first ungraded cell again, A1 of the first paper.
    page.keyboard.press("ArrowRight")
    expect(page.locator("#note-input")).to_have_value("Vowel harmony rule missed.")
    page.keyboard.press("c")
    page.keyboard.press("1")
    expect(status).to_have_text(
        "Inserted the note; its 1 point is offered in T1: Enter keeps them, Esc drops them."
    )
    page.keyboard.press("Escape")
    assert _focused(page)["value"] == "2.5"
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#note-input")).to_have_value("")
    mark.refresh_from_db()
    assert (mark.points, mark.note) == (
        Decimal("2.5"),
        "Vowel harmony rule missed.; Plural marker missed.",
    )
    assert list(BankNote.objects.order_by("order").values_list("uses", flat=True)) == [1, 1]

    # Issue 31, finding 17: the same note inserted again doubled its text; now it is said to
    # be there already, and nothing is written or counted.
    page.keyboard.press("ArrowRight")
    page.keyboard.press("c")
    page.keyboard.press("1")
    expect(status).to_have_text("This note is already in T1's note; nothing is added.")
    mark.refresh_from_db()
    assert mark.note == "Vowel harmony rule missed.; Plural marker missed."
    assert list(BankNote.objects.order_by("order").values_list("uses", flat=True)) == [1, 1]


def test_esc_in_the_bank_returns_to_the_cell_and_leaving_drops_offered_points(
    log_in, live_server, banked, juror
):
    page = open_sheet(log_in(juror), live_server, banked)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("c")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    assert _focused(page)["code"] == "T1"
    expect(page.locator("#bank-panel")).to_be_hidden()
    # Arrows and Enter choose the note; leaving the cell by an arrow drops its points.
    page.keyboard.press("c")
    page.keyboard.press("Enter")
    expect(page.locator("#sheet-status")).to_contain_text("its 2.5 points are offered")
    page.keyboard.press("ArrowDown")
    mark = _mark(juror, banked, "T1")
    page.wait_for_function("() => !document.querySelector('input.cell[data-offered]')")
    expect(page.locator(f'#row-{_first_label(banked)} input.cell[data-code="T1"]')).to_have_value(
        ""
    )
    mark.refresh_from_db()
    assert (mark.points, mark.note) == (None, "Vowel harmony rule missed.")


def test_the_note_field_adds_the_cells_note_to_the_bank_with_its_points(
    log_in, live_server, banked, juror
):
    page = open_sheet(log_in(juror), live_server, banked)
    page.keyboard.press("ArrowRight")
    page.keyboard.type("3")
    page.keyboard.press(";")
    page.keyboard.type("Gemination ignored.")
    page.keyboard.press("Tab")
    assert _focused(page)["id"] == "bank-add-button"
    page.keyboard.press("Enter")
    status = page.locator("#sheet-status")
    expect(status).to_have_text(
        "Proposed for the comment bank of T1, as your note 3: yours alone until the chair "
        "adopts it into the group's bank."
    )
    notes = BankNote.objects.order_by("order").values_list("text", "points", "author", "adopted")
    assert list(notes) == [
        ("Plural marker missed.", Decimal("1.00"), None, True),
        ("Vowel harmony rule missed.", Decimal("2.50"), None, True),
        ("Gemination ignored.", Decimal("3.00"), juror.pk, False),
    ]
    mark = _mark(juror, banked, "T1")
    assert (mark.points, mark.note) == (Decimal("3"), "Gemination ignored.")
    # The new note is in the listbox at once: `c` then 3 on the next paper inserts it.
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")  # from the note field back to the cell
    assert _focused(page)["value"] == "3"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("c")
    page.keyboard.press("3")
    expect(status).to_contain_text("its 3 points are offered in T1")


def test_a_co_grader_reads_a_jurors_note_only_once_the_chair_adopts_it(
    sign_in, live_server, banked, juror, other_juror, chair
):
    """Alice proposes a note from her sheet; Bob, grading the same problem, does not find it
    in his bank panel; the chair adopts it on the curation page; then Bob reads it and inserts
    it with its number."""
    alice = open_sheet(sign_in(juror), live_server, banked)
    alice.keyboard.press("ArrowRight")
    alice.keyboard.type("3")
    alice.keyboard.press(";")
    alice.keyboard.type("Tense wrong in (b).")
    alice.keyboard.press("Tab")
    alice.keyboard.press("Enter")
    expect(alice.locator("#sheet-status")).to_contain_text("yours alone until the chair")

    bob = open_sheet(sign_in(other_juror), live_server, banked)
    bobs_bank = bob.locator('.criterion-bank[data-code="T1"] [role="option"]')
    expect(bobs_bank).to_have_count(2)
    expect(bob.locator("#bank-panel")).not_to_contain_text("Tense wrong")

    chen = sign_in(chair)
    chen.goto(f"{live_server.url}/contests/{banked.slug}/p1/bank/")
    expect(chen.locator(".bank-proposals")).to_contain_text("proposed by alice")
    chen.get_by_role("button", name="Adopt into the bank of T1").click()
    expect(chen.locator(".messages")).to_contain_text("every juror of P1 reads it from now on")

    open_sheet(bob, live_server, banked)
    expect(bobs_bank).to_have_count(3)
    expect(bobs_bank.nth(2)).to_contain_text("Tense wrong in (b).")
    bob.keyboard.press("ArrowRight")
    bob.keyboard.press("c")
    bob.keyboard.press("3")
    expect(bob.locator("#sheet-status")).to_contain_text("its 3 points are offered in T1")
    assert BankNote.objects.get(text="Tense wrong in (b).").adopted is True


def test_the_sheet_with_the_bank_open_has_no_accessibility_violation(
    browser, live_server, banked, juror
):
    # axe is added as a script tag, which the site's Content-Security-Policy (script-src
    # 'self') would refuse: this context alone bypasses it, as tests/browser/test_accessibility.py's.
    context = browser.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", juror.username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    open_sheet(page, live_server, banked)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("c")
    page.keyboard.press("ArrowDown")
    assert _focused(page)["role"] == "listbox"
    page.add_script_tag(path=str(AXE))
    try:
        assert page.evaluate(RUN_AXE) == []
    finally:
        context.close()
