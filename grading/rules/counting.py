"""The marks that count: one home for every read that settles, compares, totals or analyses
cells, and for every write that asks whether a mark counts.

A mark counts when its juror's sheet is submitted, the paper is still assigned to the juror
and the mark is not waiting to be re-confirmed (`MarkQuerySet.submitted`), and its juror is
not conflicted with the paper, or the chair kept the marks given before the conflict came to
light (`grading.rules.conflicts.held_marks`)."""

from grading.models import Mark
from grading.rules import conflicts


def counted_marks():
    """The marks that count, as a queryset to filter further. Two queries to build (the
    jurors' and delegations' countries); none of its own until read."""
    return Mark.objects.submitted().exclude(conflicts.held_marks())
