"""The appeals evening's timetable (`grading.appeals.evening_plan`): over random small evenings
the solver finds a timetable exactly when one exists (every timetable tried by brute force), and
what it finds keeps every rule (`breaches` finds nothing; each table has a juror of its group who
does not lead its delegation; nobody is in two places); a real evening's size is proposed in
seconds; an impossible evening is named in a sentence."""

import itertools
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grading.appeals.evening_plan import Evening, Meeting, bounds_broken, breaches, propose


@st.composite
def evenings(draw) -> Evening:
    """Up to 6 meetings of up to 4 delegations on up to 3 problems, 1–3 slots; leaders 1–2 a
    delegation, some of them jurors; up to 2 jurors a delegation in conflict with it; groups
    of 1–3 jurors, some in two groups; 1–2 tables."""
    problems = draw(st.integers(1, 3))
    delegations = draw(st.integers(1, 4))
    people = list(range(1, 9))
    jurors = {
        group: frozenset(draw(st.sets(st.sampled_from(people), min_size=1, max_size=3)))
        for group in range(problems)
    }
    leaders = {
        delegation: frozenset(draw(st.sets(st.sampled_from(people), min_size=1, max_size=2)))
        for delegation in range(delegations)
    }
    conflicted = {
        delegation: frozenset(draw(st.sets(st.sampled_from(people), max_size=2)))
        for delegation in range(delegations)
    }
    pairs = draw(
        st.lists(
            st.tuples(st.integers(0, delegations - 1), st.integers(0, problems - 1)),
            min_size=1,
            max_size=6,
            unique=True,
        )
    )
    return Evening(
        meetings=tuple(
            Meeting(key=(d, p), leaders=leaders[d], group=p, kept_out=conflicted[d])
            for d, p in pairs
        ),
        slots=draw(st.integers(1, 3)),
        jurors=jurors,
        tables={group: draw(st.integers(1, 2)) for group in range(problems)},
    )


def _exists(evening: Evening) -> bool:
    """Whether any timetable keeps the rules: every one tried."""
    keys = [meeting.key for meeting in evening.meetings]
    return any(
        not breaches(evening, dict(zip(keys, slots, strict=True)))
        for slots in itertools.product(range(evening.slots), repeat=len(keys))
    )


def _keeps_every_rule(evening: Evening, proposal) -> None:
    assert breaches(evening, proposal.slot_of) == []
    for slot in range(evening.slots):
        here = [m for m in evening.meetings if proposal.slot_of[m.key] == slot]
        places: dict[int, int] = {}
        for meeting in here:
            seated = proposal.seated[meeting.key]
            assert seated, meeting
            for juror in seated:
                assert juror in evening.jurors[meeting.group]
                assert juror not in meeting.leaders | meeting.kept_out
            for person in [*seated, *meeting.leaders]:
                places[person] = places.get(person, 0) + 1
        assert all(count == 1 for count in places.values()), places


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(evening=evenings())
def test_a_timetable_is_found_exactly_when_one_exists_and_keeps_every_rule(evening):
    proposal = propose(evening)
    if proposal.found:
        _keeps_every_rule(evening, proposal)
    else:
        assert proposal.sentence.endswith(".")
        assert not _exists(evening)


@settings(max_examples=60, deadline=None)
@given(evening=evenings())
def test_meetings_come_as_early_as_the_rules_let_them(evening):
    proposal = propose(evening)
    if not proposal.found:
        return
    keys = [meeting.key for meeting in evening.meetings]
    best = min(
        sum(slots)
        for slots in itertools.product(range(evening.slots), repeat=len(keys))
        if not breaches(evening, dict(zip(keys, slots, strict=True)))
    )
    assert sum(proposal.slot_of.values()) == best


def _real_evening(seed: int, *, slots: int) -> Evening:
    """46 delegations of 1–2 leaders (5 of the jurors lead one) and 2 jurors from their country,
    5 problems, 40 jurors in groups of 8, two tables a group; 100 appeals on random
    (delegation, problem) pairs."""
    rng = random.Random(seed)
    jurors = list(range(1, 41))
    groups = {problem: frozenset(jurors[problem * 8 : problem * 8 + 8]) for problem in range(5)}
    juror_leaders = rng.sample(jurors, 5)
    # Jurors from a delegation's country: a few per delegation.
    countrymen = {delegation: frozenset(rng.sample(jurors, 2)) for delegation in range(46)}
    leaders = {}
    for delegation in range(46):
        own = {1000 + 2 * delegation}
        if rng.random() < 0.5:
            own.add(1001 + 2 * delegation)
        if delegation < len(juror_leaders):
            own = {juror_leaders[delegation]}
        leaders[delegation] = frozenset(own)
    pairs = {(rng.randrange(46), rng.randrange(5)) for _ in range(100)}
    return Evening(
        meetings=tuple(
            Meeting(key=(d, p), leaders=leaders[d], group=p, kept_out=countrymen[d])
            for d, p in sorted(pairs)
        ),
        slots=slots,
        jurors=groups,
        tables=dict.fromkeys(groups, 2),
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_real_evening_is_proposed_in_seconds_keeping_every_rule(seed):
    evening = _real_evening(seed, slots=12)
    started = time.perf_counter()
    proposal = propose(evening)
    assert time.perf_counter() - started < 10
    assert proposal.found, proposal.sentence
    _keeps_every_rule(evening, proposal)


def test_a_leader_with_more_meetings_than_slots_is_named():
    evening = Evening(
        meetings=tuple(Meeting(key=(1, p), leaders=frozenset({7}), group=p) for p in range(3)),
        slots=2,
        jurors={p: frozenset({p + 20}) for p in range(3)},
        tables={},
        person_names={7: "The leader of EST"},
    )
    proposal = propose(evening)
    assert not proposal.found
    assert proposal.sentence == "The leader of EST leads 3 meetings, but the evening has 2 slots."


def test_a_group_with_more_meetings_than_its_tables_hold_is_named():
    evening = Evening(
        meetings=tuple(Meeting(key=(d, 1), leaders=frozenset({d}), group=1) for d in range(5)),
        slots=2,
        jurors={1: frozenset({20, 21, 22})},
        tables={1: 2},
        group_names={1: "Problem 1's group"},
    )
    assert propose(evening).sentence == (
        "Problem 1's group has 5 meetings, but 2 tables in 2 slots hold 4."
    )


def test_a_group_whose_every_juror_leads_or_is_in_conflict_with_the_delegation_is_named():
    evening = Evening(
        meetings=(Meeting(key=(1, 1), leaders=frozenset({20}), group=1, kept_out=frozenset({21})),),
        slots=3,
        jurors={1: frozenset({20, 21})},
        tables={},
        meeting_names={(1, 1): "EST on problem 1"},
        group_names={1: "Problem 1's group"},
    )
    assert bounds_broken(evening) == [
        "No juror of Problem 1's group may sit at EST on problem 1: each of them leads its "
        "delegation or is in conflict with it."
    ]


def test_rules_that_only_meet_together_are_named_in_one_sentence():
    # Juror 20 is the only juror of both groups and leads delegation 1: in two slots they can
    # lead delegation 1's meeting with group 2 and sit with group 1 for delegation 2, but
    # delegation 1 also meets group 1, where 20 may not sit.
    evening = Evening(
        meetings=(
            Meeting(key=(1, 1), leaders=frozenset({20}), group=1),
            Meeting(key=(2, 2), leaders=frozenset({30}), group=2),
        ),
        slots=2,
        jurors={1: frozenset({20, 21}), 2: frozenset({20})},
        tables={},
    )
    assert propose(evening).found
    tight = Evening(
        meetings=(*evening.meetings, Meeting(key=(3, 2), leaders=frozenset({21}), group=2)),
        slots=1,
        jurors=evening.jurors,
        tables={2: 2},
    )
    proposal = propose(tight)
    assert not proposal.found
    assert proposal.sentence.startswith("No timetable keeps every rule in 1 slot")
    assert not _exists(tight)


def test_a_moved_meeting_that_double_books_a_leader_is_named_by_slot():
    evening = Evening(
        meetings=(
            Meeting(key=(1, 1), leaders=frozenset({7}), group=1),
            Meeting(key=(1, 2), leaders=frozenset({7}), group=2),
        ),
        slots=2,
        jurors={1: frozenset({20}), 2: frozenset({21})},
        tables={},
        meeting_names={(1, 1): "EST on problem 1", (1, 2): "EST on problem 2"},
        person_names={7: "EST's leader"},
    )
    assert breaches(evening, {(1, 1): 0, (1, 2): 1}) == []
    assert breaches(evening, {(1, 1): 1, (1, 2): 1}) == [
        "In slot 2, EST's leader is due at EST on problem 1 and EST on problem 2."
    ]
