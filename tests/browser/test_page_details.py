"""Details of the pages in Chromium: the comment marker drawn with words for screen readers, an
empty discussion, the site's icons, and a results table without an empty Rank column."""

import pytest
from playwright.sync_api import expect

from grading.resolution.decisions import comment_add
from tests.grading import scenario

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def _fast_hashers(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def test_the_comment_marker_is_a_drawing_with_words_for_screen_readers(log_in, live_server):
    graded = scenario.build()
    scenario.open_resolution(graded)
    comment_add(
        paper=graded["papers"]["Team Orca"],
        criterion=graded["problems"][1].criteria.get(code="T1"),
        author=graded["chair"],
        text="Rule 2 is stated but not applied.",
    )
    page = log_in(graded["chair"])
    page.goto(f"{live_server.url}/contests/iol/p1/comparison/")
    marker = page.locator(".ncomments")
    expect(marker).to_have_count(1)
    icon = marker.locator("svg")
    expect(icon).to_have_count(1)
    assert icon.get_attribute("aria-hidden") == "true"
    box = icon.bounding_box()
    assert box["width"] > 5 and box["height"] > 5  # drawn, not a missing glyph
    assert " ".join(marker.text_content().split()) == "comments: 1"
    assert "💬" not in page.content()


def test_an_empty_discussion_reads_no_comments_yet_without_a_number(log_in, live_server):
    graded = scenario.build()
    scenario.open_resolution(graded)
    page = log_in(graded["chair"])
    label = scenario.label(graded, "Team Orca", 1)
    page.goto(f"{live_server.url}/contests/iol/p1/papers/{label}/criteria/T1/")
    comments = page.locator("#comments")
    expect(comments.locator(".empty")).to_have_text("No comments yet.")
    expect(comments.locator("ol, li")).to_have_count(0)
    # What is drawn before the sentence: no list marker ("1.") on it or its ancestors.
    assert comments.locator(".empty").evaluate(
        """(node) => {
            for (let n = node; n; n = n.parentElement) {
                if (getComputedStyle(n).display === "list-item") return false;
            }
            return true;
        }"""
    )


def test_favicon_ico_and_the_pages_icon_load(log_in, live_server, juror, page):
    response = page.request.get(f"{live_server.url}/favicon.ico")
    assert response.status == 200
    assert response.url.endswith("/static/grading/favicon.ico")
    assert response.body()[:4] == b"\x00\x00\x01\x00"  # the ICO header
    log_in(juror)
    href = page.locator('link[rel="icon"]').get_attribute("href")
    icon = page.request.get(f"{live_server.url}{href}")
    assert icon.status == 200
    assert icon.text().startswith("<svg")
    # The browser draws it: the page's icon, loaded as an image, has a size.
    assert page.evaluate(
        """(href) => new Promise((done) => {
            const img = new Image();
            img.onload = () => done(img.naturalWidth > 0);
            img.onerror = () => done(false);
            img.src = href;
        })""",
        href,
    )


def test_the_results_show_no_empty_rank_column(log_in, live_server):
    graded = scenario.build()
    page = log_in(graded["chair"])
    page.goto(f"{live_server.url}/contests/iol/results/")
    headings = [
        " ".join(text.split()) for text in page.locator("#results thead th").all_inner_texts()
    ]
    assert "Medal" in headings
    assert not {"Rank", "Human rank", "Percentile"} & set(headings), headings
    # No column of the table is empty in every row.
    rows = page.locator("#results tbody tr")
    assert rows.count() == 3
    for index in range(len(headings)):
        column = [
            rows.nth(r).locator("td, th").nth(index).inner_text().strip()
            for r in range(rows.count())
        ]
        assert any(column), headings[index]
