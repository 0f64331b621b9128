"""Finishing the demo's grading, so that anyone can rehearse the chair's part (the queue,
deciding discrepancies, finalizing) in the browser without grading thirty sheets cells first."""

from decimal import Decimal
from io import StringIO

from django.db import transaction

from grading.demo.loader import (
    GROUPS,
    HUMAN_P1_MARKS,
    HUMAN_P2_MARKS,
    P1_CODES,
    P1_MARKS,
    P2_CODES,
    P2_MARKS,
    SLUG,
    demo_load,
)
from grading.demo.scans import HUMANS
from grading.marking.marks import mark_set
from grading.marking.sheets import sheet_submit
from grading.models import Mark, MarkEvent, Sheet
from grading.resolution.comparison import contest_results
from grading.rules.domain import floor_to_step
from rubrics.models import Contest

# How good each system's answers are, as a share of the points, so that the invented marks of
# P3–P5 follow the same ranking as the hand-written marks of P1 and P2.
QUALITY = {
    "Team Aurora": Decimal("0.92"),
    "Team Basalt": Decimal("0.74"),
    "Team Cinder": Decimal("0.52"),
    "Team Drift": Decimal("0.38"),
    "Team Ember": Decimal("0.85"),
    "Team Fjord": Decimal("0.12"),
    # The human contestants, by code, as good as their written answers (grading.demo.scans).
    **{code: Decimal(str(quality)) for code, quality in HUMANS.items()},
}
# A system is not equally good at every criterion: a small swing by criterion and system keeps
# the sheets from looking machine-made.
SWING = (Decimal("-0.15"), Decimal("0"), Decimal("0.1"))

# Planted disagreements: (problem, system, criterion code) → how many steps the other jurors
# of the group differ from the first juror. P3 A2 has a tolerance of half a point, so the two
# one-step plants there are agreed (their mean, rounded down) and only the other eight open.
# Team Basalt's open cells (P4 A1 above all) leave its total between 66 and 72.5, across the
# gold cut-off of 70, until the chair decides them.
PLANTS = {
    (2, "Team Basalt", "T1"): -2,
    (2, "Team Drift", "A2"): 2,
    (3, "Team Aurora", "A2"): -1,
    (3, "Team Cinder", "A2"): 1,
    (3, "Team Ember", "T1"): -2,
    (3, "Team Fjord", "A1"): 2,
    (4, "Team Basalt", "A1"): 4,
    (4, "Team Ember", "T2"): -2,
    (5, "Team Aurora", "T1"): -2,
    (5, "Team Drift", "A1"): 3,
}
HAND_MARKS = {
    1: (P1_CODES, {**P1_MARKS, **HUMAN_P1_MARKS}),
    2: (P2_CODES, {**P2_MARKS, **HUMAN_P2_MARKS}),
}


def base_points(problem_number: int, system: str, criterion, index: int) -> Decimal:
    """What the first juror of the group gives: the loader's marks where it has them,
    otherwise the system's quality share of the points, rounded down to the step."""
    codes, marks = HAND_MARKS.get(problem_number, ((), {}))
    if system in marks and criterion.code in codes:
        return Decimal(marks[system][codes.index(criterion.code)])
    systems = list(QUALITY)
    share = QUALITY.get(system, Decimal("0.5")) + SWING[(index + systems.index(system)) % 3]
    share = min(max(share, Decimal("0")), Decimal("1"))
    return floor_to_step(criterion.points * share, criterion.step)


def _planted(problem_number: int, system: str, criterion, base: Decimal) -> Decimal:
    steps = PLANTS.get((problem_number, system, criterion.code), 0)
    value = base + steps * criterion.step
    if value < 0 or value > criterion.points:
        # Near the ends of the scale the other juror errs the other way.
        value = base - steps * criterion.step
    return min(max(value, Decimal("0")), criterion.points)


@transaction.atomic
def demo_finish_grading(*, stdout=None) -> dict:
    """Every juror of the demo fills every blank cell of every sheet and submits it.

    Loads the demo first when it is absent. The first juror of each group gives the base marks;
    the others agree except on the cells in PLANTS. Sheets already submitted are left alone, so
    a second run changes nothing. Returns `sheets_submitted` and `marks_entered` (by this run),
    `already_done` (True when every sheet was submitted before) and `open_discrepancies`."""
    out = stdout if stdout is not None else StringIO()
    contest = Contest.objects.filter(slug=SLUG).first()
    if not (contest and contest.papers.exists()):
        demo_load(stdout=out, verbosity=0)
        contest = Contest.objects.get(slug=SLUG)
    sheets = list(
        Sheet.objects.filter(problem__contest=contest)
        .exclude(state=Sheet.State.SUBMITTED)
        .select_related("problem", "juror")
        .order_by("problem__number", "pk")
    )
    marks_entered = 0
    for sheet in sheets:
        number = sheet.problem.number
        first = sheet.juror.username == GROUPS[number][0]
        criteria = list(sheet.problem.criteria.order_by("order", "pk"))
        index = {criterion.pk: i for i, criterion in enumerate(criteria)}
        blanks = Mark.objects.filter(sheet=sheet, points__isnull=True).select_related(
            "criterion", "paper"
        )
        for mark in blanks:
            system = mark.paper.identity
            base = base_points(number, system, mark.criterion, index[mark.criterion_id])
            value = base if first else _planted(number, system, mark.criterion, base)
            mark_set(mark=mark, points=value, actor=sheet.juror, channel=MarkEvent.Channel.IMPORT)
            marks_entered += 1
        sheet_submit(sheet=sheet, actor=sheet.juror)
    return {
        "sheets_submitted": len(sheets),
        "marks_entered": marks_entered,
        "already_done": not sheets,
        "open_discrepancies": len(contest_results(contest).open_cells),
    }
