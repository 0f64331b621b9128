"""Writes that touch papers, labels, sheets and marks. Every function is atomic and raises
ValidationError with a sentence the user can act on."""

import secrets
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from grading.models import Mark, MarkEvent, PaperLabel, Sheet
from rubrics.models import Contest, Criterion, Problem
from rubrics.validators import validate_points

# No 0/O, 1/I/L, 2/Z, 5/S, 8/B: labels are read aloud in jury discussions and copied by hand.
LABEL_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
LABEL_LENGTH = 4


def _draw_label(taken: set[str]) -> str:
    while True:
        label = "".join(secrets.choice(LABEL_ALPHABET) for _ in range(LABEL_LENGTH))
        if label not in taken:
            taken.add(label)
            return label


@transaction.atomic
def paper_labels_ensure(*, contest: Contest) -> int:
    """Give every paper of the contest a fresh random label in every problem that lacks one.

    Labels are drawn independently per problem, so the same system carries unrelated labels in
    different problems. Returns the number of labels created."""
    problems = list(contest.problems.all())
    papers = list(contest.papers.all())
    existing = PaperLabel.objects.filter(problem__contest=contest)
    taken = {problem.pk: set() for problem in problems}
    has_label = set()
    for paper_id, problem_id, label in existing.values_list("paper_id", "problem_id", "label"):
        taken[problem_id].add(label)
        has_label.add((paper_id, problem_id))
    new = [
        PaperLabel(paper=paper, problem=problem, label=_draw_label(taken[problem.pk]))
        for problem in problems
        for paper in papers
        if (paper.pk, problem.pk) not in has_label
    ]
    PaperLabel.objects.bulk_create(new)
    return len(new)


@transaction.atomic
def sheet_get_or_create(*, juror, problem: Problem) -> Sheet:
    """The juror's sheet for the problem, with a blank mark for every assigned paper and
    criterion that does not have one yet."""
    sheet, _ = Sheet.objects.get_or_create(juror=juror, problem=problem)
    paper_ids = list(problem.assignments.filter(juror=juror).values_list("paper_id", flat=True))
    criteria = list(Criterion.objects.for_problem(problem))
    have = set(sheet.marks.values_list("paper_id", "criterion_id"))
    Mark.objects.bulk_create(
        Mark(sheet=sheet, paper_id=paper_id, criterion=criterion)
        for paper_id in paper_ids
        for criterion in criteria
        if (paper_id, criterion.pk) not in have
    )
    return sheet


@transaction.atomic
def mark_set(
    *,
    mark: Mark,
    points: Decimal | None,
    actor,
    channel: str,
    note: str | None = None,
    expected_version: int | None = None,
) -> Mark:
    """Change a mark's points (and optionally its note), recording a MarkEvent.

    `expected_version` is the version the writer last saw; when the mark has moved on since,
    the change is refused so that a stale page or file never silently overwrites newer work.
    Setting the same value again is a no-op and records nothing."""
    mark = (
        Mark.objects.select_for_update()
        .select_related("criterion__problem__contest", "paper")
        .get(pk=mark.pk)
    )
    contest = mark.criterion.problem.contest
    if contest.is_final:
        # Finalized results are the record; no channel (sheet, upload, chair) may move them.
        raise ValidationError(f"{contest.name} is final: its marks are read-only.")
    if expected_version is not None and expected_version != mark.version:
        last = mark.events.order_by("-version").first()
        when = timezone.localtime(last.created_at).strftime("%Y-%m-%d %H:%M") if last else "earlier"
        raise ValidationError(
            f"This mark was changed to {_shown(mark.points)} at {when} since you loaded it; "
            "reload to see the current value before changing it."
        )
    validate_points(points, mark.criterion)
    new_note = mark.note if note is None else note.strip()
    if points == mark.points and new_note == mark.note:
        return mark
    event = MarkEvent(
        mark=mark,
        actor=actor,
        channel=channel,
        old_points=mark.points,
        new_points=points,
        old_note=mark.note,
        new_note=new_note,
        version=mark.version + 1,
    )
    mark.points = points
    mark.note = new_note
    mark.version += 1
    mark.save(update_fields=["points", "note", "version", "updated_at"])
    event.save()
    return mark


def _shown(points: Decimal | None) -> str:
    return "blank" if points is None else format(points.normalize(), "f")
