"""A (paper, criterion) cell as the reads of the resolution phase see it: its submitted marks,
how they settle, and what each juror's total counts in it.

How a cell settles is `grading.rules.domain.cell_outcome`'s alone; `settle_cell` gathers a cell's
marks and resolution and hands them to it, for every read that shows cells (the comparison, the
queue, the results, the inbox), and `settle_cells` does so for many cells in one pass (each
different cell asked of the rule once). Only marks of *submitted* sheets count; a draft is the
juror's own business (independence)."""

from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple

from django.db.models import Count

from grading.models import Comment, Resolution
from grading.rules.counting import counted_marks
from grading.rules.domain import ZERO, CellFacts, CellStatus, Outcome, cell_outcomes, cent
from grading.rules.schemes import versions_met
from rubrics.models import Contest, Criterion

Kind = Resolution.Kind


# Slotted, with each juror's marks kept as read and named only when asked for: a large contest
# has tens of thousands of cells, and fewer objects per cell make the pages that list them cheaper.
@dataclass(slots=True)
class Cell:
    """One (paper, criterion): its outcome, how it was resolved, and each submitted juror's
    mark (as database rows; `marks` names the jurors where the read asked for names)."""

    paper_id: int
    criterion: Criterion
    outcome: Outcome
    reason: str = ""
    # Rows of (paper id, criterion id, juror id, points, scheme version), and the jurors'
    # usernames by id.
    mark_rows: list | tuple = ()
    juror_names: dict[int, str] | None = None

    @property
    def marks(self) -> list[tuple[str, Decimal]]:
        """(username, points) of each submitted mark, by username; empty unless the read was
        made `with_marks`."""
        if self.juror_names is None:
            return []
        return sorted((self.juror_names.get(row[2], "?"), row[3]) for row in self.mark_rows)

    @property
    def versions_met(self) -> str:
        """ "marks given under scheme versions 1 and 2" where the cell's marks were given under
        different versions of the scheme, else ""."""
        return versions_met(row[4] for row in self.mark_rows)

    status = property(lambda self: self.outcome.status)
    points = property(lambda self: self.outcome.points)
    n = property(lambda self: self.outcome.n)
    lo = property(lambda self: self.outcome.lo)
    hi = property(lambda self: self.outcome.hi)
    spread = property(lambda self: self.outcome.spread)

    @property
    def is_open(self) -> bool:
        return self.status == CellStatus.OPEN

    @property
    def decided_by_chair(self) -> bool:
        return self.status == CellStatus.CHAIR

    @property
    def plainly_agreed(self) -> bool:
        """Agreed by the marks as submitted: nothing about the cell needs saying."""
        return self.status == CellStatus.AGREED

    @property
    def is_resolved(self) -> bool:
        return self.status.is_resolved


def cell_facts(
    marks,
    *,
    expected: int,
    criterion: Criterion,
    resolution: tuple[str, Decimal, str] | None,
    no_answer: bool = False,
) -> CellFacts:
    """What `cell_outcome` settles a cell from: its submitted marks, the jurors expected, the
    criterion's tolerance and step, and its resolution record read as the rule reads it (a
    chair's or an appeal's value, or a consensus on record)."""
    # Positional: this runs once a cell of the contest.
    if resolution is None:
        return CellFacts(
            tuple(marks), expected, criterion.tolerance, criterion.step, None, False, no_answer
        )
    kind, resolved_points = resolution[0], resolution[1]
    return CellFacts(
        tuple(marks),
        expected,
        criterion.tolerance,
        criterion.step,
        resolved_points if kind == Kind.CHAIR else None,
        kind == Kind.CONSENSUS,
        no_answer,
        resolved_points if kind == Kind.APPEAL else None,
    )


def _reason(resolution: tuple[str, Decimal, str] | None) -> str:
    # A decision gives its reason; a consensus has none to show.
    if resolution is not None and resolution[0] in (Kind.CHAIR, Kind.APPEAL):
        return resolution[2]
    return ""


def settle_cell(
    *,
    paper_id: int,
    criterion: Criterion,
    marks: list[Decimal],
    expected: int,
    resolution: tuple[str, Decimal, str] | None,
    no_answer: bool = False,
) -> Cell:
    """The cell for a list of submitted marks and the cell's resolution record, if any;
    `no_answer` when the contestant left the criterion's problem blank."""
    (cell,) = settle_point_cells([(paper_id, criterion, marks, expected, resolution, no_answer)])
    return cell


def settle_point_cells(cells) -> list[Cell]:
    """`settle_cell` of many cells, each given as (paper id, criterion, marks, jurors expected,
    resolution record, blank flag), in one pass: each different cell is asked of the rule once
    (`grading.rules.domain.cell_outcomes`)."""
    cells = list(cells)
    outcomes = cell_outcomes(
        cell_facts(
            marks, expected=expected, criterion=criterion, resolution=resolution, no_answer=blank
        )
        for _, criterion, marks, expected, resolution, blank in cells
    )
    return [
        Cell(paper_id=paper_id, criterion=criterion, outcome=outcome, reason=_reason(resolution))
        for (paper_id, criterion, _, _, resolution, _), outcome in zip(cells, outcomes, strict=True)
    ]


class CellEntry(NamedTuple):
    """One cell to settle with `settle_cells`: its paper, criterion, mark rows (as
    `Cell.mark_rows`: the points fourth), jurors expected, resolution record and blank flag."""

    paper_id: int
    criterion: Criterion
    mark_rows: list | tuple
    expected: int
    resolution: tuple[str, Decimal, str] | None
    no_answer: bool


def settle_cells(entries: list[CellEntry], *, juror_names=None) -> list[Cell]:
    """`settle_cell` of many cells in one pass (`grading.rules.domain.cell_outcomes`: each
    different cell asked of the rule once), each cell keeping its mark rows and, where given,
    the jurors' names to show them by."""
    outcomes = cell_outcomes(
        cell_facts(
            tuple([row[3] for row in entry.mark_rows]),
            expected=entry.expected,
            criterion=entry.criterion,
            resolution=entry.resolution,
            no_answer=entry.no_answer,
        )
        for entry in entries
    )
    return [
        Cell(
            entry.paper_id,
            entry.criterion,
            outcome,
            _reason(entry.resolution),
            entry.mark_rows,
            juror_names,
        )
        for entry, outcome in zip(entries, outcomes, strict=True)
    ]


def submitted_marks(contest: Contest):
    """The contest's marks that count: on submitted sheets, not blank."""
    return counted_marks().filter(
        sheet__problem__contest=contest,
        points__isnull=False,
    )


def comment_counts(**where) -> dict[tuple[int, int], int]:
    """Comments per (paper id, criterion id) among those `where` selects. One query."""
    return {
        (row["paper_id"], row["criterion_id"]): row["n"]
        for row in Comment.objects.filter(**where)
        .values("paper_id", "criterion_id")
        .annotate(n=Count("id"))
        .order_by()
    }


def fixed_points(resolution: tuple[str, Decimal, str] | None, *, no_answer: bool):
    """What every juror's total counts in a cell instead of their own mark, or None where it
    counts their mark: the chair's (or an appeal's) value once the cell is decided (whatever the
    marks say), 0 in a problem the contestant left blank. Outcomes as `cell_outcome` gives
    them (a decision wins over a blank)."""
    if resolution is not None and resolution[0] in (Kind.CHAIR, Kind.APPEAL):
        return resolution[1]
    return ZERO if no_answer else None


class JurorTotals:
    """Each juror's total per problem of one paper, from the cells' marks: the lowest and the
    highest total the paper could have, depending on whose marks are taken (the medal
    straddle's bounds)."""

    __slots__ = ("by_problem",)

    def __init__(self):
        self.by_problem: dict[int, dict[int, Decimal]] = {}

    def add(self, problem: int, mark_rows, fixed: Decimal | None) -> None:
        """Count a cell's marks (rows of (paper id, criterion id, juror id, points)) in
        `problem`, each as `fixed` where it is not None (`fixed_points`)."""
        totals = self.by_problem.setdefault(problem, {})
        for row in mark_rows:
            juror_id = row[2]
            totals[juror_id] = totals.get(juror_id, ZERO) + (row[3] if fixed is None else fixed)

    def bounds(self, scale: Decimal) -> tuple[Decimal, Decimal]:
        """(lowest, highest) total, scaled to the contest's maximum, to the cent."""
        low = sum((min(t.values()) for t in self.by_problem.values() if t), ZERO)
        high = sum((max(t.values()) for t in self.by_problem.values() if t), ZERO)
        return cent(low * scale), cent(high * scale)
