"""The cell a discussion door is about, by the label in its URL: a paper's, or the reader's own
seed's (`grading.papers.seed_labels.juror_seed`), which to its juror is a paper like any other
and to everyone else names nothing (404, as every seed door answers)."""

from typing import NamedTuple

from django.http import Http404
from django.shortcuts import get_object_or_404

from grading.models import Paper, Seed
from grading.papers.seed_labels import juror_seed
from grading.rules import access
from grading.web.lookups import paper_cell, problem_for_comparison
from rubrics.models import Criterion, Problem


class ReaderCell(NamedTuple):
    problem: Problem
    paper: Paper
    criterion: Criterion
    # The reader's seed under the label, whose paper is the calibration paper; None for a paper.
    seed: Seed | None


def reader_cell(request, contest: str, problem: int, label: str, code: str) -> ReaderCell:
    """The cell under `label` and criterion `code` that the reader may read, refused as a
    discussion page is: 404 for outsiders, `SubmitFirst` for a juror still drafting (their
    seeds included: a seed's cell opens when a paper's does)."""
    problem_obj = problem_for_comparison(request, contest, problem)
    # Only a juror's comparison lists seeds: to the chair (a juror too or not) a label is a paper's.
    seed = (
        juror_seed(user=request.user, problem=problem_obj, label=label)
        if access.lists_own_seeds(request.user)
        else None
    )
    if seed is None:
        return ReaderCell(problem_obj, *paper_cell(request, problem_obj, label, code), None)
    paper = seed.calibration_paper.paper
    if access.conflicted_with(request.user, paper):
        raise Http404("No paper has this label in this problem.")
    criterion = get_object_or_404(Criterion, problem=problem_obj, code=code)
    return ReaderCell(problem_obj, paper, criterion, seed)
