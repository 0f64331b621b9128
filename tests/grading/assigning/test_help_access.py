"""Language help's access rules: a helper reads that paper's pages in that problem and nothing
else; a specialist never grades, compares or reads results."""

import pytest

from grading.rules import access
from tests.grading.assigning.help_scenario import asked, assigned, human_paper, specialist


@pytest.fixture
def world(contest, juror, organizer, outside_juror):
    paper = human_paper(contest)
    sara = specialist("sara", "Tagalog")
    request = assigned(asked(juror, paper), sara, by=organizer)
    p1, p2 = contest.problems.get(number=1), contest.problems.get(number=2)
    other = contest.papers.exclude(pk=paper.pk).first()
    return {"paper": paper, "other": other, "sara": sara, "request": request, "p1": p1, "p2": p2}


def _fresh(user):
    # The predicates cache a user's roles on the object: a new one reads them afresh.
    return type(user).objects.get(pk=user.pk)


def test_the_helper_reads_that_papers_pages_in_that_problem_only(world):
    sara, paper, other, p1, p2 = (world[k] for k in ("sara", "paper", "other", "p1", "p2"))
    assert access.may_read_pages(sara, problem=p1, paper=paper)
    assert not access.may_read_pages(sara, problem=p1, paper=other)
    assert not access.may_read_pages(sara, problem=p2, paper=paper)
    assert access.helps_in(sara, p1) and not access.helps_in(sara, p2)


def test_a_specialist_never_grades_compares_discusses_or_reads_results(world):
    sara, paper, p1 = _fresh(world["sara"]), world["paper"], world["p1"]
    assert access.is_specialist(sara)
    assert not access.is_juror(sara)
    assert not access.may_mark(sara, problem=p1, paper=paper)
    assert not access.may_read_paper(sara, problem=p1, paper=paper)
    assert not access.may_read_problem(sara, p1)
    assert access.comparison_access(sara, p1) == access.ComparisonAccess.NONE
    assert not access.may_discuss(sara, p1)
    assert not access.may_read_results(sara)
    assert not access.may_ask_help(sara, problem=p1, paper=paper)
    assert not access.may_assign_help(sara)


def test_only_the_requests_helper_may_help_and_only_organizer_and_chair_assign(
    world, juror, other_juror, chair, organizer, outside_juror
):
    request = world["request"]
    helpers = {
        user.username: access.may_help(_fresh(user), request)
        for user in (world["sara"], juror, other_juror, chair, organizer, outside_juror)
    }
    assert helpers == {
        "sara": True,
        "alice": False,
        "bob": False,
        "chen": False,
        "olga": False,
        "charlie": False,
    }
    assigners = {
        user.username: access.may_assign_help(_fresh(user))
        for user in (world["sara"], juror, chair, organizer)
    }
    assert assigners == {"sara": False, "alice": False, "chen": True, "olga": True}


def test_a_juror_asks_only_about_papers_they_mark(world, juror, outside_juror):
    paper, p1, p2 = world["paper"], world["p1"], world["p2"]
    assert access.may_ask_help(_fresh(juror), problem=p1, paper=paper)
    assert not access.may_ask_help(_fresh(juror), problem=p2, paper=paper)
    assert not access.may_ask_help(_fresh(outside_juror), problem=p1, paper=paper)
    assert access.may_ask_help(_fresh(outside_juror), problem=p2, paper=paper)
