"""Independence when assignments change late: a juror who has submitted a problem may have seen
the comparison, so no paper of that problem is given to them afterwards, whichever door assigns
(the `assign_jurors` command, its service, the admin)."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from grading.assigning.assignments import assignments_create
from grading.marking.sheets import sheet_submit
from grading.models import Assignment, GradingGroup, Mark, Sheet
from grading.rules import roles
from tests.factories import make_contest, make_user


@pytest.fixture
def submitted(db):
    """Problem 1 of three papers graded by two of ann, ben and cat each, ann's sheet filled and
    submitted; dan joins the group later."""
    ann, ben, cat, dan = (make_user(name, roles.JUROR) for name in ("ann", "ben", "cat", "dan"))
    contest = make_contest("late", problems=1, papers=3)
    problem = contest.problems.get()
    GradingGroup.objects.create(problem=problem).jurors.add(ann, ben, cat)
    assignments_create(contest=contest, per_problem=2)
    Mark.objects.filter(sheet__juror=ann).update(points=1)
    sheet_submit(sheet=Sheet.objects.get(juror=ann), actor=ann)
    return {"contest": contest, "problem": problem, "ann": ann, "dan": dan}


def _state():
    return (
        sorted(Assignment.objects.values_list("juror__username", "paper_id")),
        sorted(Mark.objects.values_list("sheet__juror__username", "paper_id", "points")),
    )


def test_assign_jurors_gives_no_paper_to_a_juror_who_has_submitted(submitted):
    before = _state()
    with pytest.raises(CommandError) as refused:
        call_command("assign_jurors", contest="late", problem=["1=3"], stdout=StringIO())
    assert str(refused.value) == (
        "Problem 1: papers need more jurors than its group has left who have not submitted "
        "their sheet (ann has); a juror who has submitted a problem may have seen the "
        "comparison, so no paper of that problem is given to them afterwards. Add a juror to "
        "the problem's grading group first."
    )
    assert _state() == before
    assert Sheet.objects.get(juror=submitted["ann"]).marks.filter(points__isnull=True).count() == 0


def test_a_juror_added_to_the_group_takes_the_late_papers_instead(submitted):
    ann_papers = set(
        Assignment.objects.filter(juror=submitted["ann"]).values_list("paper", flat=True)
    )
    submitted["problem"].group.jurors.add(submitted["dan"])
    summary = assignments_create(contest=submitted["contest"], per_problem=3)
    assert summary.created == 3
    assert (
        set(Assignment.objects.filter(juror=submitted["ann"]).values_list("paper", flat=True))
        == ann_papers
    )
    assert Assignment.objects.filter(problem=submitted["problem"]).count() == 9


def test_the_admin_refuses_a_late_assignment_with_the_same_rule(submitted, client):
    organizer = make_user("olga", roles.ORGANIZER)
    client.force_login(organizer)
    problem, ann = submitted["problem"], submitted["ann"]
    paper = submitted["contest"].papers.exclude(assignments__juror=ann).first()
    before = _state()
    response = client.post(
        reverse("admin:grading_assignment_add"),
        {"paper": paper.pk, "problem": problem.pk, "juror": ann.pk},
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert list(errors) == [
        "ann has submitted P1; a juror who has submitted a problem may have seen the comparison, "
        "so no paper of that problem is given to them afterwards. Choose another juror."
    ]
    assert _state() == before
