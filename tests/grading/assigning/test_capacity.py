"""A juror past their capacity (issue 31, finding 4: a juror of capacity 3 held 20 papers and no
page said so): papers kept from before the capacity was set, moved in or added by hand can go
past it, and the assignments, progress and person pages say so in a sentence."""

import pytest
from django.urls import reverse

from grading.models import JurorProfile
from grading.rules import roles
from grading.rules.capacity import over_capacity
from tests.factories import assign, make_contest, make_user

SENTENCE = "alice holds 5 papers of P1, more than their capacity of 3."


@pytest.fixture
def contest(db):
    contest = make_contest("cap", problems=2, papers=5)
    alice, bob = make_user("alice", roles.JUROR), make_user("bob", roles.JUROR)
    assign(contest, [alice], problems=[1])
    assign(contest, [bob], problems=[2])
    JurorProfile.objects.create(user=alice, capacity=3)
    JurorProfile.objects.create(user=bob, capacity=5)
    return contest


def test_only_a_juror_past_their_capacity_is_named(contest):
    assert [o.sentence() for o in over_capacity(contest=contest)] == [SENTENCE]
    JurorProfile.objects.filter(user__username="alice").update(capacity=5)
    assert over_capacity(contest=contest) == []


@pytest.mark.parametrize(
    "page",
    [("console:assignments", "cap"), ("console:progress", "cap"), ("console:person", "alice")],
)
def test_the_pages_that_show_loads_say_so(client, contest, page):
    client.force_login(make_user("olga", roles.ORGANIZER))
    name, arg = page
    html = client.get(reverse(name, args=[arg])).content.decode()
    assert SENTENCE in html
    JurorProfile.objects.filter(user__username="alice").update(capacity=None)
    html = client.get(reverse(name, args=[arg])).content.decode()
    assert "more than their capacity" not in html
