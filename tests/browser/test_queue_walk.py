"""The chair walks a queue of 40 open cells with the keyboard, deciding each and going on to
"the next cell of the queue": every decision moves its paper's total, and with it the paper's
other cell in the queue, yet the walk visits each cell once, says on each how many remain, and
says "That was the last cell of the queue" only when none does."""

import re
import urllib.request
from urllib.parse import urlsplit

import pytest

from grading.models import Resolution
from grading.resolution import comparison
from tests.grading import scenario
from tests.grading.resolution import queue_walk_scenario

pytestmark = pytest.mark.browser


@pytest.fixture
def graded(db, settings, live_server):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    urllib.request.urlopen(f"{live_server.url}/accounts/login/", timeout=60).read()
    return queue_walk_scenario.build()


def _cell(url: str) -> tuple[str, str]:
    parts = urlsplit(url).path.strip("/").split("/")
    return parts[parts.index("papers") + 1], parts[parts.index("criteria") + 1]


def _queue(contest) -> list[tuple[str, str]]:
    items, _ = comparison.chair_queue(contest)
    return [(item.label, item.cell.criterion.code) for item in items]


def test_the_chair_decides_40_cells_one_after_another_and_the_walk_visits_each_once(
    log_in, live_server, graded
):
    contest = graded["contest"]
    start = _queue(contest)
    assert len(start) == 40
    page = log_in(graded["chair"])
    page.goto(f"{live_server.url}/contests/{contest.slug}/queue/")
    assert page.locator("#queue-count").inner_text() == "40 open discrepancies"
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    page.locator("#decide-points").wait_for()
    visited, said, moved = [], [], False
    while "/criteria/" in page.url:
        label, code = _cell(page.url)
        visited.append((label, code))
        if len(visited) > 1:
            said.append(page.locator(".messages li").all_inner_texts())
        before = _queue(contest)
        page.fill("#decide-reason", "Walked through.")
        page.fill("#decide-points", queue_walk_scenario.decision(len(visited), code))
        page.focus("#decide-points")
        here = page.url
        page.keyboard.press("Enter")
        page.wait_for_url(lambda url, here=here: url != here)
        page.wait_for_load_state()
        after = _queue(contest)
        # The decision re-sorted what is left of the queue.
        moved = moved or [cell for cell in before if cell in after] != after
    assert moved
    assert sorted(visited) == sorted(start)
    assert len(visited) == len(set(visited)) == 40
    assert said == [
        [
            f"Decision recorded for {label} {code}.",
            f"{n} open cell{'s' if n != 1 else ''} remain{'s' if n == 1 else ''} after this one.",
        ]
        for (label, code), n in zip(visited, range(38, -1, -1), strict=False)
    ]
    assert re.fullmatch(rf"{re.escape(live_server.url)}/contests/walk/queue/", page.url)
    assert page.locator(".messages li").all_inner_texts() == [
        f"Decision recorded for {visited[-1][0]} {visited[-1][1]}.",
        "That was the last cell of the queue.",
    ]
    assert page.locator("#queue-count").inner_text() == "0 open discrepancies"
    assert Resolution.objects.filter(paper__contest=contest).count() == 40
