"""What a language specialist reaches, searched for rather than assumed: everything sara can
reach from the home page (pages, page images, her inbox, whatever they link) is searched for
what must never reach her: a juror's mark or note, another paper's code or label, the label of
her paper in another problem, its public code, any identity, any juror's name (the one who
asked included), another question. The positive control: the same crawl finds her paper's
label, its pages for the problem she is asked about, and the question."""

import re
from decimal import Decimal

import pytest
from django.urls import resolve

from grading.marking.marks import mark_set
from grading.models import Mark, Paper, PaperLabel, ScanPage
from grading.rules import roles
from tests.crawl import crawl, raw_text, response_text
from tests.factories import assign, make_contest, make_user
from tests.grading.assigning.help_scenario import asked, assigned, specialist
from tests.grading.scan_pages import add_scans

NOTE = "Juror's private note 8813"
POINTS = {"A1": "11.5", "T1": "6.5"}
QUESTION = "What does the third line of task 1 say? Q-4417"
OTHER_QUESTION = "Another juror's question Q-9902"
IDENTITIES = ["Contestant Ximena", "Contestant Yoric", "Contestant Zelda"]


@pytest.fixture
def world(db):
    contest = make_contest("crawl", identities=IDENTITIES)
    alice = make_user("alice", roles.JUROR, first_name="Alicia", last_name="Quarrington")
    bob = make_user("bob", roles.JUROR, first_name="Boris", last_name="Vanterpool")
    charlie = make_user("charlie", roles.JUROR, first_name="Carla", last_name="Wexford")
    organizer = make_user("olga", roles.ORGANIZER, first_name="Olga", last_name="Oberstein")
    make_user("chen", roles.CHAIR, first_name="Chen", last_name="Chairwoman")
    assign(contest, [alice, bob], problems=[1])
    assign(contest, [charlie], problems=[2])
    Paper.objects.filter(contest=contest).update(
        source=Paper.Source.HUMAN, answer_language="Tagalog"
    )
    papers = list(contest.papers.order_by("pk"))
    for paper in papers:
        for problem in contest.problems.all():
            add_scans(paper, problem, 2)
    for mark in Mark.objects.select_related("criterion", "sheet__juror"):
        mark_set(
            mark=mark,
            points=Decimal(POINTS[mark.criterion.code]),
            actor=mark.sheet.juror,
            channel="browser",
            note=NOTE,
        )
    sara = specialist("sara", "Tagalog", first_name="Sara", last_name="Reyes")
    mine, other = papers[0], papers[1]
    request = assigned(asked(alice, mine, question=QUESTION), sara, by=organizer)
    # Bob's question on another paper goes to charlie, a juror of problem 2 only.
    assigned(asked(bob, other, question=OTHER_QUESTION), charlie, by=organizer)
    return {"contest": contest, "sara": sara, "paper": mine, "request": request}


def _text(url: str, response) -> str:
    return "\n".join((url, response_text(response), raw_text(response)))


def _found(pages: dict, needle: str, *, word: bool = False) -> list[str]:
    pattern = re.compile(
        rf"(?<![A-Za-z0-9.]){re.escape(needle)}(?![A-Za-z0-9])" if word else re.escape(needle)
    )
    return sorted(url for url, response in pages.items() if pattern.search(_text(url, response)))


def _hidden(world) -> dict[str, bool]:
    """What sara must not find, each with whether it is matched as a whole word."""
    paper = world["paper"]
    own_label = paper.labels.get(problem__number=1).label
    hidden = dict.fromkeys(IDENTITIES, False)
    hidden |= dict.fromkeys(Paper.objects.values_list("public_code", flat=True), True)
    hidden |= dict.fromkeys(
        PaperLabel.objects.exclude(label=own_label).values_list("label", flat=True), True
    )
    hidden |= dict.fromkeys(POINTS.values(), True)
    hidden |= {NOTE: False, OTHER_QUESTION: False}
    for username, name in (
        ("alice", "Alicia"),
        ("bob", "Boris"),
        ("charlie", "Carla"),
        ("olga", "Oberstein"),
        ("chen", "Chairwoman"),
    ):
        hidden |= {username: True, name: False}
    hidden |= dict.fromkeys(ScanPage.objects.values_list("image", flat=True), False)
    return hidden


def test_a_specialist_reaches_no_mark_no_other_paper_no_other_problem_and_no_name(client, world):
    client.force_login(world["sara"])
    pages = crawl(client)
    leaked = {
        needle: _found(pages, needle, word=word)
        for needle, word in _hidden(world).items()
        if _found(pages, needle, word=word)
    }
    assert leaked == {}


def test_the_same_crawl_finds_her_papers_pages_and_the_question(client, world):
    client.force_login(world["sara"])
    pages = crawl(client)
    label = world["paper"].labels.get(problem__number=1).label
    assert _found(pages, label, word=True)
    assert _found(pages, QUESTION)
    images = {
        url
        for url, response in pages.items()
        if response.status_code == 200 and response["Content-Type"] == "image/png"
    }
    assert len(images) == 2
    reached = {
        resolve(url.split("?")[0]).url_name
        for url, response in pages.items()
        if response.status_code == 200
    }
    assert reached == {
        "home",
        "help_mine",
        "help_request",
        "scan_page_image",
        "inbox",
        "inbox_stamp",
    }
    # The crawl's search is the one that finds what a juror of the paper may see.
    client.force_login(world["request"].asked_by)
    assert _found(crawl(client, limit=200), "alice", word=True)
