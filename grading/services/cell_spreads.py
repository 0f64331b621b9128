"""Keeping `CellSpread`, the range of each cell's submitted marks, in step with the marks.

Every write that can change a cell's submitted marks calls one of these inside its transaction:
`mark_set` for a mark on a submitted sheet, `sheet_submit` and the admin's sheet form for the
sheet's cells, and the bulk writers (restore, demo) `cell_spreads_rebuild` for a whole contest.
Deleting a paper or a contest deletes its ranges with it; graded marks cannot be deleted alone.
Each recomputes the range from the marks themselves rather than adjusting it, so a refresh can
never drift: running one twice, or on a cell that did not change, writes the same rows."""

from django.db.models import Count, Max, Min, Q

from grading.models import CellSpread, Mark, Sheet
from rubrics.models import Contest


def cell_spread_refresh(*, paper_id: int, criterion_id: int) -> None:
    """One cell, after a submitted mark in it changed."""
    cell_spreads_refresh(paper_ids=[paper_id], criterion_ids=[criterion_id])


def cell_spreads_refresh_sheet(*, sheet: Sheet) -> None:
    """Every cell of a sheet, after it was submitted or reopened."""
    cells = Mark.objects.filter(sheet=sheet)
    cell_spreads_refresh(
        paper_ids=cells.values("paper_id"), criterion_ids=cells.values("criterion_id")
    )


def cell_spreads_refresh(*, paper_ids, criterion_ids) -> None:
    """Every cell of the given papers and criteria (ids, or a queryset of them). Recomputing a
    cell that did not change rewrites the same row, so a superset of the changed cells is
    always a safe argument."""
    cells = Q(paper_id__in=paper_ids, criterion_id__in=criterion_ids)
    _refresh(marks=cells, spreads=cells)


def cell_spreads_rebuild(*, contest: Contest) -> None:
    """Every cell of the contest, after marks or sheets were written in bulk."""
    _refresh(
        marks=Q(criterion__problem__contest=contest),
        spreads=Q(criterion__problem__contest=contest),
    )


def _refresh(*, marks: Q, spreads: Q) -> None:
    ranges = (
        Mark.objects.filter(marks, sheet__state=Sheet.State.SUBMITTED, points__isnull=False)
        .values("paper_id", "criterion_id")
        .annotate(lo=Min("points"), hi=Max("points"), n=Count("id"))
        .order_by()
    )
    current = [
        CellSpread(
            paper_id=row["paper_id"],
            criterion_id=row["criterion_id"],
            lo=row["lo"],
            hi=row["hi"],
            marks=row["n"],
        )
        for row in ranges
    ]
    # Rows in one order for every writer: two sheets of a problem submitted at once upsert the
    # same cells, and PostgreSQL would deadlock two transactions locking them in other orders.
    current.sort(key=lambda spread: (spread.paper_id, spread.criterion_id))
    kept = {(spread.paper_id, spread.criterion_id) for spread in current}
    stale = [
        pk
        for pk, paper_id, criterion_id in CellSpread.objects.filter(spreads).values_list(
            "pk", "paper_id", "criterion_id"
        )
        if (paper_id, criterion_id) not in kept
    ]
    if stale:
        CellSpread.objects.filter(pk__in=sorted(stale)).delete()
    CellSpread.objects.bulk_create(
        current,
        batch_size=2000,
        update_conflicts=True,
        unique_fields=["paper", "criterion"],
        update_fields=["lo", "hi", "marks"],
    )
