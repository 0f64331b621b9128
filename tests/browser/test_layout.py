"""Pages laid out as they are read: the reveal table's columns under their headings, and no
sideways scrolling on a phone (390 px) for the pages a juror or the chair opens there."""

import pytest

from grading.resolution.decisions import comment_add
from tests.grading import scenario

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def graded(transactional_db, settings):
    # Committed as written: the live server reads from its own thread.
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    return scenario.build()


def _column_lefts(page, selector: str) -> list[list[int]]:
    return page.eval_on_selector_all(
        selector,
        "rows => rows.map(row => [...row.cells].map(cell => Math.round(cell.getBoundingClientRect().left)))",
    )


def test_the_reveal_table_keeps_every_cell_under_its_heading(log_in, live_server, graded):
    scenario.finalize(graded)
    page = log_in(graded["chair"])
    page.goto(f"{live_server.url}/contests/iol/reveal/")
    headings = _column_lefts(page, "#reveal thead tr")[0]
    rows = _column_lefts(page, "#reveal tbody tr")
    assert len(rows) == 3
    assert rows == [headings] * 3
    labels = page.locator("#reveal tbody tr").first.locator("td.label")
    assert labels.count() == 2
    assert labels.first.evaluate("(node) => getComputedStyle(node).display") == "table-cell"


def _document_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


@pytest.mark.parametrize("who", ["alice", "chen"])
def test_home_discussion_and_queue_fit_a_phone_without_sideways_scrolling(
    log_in, live_server, graded, who
):
    scenario.open_resolution(graded)
    orca = scenario.label(graded, "Team Orca", 1)
    comment_add(
        paper=graded["papers"]["Team Orca"],
        criterion=graded["problems"][1].criteria.get(code="T1"),
        author=graded["users"]["dan"],
        text="Rule 2 is stated but never applied to item 3; see the plural suffix in item 3b.",
    )
    page = log_in(graded["users"][who])
    page.set_viewport_size(PHONE)
    addresses = ["/", f"/contests/iol/p1/papers/{orca}/criteria/T1/"]
    if who == "chen":
        addresses.append("/contests/iol/queue/")
    widths = {}
    for address in addresses:
        response = page.goto(f"{live_server.url}{address}")
        assert response.status == 200, address
        widths[address] = _document_width(page)
    assert widths == {address: min(width, PHONE["width"]) for address, width in widths.items()}
