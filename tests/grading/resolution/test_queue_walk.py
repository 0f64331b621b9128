"""The chair's walk through the queue (next cell, its keys, "decide, then the next cell")
visits every cell of the queue once although each decision re-sorts it, says how many remain,
and ends with "the last cell" only when none does."""

from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.resolution import comparison
from grading.resolution.queue_walk import Step, walk_start, walk_step
from tests.grading import scenario
from tests.grading.resolution import queue_walk_scenario


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _cell(url: str) -> tuple[str, str]:
    """(label, criterion code) of a discussion URL."""
    parts = urlsplit(url).path.strip("/").split("/")
    return parts[parts.index("papers") + 1], parts[parts.index("criteria") + 1]


def _queue(contest) -> list[tuple[str, str]]:
    items, _ = comparison.chair_queue(contest)
    return [(item.label, item.cell.criterion.code) for item in items]


def _messages(response, count: int) -> list[str]:
    """The last `count` messages the response leaves for the next page (the redirects are not
    followed here, so earlier ones wait before them)."""
    return [str(message) for message in get_messages(response.wsgi_request)][-count:]


def test_deciding_every_cell_with_next_cell_visits_each_of_the_40_once_though_the_queue_resorts(
    db, client
):
    graded = queue_walk_scenario.build()
    contest, chair = graded["contest"], graded["chair"]
    client.force_login(chair)
    start = _queue(contest)
    assert len(start) == 40
    url = reverse("discussion", args=[contest.slug, 1, *start[0]])
    visited, orders, remaining = [], [], []
    while True:
        label, code = _cell(url)
        visited.append((label, code))
        queue = parse_qs(urlsplit(url).query).get("walk", [""])
        response = client.post(
            reverse("discussion_decide", args=[contest.slug, 1, label, code]),
            {
                "points": queue_walk_scenario.decision(len(visited), code),
                "reason_text": "Walked.",
                "next": "cell",
                "queue": f"walk={queue[0]}" if queue[0] else "",
            },
        )
        assert response.status_code == 302
        said = _messages(response, 2)
        url = response["Location"]
        orders.append(_queue(contest))
        if "/queue/" in urlsplit(url).path:
            break
        remaining.append(said[-1])
    assert sorted(visited) == sorted(start)
    assert len(visited) == 40
    assert said == [
        f"Decision recorded for {label} {code}.",
        "That was the last cell of the queue.",
    ]
    # Each step says how many open cells remain after the one it leads to.
    assert remaining == [
        f"{n} open cell{'s' if n != 1 else ''} remain{'s' if n == 1 else ''} after this one."
        for n in range(38, -1, -1)
    ]
    # The decisions did re-sort the queue: the walk's order is not the queue's as it became.
    assert any(order != [cell for cell in start if cell in order] for order in orders)


def test_stepping_past_half_the_cells_still_visits_each_once_and_ends_saying_how_many_are_left(
    db, client
):
    graded = queue_walk_scenario.build()
    contest = graded["contest"]
    client.force_login(graded["chair"])
    start = _queue(contest)
    url = reverse("discussion", args=[contest.slug, 1, *start[0]])
    visited = []
    step = reverse("chair_queue_step", args=[contest.slug])
    while "/queue/" not in urlsplit(url).path:
        label, code = _cell(url)
        visited.append((label, code))
        walk = parse_qs(urlsplit(url).query).get("walk", [""])[0]
        at = f"1:{label}:{code}"
        if len(visited) % 2:
            response = client.post(
                reverse("discussion_decide", args=[contest.slug, 1, label, code]),
                {
                    "points": queue_walk_scenario.decision(len(visited) // 2, code),
                    "reason_text": "Walked.",
                    "queue": f"walk={walk}" if walk else "",
                },
            )
            assert response.status_code == 302
        response = client.get(step, {"at": at, "walk": walk} if walk else {"at": at})
        url = response["Location"]
    assert sorted(visited) == sorted(start)
    assert len(visited) == 40
    assert _messages(response, 1) == [
        "No cell after this one in the queue; 19 open cells above it remain."
    ]
    assert len(_queue(contest)) == 20


def test_a_walk_goes_to_the_next_cell_of_its_own_order_still_in_the_queue():
    order = ["a", "b", "c", "d"]
    # a decided; the queue re-sorted c and d above b.
    assert walk_step(order, ["c", "d", "b"], "a")[1] == Step(target="b", remaining=2, passed=0)
    # A cell new to the queue (reopened by a revision) remains too.
    assert walk_step(order, ["x", "d", "b"], "a")[1] == Step(target="b", remaining=2, passed=0)
    step = walk_step(order, ["c", "d"], "b")[1]
    assert (step.target, step.remaining, step.passed) == ("c", 1, 0)
    # A cell new to the queue is taken once the walk's own cells are done.
    order, step = walk_step(order, ["e"], "d")
    assert (order, step.target, step.remaining) == (["a", "b", "c", "d", "e"], "e", 0)
    end = walk_step(order, ["b"], "e")[1]
    assert (end.target, end.remaining, end.passed) == (None, 0, 1)
    assert walk_step(order, ["b", "d"], "d", backwards=True)[1].target == "b"


def test_a_walk_from_a_cell_just_decided_starts_at_the_top_of_the_queue():
    assert walk_start(["b", "c"], "a") == ["a", "b", "c"]
    assert walk_start(["b", "c"], "c") == ["b", "c"]


def test_a_step_of_the_walk_runs_the_same_queries_for_a_queue_of_8_cells_and_of_80(db, client):
    counts = []
    for slug, papers in (("small", 4), ("large", 40)):
        graded = queue_walk_scenario.build(slug, papers)
        client.force_login(graded["chair"])
        first = _queue(graded["contest"])[0]
        step = reverse("chair_queue_step", args=[slug])
        # A walk begun, then a step along it (the session holds its order).
        walk = parse_qs(
            urlsplit(client.get(step, {"at": f"1:{first[0]}:{first[1]}"})["Location"]).query
        )["walk"][0]
        second = _cell(
            client.get(step, {"at": f"1:{first[0]}:{first[1]}", "walk": walk})["Location"]
        )
        with CaptureQueriesContext(connection) as queries:
            response = client.get(step, {"at": f"1:{second[0]}:{second[1]}", "walk": walk})
        assert response.status_code == 302
        counts.append(len(queries))
    assert counts[0] == counts[1]
