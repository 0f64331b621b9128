"""Medal cut-offs proposed from the human contestants' totals (`propose_cutoffs`, no database):
the counts add up, each cut-off meets its medal's share as closely as ties allow (a tie rounds
up), never splits equal totals, and the cut-offs go down medal by medal."""

from decimal import Decimal
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from grading.results.cutoffs import DEFAULT_SHARES, MEDAL_BY_KEY, MEDALS, propose_cutoffs
from tests.fuzz import fuzz_settings

D = Decimal
DEFAULT = [(medal, DEFAULT_SHARES[medal.key]) for medal in MEDALS]

# Totals to the cent, or on a coarse grid where many contestants tie.
cents = st.integers(0, 10_000).map(lambda n: Decimal(n).scaleb(-2))
coarse = st.integers(0, 20).map(lambda n: Decimal(n * 5))
totals_strategy = st.one_of(st.lists(cents, max_size=300), st.lists(coarse, max_size=300))


@st.composite
def shares_strategy(draw):
    """Some of the medals, best first, with shares above 0 that add up to at most 1."""
    medals = [medal for medal in MEDALS if draw(st.booleans())] or [MEDALS[0]]
    weights = draw(st.lists(st.integers(1, 50), min_size=len(medals), max_size=len(medals)))
    whole = sum(weights) + draw(st.integers(0, 100))
    return [(medal, Fraction(w, whole)) for medal, w in zip(medals, weights, strict=True)]


def _at_or_above(totals, cutoff) -> int:
    return sum(1 for total in totals if total >= cutoff)


@fuzz_settings(max_examples=300)
@given(totals=totals_strategy, shares=shares_strategy())
def test_a_proposal_adds_up_meets_the_shares_as_ties_allow_and_goes_down(totals, shares):
    proposal = propose_cutoffs(totals, shares)
    n = len(totals)

    assert [row.medal for row in proposal] == [medal for medal, _ in shares]
    previous_cutoff, previous_count, cumulative = None, 0, Fraction(0)
    for row, (_, share) in zip(proposal, shares, strict=True):
        cumulative += share
        assert (row.share, row.target) == (share, cumulative * n)
        # Counts add up, each side of the cut-off and medal by medal.
        assert row.at_or_above + row.below == n
        assert row.awarded == row.at_or_above - previous_count
        feasible = sorted(
            {t for t in totals if previous_cutoff is None or t < previous_cutoff}, reverse=True
        )
        if row.min_total is None:
            # Only when every contestant has a better medal already.
            assert (feasible, row.awarded, row.at_or_above) == ([], 0, previous_count)
            continue
        # The cut-off is a contestant's total and splits no tie.
        assert row.min_total in feasible
        assert row.at_or_above == _at_or_above(totals, row.min_total)
        assert row.tied == totals.count(row.min_total) >= 1
        below = [t for t in totals if t < row.min_total]
        assert row.highest_below == (max(below) if below else None)
        # Nearest the target among the cut-offs below the better medal's; a tie rounds up.
        chosen = abs(row.at_or_above - row.target)
        for value in feasible:
            count = _at_or_above(totals, value)
            assert abs(count - row.target) >= chosen
            if abs(count - row.target) == chosen:
                assert count <= row.at_or_above
        # Which way ties moved the count from the whole number of contestants the share asks.
        assert abs(row.wanted - row.target) <= Fraction(1, 2)
        assert row.rounding == (
            "none"
            if row.at_or_above == row.wanted
            else "up"
            if row.at_or_above > row.wanted
            else "down"
        )
        # Monotone: each cut-off below the better medal's, each medal to someone.
        assert previous_cutoff is None or row.min_total < previous_cutoff
        assert row.awarded >= 1
        previous_cutoff, previous_count = row.min_total, row.at_or_above


def test_the_default_shares_give_about_half_a_medal_one_two_three_and_a_sixth_a_mention():
    totals = [D(n) for n in range(100, 40, -5)]  # twelve contestants, no tie

    proposal = propose_cutoffs(totals, DEFAULT)

    assert [
        (row.medal.name, row.min_total, row.awarded, row.at_or_above, row.below, row.rounding)
        for row in proposal
    ] == [
        ("gold", D(100), 1, 1, 11, "none"),
        ("silver", D(90), 2, 3, 9, "none"),
        ("bronze", D(75), 3, 6, 6, "none"),
        ("honourable mention", D(65), 2, 8, 4, "none"),
    ]
    assert [row.highest_below for row in proposal] == [D(95), D(85), D(70), D(60)]


def test_a_cut_off_keeps_tied_contestants_together_and_says_which_way_it_rounded():
    # Twelve contestants; gold's target is 1, but the top three are tied.
    totals = [D(90)] * 3 + [D(80), D(70), D(70), D(60), D(50), D(40), D(30), D(20), D(10)]

    gold, silver, bronze, mention = propose_cutoffs(totals, DEFAULT)

    assert (gold.min_total, gold.at_or_above, gold.tied, gold.rounding) == (D(90), 3, 3, "up")
    # Silver's target is 3, which gold has used up: the next total, rounded up.
    assert (silver.min_total, silver.awarded, silver.at_or_above, silver.rounding) == (
        D(80),
        1,
        4,
        "up",
    )
    # Bronze's target is 6: 70 gives 6 (both 70s), exactly.
    assert (bronze.min_total, bronze.tied, bronze.at_or_above, bronze.rounding) == (
        D(70),
        2,
        6,
        "none",
    )
    assert (mention.min_total, mention.at_or_above, mention.highest_below) == (D(50), 8, D(40))


def test_an_equally_near_count_rounds_up():
    # Target 1.5 at silver: 1 or 2 contestants are equally near; the larger wins.
    totals = [D(50), D(40), D(30), D(20), D(10), D(5)]
    (gold, silver) = propose_cutoffs(
        totals, [(MEDAL_BY_KEY["gold"], Fraction(1, 12)), (MEDAL_BY_KEY["silver"], Fraction(2, 12))]
    )
    assert (gold.target, gold.at_or_above) == (Fraction(1, 2), 1)
    assert (silver.target, silver.min_total, silver.at_or_above) == (Fraction(3, 2), D(40), 2)


def test_a_medal_no_contestant_is_left_for_gets_no_cut_off():
    proposal = propose_cutoffs([D(70), D(70)], DEFAULT)
    assert [(row.min_total, row.awarded, row.at_or_above) for row in proposal] == [
        (D(70), 2, 2),
        (None, 0, 2),
        (None, 0, 2),
        (None, 0, 2),
    ]


def test_without_contestants_no_medal_gets_a_cut_off():
    assert [row.min_total for row in propose_cutoffs([], DEFAULT)] == [None] * 4
