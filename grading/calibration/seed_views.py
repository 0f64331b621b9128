"""The calibration pages of live grading: the chair's seeds page (each juror's deviation from
the reference on seeds), the group's calibration (one row per juror) and a juror's own
("My calibration"), each behind its rule in `grading.rules.access`."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET

from grading.calibration.seed_selectors import (
    STRIP_HEIGHT,
    papers_kept_for_seeding,
    problem_seeds,
)
from grading.calibration.selectors import problem_round
from grading.calibration.severity import problem_calibration
from grading.rules import access
from rubrics.models import Problem


def _problem(contest: str, problem: int) -> Problem:
    return get_object_or_404(
        Problem.objects.select_related("contest"), contest__slug=contest, number=problem
    )


def _chairs_problem(request, contest: str, problem: int) -> Problem:
    """The problem, for those who read every juror's figures; 404 for everyone else."""
    if not access.may_read_group_calibration(request.user):
        raise Http404("No such page.")
    return _problem(contest, problem)


@login_required
@require_GET
def seeds_page(request, contest: str, problem: int):
    problem_obj = _chairs_problem(request, contest, problem)
    criteria, jurors = problem_seeds(problem_obj)
    round_, kept = None, 0
    if not jurors:
        # The page says why there is no seed: no round, a round not seeded, a round that keeps
        # no paper for seeding, a round still open, or nobody given one when it closed.
        _, round_ = problem_round(contest_slug=contest, problem_number=problem)
        kept = papers_kept_for_seeding(round_) if round_ is not None else 0
    return render(
        request,
        "grading/calibration_seeds.html",
        {
            "problem": problem_obj,
            "contest": problem_obj.contest,
            "round": round_,
            "kept": kept,
            "criteria": criteria,
            "jurors": jurors,
            "strip_height": STRIP_HEIGHT,
            "strip_middle": STRIP_HEIGHT // 2,
        },
    )


@login_required
@require_GET
def group_calibration(request, contest: str, problem: int):
    problem_obj = _chairs_problem(request, contest, problem)
    jurors = problem_calibration(problem_obj)
    seeded = any(juror.seeded for juror in jurors)
    calibrated = any(juror.calibrated for juror in jurors)
    return render(
        request,
        "grading/calibration_jurors.html",
        {
            "problem": problem_obj,
            "contest": problem_obj.contest,
            "criteria": list(problem_obj.criteria.order_by("order", "code")),
            "jurors": jurors,
            "seeded": seeded,
            "calibrated": calibrated,
            # Severity and agreement, then the calibration round's and the seeds' deviations.
            "columns": 2 + calibrated + seeded,
        },
    )


@login_required
@require_GET
def my_calibration(request, contest: str, problem: int):
    problem_obj = _problem(contest, problem)
    if access.may_read_group_calibration(request.user):
        return redirect("calibration_jurors", contest, problem)
    if not access.may_grade(request.user, problem_obj):
        raise Http404("You have no sheet for this problem.")
    if not access.may_read_own_calibration(request.user, problem_obj):
        return render(
            request,
            "grading/calibration_mine.html",
            {"problem": problem_obj, "contest": problem_obj.contest, "mine": None},
        )
    # Only the requesting juror's own figures are read: nobody else's are ever loaded here.
    mine = problem_calibration(problem_obj, juror=request.user)
    return render(
        request,
        "grading/calibration_mine.html",
        {"problem": problem_obj, "contest": problem_obj.contest, "mine": mine[0]},
    )
