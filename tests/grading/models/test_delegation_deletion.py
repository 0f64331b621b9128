"""A contest goes with its delegations and their contestants' papers; a delegation alone is not
deleted from under its contestants."""

import pytest
from django.db.models import RestrictedError

from grading.models import Delegation, Paper
from rubrics.models import Contest
from tests.factories import make_contest, make_delegation


@pytest.fixture
def contest(db):
    contest = make_contest("iol", papers=2)
    make_delegation(contest, "EST", papers=list(contest.papers.all()))
    return contest


def test_deleting_a_contest_deletes_its_delegations_and_papers(contest):
    Contest.objects.get(pk=contest.pk).delete()
    assert (Delegation.objects.count(), Paper.objects.count()) == (0, 0)


def test_a_delegation_with_contestants_is_not_deleted_from_under_them(contest):
    with pytest.raises(RestrictedError):
        Delegation.objects.get(code="EST").delete()
    assert Paper.objects.filter(delegation__code="EST").count() == 2
