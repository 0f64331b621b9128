"""The grading rule (`grading.rules.domain`) on plain values, without a database: examples for each
branch, then properties that must hold for any marks, tolerance, step and cut-offs."""

from collections import namedtuple
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from grading.rules.domain import (
    CellStatus,
    cell_outcome,
    floor_to_step,
    medal_for,
    medal_straddles,
    nearest_cutoff,
)

D = Decimal
# A medal cut-off as the rule reads it: anything with a name, a minimum and an order.
Cutoff = namedtuple("Cutoff", "name min_total order")
IOL_2026 = [
    Cutoff("gold", D("70.0"), 1),
    Cutoff("silver", D("58.4"), 2),
    Cutoff("hm", D("35.3"), 3),
]

steps = st.sampled_from([D("0.25"), D("0.5"), D("1"), D("2")])


@st.composite
def cells(draw):
    """A criterion (points, step, tolerance) and the submitted marks of its cell."""
    step = draw(steps)
    top = draw(st.integers(min_value=1, max_value=40))
    points = step * top
    tolerance = step * draw(st.integers(min_value=0, max_value=3))
    marks = draw(
        st.lists(st.integers(min_value=0, max_value=top).map(lambda k: k * step), max_size=4)
    )
    expected = draw(st.integers(min_value=max(1, len(marks)), max_value=len(marks) + 2))
    return points, step, tolerance, marks, expected


def test_each_status_has_a_label_a_person_reads():
    assert {status.value: status.label for status in CellStatus} == {
        "agreed": "agreed",
        "consensus": "agreed in discussion",
        "chair": "decided by the chair",
        "appeal": "decided on appeal",
        "open": "open",
        "pending": "pending",
        "no_answer": "no answer",
    }


def test_marks_within_tolerance_agree_on_their_mean_rounded_down_to_the_step():
    outcome = cell_outcome([D("2"), D("2.5")], expected=2, tolerance=D("0.5"), step=D("0.5"))
    assert (outcome.status, outcome.points) == (CellStatus.AGREED, D("2.00"))


def test_marks_further_apart_than_the_tolerance_are_open_at_their_plain_mean():
    outcome = cell_outcome([D("8"), D("8"), D("6")], expected=3, tolerance=D("0"), step=D("1"))
    assert (outcome.status, outcome.points, outcome.spread) == (CellStatus.OPEN, D("7.33"), D("2"))


def test_a_missing_submitted_mark_leaves_the_cell_pending():
    outcome = cell_outcome([D("4")], expected=2, tolerance=D("0"), step=D("1"))
    assert (outcome.status, outcome.points) == (CellStatus.PENDING, D("4.00"))
    empty = cell_outcome([], expected=2, tolerance=D("0"), step=D("1"))
    assert (empty.status, empty.points, empty.has_value) == (CellStatus.PENDING, D("0"), False)


def test_a_chair_decision_wins_over_any_marks():
    outcome = cell_outcome(
        [D("8"), D("6")], expected=3, tolerance=D("0"), step=D("1"), chair_points=D("7")
    )
    assert (outcome.status, outcome.points, outcome.has_value) == (CellStatus.CHAIR, D("7"), True)


def test_agreement_reached_in_discussion_is_told_apart():
    outcome = cell_outcome(
        [D("8"), D("8")], expected=2, tolerance=D("0"), step=D("1"), consensus=True
    )
    assert (outcome.status, outcome.status.is_resolved) == (CellStatus.CONSENSUS, True)


def test_the_best_medal_whose_minimum_the_total_reaches_is_given():
    totals = ("100", "70", "69.99", "58.4", "35.3", "35.29", "0")
    assert [medal_for(D(t), IOL_2026) for t in totals] == [
        "gold",
        "gold",
        "silver",
        "silver",
        "hm",
        "",
        "",
    ]
    assert nearest_cutoff(D("69"), IOL_2026) == ("gold", D("1.0"))
    assert nearest_cutoff(D("69"), []) == ("", None)


@given(cells())
def test_the_outcome_is_the_same_whichever_juror_is_listed_first(cell):
    points, step, tolerance, marks, expected = cell
    forward = cell_outcome(marks, expected=expected, tolerance=tolerance, step=step)
    backward = cell_outcome(marks[::-1], expected=expected, tolerance=tolerance, step=step)
    assert forward == backward


@given(cells())
def test_an_agreed_value_lies_between_the_marks_on_the_step(cell):
    points, step, tolerance, marks, expected = cell
    outcome = cell_outcome(marks, expected=expected, tolerance=tolerance, step=step)
    if outcome.status == CellStatus.AGREED:
        assert min(marks) <= outcome.points <= max(marks)
        assert outcome.points % step == 0
        assert len(marks) == expected


@given(cells())
def test_a_cell_is_open_exactly_when_its_marks_differ_by_more_than_the_tolerance(cell):
    points, step, tolerance, marks, expected = cell
    outcome = cell_outcome(marks, expected=expected, tolerance=tolerance, step=step)
    assert (outcome.status == CellStatus.OPEN) == bool(
        marks and max(marks) - min(marks) > tolerance
    )


@given(cells(), st.integers(min_value=0, max_value=40))
def test_a_chair_decision_always_wins(cell, decided_steps):
    points, step, tolerance, marks, expected = cell
    decided = step * decided_steps
    outcome = cell_outcome(
        marks, expected=expected, tolerance=tolerance, step=step, chair_points=decided
    )
    assert (outcome.status, outcome.points) == (CellStatus.CHAIR, decided)


@given(cells())
def test_identical_marks_from_every_juror_agree_on_that_mark(cell):
    points, step, tolerance, marks, expected = cell
    if marks:
        same = [marks[0]] * expected
        outcome = cell_outcome(same, expected=expected, tolerance=tolerance, step=step)
        assert (outcome.status, outcome.points) == (CellStatus.AGREED, marks[0])


@given(
    st.decimals(min_value=0, max_value=1000, places=2),
    st.sampled_from([D("0.01"), D("0.25"), D("0.5"), D("1"), D("3")]),
)
def test_flooring_to_a_step_gives_the_largest_multiple_not_above(value, step):
    floored = floor_to_step(value, step)
    assert floored <= value < floored + step
    assert floored % step == 0


totals = st.decimals(min_value=0, max_value=100, places=2)


@given(totals, totals)
def test_a_higher_total_never_earns_a_lesser_medal(a, b):
    rank = {"gold": 1, "silver": 2, "hm": 3, "": 4}
    low, high = sorted((a, b))
    assert rank[medal_for(high, IOL_2026)] <= rank[medal_for(low, IOL_2026)]


@given(totals, totals)
def test_totals_straddle_exactly_when_a_cutoff_lies_between_them(a, b):
    low, high = sorted((a, b))
    between = any(low < c.min_total <= high for c in IOL_2026)
    assert medal_straddles(low, high, IOL_2026) == between


def test_a_problem_left_blank_is_no_answer_worth_0_without_any_mark():
    outcome = cell_outcome([], expected=0, tolerance=D("0"), step=D("0.5"), no_answer=True)
    assert (outcome.status, outcome.points, outcome.has_value) == (
        CellStatus.NO_ANSWER,
        D("0"),
        True,
    )
    assert outcome.status.is_settled is True
    assert outcome.status.is_resolved is False


def test_a_chair_decision_stands_over_a_problem_left_blank():
    outcome = cell_outcome(
        [D("2")], expected=2, tolerance=D("0"), step=D("0.5"), chair_points=D("1"), no_answer=True
    )
    assert (outcome.status, outcome.points) == (CellStatus.CHAIR, D("1"))


def test_an_appeal_decision_is_the_cell_value_whatever_the_marks_or_the_chair_say():
    outcome = cell_outcome(
        [Decimal("2"), Decimal("6")],
        expected=2,
        tolerance=Decimal("0"),
        step=Decimal("0.5"),
        chair_points=Decimal("4"),
        appeal_points=Decimal("5.5"),
    )
    assert (outcome.status, outcome.points) == (CellStatus.APPEAL, Decimal("5.5"))
    assert outcome.status.is_settled and outcome.status.is_resolved
