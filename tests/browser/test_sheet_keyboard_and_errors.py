"""The juror's sheet in Chromium at its edges: N in the last ungraded cell, error bubbles at the
grid's edge and for screen readers, a submitted sheet read-only, and a note written offline
coming back through the workbook."""

from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from grading.models import Mark, PaperLabel, Sheet
from tests.browser.sheet_page import grid_cell, open_sheet, sheet_mark

pytestmark = pytest.mark.browser


def _labels(contest) -> list[str]:
    return sorted(
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1).values_list(
            "label", flat=True
        )
    )


def _focused(page) -> str:
    return page.evaluate("document.activeElement.getAttribute('aria-label')")


def _all_but_one_graded(contest, juror) -> tuple[str, str]:
    """Every cell of the juror's P1 sheet at 1 point but the last paper's T1, left blank."""
    last = _labels(contest)[-1]
    Mark.objects.filter(sheet__juror=juror, sheet__problem__number=1).update(points=1, version=1)
    Mark.objects.filter(pk=sheet_mark(juror, last, "T1").pk).update(points=None)
    return last, "T1"


def test_n_in_the_last_ungraded_cell_saves_the_value_typed_there(
    log_in, live_server, contest, juror
):
    label, code = _all_but_one_graded(contest, juror)
    page = open_sheet(log_in(juror), live_server, contest)
    assert _focused(page) == f"{label} {code}"
    page.keyboard.type("4")
    page.keyboard.press("n")
    expect(page.locator("#sheet-count")).to_have_text("6 of 6")
    expect(page.locator("#sheet-status")).to_have_text("Every cell has a value.")
    assert _focused(page) == f"{label} {code}"
    assert grid_cell(page, label, code).input_value() == "4"
    assert sheet_mark(juror, label, code).points == Decimal("4")


def test_n_in_the_last_ungraded_cell_with_a_refused_value_says_why(
    log_in, live_server, contest, juror
):
    label, code = _all_but_one_graded(contest, juror)
    page = open_sheet(log_in(juror), live_server, contest)
    page.keyboard.type("99")
    page.keyboard.press("n")
    reason = "Criterion T1: 99 is more than the 8 points this criterion allows."
    expect(page.locator("#sheet-status")).to_have_text(reason)
    expect(page.locator("#sheet-count")).to_have_text("5 of 6")
    assert sheet_mark(juror, label, code).points is None


def test_the_error_bubble_on_the_last_row_shows_inside_the_grid_and_is_announced(
    log_in, live_server, contest, juror
):
    page = open_sheet(log_in(juror), live_server, contest)
    last = _labels(contest)[-1]
    cell = grid_cell(page, last, "A1")
    cell.click()
    page.keyboard.type("13")
    page.keyboard.press("Tab")
    bubble = page.locator(f"#row-{last} td .cell-msg")
    # Inserted as an alert that stays in the accessibility tree while out of sight, so that it
    # is announced, and the cell names it as its description.
    expect(bubble).to_have_attribute("role", "alert")
    assert bubble.evaluate("(node) => getComputedStyle(node).display") != "none"
    assert cell.get_attribute("aria-describedby") == bubble.get_attribute("id")
    assert cell.get_attribute("aria-invalid") == "true"

    cell.focus()
    expect(bubble).to_be_visible()
    shown = bubble.bounding_box()
    frame = page.locator(".sheet-grid-wrap").bounding_box()
    assert shown["width"] > 100 and shown["height"] > 10
    assert frame["y"] <= shown["y"]
    assert shown["y"] + shown["height"] <= frame["y"] + frame["height"]
    assert frame["x"] <= shown["x"]
    assert shown["x"] + shown["width"] <= frame["x"] + frame["width"]
    # What the bubble covers is the bubble: nothing in the scroll box is drawn over it.
    middle = (shown["x"] + shown["width"] / 2, shown["y"] + shown["height"] / 2)
    assert bubble.evaluate(
        """(node, [x, y]) => {
            node.style.pointerEvents = "auto";  // hit-testing skips what ignores the pointer
            const hit = document.elementFromPoint(x, y) === node;
            node.style.pointerEvents = "";
            return hit;
        }""",
        middle,
    )

    page.keyboard.press("Escape")
    expect(bubble).to_have_count(0)
    assert cell.get_attribute("aria-describedby") is None


def test_a_submitted_sheet_reads_as_read_only_and_says_why_typing_does_nothing(
    log_in, live_server, contest, juror
):
    Mark.objects.filter(sheet__juror=juror, sheet__problem__number=1).update(points=2, version=1)
    Sheet.objects.filter(juror=juror, problem__number=1).update(
        state=Sheet.State.SUBMITTED, submitted_at=timezone.now()
    )
    page = open_sheet(log_in(juror), live_server, contest)
    reason = page.locator(".notice.locked").inner_text()
    assert reason.startswith("You submitted this sheet at ")
    assert reason.endswith("it is read-only until the contest enters the resolution phase.")
    assert page.locator(".keys").inner_text() == (
        "Read-only: arrows, Tab and Enter move · h history. Marks and notes cannot be typed "
        "here now."
    )
    expect(page.locator(".note-hint")).to_have_count(0)
    expect(page.locator("#submit-form")).to_have_count(0)
    first = _labels(contest)[0]
    assert _focused(page) == f"{first} A1"
    page.keyboard.type("5")
    expect(page.locator("#sheet-status")).to_have_text(reason)
    page.keyboard.press("Backspace")
    assert grid_cell(page, first, "A1").input_value() == "2"
    page.keyboard.press("ArrowDown")
    assert _focused(page) == f"{_labels(contest)[1]} A1"
    page.locator("#sheet-status").evaluate("(node) => { node.textContent = ''; }")
    page.keyboard.press(";")
    assert page.evaluate("document.activeElement.id") == "note-input"
    page.keyboard.type("x")
    expect(page.locator("#sheet-status")).to_have_text(reason)
    assert page.locator("#note-input").input_value() == ""
    assert set(
        Mark.objects.filter(sheet__juror=juror, sheet__problem__number=1).values_list(
            "points", flat=True
        )
    ) == {Decimal("2")}


def test_a_note_written_offline_comes_back_through_the_workbook(
    log_in, live_server, contest, juror, tmp_path
):
    import openpyxl

    first = _labels(contest)[0]
    Mark.objects.filter(pk=sheet_mark(juror, first, "T1").pk).update(
        note="typo in item 2", version=1
    )
    page = open_sheet(log_in(juror), live_server, contest)
    with page.expect_download() as download_info:
        page.click("#xlsx-download")
    path = tmp_path / "sheet.xlsx"
    download_info.value.save_as(path)
    book = openpyxl.load_workbook(path)
    notes = {(row[0].value, row[1].value): row[2] for row in book["Notes"].iter_rows(min_row=2)}
    assert notes[(first, "T1")].value == "typo in item 2"
    notes[(first, "T1")].value = "typo in item 2; the rule is right"
    book.save(path)

    page.set_input_files("#xlsx-file", str(path))
    page.click("text=Preview the changes")
    page.wait_for_selector("#upload-changes")
    assert page.locator("#upload-changes tbody tr").all_inner_texts() == [
        f"Notes 3\t{first}\tT1\tblank\tunchanged\ttypo in item 2 → typo in item 2; the rule is right"
    ]
    page.click("#confirm-upload")
    page.wait_for_selector("#cell-tools:not([hidden])")
    assert page.locator(".messages li").inner_text() == "1 mark changed from “sheet.xlsx”."
    assert grid_cell(page, first, "T1").get_attribute("data-note") == (
        "typo in item 2; the rule is right"
    )
    assert sheet_mark(juror, first, "T1").note == "typo in item 2; the rule is right"
