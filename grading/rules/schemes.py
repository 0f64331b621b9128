"""A problem's scheme under marks, in one place: whether marks exist that a change of the scheme
would have to respect (then it changes only as a new version, `grading.schemes`), which of a
criterion's fields reopen the marks given under it, and the sentence that says marks of
different versions meet. The admin, the scheme loader and the amendment all ask here."""

from collections.abc import Iterable

from django.db.models import Exists, OuterRef

from grading.models import CalibrationMark, Mark, ReferenceMark
from rubrics.models import Criterion, Problem

# The fields a change of which makes the marks given under them mean something else: they
# reopen those marks for their jurors. The others (wording) apply at once.
MARKED_FIELDS = ("points", "step", "tolerance")
WORDING_FIELDS = ("title", "guidance")
AMENDABLE_FIELDS = WORDING_FIELDS + MARKED_FIELDS


def criteria_under_marks(criteria) -> set[int]:
    """The ids of the criteria (a queryset) with marks given under them: a live mark with
    points, a calibration mark with points, or a reference mark with points. One query."""
    marked = criteria.filter(
        Exists(Mark.objects.filter(criterion=OuterRef("pk"), points__isnull=False))
        | Exists(CalibrationMark.objects.filter(criterion=OuterRef("pk"), points__isnull=False))
        | Exists(ReferenceMark.objects.filter(criterion=OuterRef("pk"), points__isnull=False))
    )
    return set(marked.values_list("pk", flat=True))


def scheme_under_marks(problem: Problem) -> bool:
    """Whether any criterion of the problem has marks given under it: its scheme then changes
    only as a new version, from the problem's "Amend the scheme" page. One query."""
    return bool(criteria_under_marks(Criterion.objects.filter(problem=problem)))


def versions_met(versions: Iterable[int]) -> str:
    """The sentence for marks of different scheme versions meeting in one cell or one paper's
    problem ("marks given under scheme versions 1 and 2"), or "" when they are all of one."""
    numbers = sorted(set(versions))
    if len(numbers) < 2:
        return ""
    shown = ", ".join(str(n) for n in numbers[:-1]) + f" and {numbers[-1]}"
    return f"marks given under scheme versions {shown}"
