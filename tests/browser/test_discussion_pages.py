"""The chair reads a human paper's pages where the decision is taken: on the discussion page
and in the comparison's one-criterion view, in the sheet's viewer with its keys, the images
served by the access-checked page view; posting a comment keeps the page being read."""

import pytest

from grading.models import Paper, Solution
from tests import waiting
from tests.grading import scenario
from tests.grading.scan_pages import add_scans

pytestmark = pytest.mark.browser


@pytest.fixture
def graded(db, settings, tmp_path):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    settings.SCANS_DIR = tmp_path / "scans"
    graded = scenario.build()
    orca = graded["papers"]["Team Orca"]
    Paper.objects.filter(pk=orca.pk).update(source=Paper.Source.HUMAN)
    Solution.objects.filter(paper=orca).delete()
    add_scans(orca, graded["problems"][1], 3)
    return graded


def _until(page, expression: str, seconds: float = 15) -> None:
    # Polled from here rather than with wait_for_function, whose polling evaluates the string
    # inside the page, which the site's Content Security Policy (no unsafe-eval) refuses.
    assert waiting.until(lambda: page.evaluate(expression), seconds), (
        f"still false after {seconds} s: {expression}"
    )


def _shown(page) -> list[str]:
    """The position of each page the viewer shows, and its image's loaded width."""
    return page.eval_on_selector_all(
        ".scan-page:not([hidden])",
        "figures => figures.map(f => `${f.dataset.position}:${f.querySelector('img').naturalWidth}`)",
    )


def test_the_chair_turns_a_human_papers_pages_on_its_discussion_page_and_a_comment_keeps_them(
    log_in, live_server, graded
):
    orca = scenario.label(graded, "Team Orca", 1)
    page = log_in(graded["chair"])
    page.goto(f"{live_server.url}/contests/iol/p1/papers/{orca}/criteria/T1/")
    where = page.locator("#pages [data-scan-where]")
    assert where.inner_text() == "Page 1 of 3"
    _until(page, "document.querySelector('.scan-page img')?.complete")
    assert _shown(page) == ["1:300"]
    assert page.locator("body").inner_text().count("This paper has no solution") == 0
    page.keyboard.press("]")
    page.keyboard.press("+")
    assert where.inner_text() == "Page 2 of 3"
    assert page.locator("#pages [data-scan-zoom]").inner_text() == "125 %"
    _until(page, "document.querySelector('.scan-page[data-position=\"2\"] img')?.naturalWidth > 0")
    assert _shown(page) == ["2:300"]
    # A comment posts in place (htmx): the page being read stays.
    page.click("#comment-text")
    page.keyboard.type("Page 2, line 3: the plural is there.")
    page.get_by_role("button", name="Post comment").click()
    page.locator(".comments li").wait_for()
    assert where.inner_text() == "Page 2 of 3"
    assert page.locator("#pages [data-scan-zoom]").inner_text() == "125 %"


def test_the_one_criterion_view_shows_the_pages_of_the_paper_opened_with_the_viewers_keys(
    log_in, live_server, graded
):
    orca = scenario.label(graded, "Team Orca", 1)
    page = log_in(graded["chair"])
    page.goto(f"{live_server.url}/contests/iol/p1/comparison/?criterion=T1")
    page.locator(f'#comparison-criterion a.read-paper[href*="read={orca}"]').click()
    # The page's text comes before its deferred module script: a key pressed before the viewer
    # is set up (data-ready) turns nothing, as a loaded CI run once saw.
    page.locator("#reader [data-scan-viewer][data-ready]").wait_for()
    where = page.locator("#reader [data-scan-where]")
    assert where.inner_text() == "Page 1 of 3"
    page.keyboard.press("PageDown")
    assert where.inner_text() == "Page 2 of 3"
    _until(page, "document.querySelector('.scan-page[data-position=\"2\"] img')?.naturalWidth > 0")
    assert _shown(page) == ["2:300"]
