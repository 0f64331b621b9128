"""`access.may_mark`, the autosave's access rule: a juror marks the papers assigned to them in a
problem, and no other; the same answer whether the reader's roles are already known or read
with the assignment."""

import pytest
from django.contrib.auth.models import User

from grading.rules import access, roles
from tests.factories import assign, make_contest, make_user


def _fresh(user) -> User:
    """The user as a new request loads it: roles not read yet."""
    return User.objects.get(pk=user.pk)


def _known(user) -> User:
    fresh = _fresh(user)
    access.is_juror(fresh)
    return fresh


@pytest.mark.parametrize("load", [_fresh, _known])
def test_a_juror_may_mark_only_the_papers_assigned_to_them_in_the_problem(db, load):
    contest = make_contest(problems=2, papers=2)
    ana, ben = make_user("ana", roles.JUROR), make_user("ben", roles.JUROR)
    chair = make_user("chen", roles.CHAIR)
    assign(contest, [ana], problems=[1])
    assign(contest, [ben], problems=[2])
    first, second = contest.problems.order_by("number")
    paper = contest.papers.first()
    assert access.may_mark(load(ana), problem=first, paper=paper) is True
    assert access.may_mark(load(ana), problem=first, paper=paper.pk) is True
    assert access.may_mark(load(ana), problem=second, paper=paper) is False
    assert access.may_mark(load(ben), problem=first, paper=paper) is False
    assert access.may_mark(load(chair), problem=first, paper=paper) is False
    ana.groups.clear()
    assert access.may_mark(load(ana), problem=first, paper=paper) is False


def test_an_anonymous_visitor_may_mark_nothing(db):
    from django.contrib.auth.models import AnonymousUser

    contest = make_contest(problems=1, papers=1)
    problem, paper = contest.problems.get(), contest.papers.get()
    assert access.may_mark(AnonymousUser(), problem=problem, paper=paper) is False
