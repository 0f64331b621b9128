"""Settling many cells in one pass (`grading.rules.domain.cell_outcomes`, and
`grading.resolution.cells.settle_cells` on top of it) gives each cell exactly what the rule gives
it alone (`cell_outcome`, `settle_cell`): the same status, points and bounds, to the digit, for
any marks, tolerances, steps, blanks, chair's decisions, consensus and appeals, however often
the same cell comes again."""

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from grading.models import Resolution
from grading.resolution.cells import CellEntry, settle_cell, settle_cells
from grading.rules.domain import CENT, CellFacts, cell_outcome, cell_outcomes
from rubrics.models import Criterion

D = Decimal
Kind = Resolution.Kind

steps = st.sampled_from([D("0.25"), D("0.5"), D("1"), D("2")])


@st.composite
def criteria(draw):
    """A criterion's step and tolerance, and a mark on its step (to the cent, as the database
    gives it) drawn from its points."""
    step = draw(steps)
    top = draw(st.integers(min_value=1, max_value=12))
    tolerance = (step * draw(st.integers(min_value=0, max_value=3))).quantize(CENT)
    mark = st.integers(min_value=0, max_value=top).map(lambda k: (k * step).quantize(CENT))
    return step.quantize(CENT), tolerance, mark


@st.composite
def cell_lists(draw):
    """Cells of a few criteria, with marks from few values so that cells repeat, as they do in
    a contest, and every kind of record."""
    kinds = draw(st.lists(criteria(), min_size=1, max_size=3))
    cells = []
    for _ in range(draw(st.integers(min_value=1, max_value=40))):
        step, tolerance, mark = draw(st.sampled_from(kinds))
        marks = tuple(draw(st.lists(mark, max_size=4)))
        expected = draw(st.integers(min_value=0, max_value=len(marks) + 2))
        record = draw(st.sampled_from(["", Kind.CHAIR, Kind.CONSENSUS, Kind.APPEAL]))
        decided = draw(mark)
        cells.append(
            CellFacts(
                marks,
                expected,
                tolerance,
                step,
                chair_points=decided if record == Kind.CHAIR else None,
                consensus=record == Kind.CONSENSUS,
                no_answer=draw(st.booleans()),
                appeal_points=decided if record == Kind.APPEAL else None,
            )
        )
    return cells


def _alone(facts: CellFacts):
    return cell_outcome(
        list(facts.marks),
        expected=facts.expected,
        tolerance=facts.tolerance,
        step=facts.step,
        chair_points=facts.chair_points,
        consensus=facts.consensus,
        no_answer=facts.no_answer,
        appeal_points=facts.appeal_points,
    )


def _digits(outcome) -> tuple:
    # Equal Decimals may still be written differently (2.5, 2.50): compare the writing too.
    return (outcome.status, str(outcome.points), str(outcome.lo), str(outcome.hi), outcome.n)


@given(cell_lists())
def test_settling_cells_together_gives_each_the_outcome_it_has_alone(cells):
    together = cell_outcomes(cells)
    alone = [_alone(facts) for facts in cells]
    assert together == alone
    assert [_digits(o) for o in together] == [_digits(o) for o in alone]


def test_a_cell_that_comes_again_is_asked_of_the_rule_once(monkeypatch):
    from grading.rules import domain

    asked = []
    real = domain.cell_outcome

    def counting(*args, **kwargs):
        asked.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(domain, "cell_outcome", counting)
    agreed = CellFacts((D("2.50"), D("2.50")), 2, D("0"), D("0.5"))
    open_cell = CellFacts((D("1.00"), D("3.00")), 2, D("0"), D("0.5"))
    outcomes = domain.cell_outcomes([agreed, open_cell, agreed, agreed, open_cell])
    assert len(asked) == 2
    assert outcomes == [real(list(f.marks), expected=2, tolerance=D("0"), step=D("0.5"))
                        for f in (agreed, open_cell, agreed, agreed, open_cell)]  # fmt: skip


@given(cell_lists())
def test_settle_cells_gives_each_cell_what_settle_cell_gives_it(cells):
    criteria_by_kind = {}
    entries = []
    for index, facts in enumerate(cells):
        # Unsaved criteria: the rule reads only their tolerance and step.
        criterion = criteria_by_kind.setdefault(
            (facts.tolerance, facts.step),
            Criterion(code=f"T{index}", tolerance=facts.tolerance, step=facts.step),
        )
        if facts.appeal_points is not None:
            resolution = (Kind.APPEAL, facts.appeal_points, "Upheld.")
        elif facts.chair_points is not None:
            resolution = (Kind.CHAIR, facts.chair_points, "Rule 2 is stated.")
        elif facts.consensus:
            resolution = (Kind.CONSENSUS, None, "")
        else:
            resolution = None
        rows = [(index, 0, juror, points, 1) for juror, points in enumerate(facts.marks)]
        entries.append(
            CellEntry(index, criterion, rows, facts.expected, resolution, facts.no_answer)
        )
    together = settle_cells(entries, juror_names={0: "ana"})
    for entry, cell in zip(entries, together, strict=True):
        alone = settle_cell(
            paper_id=entry.paper_id,
            criterion=entry.criterion,
            marks=[row[3] for row in entry.mark_rows],
            expected=entry.expected,
            resolution=entry.resolution,
            no_answer=entry.no_answer,
        )
        assert (cell.paper_id, cell.criterion, cell.outcome, cell.reason) == (
            alone.paper_id,
            alone.criterion,
            alone.outcome,
            alone.reason,
        )
        assert _digits(cell.outcome) == _digits(alone.outcome)
        assert (cell.mark_rows, cell.juror_names) == (entry.mark_rows, {0: "ana"})
