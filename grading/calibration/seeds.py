"""Seeded checks: when a seeded round's grading opens, each paper the chair kept out of the
round for seeding comes in the live sheet of each juror of the group under a fresh label, a
`Seed`. The juror grades it like any other row; its marks are `CalibrationMark`s and never
count (grading.marking.seed_cells writes them, the chair's seeds page and each juror's
calibration read them). A paper graded in the round is never drawn: its juror graded it there
under its calibration label, and its answers would give the seed away."""

from django.db import transaction

from grading.intake.labels import draw_label
from grading.models import (
    Assignment,
    CalibrationMark,
    CalibrationPaper,
    CalibrationRound,
    PaperLabel,
    Seed,
)
from grading.rules import roles
from grading.rules.phase import refuse_if_final_now
from rubrics.models import Criterion


@transaction.atomic
def seeds_draw(round: CalibrationRound) -> int:
    """Give each juror of the problem's group who has live papers assigned in it a seed of every
    paper of the round (a seeded one) kept out of it for seeding that they do not grade live,
    each under a fresh label unique among the problem's paper labels and the other seeds, with
    a blank mark per criterion, as a sheet's papers get (so that its row is the same as
    theirs). Never one of the papers graded in the round: every juror of the group saw those
    there. A juror who grades the paper itself gets no seed of it: two rows with the same
    answers in one sheet would tell the seed at a glance. A round that keeps no paper for
    seeding draws none. Idempotent: what exists is kept. Returns the number of seeds made.
    Nine queries whatever the size of the group."""
    if not round.seeded:
        return 0
    problem = round.problem
    refuse_if_final_now(problem.contest, what="its seeded checks")
    papers = dict(
        CalibrationPaper.objects.filter(round=round)
        .kept_for_seeding()
        .values_list("pk", "paper_id")
    )
    graded_live = set(
        Assignment.objects.filter(problem=problem, paper_id__in=papers.values()).values_list(
            "juror_id", "paper_id"
        )
    )
    jurors = list(
        Assignment.objects.filter(
            problem=problem,
            juror__groups__name=roles.JUROR,
            juror__grading_groups__problem=problem,
        )
        .values_list("juror_id", flat=True)
        .distinct()
        .order_by("juror_id")
    )
    taken = set(PaperLabel.objects.filter(problem=problem).values_list("label", flat=True))
    have = set()
    for paper_id, juror_id, label in Seed.objects.filter(
        calibration_paper__round__problem=problem
    ).values_list("calibration_paper_id", "juror_id", "label"):
        taken.add(label)
        have.add((paper_id, juror_id))
    new = Seed.objects.bulk_create(
        Seed(calibration_paper_id=paper_id, juror_id=juror_id, label=draw_label(taken))
        for juror_id in jurors
        for paper_id, live_paper_id in papers.items()
        if (paper_id, juror_id) not in have and (juror_id, live_paper_id) not in graded_live
    )
    _blank_marks(round)
    return len(new)


def _blank_marks(round: CalibrationRound) -> None:
    """A blank mark for every seed of the round and criterion that lacks one."""
    criteria = list(Criterion.objects.for_problem(round.problem).values_list("pk", flat=True))
    seeds = list(
        Seed.objects.filter(calibration_paper__round=round).values_list(
            "pk", "calibration_paper_id"
        )
    )
    have = set(
        CalibrationMark.objects.filter(seed__calibration_paper__round=round).values_list(
            "seed_id", "criterion_id"
        )
    )
    CalibrationMark.objects.bulk_create(
        CalibrationMark(seed_id=seed_id, calibration_paper_id=paper_id, criterion_id=criterion_id)
        for seed_id, paper_id in seeds
        for criterion_id in criteria
        if (seed_id, criterion_id) not in have
    )
