"""A contest goes with its delegations and their contestants' papers; a delegation alone is not
deleted from under its contestants."""

import pytest
from django.core.exceptions import ValidationError
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


def test_an_ai_paper_or_another_contests_delegation_is_refused_where_forms_check(contest):
    # The admin's form runs the model's clean: an AI paper belongs to no delegation, and a
    # contestant to a delegation of their own contest.
    ai = make_contest("other", papers=1).papers.get()
    ai.delegation = Delegation.objects.get(code="EST")
    with pytest.raises(ValidationError) as refused:
        ai.full_clean()
    assert refused.value.message_dict["delegation"] == [
        "An AI system's paper belongs to no delegation."
    ]
    ai.source = Paper.Source.HUMAN
    with pytest.raises(ValidationError) as refused:
        ai.full_clean()
    assert refused.value.message_dict["delegation"] == ["Delegation EST is of another contest."]
