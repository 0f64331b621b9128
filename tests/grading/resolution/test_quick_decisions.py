"""The chair's quick decisions (`discrepancy_take`): the points are read from the submitted
marks as they stand, and every rule of a decision is `discrepancy_decide`'s."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from grading.models import Mark, Resolution
from grading.resolution.decisions import discrepancy_take, mark_revise
from grading.rules.refusals import ContestFinal, NotAllowed, Stale
from tests.crawl import refetched, shared_data
from tests.grading import scenario

D = Decimal


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield scenario.build()


@pytest.fixture
def graded(graded_once, db):
    return refetched(graded_once)


def _take(
    graded, take: str, reason: str = "Agreed in discussion.", actor=None, identity="Team Orca"
):
    return discrepancy_take(
        paper=graded["papers"][identity],
        criterion=graded["problems"][1].criteria.get(code="T1"),
        take=take,
        reason=reason,
        actor=actor or graded["chair"],
    )


def test_taking_a_mark_reads_it_as_it_stands_now(graded):
    # Orca's P1 T1 is 8, 8, 6; dan revises to 7 before the chair takes his mark.
    scenario.open_resolution(graded)
    dan = graded["users"]["dan"]
    mark = Mark.objects.get(
        sheet__juror=dan, paper=graded["papers"]["Team Orca"], criterion__code="T1"
    )
    mark_revise(mark=mark, points=D("7"), actor=dan)
    assert [(_take(graded, take).points) for take in ("juror:dan", "lower", "higher")] == [
        D("7"),
        D("7"),
        D("8"),
    ]
    # Taking the lower changed nothing after taking dan's 7: no second record of it.
    resolution = Resolution.objects.get()
    assert list(resolution.events.order_by("pk").values_list("old_points", "new_points")) == [
        (None, D("7")),
        (D("7"), D("8")),
    ]
    assert (resolution.kind, resolution.reason) == ("chair", "Agreed in discussion.")


@pytest.mark.parametrize(
    ("take", "reason", "message"),
    [
        (
            "juror:charlie",
            "Agreed.",
            "Criterion T1: charlie has no submitted mark here; reload the page to see the marks "
            "as they are.",
        ),
        ("middle", "Agreed.", "Criterion T1: say which mark to take."),
        (
            "lower",
            "  ",
            "Criterion T1: give the reason for your decision; the jurors and the record need it.",
        ),
    ],
)
def test_a_quick_decision_is_refused_with_a_sentence(graded, take, reason, message):
    with pytest.raises(ValidationError) as refused:
        _take(graded, take, reason)
    assert refused.value.messages == [message]
    assert Resolution.objects.count() == 0


def test_only_the_chair_takes_a_mark_and_not_once_the_contest_is_final(graded):
    with pytest.raises(NotAllowed):
        _take(graded, "lower", actor=graded["users"]["alice"])
    scenario.finalize(graded)
    with pytest.raises(ContestFinal):
        _take(graded, "higher", identity="Team Heron")
    assert sorted(Resolution.objects.values_list("kind", "points")) == [
        ("chair", D("7")),
        ("consensus", D("8")),
    ]


def test_taking_the_lower_seen_as_6_is_refused_once_it_is_7(graded):
    scenario.open_resolution(graded)
    dan = graded["users"]["dan"]
    mark = Mark.objects.get(
        sheet__juror=dan, paper=graded["papers"]["Team Orca"], criterion__code="T1"
    )
    mark_revise(mark=mark, points=D("7"), actor=dan)
    with pytest.raises(Stale) as refused:
        discrepancy_take(
            paper=graded["papers"]["Team Orca"],
            criterion=graded["problems"][1].criteria.get(code="T1"),
            take="lower",
            seen=D("6"),
            reason="Agreed.",
            actor=graded["chair"],
        )
    assert refused.value.messages == [
        "Criterion T1: the lower mark is now 7, not 6; look at the marks again before deciding."
    ]
    assert Resolution.objects.count() == 0
