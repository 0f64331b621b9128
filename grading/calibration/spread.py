"""How a calibration round's submitted marks spread: one paper and criterion's (`Spread`: count,
range and median, how many equal the reference, in words and on a strip) and one criterion's
over every paper (`Disagreement`: how far from the reference, for the widest-first order). Read
by the round's selectors (`grading.calibration.selectors`); no query of its own."""

import statistics
from dataclasses import dataclass
from decimal import Decimal

from grading.rules.domain import points_text, points_with_word, within_tolerance
from rubrics.models import Criterion


@dataclass
class Spread:
    """The submitted calibration marks of one paper and criterion: how many, their range and
    median, how many equal the reference. `dots` places each value on a strip 0..max (SVG)."""

    values: list[Decimal]
    reference: Decimal | None
    maximum: Decimal
    tolerance: Decimal = Decimal(0)

    @property
    def count(self) -> int:
        return len(self.values)

    @property
    def off(self) -> int:
        """How many marks are farther from the reference than the criterion's tolerance: the
        marks that, beside the reference's in a live cell, would make a discrepancy."""
        if self.reference is None:
            return 0
        return sum(
            1
            for value in self.values
            if not within_tolerance(*sorted((value, self.reference)), self.tolerance)
        )

    @property
    def distance(self) -> Decimal:
        """The sum of the marks' distances from the reference, in points."""
        if self.reference is None:
            return Decimal(0)
        return sum((abs(value - self.reference) for value in self.values), Decimal(0))

    @property
    def sentence(self) -> str:
        """The spread in words: "3 marks from 4 to 6.5, median 5; 1 of 3 equals the
        reference"."""
        if not self.values:
            return "no submitted mark yet"
        count, equal = self.count, self.equal
        if count == 1:
            said = f"1 mark, {self.low}"
        elif self.low == self.high:
            said = f"{count} marks, all {self.low}"
        else:
            said = f"{count} marks from {self.low} to {self.high}, median {self.median}"
        if self.reference is None:
            return said
        if equal == count:
            agree = "it equals the reference" if count == 1 else "all equal the reference"
        elif equal == 0:
            agree = "it differs from the reference" if count == 1 else "none equals the reference"
        else:
            agree = f"{equal} of {count} {'equals' if equal == 1 else 'equal'} the reference"
        return f"{said}; {agree}"

    @property
    def low(self) -> str:
        return points_text(min(self.values)) if self.values else ""

    @property
    def high(self) -> str:
        return points_text(max(self.values)) if self.values else ""

    @property
    def median(self) -> str:
        return points_text(statistics.median(self.values)) if self.values else ""

    @property
    def equal(self) -> int:
        return sum(1 for value in self.values if value == self.reference)

    @property
    def dots(self) -> list[dict]:
        """One dot per distinct value, its x in 0..100 and how many gave it; the reference
        is `reference_x`."""
        counts: dict[Decimal, int] = {}
        for value in self.values:
            counts[value] = counts.get(value, 0) + 1
        return [
            {"x": self._x(value), "n": n, "r": 2 + n, "value": points_text(value)}
            for value, n in sorted(counts.items())
        ]

    @property
    def reference_x(self) -> float | None:
        return None if self.reference is None else self._x(self.reference)

    def _x(self, value: Decimal) -> float:
        return round(float(value / self.maximum) * 100, 1) if self.maximum else 0.0


@dataclass(frozen=True)
class Disagreement:
    """One criterion's submitted calibration marks against the reference, over every paper of
    the round: how many marks, how many are farther from it than the tolerance, and their mean
    distance from it."""

    criterion: Criterion
    # (row, cell) of the round's grid, one per paper: `selectors.Row`, `selectors.Cell`.
    cells: list[tuple]
    marks: int
    off: int
    mean_distance: Decimal | None

    @property
    def order(self) -> tuple:
        """Widest first: the larger share of marks off the reference, then the larger mean
        distance from it as a share of the criterion's points."""
        if not self.marks:
            return (0, 0)
        points = self.criterion.points or Decimal(1)
        return (-Decimal(self.off) / self.marks, -(self.mean_distance / points))

    @property
    def sentence(self) -> str:
        """The disagreement in words, e.g. "3 of 4 marks are more than the tolerance (0.5)
        from the reference; 1.25 points from it on average"."""
        if not self.marks:
            return "no submitted mark yet"
        if self.mean_distance == 0:
            return "every mark equals the reference"
        away = f"{points_with_word(self.mean_distance)} from it on average"
        tolerance = self.criterion.tolerance
        if self.off == 0:
            return (
                f"every mark is within the tolerance ({points_text(tolerance)}) of the "
                f"reference; {away}"
            )
        one = self.off == 1
        if not tolerance:
            beyond = "differs from" if one else "differ from"
        else:
            beyond = (
                f"{'is' if one else 'are'} more than the tolerance ({points_text(tolerance)}) from"
            )
        return f"{self.off} of {self.marks} marks {beyond} the reference; {away}"
