"""A problem's scheme under marks, in one place: whether marks exist that a change of the scheme
would have to respect (then it changes only as a new version, `grading.schemes`), which of a
criterion's fields reopen the marks given under it, what the juror of a reopened mark does
with it, and the sentence that says marks of different versions meet. The admin, the scheme
loader, the amendment, the sheets and the results all ask here."""

from collections.abc import Iterable

from django.db.models import Exists, OuterRef

from grading.models import CalibrationMark, Mark, ReferenceMark
from grading.rules.domain import points_text
from rubrics.models import Criterion, Problem
from rubrics.validators import points_refusal

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


def problem_versions_met(cells: Iterable[Iterable[int]]) -> str:
    """The sentence for one paper's problem, given each of its cells' scheme versions: the
    versions that meet in some cell, or "" when none do. Cells of one version each never
    make it, whatever their versions: a criterion an amendment left alone keeps the marks
    given under version 1 while the one it changed holds those re-confirmed under version 3."""
    met: set[int] = set()
    for versions in cells:
        numbers = set(versions)
        if len(numbers) > 1:
            met |= numbers
    return versions_met(met)


def reopened_todo(points, criterion) -> str:
    """What the juror of a mark an amendment reopened must do with it, in one sentence: its
    points, if the amended criterion still takes them, are re-confirmed with Enter; if not
    (above the new maximum, off the new step), Enter cannot re-confirm them (the save refuses
    them) and the juror types new points."""
    refusal = points_refusal(points, criterion)
    if refusal:
        return f"{refusal}, so Enter cannot re-confirm it: type new points."
    return f"Press Enter to re-confirm {points_text(points)}, or type new points."


def reopened_sentence(*, version: int, reason: str, points, criterion) -> str:
    """A reopened cell's words, in the juror's live or calibration sheet: which version
    reopened it, why, and what to do (`reopened_todo`)."""
    reason = reason.strip()
    if reason and reason[-1] not in ".!?":
        reason += "."
    return f"Reopened by scheme version {version}: {reason} {reopened_todo(points, criterion)}"
