"""Marks and notes in Chromium after the first save: the "revised" tag on points changed
after submission, a note refused because another session changed it, a note-only change in
the history, the upload preview of a file with errors and good changes, and points in a
refusal written plainly."""

import re
from decimal import Decimal

import openpyxl
import pytest
from playwright.sync_api import expect

from grading.marking.marks import mark_set
from grading.models import Mark, PaperLabel
from grading.resolution.decisions import mark_revise
from tests.browser.sheet_page import grid_cell, open_sheet, sheet_mark
from tests.grading import scenario

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def _fast_hashers(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _first_label(contest) -> str:
    return sorted(
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1).values_list(
            "label", flat=True
        )
    )[0]


def _orca_t1(graded, name: str) -> Mark:
    return Mark.objects.get(
        sheet__juror=graded["users"][name],
        paper=graded["papers"]["Team Orca"],
        criterion__code="T1",
    )


def test_the_revised_tag_shows_only_on_points_changed_after_submission(log_in, live_server):
    graded = scenario.build(submit_sheets=False)
    users = graded["users"]
    # alice changes her mind twice while drafting: 8 → 7 → 8.
    for points in ("7", "8"):
        mark_set(
            mark=_orca_t1(graded, "alice"),
            points=Decimal(points),
            actor=users["alice"],
            channel="browser",
        )
    for name in ("alice", "bob", "dan"):
        scenario.submit(users[name], graded["problems"][1])
    for name in ("charlie", "erin"):
        scenario.submit(users[name], graded["problems"][2])
    scenario.open_resolution(graded)
    # bob writes a note after submitting; dan revises his points.
    bob = _orca_t1(graded, "bob")
    mark_set(
        mark=bob, points=bob.points, note="item 3 is fine", actor=users["bob"], channel="browser"
    )
    mark_revise(mark=_orca_t1(graded, "dan"), points=Decimal("7"), actor=users["dan"])

    page = log_in(graded["chair"])
    label = scenario.label(graded, "Team Orca", 1)
    page.goto(f"{live_server.url}/contests/iol/p1/papers/{label}/criteria/T1/")
    expect(page.locator("li[data-juror]")).to_have_count(3)
    tagged = page.locator("#discussion li:has-text('revised')")
    expect(tagged).to_have_count(1)
    assert tagged.get_attribute("data-juror") == "dan"
    expect(page.locator('li[data-juror="dan"] .tag')).to_have_text("revised after submission")
    # bob's note shows, untagged.
    expect(page.locator('li[data-juror="bob"] .note')).to_have_text("item 3 is fine")


def test_a_note_refused_after_another_session_changed_the_note_says_so(
    log_in, live_server, contest, juror
):
    label = _first_label(contest)
    mark_set(
        mark=sheet_mark(juror, label, "A1"), points=Decimal("6"), actor=juror, channel="browser"
    )
    page = open_sheet(log_in(juror), live_server, contest)
    # Another session writes a note once this page has loaded the cell.
    mark = sheet_mark(juror, label, "A1")
    mark_set(mark=mark, points=Decimal("6"), note="first note", actor=juror, channel="browser")

    grid_cell(page, label, "A1").click()
    page.keyboard.press(";")
    assert page.evaluate("document.activeElement.id") == "note-input"
    page.keyboard.type("second note")
    page.keyboard.press("Enter")  # back to the cell: leaving the note saves it
    status = page.locator("#sheet-status")
    expect(status).to_contain_text("Note not saved:")
    text = status.inner_text()
    assert re.fullmatch(
        r"Note not saved: The note on this mark was changed at \d{4}-\d\d-\d\d \d\d:\d\d since "
        r"you loaded it \(its points are still 6\); reload to see the current note before "
        r"changing it\.",
        text,
    ), text
    assert "This mark was changed to" not in text
    expect(page.locator("#note-input")).to_have_class(re.compile(r"\berror\b"))
    assert sheet_mark(juror, label, "A1").note == "first note"


def test_the_cell_history_shows_a_note_only_change_as_a_note_change(
    log_in, live_server, contest, juror
):
    label = _first_label(contest)
    mark = sheet_mark(juror, label, "T1")
    mark_set(mark=mark, points=Decimal("3"), actor=juror, channel="browser")
    mark_set(mark=mark, points=Decimal("3"), note="partial rule", actor=juror, channel="browser")
    page = open_sheet(log_in(juror), live_server, contest)
    grid_cell(page, label, "T1").click()
    page.click("#history-button")
    panel = page.locator("#history-panel")
    expect(panel).to_contain_text("partial rule")
    assert "3 → 3" not in panel.inner_text()
    rows = panel.locator("tbody tr")
    expect(rows).to_have_count(2)
    points = [rows.nth(i).locator("td.points").inner_text() for i in range(2)]
    notes = [rows.nth(i).locator("td.note").inner_text() for i in range(2)]
    assert points == ["unchanged (3)", "blank → 3"]
    assert notes == ["(none) → partial rule", "unchanged"]


def test_the_upload_preview_of_a_file_with_errors_and_good_changes_says_both(
    log_in, live_server, contest, juror, tmp_path
):
    page = open_sheet(log_in(juror), live_server, contest)
    with page.expect_download() as download_info:
        page.click("#xlsx-download")
    path = tmp_path / "sheet.xlsx"
    download_info.value.save_as(path)
    book = openpyxl.load_workbook(path)
    marks = book["Marks"]
    marks["B3"] = 13  # over A1's 12 points
    marks["B4"] = 2
    marks["C5"] = 1.5
    book.save(path)

    page.set_input_files("#xlsx-file", str(path))
    page.click("text=Preview the changes")
    errors = page.locator("#upload-errors tbody tr")
    expect(errors).to_have_count(1)
    assert "13 is more than the 12 points" in errors.inner_text()
    expect(page.get_by_text("The file changes no mark")).to_have_count(0)
    summary = page.locator("#upload-summary")
    expect(summary).to_have_text(
        "Once the errors are fixed, the file would make these 2 changes; nothing is written "
        "while it has errors."
    )
    expect(page.locator("#upload-changes tbody tr")).to_have_count(2)
    expect(page.locator("#confirm-upload")).to_have_count(0)
    assert not Mark.objects.filter(sheet__juror=juror, points__isnull=False).exists()


def test_points_in_a_refusal_are_written_plainly_in_the_sheet(log_in, live_server, contest, juror):
    label = _first_label(contest)
    page = open_sheet(log_in(juror), live_server, contest)
    cell = grid_cell(page, label, "T1")
    cell.click()
    cell.fill("1e1")  # as pasted: the keyboard takes only digits and a decimal point
    page.keyboard.press("Tab")
    bubble = page.locator(f"#row-{label} td .cell-msg")
    expect(bubble).to_have_text("Criterion T1: 10 is more than the 8 points this criterion allows.")
    assert "E+" not in bubble.text_content()
    assert sheet_mark(juror, label, "T1").points is None
