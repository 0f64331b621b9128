"""The grading rule, once: how a cell's marks become its status and agreed value, flooring to a
step, the medal for a total and the medal-straddle test.

Plain functions and enums over plain values, with no database in them, so that every selector,
service, export, template and command asks the same question and gets the same answer.

How a cell (one paper × one criterion) is settled, in order:
1. a chair decision is the cell's value until the chair changes it, and so is an appeal's
   decision once the results are provisional (the later of the two wins: it is the one record);
2. a problem the contestant left blank is *no answer*: 0 points, settled, no juror needed;
3. while an assigned juror's submitted mark is missing, the cell is *pending*; its provisional
   value is what the marks in so far say;
4. when every submitted mark is within the criterion's tolerance, the cell is *agreed* (*agreed
   in discussion* when the jurors revised to agreement): marks that differ within tolerance give
   their mean rounded *down* to the criterion's step, because rounding down never awards points
   that no juror would have given more of, and is the same whichever juror is listed first;
5. otherwise the cell is *open*; its provisional value is the plain mean."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_FLOOR, ROUND_HALF_UP, Decimal
from typing import NamedTuple

from django.db import models

# How points are written has one home, in rubrics (which imports nothing from grading); grading
# asks for it here, beside the rest of the rule.
from rubrics.validators import points_text

CENT = Decimal("0.01")
ZERO = Decimal("0")
NO_MEDAL = ""


class CellStatus(models.TextChoices):
    """How far a cell has come; the labels are what jurors and the chair read."""

    AGREED = "agreed", "agreed"
    CONSENSUS = "consensus", "agreed in discussion"
    CHAIR = "chair", "decided by the chair"
    # A team leader's appeal changed the agreed value (a `Resolution` of kind appeal).
    APPEAL = "appeal", "decided on appeal"
    OPEN = "open", "open"
    PENDING = "pending", "pending"
    NO_ANSWER = "no_answer", "no answer"

    @property
    def is_settled(self) -> bool:
        """Whether the cell has an agreed value that counts in final results."""
        return self in (
            CellStatus.AGREED,
            CellStatus.CONSENSUS,
            CellStatus.CHAIR,
            CellStatus.APPEAL,
            CellStatus.NO_ANSWER,
        )

    @property
    def is_resolved(self) -> bool:
        """Whether the cell was settled in the resolution phase (by discussion or the chair)."""
        return self in (CellStatus.CONSENSUS, CellStatus.CHAIR, CellStatus.APPEAL)


# The statuses a graded cell can have, in order: the comparison's columns. A problem left blank
# ("no answer") has no juror and so no cell there; a cell decided on appeal is one of the
# appeals' pages' business, after the comparison's work is done, and gets no column there.
GRADED_STATUSES = tuple(
    s.value for s in CellStatus if s not in (CellStatus.NO_ANSWER, CellStatus.APPEAL)
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a cell's marks come to: its status and its (agreed or provisional) points."""

    status: CellStatus
    points: Decimal
    lo: Decimal | None
    hi: Decimal | None
    n: int

    @property
    def spread(self) -> Decimal:
        return self.hi - self.lo if self.n else ZERO

    @property
    def has_value(self) -> bool:
        """Whether the points are a value worth showing: an open cell has none agreed, and a
        pending cell with no mark in yet has nothing at all."""
        if self.status == CellStatus.OPEN:
            return False
        return (
            self.status in (CellStatus.CHAIR, CellStatus.APPEAL, CellStatus.NO_ANSWER) or self.n > 0
        )


def cent(value: Decimal) -> Decimal:
    """Points and totals are kept to the cent, half up."""
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def points_word(value) -> str:
    """ "point" for exactly one (1, 1.0, "1.00"), "points" otherwise (0, 0.5, 2): the one rule
    for every sentence that counts points."""
    try:
        return "point" if Decimal(str(value)) == 1 else "points"
    except ArithmeticError:
        return "points"


def points_or_blank(value) -> str:
    """2.50 → "2.5", None → "blank": points in a sentence where a mark not given yet must still
    be named."""
    return points_text(value) or "blank"


def points_with_word(value) -> str:
    """1 → "1 point", 12.50 → "12.5 points": points with their word, pluralised."""
    return f"{points_text(value)} {points_word(value)}"


def floor_to_step(value: Decimal, step: Decimal) -> Decimal:
    """The largest multiple of `step` not above `value` (to the cent)."""
    return cent((value / step).to_integral_value(rounding=ROUND_FLOOR) * step)


def within_tolerance(lo: Decimal, hi: Decimal, tolerance: Decimal) -> bool:
    return hi - lo <= tolerance


def cell_outcome(
    marks: Sequence[Decimal],
    *,
    expected: int,
    tolerance: Decimal,
    step: Decimal,
    chair_points: Decimal | None = None,
    consensus: bool = False,
    no_answer: bool = False,
    appeal_points: Decimal | None = None,
) -> Outcome:
    """The status and value of one cell from its submitted marks (blanks left out), the number
    of jurors assigned to it, the criterion's tolerance and step, the chair's decision if any,
    whether the jurors' agreement was reached in discussion (a consensus on record), and
    whether the contestant left the cell's problem blank (`no_answer`), and the points an
    appeal's decision gave the cell (`appeal_points`), which count as its agreed value."""
    n = len(marks)
    lo = min(marks) if marks else None
    hi = max(marks) if marks else None
    if appeal_points is not None:
        return Outcome(CellStatus.APPEAL, appeal_points, lo, hi, n)
    if chair_points is not None:
        return Outcome(CellStatus.CHAIR, chair_points, lo, hi, n)
    if no_answer:
        # Nothing was written, so nothing can earn a point: no juror is needed to say so.
        return Outcome(CellStatus.NO_ANSWER, ZERO, lo, hi, n)
    if n == 0:
        return Outcome(CellStatus.PENDING, ZERO, lo, hi, n)
    mean = sum(marks, ZERO) / n
    if not within_tolerance(lo, hi, tolerance):
        return Outcome(CellStatus.OPEN, cent(mean), lo, hi, n)
    points = floor_to_step(mean, step)
    if n < expected:
        return Outcome(CellStatus.PENDING, points, lo, hi, n)
    return Outcome(CellStatus.CONSENSUS if consensus else CellStatus.AGREED, points, lo, hi, n)


class CellFacts(NamedTuple):
    """What settles a cell, as `cell_outcome` takes it: the submitted marks (blanks left out),
    the jurors assigned, the criterion's tolerance and step, and the cell's record. Hashable,
    so that cells with the same facts can share one outcome (`cell_outcomes`)."""

    marks: tuple[Decimal, ...]
    expected: int
    tolerance: Decimal
    step: Decimal
    chair_points: Decimal | None = None
    consensus: bool = False
    no_answer: bool = False
    appeal_points: Decimal | None = None


def cell_outcomes(cells: Iterable[CellFacts]) -> list[Outcome]:
    """`cell_outcome` of each cell, in order, in one pass: cells whose facts are equal share
    the one outcome `cell_outcome` gives them (an `Outcome` is frozen). A contest of 255 papers
    has some 20,000 cells but a few hundred different ones at most (153 in the benchmark's), and
    the rule is asked once for each of those. Facts compare as `Decimal`s do, so 2.5 and 2.50
    are the same facts; marks read from the database all carry the field's places."""
    settled: dict[CellFacts, Outcome] = {}
    outcomes = []
    for facts in cells:
        outcome = settled.get(facts)
        if outcome is None:
            outcome = settled[facts] = cell_outcome(
                facts[0],
                expected=facts[1],
                tolerance=facts[2],
                step=facts[3],
                chair_points=facts[4],
                consensus=facts[5],
                no_answer=facts[6],
                appeal_points=facts[7],
            )
        outcomes.append(outcome)
    return outcomes


def medal_for(total: Decimal, cutoffs: Iterable) -> str:
    """The best medal (lowest `order`) whose minimum the total reaches; "" for none. `cutoffs`
    are anything with `name`, `min_total` and `order` (`MedalCutoff` rows, say)."""
    for cutoff in sorted(cutoffs, key=lambda c: c.order):
        if total >= cutoff.min_total:
            return cutoff.name
    return NO_MEDAL


def medal_straddles(low: Decimal, high: Decimal, cutoffs: Iterable) -> bool:
    """Whether the lowest and highest totals that the jurors' marks allow fall on different
    sides of a medal cut-off: which juror's marks are taken would change the medal."""
    cutoffs = list(cutoffs)
    return medal_for(low, cutoffs) != medal_for(high, cutoffs)


def nearest_cutoff(total: Decimal, cutoffs: Iterable) -> tuple[str, Decimal | None]:
    """The cut-off nearest the total and how far it is; ("", None) without cut-offs."""
    cutoffs = list(cutoffs)
    if not cutoffs:
        return "", None
    best = min(cutoffs, key=lambda c: (abs(total - c.min_total), c.order))
    return best.name, abs(total - best.min_total)
