"""Times in the reader's time zone: the cookie timezone.js sets is activated by the middleware
for the request; a bad value leaves UTC."""

import datetime as dt
import re

import pytest
from django.urls import reverse

from grading.models import Comment, Notification
from grading.resolution.decisions import comment_add
from grading.web.middleware import reader_zone
from tests.crawl import refetched, shared_data
from tests.grading import scenario


def _build_noticed():
    """The scenario with one notification for alice, written at 2026-07-20 23:30 UTC."""
    graded = scenario.build()
    paper = graded["papers"]["Team Orca"]
    criterion = graded["problems"][1].criteria.get(code="T1")
    comment_add(paper=paper, criterion=criterion, author=graded["chair"], text="Why?")
    Notification.objects.update(created_at=dt.datetime(2026, 7, 20, 23, 30, tzinfo=dt.UTC))
    return graded


@pytest.fixture(scope="module")
def noticed_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield _build_noticed()


@pytest.fixture
def noticed(noticed_once, db, client):
    """Alice's inbox with one notification written at 2026-07-20 23:30 UTC."""
    client.force_login(refetched(noticed_once["users"]["alice"]))
    return client


def _shown(client) -> tuple[list[str], str]:
    html = client.get(reverse("inbox")).content.decode()
    return (
        re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d", html),
        re.search(r"Times in ([^.<]+)\.", html).group(1),
    )


def test_without_the_cookie_times_are_utc(noticed):
    assert _shown(noticed) == (["2026-07-20 23:30"], "UTC")


@pytest.mark.parametrize(
    ("zone", "shown"),
    [
        ("Asia/Tokyo", "2026-07-21 08:30"),
        ("America/Argentina/Buenos_Aires", "2026-07-20 20:30"),
        ("Europe/Tallinn", "2026-07-21 02:30"),
    ],
)
def test_the_readers_zone_from_the_cookie_shows_local_times_and_its_name(noticed, zone, shown):
    noticed.cookies["tz"] = zone
    assert _shown(noticed) == ([shown], zone)


@pytest.mark.parametrize(
    "value",
    ["Mars/Olympus", "../../etc/passwd", "/etc/localtime", "Europe/../Asia/Tokyo", "", "x" * 300],
)
def test_an_unknown_or_malformed_zone_leaves_utc(noticed, value):
    noticed.cookies["tz"] = value
    assert _shown(noticed) == (["2026-07-20 23:30"], "UTC")


def test_the_zone_lasts_only_for_its_request(noticed, client):
    noticed.cookies["tz"] = "Asia/Tokyo"
    noticed.get(reverse("inbox"))
    del noticed.cookies["tz"]
    assert _shown(noticed) == (["2026-07-20 23:30"], "UTC")


def test_reader_zone_reads_only_names_that_exist():
    assert [
        str(reader_zone(name)) if reader_zone(name) else None
        for name in ("UTC", "Europe/Paris", "europe/paris", "Etc/GMT+5", "Europe/Nowhere", None)
    ] == ["UTC", "Europe/Paris", None, "Etc/GMT+5", None, None]


def test_the_discussion_shows_its_times_in_the_readers_zone_and_names_it(noticed):
    Comment.objects.update(created_at=dt.datetime(2026, 7, 20, 23, 30, tzinfo=dt.UTC))
    comment = Comment.objects.get()
    url = reverse(
        "discussion",
        args=[
            "iol",
            1,
            comment.paper.labels.get(problem__number=1).label,
            comment.criterion.code,
        ],
    )
    noticed.cookies["tz"] = "Asia/Tokyo"
    html = noticed.get(url).content.decode()
    section = html.split('id="comments"')[1].split("</section>")[0]
    assert re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d", section) == ["2026-07-21 08:30"]
    assert section.count("Times in Asia/Tokyo.") == 1
