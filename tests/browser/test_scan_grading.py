"""A juror grades a human paper in Chromium with the keyboard while its scanned pages are in
view: page keys and zoom from the cell being graded, drag to pan, the next paper's pages when
the row changes, and axe-core on the viewer."""

from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import expect

from grading.models import Mark, PaperLabel
from tests.grading import scan_pages

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"


@pytest.fixture
def human_contest(db, settings, tmp_path, juror):
    settings.SCANS_DIR = tmp_path / "scans"
    return scan_pages.human_contest("scan", juror, ["C-1001", "C-1002"], pages=3)


def _focused(page) -> str | None:
    return page.evaluate("document.activeElement.getAttribute('aria-label')")


def _shown(page) -> list[str]:
    """The positions of the pages the viewer shows, and its page and zoom read-outs."""
    return page.evaluate(
        """() => {
      const view = document.querySelector('[data-scan-viewer]');
      const shown = [...view.querySelectorAll('.scan-page')].filter((f) => !f.hidden);
      return [...shown.map((f) => f.dataset.position),
              view.querySelector('[data-scan-where]').textContent,
              view.querySelector('[data-scan-zoom]').textContent];
    }"""
    )


IN_VIEW = """() => {
  const image = [...document.querySelectorAll('.scan-page')].find((f) => !f.hidden)
    .querySelector('img');
  const box = image.getBoundingClientRect();
  const frame = image.closest('[data-scan-frame]').getBoundingClientRect();
  const seen = Math.min(frame.bottom, window.innerHeight) - Math.max(frame.top, 0);
  return image.complete && image.naturalWidth > 0 && box.width > 300 && seen > 400
    && box.left < window.innerWidth && box.right > 0;
}"""


def _in_view(page) -> bool:
    """Whether the shown page's image is loaded (a later page loads lazily, when shown) and at
    least 400 pixels of it are in the window."""
    page.wait_for_function(IN_VIEW, timeout=5000)
    return True


def test_a_juror_turns_pages_zooms_and_grades_a_human_paper_from_the_keyboard(
    log_in, live_server, human_contest, juror
):
    first, second = sorted(
        PaperLabel.objects.filter(problem__contest=human_contest).values_list("label", flat=True)
    )
    page = log_in(juror)
    page.goto(f"{live_server.url}/contests/scan/p1/sheet/")
    page.wait_for_selector("#cell-tools:not([hidden])")
    assert _focused(page) == f"{first} A1"
    expect(page.locator(".scan-keys")).to_be_visible()
    assert (_shown(page), _in_view(page)) == (["1", "Page 1 of 3", "fit"], True)

    keyboard = page.keyboard
    keyboard.press("]")
    keyboard.press("PageDown")
    after_next = _shown(page)
    keyboard.press("[")
    after_back = _shown(page)
    keyboard.press("PageDown")  # stays on the last page
    keyboard.press("PageDown")
    assert (after_next, after_back, _shown(page)) == (
        ["3", "Page 3 of 3", "fit"],
        ["2", "Page 2 of 3", "fit"],
        ["3", "Page 3 of 3", "fit"],
    )
    # The keys did not leave the cell, nor did the sheet take them for points.
    assert (_focused(page), page.locator("#sheet-status").inner_text()) == (f"{first} A1", "")

    frame = page.locator("[data-scan-frame]")
    keyboard.press("+")
    keyboard.press("+")
    zoomed = _shown(page)
    widths = page.evaluate(
        """() => { const frame = document.querySelector('[data-scan-frame]');
        return [frame.scrollWidth > frame.clientWidth * 1.4, frame.scrollLeft]; }"""
    )
    # Dragging pans the zoomed page.
    box = frame.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 - 120, box["y"] + box["height"] / 2 - 80)
    page.mouse.up()
    panned = frame.evaluate("(frame) => [frame.scrollLeft, frame.scrollTop]")
    keyboard.press("_")  # in a cell a minus is typed; "_" zooms out
    less = _shown(page)[2]
    keyboard.press("w")
    assert (zoomed, widths[0], panned[0] > widths[1], panned[1] > 0, less, _shown(page)) == (
        ["3", "Page 3 of 3", "150 %"],
        True,
        True,
        True,
        "125 %",
        ["3", "Page 3 of 3", "fit"],
    )
    # Dragging kept the focus in the cell: grading goes on while the page is in view.
    assert (_focused(page), _in_view(page)) == (f"{first} A1", True)
    keyboard.type("10")
    keyboard.press("Tab")
    keyboard.type("6.5")
    keyboard.press("Enter")  # → the second paper's T1: its pages replace the first's
    expect(page.locator(f'.solution-body[data-label="{second}"]')).to_have_count(1)
    expect(page.locator("[data-scan-where]")).to_have_text("Page 1 of 3")
    keyboard.press("PageDown")
    assert (_shown(page), _in_view(page)) == (["2", "Page 2 of 3", "fit"], True)
    keyboard.type("7")
    keyboard.press("ArrowLeft")
    keyboard.type("11")
    keyboard.press("ArrowUp")
    expect(page.locator("#sheet-count")).to_have_text("4 of 4")
    expect(page.locator("input.cell.saving")).to_have_count(0)
    marks = {
        (label, code): points
        for label, code, points in Mark.objects.filter(sheet__juror=juror).values_list(
            "paper__labels__label", "criterion__code", "points"
        )
    }
    assert marks == {
        (first, "A1"): Decimal("10"),
        (first, "T1"): Decimal("6.5"),
        (second, "A1"): Decimal("11"),
        (second, "T1"): Decimal("7"),
    }

    # ArrowUp went back to the first paper: its pages again, from the first. The buttons do
    # what the keys do, and the viewer passes axe-core.
    expect(page.locator(f'.solution-body[data-label="{first}"]')).to_have_count(1)
    page.locator('button[data-scan="next"]').click()
    assert _shown(page) == ["2", "Page 2 of 3", "fit"]
    # Evaluated rather than added as a script tag, which the page's CSP would refuse.
    page.evaluate(AXE.read_text(encoding="utf-8"))
    violations = page.evaluate(
        """async () => (await axe.run('.scan-viewer', {resultTypes: ['violations']}))
        .violations.map((v) => v.id)"""
    )
    assert violations == []


def test_the_paper_page_shows_the_pages_with_the_same_keys(
    log_in, live_server, human_contest, juror
):
    label = PaperLabel.objects.filter(problem__contest=human_contest).order_by("label")[0].label
    page = log_in(juror)
    page.goto(f"{live_server.url}/contests/scan/p1/papers/{label}/")
    page.wait_for_selector(".scan-toolbar:not([hidden])")
    page.keyboard.press("PageDown")
    page.keyboard.press("=")
    assert _shown(page) == ["2", "Page 2 of 3", "125 %"]


def test_a_minus_typed_in_a_cell_beside_the_pages_is_typed_and_refused_not_a_zoom(
    log_in, live_server, human_contest, juror
):
    first = sorted(
        PaperLabel.objects.filter(problem__contest=human_contest).values_list("label", flat=True)
    )[0]
    page = log_in(juror)
    page.goto(f"{live_server.url}/contests/scan/p1/sheet/")
    page.wait_for_selector("#cell-tools:not([hidden])")
    assert _focused(page) == f"{first} A1"
    page.keyboard.type("-1")
    page.keyboard.press("Tab")
    expect(page.locator(f"#row-{first} td .cell-msg")).to_have_text(
        "Criterion A1: -1 is negative; points go from 0 to 12."
    )
    assert _shown(page) == ["1", "Page 1 of 3", "fit"]
    assert Mark.objects.filter(sheet__juror=juror, points__isnull=False).count() == 0


SIZES = """() => [
  Math.round(document.getElementById('sheet-side').getBoundingClientRect().width),
  Math.round([...document.querySelectorAll('.scan-page')].find((f) => !f.hidden)
    .querySelector('img').getBoundingClientRect().width),
  Math.round(document.querySelector('[data-scan-frame]').clientWidth),
]"""


def test_the_juror_widens_the_side_panel_by_keyboard_or_drag_and_the_page_follows_and_stays(
    log_in, live_server, human_contest, juror
):
    page = log_in(juror)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/contests/scan/p1/sheet/")
    page.wait_for_selector("#cell-tools:not([hidden])")
    page.evaluate("window.localStorage.removeItem('jury.sheet.side-width')")
    page.reload()
    page.wait_for_selector("#cell-tools:not([hidden])")
    _in_view(page)
    side, image, frame = page.evaluate(SIZES)
    # At first the page fills the frame, as wide as the panel allows.
    assert (side < 500, image == frame) == (True, True)

    handle = page.get_by_role("separator", name="Width of the side panel")
    handle.focus()
    for _ in range(5):
        page.keyboard.press("ArrowLeft")
    wider = page.evaluate(SIZES)
    assert (wider[0] - side, wider[1] - image, wider[1] == wider[2]) == (200, 200, True)
    assert handle.get_attribute("aria-valuenow") == str(wider[0])

    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 100)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 - 100, box["y"] + 100, steps=5)
    page.mouse.up()
    dragged = page.evaluate(SIZES)
    assert (dragged[0] - wider[0], dragged[1] == dragged[2]) == (100, True)

    # Remembered: the next sheet opens with the panel as the juror left it.
    page.reload()
    page.wait_for_selector("#cell-tools:not([hidden])")
    _in_view(page)
    assert page.evaluate(SIZES) == dragged
