"""Independence, searched for rather than assumed: bob's marks carry values and a note that
alice never writes; before alice submits, nothing she can reach (pages, script-fetched partials,
histories, PDFs, XLSX, zips, headers) shows any of them; once both have submitted, they appear
in exactly the comparison and discussion pages of their problem."""

import re
from decimal import Decimal

import pytest
from django.urls import resolve, reverse

from grading.marking.marks import mark_set
from grading.marking.sheets import sheet_submit
from grading.models import Mark, Sheet
from grading.resolution.decisions import comment_add, discrepancy_decide
from grading.rules import roles
from tests.crawl import crawl, database_state, response_text, shared_data, sheet_saves
from tests.factories import assign, make_contest, make_user

# Bob's marks: A1 (of 12) and T1 (of 8), the note on every one of them. Alice gives 3 and 2 and
# writes her own note, so each of these can only have come from bob's sheet.
BOB = {"A1": "10.5", "T1": "7.5"}
ALICE = {"A1": "3", "T1": "2"}
BOB_NOTE = "BOB-ONLY-NOTE-Q7"


def _number(text: str) -> re.Pattern:
    # Points are rendered "10.5" (the `pts` filter, the sheet, XLSX cells: all `points_text`), or
    # "10.50" where a Decimal is printed as stored: matched as a whole number, so that "110.5",
    # "10.55" or a version "1.10.5" does not count.
    return re.compile(rf"(?<![\d.]){re.escape(text)}0*(?![\d]|\.\d)")


TOKENS = {
    BOB["A1"]: _number(BOB["A1"]),
    BOB["T1"]: _number(BOB["T1"]),
    BOB_NOTE: re.compile(re.escape(BOB_NOTE)),
}


def grade(juror, problem, values: dict[str, str], note: str) -> None:
    marks = Mark.objects.filter(sheet__juror=juror, sheet__problem=problem)
    for mark in marks.select_related("criterion"):
        code = mark.criterion.code
        mark_set(mark=mark, points=Decimal(values[code]), actor=juror, channel="browser", note=note)


def submit(juror, problem) -> None:
    sheet = Sheet.objects.get(juror=juror, problem=problem)
    sheet_submit(sheet=sheet, actor=juror)


def bob_tokens_by_url(pages: dict) -> dict[str, list[str]]:
    """Every crawled URL whose response shows any of bob's values or his note."""
    found = {}
    for url, response in pages.items():
        text = url + "\n" + response_text(response)
        tokens = sorted(token for token, pattern in TOKENS.items() if pattern.search(text))
        if tokens:
            found[url] = tokens
    return found


@pytest.fixture(scope="module")
def crawled(django_db_setup, django_db_blocker, pdf_cache):
    """The conftest's `contest`, built once for the module (alice and bob grade problem 1,
    charlie problem 2), in which alice has graded every cell of problem 1 but not submitted, and
    bob has graded and submitted. The tests crawl it; the one submit a test makes is undone with
    that test's savepoint."""
    with shared_data(django_db_blocker, pdf_cache):
        alice, bob, charlie = (make_user(name, roles.JUROR) for name in ("alice", "bob", "charlie"))
        contest = make_contest(identities=["Team Orca", "Team Heron", "Team Lynx"])
        assign(contest, [alice, bob], problems=[1])
        assign(contest, [charlie], problems=[2])
        problem = contest.problems.get(number=1)
        grade(alice, problem, ALICE, "Alice checked this.")
        grade(bob, problem, BOB, BOB_NOTE)
        submit(bob, problem)
        # The chair settles a cell at bob's value and comments on it: alice's inbox is told of
        # the decision (not its value, while her sheet is a draft), and not of the comment.
        chair = make_user("chen", roles.CHAIR)
        paper = problem.paper_labels.order_by("label").first().paper
        a1 = problem.criteria.get(code="A1")
        discrepancy_decide(
            paper=paper, criterion=a1, points=Decimal(BOB["A1"]), reason="As bob.", actor=chair
        )
        comment_add(paper=paper, criterion=a1, author=chair, text=f"Bob's {BOB['A1']} stands.")
        yield {
            "contest": contest,
            "problem": problem,
            "juror": alice,
            "outside_juror": charlie,
            "state": database_state(),
        }


@pytest.fixture
def graded(db, crawled):
    # The contest is shared by the module's tests: were a test's writes (alice's submit, the
    # sheet script's saves) not rolled back with its savepoint, the next would see other data.
    assert database_state() == crawled["state"]
    return crawled["problem"]


@pytest.fixture
def contest(crawled):
    return crawled["contest"]


@pytest.fixture
def juror(crawled):
    return crawled["juror"]


@pytest.fixture
def outside_juror(crawled):
    return crawled["outside_juror"]


def test_the_search_patterns_find_bobs_values_as_the_pages_render_them():
    # The patterns must match the forms the templates write and nothing that merely contains
    # the digits.
    assert [
        bool(TOKENS["10.5"].search(text))
        for text in ("<td>10.5</td>", "10.5 → 3", "10.50", "x 110.5", "10.55", "1.10.5", "10.5.1")
    ] == [True, True, True, False, False, False, False]


def first_label(problem) -> str:
    return problem.paper_labels.order_by("label").first().label


def reached_views(pages: dict) -> set[str]:
    return {
        resolve(url.split("?")[0]).url_name
        for url, response in pages.items()
        if response.status_code == 200
    }


def test_before_submitting_a_juror_reaches_none_of_the_other_jurors_marks(client, graded, juror):
    client.force_login(juror)
    pages = crawl(client)
    # Everything a drafting juror has (the comparison is not linked until she submits), so
    # that an empty result below means the search looked everywhere.
    assert reached_views(pages) == {
        "home",
        "inbox",
        "inbox_stamp",
        "sheet",
        "sheet_solution",
        "sheet_cell_history",
        "sheet_xlsx",
        "paper_detail",
        "paper_pdf",
        "problem_pdf_bundle",
        "problem_pdf_zip",
    }
    # Her inbox was searched with a notice in it.
    assert "The chair decided P1 paper " in pages[reverse("inbox")].content.decode()
    # Typed in by hand, the comparison and a discussion say "submit first" and nothing more.
    for url in (
        reverse("comparison", args=[graded.contest.slug, 1]),
        reverse("discussion", args=[graded.contest.slug, 1, first_label(graded), "A1"]),
    ):
        pages[url] = client.get(url)
        assert pages[url].status_code == 403
    # And the JSON the sheet's script gets back when it saves a cell or a note.
    saves = sheet_saves(client, pages)
    assert sorted({response.status_code for response in saves.values()}) == [200, 409]
    assert bob_tokens_by_url(pages | saves) == {}


def test_a_juror_of_another_group_reaches_none_of_them_either(client, graded, outside_juror):
    client.force_login(outside_juror)
    pages = crawl(client)
    assert bob_tokens_by_url(pages | sheet_saves(client, pages)) == {}


def test_after_both_submit_the_other_marks_appear_exactly_in_the_comparison_and_discussions(
    client, graded, contest, juror
):
    submit(juror, graded)
    client.force_login(juror)
    pages = crawl(client)
    found = bob_tokens_by_url(pages | sheet_saves(client, pages))
    labels = sorted(graded.paper_labels.values_list("label", flat=True))
    discussions = {
        reverse("discussion", args=[contest.slug, 1, label, code]): sorted([BOB[code], BOB_NOTE])
        for label in labels
        for code in BOB
    }
    comparison = reverse("comparison", args=[contest.slug, 1])
    # The comparison's views (the grid, one criterion drilled down, filtered) show them too.
    compared = {url: tokens for url, tokens in found.items() if url.split("?")[0] == comparison}
    assert compared[comparison] == sorted(BOB.values())
    # Her own calibration compares her marks with the cells' agreed points, his where the
    # cell agreed on his: she may read them now, as the comparison shows them.
    mine = reverse("calibration_mine", args=[contest.slug, 1])
    assert found == compared | discussions | ({mine: found[mine]} if mine in found else {})
