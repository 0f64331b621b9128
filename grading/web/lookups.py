"""Finding the contest, problem or cell a resolution-phase page is about, for this reader.

Who may see what is `grading.rules.access`'s; these turn its answers into 404s and the "submit
first" page, so that the comparison, the discussion and the chair's pages refuse alike."""

from django.http import Http404
from django.shortcuts import get_object_or_404, render

from grading.models import PaperLabel
from grading.rules import access
from rubrics.models import Contest, Criterion, Problem


class SubmitFirst(Exception):
    """A juror of the group asked for what needs their own sheet submitted first."""


def problem_for_reader(request, contest: str, problem: int) -> Problem:
    """The problem, or 404 for a user who has no business with it: a juror must be in its
    grading group; organizers and the chair may read every problem."""
    problem_obj = get_object_or_404(
        Problem.objects.select_related("contest"), contest__slug=contest, number=problem
    )
    if not access.may_read_problem(request.user, problem_obj):
        raise Http404("No such problem.")
    return problem_obj


def problem_for_comparison(request, contest: str, problem: int) -> Problem:
    """The problem, if the user may compare its marks. Raises Http404 for outsiders and
    SubmitFirst for a juror of the group whose sheet is not submitted yet."""
    problem_obj = get_object_or_404(
        Problem.objects.select_related("contest"), contest__slug=contest, number=problem
    )
    allowed = access.comparison_access(request.user, problem_obj)
    if allowed == access.ComparisonAccess.NONE:
        raise Http404("No such problem.")
    if allowed == access.ComparisonAccess.SUBMIT_FIRST:
        raise SubmitFirst
    return problem_obj


def submit_first_page(request, problem_obj=None):
    return render(request, "grading/comparison_locked.html", {"problem": problem_obj}, status=403)


def contest_for_chair(request, contest: str, *, organizer_too: bool = False) -> Contest:
    contest_obj = get_object_or_404(Contest, slug=contest)
    user = request.user
    if access.may_decide(user) or (organizer_too and access.may_read_results(user)):
        return contest_obj
    raise Http404("No such page.")


def cell_for_reader(request, contest: str, problem: int, label: str, code: str):
    """(problem, paper, criterion) of a cell the reader may discuss or read about, refused as
    its discussion page is: 404 for outsiders, SubmitFirst for a juror still drafting."""
    problem_obj = problem_for_comparison(request, contest, problem)
    return (problem_obj, *paper_cell(request, problem_obj, label, code))


def paper_cell(request, problem_obj: Problem, label: str, code: str):
    """(paper, criterion) of the problem's cell under a paper's label, for a reader who may
    read the problem's comparison: 404 for a label no paper of the problem has, or a paper the
    reader is conflicted with."""
    link = (
        PaperLabel.objects.select_related("paper").filter(problem=problem_obj, label=label).first()
    )
    if link is None or not problem_obj.assignments.filter(paper=link.paper).exists():
        raise Http404("No paper has this label in this problem.")
    if not access.reads_every_paper(request.user) and (
        access.conflicted_with(request.user, link.paper)
        or link.paper_id in access.papers_seeded_for(request.user, problem_obj)
    ):
        # As for any paper the reader may not see: no sentence tells them whose it is (nor
        # that a seed of theirs shows its answers).
        raise Http404("No paper has this label in this problem.")
    criterion = get_object_or_404(Criterion, problem=problem_obj, code=code)
    return link.paper, criterion
