"""The medal-straddle flag is the chair's: it hints at the paper's marks in other problems and
at the medal at stake. Searched for rather than assumed: in a contest where a paper straddles a
cut-off, nothing a juror of the problem can reach once their sheet is submitted (comparison,
discussions, paper pages, printouts, downloads) says so, while the chair's crawl of the same
contest finds it."""

import re

import pytest

from grading.resolution.comparison import contest_results
from tests.crawl import crawl, response_text
from tests.grading import scenario

STRADDLE = re.compile(r"straddl", re.IGNORECASE)

# Close: every criterion within tolerance, yet 70 (gold) with alice's or dan's P1 marks and
# 67.5 (silver) with bob's. Clear's P1 T1 is open (8 against 4), so the queue has a cell.
MARKS = {
    "Team Close": {
        1: {"alice": ("8", "6"), "bob": ("7.5", "5.5"), "dan": ("8", "6")},
        2: {"charlie": ("10", "4"), "erin": ("10", "4")},
    },
    "Team Clear": {
        1: {"alice": ("12", "8"), "bob": ("12", "4"), "dan": ("12", "8")},
        2: {"charlie": ("10", "4"), "erin": ("10", "4")},
    },
}


@pytest.fixture
def graded(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    return scenario.build(marks=MARKS, tolerances={(1, "A1"): "0.5", (1, "T1"): "0.5"})


def _crawl(client, user) -> dict:
    client.force_login(user)
    return crawl(client)


def _straddle_pages(pages: dict) -> list[str]:
    return sorted(
        url for url, response in pages.items() if STRADDLE.search(response_text(response))
    )


def test_no_page_a_juror_reaches_shows_the_medal_straddle_flag(graded, client):
    close = graded["papers"]["Team Close"]
    assert contest_results(graded["contest"]).paper(close.pk).straddle is True
    close_label = scenario.label(graded, "Team Close", 1)
    for name in ("alice", "bob", "charlie"):
        pages = _crawl(client, graded["users"][name])
        assert _straddle_pages(pages) == [], name
        client.logout()
    # The last of P1's jurors reached the pages where the flag would show.
    pages = _crawl(client, graded["users"]["dan"])
    assert _straddle_pages(pages) == []
    assert {
        "/contests/iol/p1/comparison/",
        f"/contests/iol/p1/papers/{close_label}/criteria/T1/",
    } <= set(pages)


def test_the_chairs_crawl_of_the_same_contest_does_find_it(graded, client):
    found = _straddle_pages(_crawl(client, graded["chair"]))
    assert "/contests/iol/queue/" in found
    assert "/contests/iol/p1/comparison/" in found
