"""The juror's sheet in Chromium, for a juror who grades in batches: what is typed in a cell is
sent as typed (a minus or a letter is refused with the server's sentence, never dropped), and
the same offline workbook uploaded again after more cells were filled writes only those."""

from decimal import Decimal

import openpyxl
import pytest
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


def _points(juror, label: str, code: str) -> Decimal | None:
    return Mark.objects.get(
        sheet__juror=juror,
        sheet__problem__number=1,
        paper__labels__label=label,
        criterion__code=code,
    ).points


@pytest.mark.parametrize(
    ("typed", "sentence"),
    [
        ("-1", "Criterion A1: -1 is negative; points go from 0 to 12."),
        ("2x", "Criterion A1: “2x” is not a number of points."),
    ],
)
def test_a_character_that_is_not_part_of_a_number_is_refused_with_the_servers_sentence(
    log_in, live_server, contest, juror, typed, sentence
):
    page = open_sheet(log_in(juror), live_server, contest)
    first = _labels(contest)[0]
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == f"{first} A1"
    page.keyboard.type(typed)
    assert grid_cell(page, first, "A1").input_value() == typed
    page.keyboard.press("Tab")
    bubble = page.locator(f"#row-{first} td .cell-msg")
    expect(bubble).to_have_text(sentence)
    expect(page.locator("#sheet-status")).to_have_text(sentence)
    assert grid_cell(page, first, "A1").get_attribute("aria-invalid") == "true"
    assert _points(juror, first, "A1") is None
    assert MarkEvent.objects.count() == 0


def _upload(page, path) -> None:
    page.set_input_files("#xlsx-file", str(path))
    page.click("text=Preview the changes")
    page.wait_for_selector("h1:has-text('Upload preview')")


def test_the_same_workbook_uploaded_again_with_one_more_cell_filled_writes_only_that_cell(
    log_in, live_server, contest, juror, tmp_path
):
    page = open_sheet(log_in(juror), live_server, contest)
    first, second, third = _labels(contest)
    with page.expect_download() as download_info:
        page.click("#xlsx-download")
    path = tmp_path / "sheet.xlsx"
    download_info.value.save_as(path)
    book = openpyxl.load_workbook(path)
    marks = book["Marks"]
    rows = {marks.cell(row=row, column=1).value: row for row in range(3, marks.max_row + 1)}
    marks.cell(row=rows[first], column=2).value = 11
    marks.cell(row=rows[second], column=3).value = 2.5
    book.save(path)
    _upload(page, path)
    page.click("#confirm-upload")
    page.wait_for_selector("#cell-tools:not([hidden])")
    assert page.locator(".messages li").inner_text() == "2 marks changed from “sheet.xlsx”."

    # The next batch, in the same file.
    marks.cell(row=rows[third], column=2).value = 4
    book.save(path)
    _upload(page, path)
    expect(page.locator("#upload-errors")).to_have_count(0)
    assert page.locator("#upload-changes tbody tr").all_inner_texts() == [
        f"{rows[third]}\t{third}\tA1\tblank\t4\t"
    ]
    assert page.locator("#upload-already").inner_text() == (
        "Nothing to change for 2 cells the app already holds as the file says (an earlier "
        f"upload of this file wrote them): {first} A1, {second} T1."
    )
    page.click("#confirm-upload")
    page.wait_for_selector("#cell-tools:not([hidden])")
    assert page.locator(".messages li").inner_text() == "1 mark changed from “sheet.xlsx”."
    assert [
        grid_cell(page, *cell).input_value()
        for cell in ((first, "A1"), (second, "T1"), (third, "A1"))
    ] == ["11", "2.5", "4"]
    assert MarkEvent.objects.filter(channel="xlsx").count() == 3


def test_twenty_criteria_fit_as_codes_with_their_titles_in_the_legend_and_beside_the_cell(
    log_in, live_server, db, juror
):
    from rubrics.models import Criterion
    from tests import factories

    criteria = tuple((f"T{n}", "theory", "1") for n in range(1, 21))
    contest = factories.make_contest("wide", problems=1, criteria=criteria)
    factories.assign(contest, [juror])
    titles = {
        f"T{n}": f"Theory point number {n}: the suffix marks the plural" for n in range(1, 21)
    }
    for code, title in titles.items():
        Criterion.objects.filter(problem__contest=contest, code=code).update(title=title)
    page = log_in(juror)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/contests/wide/p1/sheet/")
    page.wait_for_selector("#cell-tools:not([hidden])")
    headers = page.evaluate(
        """() => [...document.querySelectorAll('#sheet-grid thead th[data-code]')].map((th) => {
          const abbr = th.querySelector('abbr');
          return [abbr.textContent, abbr.title, abbr.scrollWidth <= abbr.clientWidth + 1];
        })"""
    )
    assert headers == [[code, title, True] for code, title in titles.items()]
    legend = page.locator("#criteria-legend > div").all_inner_texts()
    assert legend == [f"{code}\n{title} (1)" for code, title in titles.items()]

    label = PaperLabel.objects.filter(problem__contest=contest).order_by("label")[0].label
    grid_cell(page, label, "T7").click()
    assert page.locator("#cell-name").inner_text() == (
        f"Paper {label} · criterion T7: {titles['T7']}"
    )
    assert page.locator("#sheet-grid thead th.current").get_attribute("data-code") == "T7"
    assert page.locator("#criteria-legend > div.current dt").inner_text() == "T7"
