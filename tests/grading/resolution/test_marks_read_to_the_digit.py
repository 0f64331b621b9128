"""`contest_grading.marks_by_cell` reads each mark's points as whole cents and makes them the
field's `Decimal` once per value: what it gives is what Django's own read of the field gives, to
the digit (2.50, not 2.5), on SQLite and PostgreSQL alike."""

from decimal import Decimal
from itertools import cycle

from grading.models import Mark, Sheet
from grading.resolution.cells import submitted_marks
from grading.resolution.contest_grading import marks_by_cell
from grading.rules import roles
from tests.factories import assign, make_contest, make_user

D = Decimal
# Points a float does not hold exactly among them (0.29, 7.99), 0, whole points and quarters.
POINTS = [D(text) for text in ("0", "0.25", "0.29", "1.5", "7.99", "8", "0.01", "3.75", "6.1")]


def test_marks_are_read_as_djangos_own_read_writes_them(db):
    contest = make_contest("reads", problems=2, papers=5)
    assign(contest, [make_user("ana", roles.JUROR), make_user("ben", roles.JUROR)])
    marks = list(Mark.objects.filter(sheet__problem__contest=contest).order_by("pk"))
    for mark, points in zip(marks, cycle(POINTS), strict=False):
        mark.points = points
    Mark.objects.bulk_update(marks, ["points"])
    Sheet.objects.filter(problem__contest=contest).update(state=Sheet.State.SUBMITTED)

    read = marks_by_cell(submitted_marks(contest))

    rows = sorted(row for cells in read.values() for cell in cells.values() for row in cell)
    django = sorted(
        submitted_marks(contest).values_list(
            "paper_id", "criterion_id", "sheet__juror_id", "points", "scheme_version"
        )
    )
    assert len(rows) == len(marks) == 2 * 5 * 2 * 2
    assert [(*row[:3], str(row[3]), row[4]) for row in rows] == [
        (*row[:3], str(row[3]), row[4]) for row in django
    ]
    assert {str(row[3]) for row in rows} == {str(p.quantize(D("0.01"))) for p in POINTS}
