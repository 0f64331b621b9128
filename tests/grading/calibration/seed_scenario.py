"""A seeded problem for the seeds' tests: contest "seeded", problem 1 (A1 of 12 points, T1 of
8), four papers; alice and bob grade the first three; the fourth is the calibration paper K1,
kept out of the round for seeding (no juror saw it there: seeds are drawn from such papers
only), with the chair's reference marks A1 = 10 and T1 = 6, of a seeded round whose grading is
open; `spare` papers more that nobody grades live, for a test's later calibration papers (a
juror who grades a paper live gets no seed of it). Built with the ORM, not through the round's
own services."""

from decimal import Decimal

from grading.calibration.seeds import seeds_draw
from grading.marking.sheets import sheet_get_or_create
from grading.models import (
    Assignment,
    CalibrationPaper,
    CalibrationRound,
    GradingGroup,
    Paper,
    ReferenceMark,
)
from grading.rules import roles
from tests.factories import make_contest, make_user

REFERENCE = {"A1": Decimal("10"), "T1": Decimal("6")}


def build(
    *,
    jurors=("alice", "bob"),
    papers: int = 4,
    spare: int = 0,
    draw: bool = True,
    slug: str = "seeded",
) -> dict:
    contest = make_contest(slug, problems=1, papers=papers + spare)
    problem = contest.problems.get()
    suffix = "" if slug == "seeded" else f"-{slug}"
    chair = make_user(f"chen{suffix}", roles.CHAIR)
    users = [make_user(f"{name}{suffix}", roles.JUROR) for name in jurors]
    live = list(Paper.objects.filter(contest=contest).order_by("pk"))
    live, spares = live[:papers], live[papers:]
    calibration = live.pop()
    group = GradingGroup.objects.create(problem=problem)
    group.jurors.add(*users)
    Assignment.objects.bulk_create(
        Assignment(paper=paper, problem=problem, juror=juror) for paper in live for juror in users
    )
    for juror in users:
        sheet_get_or_create(juror=juror, problem=problem)
    round = CalibrationRound.objects.create(
        problem=problem, seeded=True, state=CalibrationRound.State.CLOSED, created_by=chair
    )
    k1 = CalibrationPaper.objects.create(
        round=round, paper=calibration, label="K1", for_seeding=True
    )
    for criterion in problem.criteria.all():
        ReferenceMark.objects.create(
            calibration_paper=k1, criterion=criterion, points=REFERENCE[criterion.code]
        )
    if draw:
        seeds_draw(round)
    return {
        "contest": contest,
        "problem": problem,
        "chair": chair,
        "jurors": users,
        "round": round,
        "k1": k1,
        "calibration_paper": calibration,
        "live": live,
        "spare": spares,
    }
