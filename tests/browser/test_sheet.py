"""The grading sheet in Chromium: keyboard entry with autosave, refusals in place, two tabs, and
the XLSX round-trip through download, upload, preview and confirm."""

from decimal import Decimal

import openpyxl
import pytest
from django.db.models import F
from playwright.sync_api import expect

from grading.models import Mark, MarkEvent, PaperLabel
from tests.browser.sheet_page import grid_cell, open_sheet

pytestmark = pytest.mark.browser


def _labels(contest) -> list[str]:
    return sorted(
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1).values_list(
            "label", flat=True
        )
    )


def _points(juror) -> dict[tuple[str, str], Decimal | None]:
    return {
        (label, code): points
        for label, code, points in Mark.objects.filter(
            sheet__juror=juror, paper__labels__problem=F("sheet__problem")
        ).values_list("paper__labels__label", "criterion__code", "points")
    }


def test_juror_grades_a_whole_sheet_with_the_keyboard_only_and_every_mark_stays(
    log_in, live_server, contest, juror
):
    page = open_sheet(log_in(juror), live_server, contest)
    first, second, third = _labels(contest)
    # The page starts in the first ungraded cell: the first paper's A1.
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == f"{first} A1"
    keyboard = page.keyboard
    keyboard.type("10")
    keyboard.press("Tab")  # → first T1
    keyboard.type("7.5")
    keyboard.press("Enter")  # → second T1
    keyboard.type("3")
    keyboard.press("ArrowLeft")  # → second A1
    keyboard.type("12")
    keyboard.press("ArrowDown")  # → third A1
    keyboard.type("9")
    keyboard.press("ArrowUp")  # → second A1, saving the third
    keyboard.press("Backspace")  # 12 selected on focus: the cell is blank again
    keyboard.press("n")  # → the next ungraded cell: third T1
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == f"{third} T1"
    keyboard.type("0")
    keyboard.press("n")  # → the one blank cell left: second A1
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == f"{second} A1"
    keyboard.type("6,5")
    keyboard.press("Tab")
    expect(page.locator("#sheet-count")).to_have_text("6 of 6")
    expect(page.locator("input.cell.saving")).to_have_count(0)
    assert page.locator("#sheet-progress").get_attribute("value") == "6"
    assert page.locator(f"#row-{first} [data-total]").inner_text() == "17.5"

    page.reload()
    page.wait_for_selector("#cell-tools:not([hidden])")
    values = {
        (label, code): grid_cell(page, label, code).input_value()
        for label in (first, second, third)
        for code in ("A1", "T1")
    }
    assert values == {
        (first, "A1"): "10",
        (first, "T1"): "7.5",
        (second, "A1"): "6.5",
        (second, "T1"): "3",
        (third, "A1"): "9",
        (third, "T1"): "0",
    }
    assert _points(juror) == {key: Decimal(value) for key, value in values.items()}
    assert list(
        MarkEvent.objects.filter(
            mark__sheet__juror=juror, mark__paper__labels__label=second, mark__criterion__code="A1"
        )
        .order_by("version")
        .values_list("new_points", flat=True)
    ) == [Decimal("12"), None, Decimal("6.5")]


def test_an_invalid_entry_shows_its_reason_in_place_and_nothing_is_saved(
    log_in, live_server, contest, juror
):
    page = open_sheet(log_in(juror), live_server, contest)
    first = _labels(contest)[0]
    page.keyboard.type("13")
    page.keyboard.press("Tab")
    reason = "Criterion A1: 13 is more than the 12 points this criterion allows."
    expect(page.locator("#sheet-status")).to_have_text(reason)
    page.keyboard.press("Shift+Tab")  # back on the refused cell, its reason shows beside it
    bubble = page.locator(f"#row-{first} td .cell-msg")
    expect(bubble).to_be_visible()
    assert bubble.inner_text() == reason
    assert grid_cell(page, first, "A1").get_attribute("aria-invalid") == "true"
    assert page.locator("#sheet-count").inner_text() == "0 of 6"
    assert MarkEvent.objects.count() == 0
    assert set(_points(juror).values()) == {None}
    page.reload()
    page.wait_for_selector("#cell-tools:not([hidden])")
    assert grid_cell(page, first, "A1").input_value() == ""


def test_two_tabs_on_one_sheet_the_stale_save_is_refused(log_in, live_server, contest, juror):
    first_tab = open_sheet(log_in(juror), live_server, contest)
    second_tab = open_sheet(first_tab.context.new_page(), live_server, contest)
    first = _labels(contest)[0]

    first_tab.bring_to_front()
    grid_cell(first_tab, first, "T1").click()
    first_tab.keyboard.type("4")
    first_tab.keyboard.press("Tab")
    expect(first_tab.locator("#sheet-count")).to_have_text("1 of 6")

    second_tab.bring_to_front()
    grid_cell(second_tab, first, "T1").click()
    second_tab.keyboard.type("6")
    second_tab.keyboard.press("Tab")
    expect(second_tab.locator("#sheet-status")).to_contain_text("This mark was changed to 4 at ")
    second_tab.keyboard.press("Shift+Tab")
    bubble = second_tab.locator(f"#row-{first} td .cell-msg")
    expect(bubble).to_be_visible()
    assert bubble.inner_text().startswith("This mark was changed to 4 at ")
    assert Mark.objects.get(
        sheet__juror=juror, paper__labels__label=first, criterion__code="T1"
    ).points == Decimal("4")
    second_tab.reload()
    second_tab.wait_for_selector("#cell-tools:not([hidden])")
    assert grid_cell(second_tab, first, "T1").input_value() == "4"


def test_a_note_is_saved_from_the_keyboard(log_in, live_server, contest, juror):
    page = open_sheet(log_in(juror), live_server, contest)
    first = _labels(contest)[0]
    page.keyboard.type("2")
    page.keyboard.press(";")
    assert page.evaluate("document.activeElement.id") == "note-input"
    page.keyboard.type("credit for the rule despite a typo")
    page.keyboard.press("Enter")  # back to the cell, saving the note
    expect(page.locator("input.cell.has-note")).to_have_count(1)
    expect(page.locator("input.cell.saving")).to_have_count(0)
    mark = Mark.objects.get(sheet__juror=juror, paper__labels__label=first, criterion__code="A1")
    assert (mark.points, mark.note) == (Decimal("2"), "credit for the rule despite a typo")


def test_xlsx_round_trip_download_edit_upload_preview_confirm(
    log_in, live_server, contest, juror, tmp_path
):
    page = open_sheet(log_in(juror), live_server, contest)
    first, second, _ = _labels(contest)
    with page.expect_download() as download_info:
        page.click("#xlsx-download")
    download = download_info.value
    assert download.suggested_filename == f"{contest.slug}-P1-{juror.username}.xlsx"
    path = tmp_path / "sheet.xlsx"
    download.save_as(path)
    book = openpyxl.load_workbook(path)
    marks = book["Marks"]
    rows = {marks.cell(row=row, column=1).value: row for row in range(3, marks.max_row + 1)}
    marks.cell(row=rows[first], column=2).value = 11
    marks.cell(row=rows[second], column=3).value = 2.5
    book.save(path)

    page.set_input_files("#xlsx-file", str(path))
    page.click("text=Preview the changes")
    page.wait_for_selector("#upload-changes")
    assert page.locator("#upload-changes tbody tr").all_inner_texts() == [
        f"3\t{first}\tA1\tblank\t11\t",
        f"4\t{second}\tT1\tblank\t2.5\t",
    ]
    page.click("#confirm-upload")
    page.wait_for_selector("#cell-tools:not([hidden])")
    assert page.locator(".messages li").inner_text() == "2 marks changed from “sheet.xlsx”."
    assert grid_cell(page, first, "A1").input_value() == "11"
    assert grid_cell(page, second, "T1").input_value() == "2.5"

    grid_cell(page, first, "A1").click()
    page.keyboard.press("h")
    page.wait_for_selector("#history-panel tr.event")
    assert page.locator("#history-panel tr.event td:nth-child(3)").all_inner_texts() == [
        "XLSX upload"
    ]
    assert list(
        MarkEvent.objects.filter(mark__sheet__juror=juror).values_list("channel", flat=True)
    ) == ["xlsx", "xlsx"]


def test_typing_the_last_value_and_submitting_at_once_saves_it_asks_and_submits(
    log_in, live_server, contest, juror
):
    from grading.models import Sheet

    labels = _labels(contest)
    Mark.objects.filter(sheet__juror=juror, sheet__problem__number=1).update(points=1)
    last = Mark.objects.get(
        sheet__juror=juror,
        sheet__problem__number=1,
        criterion__code="T1",
        paper__labels__label=labels[-1],
    )
    Mark.objects.filter(pk=last.pk).update(points=None)
    page = open_sheet(log_in(juror), live_server, contest)
    questions = []

    def answer(dialog):
        questions.append((dialog.type, dialog.message))
        dialog.accept()

    page.on("dialog", answer)
    grid_cell(page, labels[-1], "T1").click()
    page.keyboard.type("4")
    page.get_by_role("button", name="Submit my sheet").click()
    page.wait_for_selector(".messages li")
    assert questions == [
        (
            "confirm",
            f"Submit P1: {len(labels) * 2} of {len(labels) * 2} cells graded. You cannot change "
            "them afterwards, until the resolution phase.",
        )
    ]
    assert page.locator(".messages li").inner_text().startswith("Your sheet for P1 is submitted")
    assert Sheet.objects.get(juror=juror, problem__number=1).is_submitted
    assert _points(juror)[(labels[-1], "T1")] == Decimal("4")
    assert None not in _points(juror).values()
