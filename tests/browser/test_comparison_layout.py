"""The comparison of a wide problem (20 criteria × 3 jurors) at 1280 px: its header row and
paper column stay in view while its box scrolls, the page never scrolls sideways, it prints
across the page with its header on every page, and the chair reaches every problem's
comparison from home once the queue is empty."""

import subprocess

import pytest

from grading.models import Resolution
from grading.resolution.comparison import contest_results
from grading.resolution.decisions import discrepancy_decide
from tests.grading import scenario
from tests.grading.resolution.comparison_contests import wide_contest

pytestmark = pytest.mark.browser


@pytest.fixture
def wide(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    return wide_contest(papers=40)


@pytest.fixture
def page_1280(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    # The wide contest's pages are large: room for a machine busy with other work.
    page.set_default_timeout(30_000)
    page.set_default_navigation_timeout(30_000)
    yield page
    context.close()


def _log_in(page, live_server, user):
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", "correct-horse-battery")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")


def _box(page, selector):
    return page.locator(selector).first.bounding_box()


def test_the_header_row_and_paper_column_stay_in_view_while_the_grid_scrolls(
    page_1280, live_server, wide
):
    page = page_1280
    _log_in(page, live_server, wide["chair"])
    page.goto(f"{live_server.url}/contests/wide/p1/comparison/")
    box = _box(page, ".table-scroll")
    header = _box(page, "#comparison-grid thead tr:first-child th.crit")
    label = _box(page, "#comparison-grid tbody tr:first-child th")
    sizes = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " document.querySelector('.table-scroll').scrollWidth,"
        " document.querySelector('.table-scroll').clientWidth,"
        " document.querySelector('.table-scroll').scrollHeight,"
        " document.querySelector('.table-scroll').clientHeight]"
    )
    page_width, viewport_width, grid_width, box_width, grid_height, box_height = sizes
    # The grid is wider and taller than its box, yet the page does not scroll sideways.
    assert (grid_width > box_width, grid_height > box_height) == (True, True)
    assert page_width == viewport_width == 1280
    assert box["x"] + box["width"] <= 1280

    page.locator(".table-scroll").evaluate("el => { el.scrollTop = 600; el.scrollLeft = 900; }")
    page.wait_for_function("document.querySelector('.table-scroll').scrollLeft === 900")
    corner = _box(page, "#comparison-grid thead th.corner")
    header_after = _box(page, "#comparison-grid thead tr:first-child th.crit")
    # The rows under the header have moved 600 px, the header row has not.
    row_after = _box(page, "#comparison-grid tbody tr:first-child th")
    label_after = _box(page, "#comparison-grid tbody tr:nth-child(20) th")
    assert round(header_after["y"]) == round(header["y"]) == round(box["y"] + 1)
    assert round(row_after["y"]) < round(label["y"]) - 500
    assert round(corner["x"]) == round(label_after["x"]) == round(box["x"] + 1)
    # A paper's label is in view, beside the scrolled criteria, and not under the header.
    assert label_after["y"] >= corner["y"] + corner["height"] - 1
    assert page.locator("#comparison-grid tbody tr:nth-child(20) th a").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") == 1280


def test_the_totals_and_a_criterion_fit_the_page_at_1280_px(page_1280, live_server, wide):
    page = page_1280
    _log_in(page, live_server, wide["chair"])
    for query in ("?view=totals", "?criterion=C03"):
        page.goto(f"{live_server.url}/contests/wide/p1/comparison/{query}")
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth,"
            " document.querySelector('.table-scroll').scrollWidth,"
            " document.querySelector('.table-scroll').clientWidth]"
        )
        assert widths[0] == 1280
        assert widths[1] == widths[2]


def test_the_printed_comparison_fits_the_page_and_repeats_its_header(
    page_1280, live_server, wide, tmp_path
):
    page = page_1280
    _log_in(page, live_server, wide["chair"])
    page.goto(f"{live_server.url}/contests/wide/p1/comparison/?view=totals")
    assert page.get_by_role("button", name="Print").is_visible()
    page.emulate_media(media="print")
    hidden = page.evaluate(
        "() => ['.site-header', '.contest-nav', '.filters', '.views', '.crumbs']"
        ".map(s => getComputedStyle(document.querySelector(s)).display)"
    )
    assert hidden == ["none"] * 5
    assert (
        page.evaluate(
            "getComputedStyle(document.querySelector('#comparison-totals thead')).display"
        )
        == "table-header-group"
    )
    pdf = tmp_path / "comparison.pdf"
    page.pdf(path=str(pdf), prefer_css_page_size=True)
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = [p for p in text.split("\f") if p.strip()]
    # 40 papers do not fit one landscape page: each page starts with the header row, and every
    # paper's label is printed whole.
    assert len(pages) >= 2
    assert all("Agreed or decided so far" in p for p in pages)
    assert all(label in text for label in wide["labels"])

    # The grid of 20 criteria × 3 jurors prints across the page: its last criterion and the
    # jurors' totals are on every page, not cut off at the right edge.
    page.goto(f"{live_server.url}/contests/wide/p1/comparison/")
    page.pdf(path=str(pdf), prefer_css_page_size=True)
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = [p for p in text.split("\f") if p.strip()]
    assert len(pages) >= 2
    assert all("C01" in p and "C20" in p and "Total" in p for p in pages)
    assert all(label in text for label in wide["labels"])


def test_the_chair_reaches_every_comparison_from_home_once_the_queue_is_empty(
    page_1280, live_server, wide
):
    contest, chair = wide["contest"], wide["chair"]
    for cell in contest_results(contest).open_cells:
        paper = next(p for p in wide["papers"] if p.pk == cell.paper_id)
        discrepancy_decide(
            paper=paper, criterion=cell.criterion, points=cell.hi, reason="Kept.", actor=chair
        )
    assert Resolution.objects.filter(criterion__problem__contest=contest).count() == 60
    page = page_1280
    _log_in(page, live_server, chair)
    page.locator("#contest-wide").get_by_role("link", name="Queue").click()
    assert page.locator("#queue-count").inner_text().startswith("0 open discrepancies")
    reached = []
    for number in (1, 2, 3):
        page.goto(f"{live_server.url}/")
        page.locator("#contest-wide .comparisons").get_by_role("link", name=f"P{number}").click()
        reached.append(page.url)
        # The comparison's own navigation leads on to the next problem and back to the results.
        assert page.locator(".contest-nav a[aria-current=page]").inner_text() == f"P{number}"
    assert reached == [
        f"{live_server.url}/contests/wide/p{number}/comparison/" for number in (1, 2, 3)
    ]
    page.locator(".contest-nav").get_by_role("link", name="Results").click()
    assert page.locator("nav.crumbs").inner_text() == "Home › Contest wide › Results"
