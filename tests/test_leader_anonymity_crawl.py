"""Anonymity as a team leader: everything a leader reaches from the home page once the results
are provisional (pages, page images, whatever they link) is searched for what must never reach
them: another delegation's contestant code and paper, an AI system's identity and paper, a
juror's label, name or note, another contestant's total. The positive control: the same crawl
finds the leader's own contestants' codes, totals and every page image of theirs."""

import re
from decimal import Decimal

import pytest
from django.urls import resolve

from grading.models import Mark, PaperLabel, ProvisionalResult, ScanPage
from tests.crawl import crawl, raw_text, response_text
from tests.grading.appeals import leader_scenario

# Totals no page shows but those of their own contestants: a leak of another's would show.
OTHER_TOTALS = {"LAT-1": Decimal("87.65"), "Team Orca": Decimal("13.57")}
OWN_TOTAL = Decimal("64.25")  # EST-1's
NOTE = "Juror's private note 4471"


@pytest.fixture
def leaders(db):
    leaders = leader_scenario.build(pages=1)
    leader_scenario.publish(leaders)
    for identity, total in {**OTHER_TOTALS, "EST-1": OWN_TOTAL}.items():
        ProvisionalResult.objects.filter(paper=leaders.papers[identity]).update(total=total)
    Mark.objects.update(note=NOTE)
    return leaders


def _text(url: str, response) -> str:
    return "\n".join((url, response_text(response), raw_text(response)))


def _found(pages: dict, needle: str, *, word: bool = False) -> list[str]:
    pattern = re.compile(
        rf"(?<![A-Za-z0-9]){re.escape(needle)}(?![A-Za-z0-9])" if word else re.escape(needle)
    )
    return sorted(url for url, response in pages.items() if pattern.search(_text(url, response)))


def _hidden(leaders) -> dict[str, bool]:
    """What the leader must not find, each with whether it is matched as a whole word."""
    others = [leaders.papers["LAT-1"], leaders.papers["Team Orca"]]
    hidden = {paper.identity: False for paper in others}
    hidden |= {paper.public_code: True for paper in others}
    hidden |= dict.fromkeys(PaperLabel.objects.values_list("label", flat=True), True)
    hidden |= {str(total): False for total in OTHER_TOTALS.values()}
    hidden |= {
        leaders.juror.username: False,
        leaders.juror.get_full_name(): False,
        NOTE: False,
        "LAT": True,
        "Delegation LAT": False,
    }
    hidden |= dict.fromkeys(ScanPage.objects.values_list("image", flat=True), False)
    return hidden


def test_a_leader_reaches_nothing_of_another_delegation_an_ai_paper_or_a_juror(client, leaders):
    client.force_login(leaders.mari)
    pages = crawl(client)
    leaked = {
        needle: _found(pages, needle, word=word)
        for needle, word in _hidden(leaders).items()
        if _found(pages, needle, word=word)
    }
    assert leaked == {}


def test_the_same_crawl_finds_the_leaders_own_contestants_and_their_pages(client, leaders):
    client.force_login(leaders.mari)
    pages = crawl(client)
    assert _found(pages, "EST-1") and _found(pages, "EST-2")
    assert _found(pages, str(OWN_TOTAL))
    images = {
        url
        for url, response in pages.items()
        if response.status_code == 200 and response["Content-Type"] == "image/png"
    }
    # Both contestants' page of each of the two problems.
    assert len(images) == 2 * 2
    reached = {
        resolve(url.split("?")[0]).url_name
        for url, response in pages.items()
        if response.status_code == 200
    }
    assert {"leader_delegation", "leader_contestant_problem", "leader_scan_page"} <= reached
    # The crawl's search is the one that finds what the other leader may see.
    client.force_login(leaders.ivo)
    assert _found(crawl(client), "LAT-1")
