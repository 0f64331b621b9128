"""Zooming a scanned page keeps the reading position: the point of the page at the view's top
left corner, where a juror reads a line from, stays there; at the start the page's left margin
stays in view rather than being pushed out by a zoom about the middle."""

import pytest

from grading.models import PaperLabel
from tests.grading import scan_pages

pytestmark = pytest.mark.browser


@pytest.fixture
def human_contest(db, settings, tmp_path, juror):
    settings.SCANS_DIR = tmp_path / "scans"
    return scan_pages.human_contest("zoom", juror, ["C-1001"], pages=2)


# The page's point under the view's top left corner, as a share of the page's width and
# height, with the page's width and height on screen.
READING_POINT = """() => {
  const image = [...document.querySelectorAll('.scan-page')].find((f) => !f.hidden)
    .querySelector('img');
  const frame = image.closest('[data-scan-frame]');
  const box = image.getBoundingClientRect();
  const corner = frame.getBoundingClientRect();
  return [(corner.left + frame.clientLeft - box.left) / box.width,
          (corner.top + frame.clientTop - box.top) / box.height,
          box.width, box.height];
}"""


def _reading_point(page, zoom: str) -> list[float]:
    page.wait_for_function(
        "(zoom) => document.querySelector('[data-scan-zoom]').textContent === zoom", arg=zoom
    )
    return page.evaluate(READING_POINT)


def _near(point, other) -> bool:
    """Whether `point` is within two screen pixels of `other` on the page as now shown (widths
    and scroll offsets are whole pixels)."""
    width, height = point[2], point[3]
    return abs(point[0] - other[0]) * width <= 2 and abs(point[1] - other[1]) * height <= 2


def test_zooming_keeps_the_point_being_read_at_the_views_top_left(
    log_in, live_server, human_contest, juror
):
    label = PaperLabel.objects.get(problem__contest=human_contest).label
    page = log_in(juror)
    page.goto(f"{live_server.url}/contests/zoom/p1/papers/{label}/")
    page.wait_for_selector(".scan-toolbar:not([hidden])")
    page.wait_for_function("() => document.querySelector('.scan-page:not([hidden]) img').complete")
    start = _reading_point(page, "fit")
    page.keyboard.press("+")
    # From the top of the page, the first line is still read from its start.
    first_zoom = _reading_point(page, "125 %")

    # Panned into the page, a line further down and right is read; zooming in and out keeps it.
    page.eval_on_selector(
        "[data-scan-frame]", "(frame) => { frame.scrollLeft = 90; frame.scrollTop = 240; }"
    )
    reading = page.evaluate(READING_POINT)
    page.keyboard.press("+")
    zoomed_in = _reading_point(page, "150 %")
    page.keyboard.press("+")
    zoomed_more = _reading_point(page, "200 %")
    page.keyboard.press("_")
    zoomed_out = _reading_point(page, "150 %")
    assert (
        start[:2],
        _near(first_zoom, start),
        reading[0] > 0.05 and reading[1] > 0.1,
        _near(zoomed_in, reading),
        _near(zoomed_more, reading),
        _near(zoomed_out, reading),
    ) == ([0, 0], True, True, True, True, True)
