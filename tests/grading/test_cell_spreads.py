"""The kept range of each cell's submitted marks (`CellSpread`) always equals the range
recomputed from the marks: after each service that can change it, after a restore, after the
demo, after the data migration, and after any sequence of saves, submissions and revisions."""

from decimal import Decimal

import pytest
from django.apps import apps
from django.db.models import Count, Max, Min
from hypothesis import given
from hypothesis import strategies as st

from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.models import CellSpread, Mark, Paper, PaperLabel, Sheet
from grading.selectors.comparison import contest_discrepancies
from grading.selectors.sheet import sheet_grid
from grading.services.cell_spreads import cell_spreads_rebuild
from grading.services.marks import mark_set
from grading.services.resolution import contest_resolution_open, mark_revise
from grading.services.sheet import sheet_submit
from rubrics.models import Contest, Criterion
from tests import factories
from tests.fuzz import fuzz_settings, rolled_back

D = Decimal


def recomputed() -> dict[tuple[int, int], tuple[Decimal, Decimal, int]]:
    rows = (
        Mark.objects.filter(sheet__state=Sheet.State.SUBMITTED, points__isnull=False)
        .values("paper_id", "criterion_id")
        .annotate(lo=Min("points"), hi=Max("points"), n=Count("id"))
        .order_by()
    )
    return {(r["paper_id"], r["criterion_id"]): (r["lo"], r["hi"], r["n"]) for r in rows}


def kept() -> dict[tuple[int, int], tuple[Decimal, Decimal, int]]:
    return {(s.paper_id, s.criterion_id): (s.lo, s.hi, s.marks) for s in CellSpread.objects.all()}


@pytest.fixture
def jurors(db):
    return [factories.make_user(name, "juror") for name in ("alice", "bob", "dan")]


@pytest.fixture
def contest(jurors):
    contest = factories.make_contest(problems=1, papers=3)
    factories.assign(contest, jurors)
    return contest


@pytest.fixture
def chair(db):
    return factories.make_user("chair", "chair")


def _marks(juror) -> list[Mark]:
    return list(
        Mark.objects.filter(sheet__juror=juror)
        .select_related("criterion")
        .order_by("paper_id", "criterion__order")
    )


def _fill(juror, values: list[str]) -> None:
    for mark, value in zip(_marks(juror), values, strict=True):
        mark_set(mark=mark, points=D(value), actor=juror, channel="browser")


def _submit(juror) -> None:
    sheet_submit(sheet=Sheet.objects.get(juror=juror), blanks=[], actor=juror)


def test_draft_marks_count_nowhere_and_each_submission_adds_its_marks(contest, jurors):
    alice, bob, _ = jurors
    _fill(alice, ["4", "2", "6", "2", "8", "0"])
    _fill(bob, ["4", "2", "6", "3", "9", "0"])
    assert kept() == {}
    _submit(alice)
    assert kept() == recomputed()
    assert {n for _, _, n in kept().values()} == {1}
    _submit(bob)
    assert kept() == recomputed()
    assert sorted((lo, hi) for lo, hi, _ in kept().values() if hi > lo) == [
        (D("2"), D("3")),
        (D("8"), D("9")),
    ]
    assert len(contest_discrepancies(contest)) == 2


def test_revisions_in_the_resolution_phase_move_the_range_and_close_the_discrepancy(
    contest, jurors, chair
):
    alice, bob, dan = jurors
    for juror in jurors:
        _fill(juror, ["4", "2", "6", "2", "8", "0"])
    _fill(bob, ["4", "2", "6", "2", "12", "0"])
    for juror in jurors:
        _submit(juror)
    assert len(contest_discrepancies(contest)) == 1
    contest_resolution_open(contest=contest, actor=chair)
    bobs = _marks(bob)[4]
    mark_revise(mark=bobs, points=D("8"), actor=bob, expected_version=bobs.version)
    assert kept() == recomputed()
    assert contest_discrepancies(contest) == []


def test_saves_through_the_page_leave_ranges_for_drafts_and_move_them_for_revisions(
    client, contest, jurors, chair
):
    alice, bob, _ = jurors
    _fill(alice, ["4", "2", "6", "2", "8", "0"])
    _submit(alice)
    before = kept()
    label = PaperLabel.objects.filter(problem__contest=contest).order_by("label").first()
    url = f"/contests/{contest.slug}/p1/sheet/cells/{label.label}/A1/"
    client.force_login(bob)
    assert client.post(url, {"points": "12", "version": 0}).status_code == 200
    assert kept() == before == recomputed()

    contest_resolution_open(contest=contest, actor=chair)
    client.force_login(alice)
    version = Mark.objects.get(sheet__juror=alice, paper=label.paper, criterion__code="A1").version
    assert client.post(url, {"points": "10", "version": version}).status_code == 200
    assert kept() != before
    assert kept() == recomputed()
    assert kept()[(label.paper_id, label.problem.criteria.get(code="A1").pk)] == (
        D("10"),
        D("10"),
        1,
    )


def test_a_restore_and_the_data_migration_rebuild_the_same_ranges(contest, jurors):
    alice, bob, dan = jurors
    _fill(alice, ["4", "2", "6", "2", "8", "0"])
    _fill(bob, ["4", "2", "6", "3", "9", "0"])
    _fill(dan, ["5", "2", "6", "3", "9", "1"])
    for juror in jurors:
        _submit(juror)
    expected = _by_identity(kept())
    assert len(expected) == 6  # three papers × two criteria, all submitted

    # The migration's own fill, on the current models (its historical ones have the same shape).
    from importlib import import_module

    fill = import_module("grading.migrations.0005_cell_spread").fill_cell_spreads
    CellSpread.objects.all().delete()
    fill(apps, None)
    assert kept() == recomputed()

    document = contest_export(contest=contest)
    Contest.objects.all().delete()
    assert CellSpread.objects.count() == 0
    contest_import(document=document)
    assert kept() == recomputed()
    assert _by_identity(kept()) == expected


def _by_identity(spreads):
    papers = Paper.objects.in_bulk()
    criteria = Criterion.objects.in_bulk()
    return {
        (papers[paper_id].identity, criteria[criterion_id].code): values
        for (paper_id, criterion_id), values in spreads.items()
    }


def test_rebuild_writes_the_same_rows_again_and_drops_cells_without_submitted_marks(
    contest, jurors
):
    alice = jurors[0]
    _fill(alice, ["4", "2", "6", "2", "8", "0"])
    _submit(alice)
    first = kept()
    cell_spreads_rebuild(contest=contest)
    assert kept() == first
    Sheet.objects.filter(juror=alice).update(state=Sheet.State.DRAFT)
    cell_spreads_rebuild(contest=contest)
    assert kept() == {} == recomputed()


# ---- any sequence of writes -------------------------------------------------------------------

FILLED = (["4", "2", "6", "2", "8", "0"], ["4", "2", "6", "3", "9", "0"], ["5"] * 6)
VALUES = st.sampled_from(["0", "1", "2", "4", "6", "8", None])
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("set"), st.integers(0, 2), st.integers(0, 5), VALUES),
        st.tuples(st.just("submit"), st.integers(0, 2)),
        st.tuples(st.just("resolution")),
        st.tuples(st.just("revise"), st.integers(0, 2), st.integers(0, 5), VALUES),
    ),
    max_size=14,
)


@fuzz_settings(max_examples=40)
@given(steps=STEPS)
def test_any_sequence_of_saves_submissions_and_revisions_keeps_the_ranges_exact(
    contest, jurors, chair, steps
):
    with rolled_back():
        # Every sheet filled, still drafts: any submit step can then succeed.
        for juror, values in zip(jurors, FILLED, strict=True):
            _fill(juror, values)
        contest.refresh_from_db()
        for step in steps:
            _apply(step, contest, jurors, chair)
            assert kept() == recomputed(), step
        discrepancies = {(p, c) for p, c, _, _ in contest_discrepancies(contest)}
        assert discrepancies == {cell for cell, (lo, hi, _) in recomputed().items() if hi - lo > 0}


def _apply(step, contest, jurors, chair) -> None:
    from django.core.exceptions import ValidationError

    kind, *args = step
    try:
        if kind == "set":
            juror, index, value = jurors[args[0]], args[1], args[2]
            mark = _marks(juror)[index]
            points = None if value is None else D(value)
            mark_set(mark=mark, points=points, actor=juror, channel="browser")
        elif kind == "submit":
            juror = jurors[args[0]]
            sheet = Sheet.objects.get(juror=juror)
            sheet_submit(sheet=sheet, blanks=sheet_grid(sheet=sheet).blanks, actor=juror)
        elif kind == "resolution":
            contest_resolution_open(contest=contest, actor=chair)
        else:
            juror, index, value = jurors[args[0]], args[1], args[2]
            mark = _marks(juror)[index]
            points = None if value is None else D(value)
            mark_revise(mark=mark, points=points, actor=juror)
    except ValidationError:
        pass  # a refused step writes nothing; the ranges must still hold
