"""What the assignment reads from the database: who may take which paper, and why not."""

import pytest
from django.utils import timezone

from grading.assigning import facts
from grading.assigning.facts import problem_facts
from grading.marking.sheets import sheet_get_or_create
from grading.models import (
    Assignment,
    AssignmentMove,
    GradingGroup,
    HelpRequest,
    JurorLanguage,
    JurorProfile,
    PaperLabel,
    Sheet,
)
from grading.rules import conflicts, roles
from tests.factories import make_contest, make_delegation, make_user


@pytest.fixture
def jury(db):
    """Problem 1 of a contest of four papers: two of delegation EST (country Estonia, answered
    in Estonian, led by lee), two AI papers; ann (Estonia), ben, cat and lee in its group."""
    contest = make_contest("facts", problems=1, papers=4)
    contest.working_language = "English"
    contest.save()
    papers = list(contest.papers.order_by("pk"))
    lee = make_user("lee", roles.JUROR)
    estonia = make_delegation(contest, "EST", papers=papers[:2], leaders=[lee])
    estonia.country = "Estonia"
    estonia.save()
    for paper in papers[:2]:
        paper.answer_language = "  Estonian "
        paper.save()
    ann, ben, cat = (make_user(name, roles.JUROR) for name in ("ann", "ben", "cat"))
    JurorProfile.objects.create(user=ann, country="estonia", capacity=3)
    JurorLanguage.objects.create(user=ann, language="Estonian")
    JurorLanguage.objects.create(user=ben, language="estonian", level=JurorLanguage.Level.WITH_HELP)
    problem = contest.problems.get()
    GradingGroup.objects.create(problem=problem).jurors.add(ann, ben, cat, lee)
    return contest, problem, papers, {user.username: user for user in (ann, ben, cat, lee)}


def test_languages_capacity_and_conflicts_are_read(jury):
    contest, problem, papers, people = jury
    (problem_facts_,) = problem_facts(contest, [problem], required={1: 2})
    jurors = {juror.username: juror for juror in problem_facts_.jurors}
    assert jurors["ann"].languages == {"estonian": "reads"}
    assert jurors["ann"].capacity == 3
    assert jurors["ben"].languages == {"estonian": "with_help"}
    assert jurors["cat"].languages == {} and jurors["cat"].capacity is None
    by_id = {paper.id: paper for paper in problem_facts_.papers}
    human = by_id[papers[0].pk]
    assert (human.language, human.language_name, human.need) == ("estonian", "Estonian", 2)
    assert human.excluded == {
        people["ann"].pk: conflicts.from_country("estonia"),
        people["lee"].pk: conflicts.LEADS,
    }
    ai = by_id[papers[2].pk]
    assert (ai.language, ai.excluded) == ("english", {})
    assert human.name == PaperLabel.objects.get(paper=papers[0], problem=problem).label


def test_kept_assignments_submitted_sheets_helpers_and_moves(jury):
    contest, problem, papers, people = jury
    Assignment.objects.create(paper=papers[2], problem=problem, juror=people["cat"])
    sheet = sheet_get_or_create(juror=people["cat"], problem=problem)
    Sheet.objects.filter(pk=sheet.pk).update(state=Sheet.State.SUBMITTED)
    HelpRequest.objects.create(
        paper=papers[3], problem=problem, asked_by=people["cat"], question="?", helper=people["ben"]
    )
    AssignmentMove.objects.create(
        paper=papers[3],
        problem=problem,
        from_juror=people["ann"],
        to_juror=people["cat"],
        actor=people["cat"],
        reason="ill",
    )
    (facts_,) = problem_facts(contest, [problem], required={1: 2})
    by_id = {paper.id: paper for paper in facts_.papers}
    assert by_id[papers[2].pk].assigned == {people["cat"].pk}
    assert by_id[papers[2].pk].need == 1
    assert by_id[papers[3].pk].excluded == {
        people["cat"].pk: facts.SUBMITTED,
        people["ben"].pk: facts.SEEN,
        people["ann"].pk: facts.HAD_IT,
    }
    assert {juror.username: juror.assigned for juror in facts_.jurors}["cat"] == 1


def test_removing_and_unavailable(jury):
    contest, problem, papers, people = jury
    for juror in ("ben", "cat"):
        Assignment.objects.create(paper=papers[2], problem=problem, juror=people[juror])
    JurorProfile.objects.create(user=people["cat"], unavailable_since=timezone.now())
    removing = frozenset({(problem.pk, papers[2].pk, people["ben"].pk)})
    (facts_,) = problem_facts(
        contest,
        [problem],
        required={1: 2},
        removing=removing,
        unavailable=frozenset({people["lee"].pk}),
    )
    assert sorted(juror.username for juror in facts_.jurors) == ["ann", "ben"]
    assert facts_.unavailable == ["cat", "lee"]
    moved = {paper.id: paper for paper in facts_.papers}[papers[2].pk]
    assert moved.assigned == {people["cat"].pk}
    assert moved.excluded == {people["ben"].pk: facts.HAD_IT}


def test_blank_and_fully_assigned_papers_need_no_juror(jury):
    contest, problem, papers, people = jury
    PaperLabel.objects.filter(paper=papers[0], problem=problem).update(blank=True)
    for juror in ("ben", "cat"):
        Assignment.objects.create(paper=papers[1], problem=problem, juror=people[juror])
    (facts_,) = problem_facts(contest, [problem], required={1: 2})
    assert {paper.id for paper in facts_.papers} == {papers[2].pk, papers[3].pk}


def test_a_fixed_number_of_queries(jury, django_assert_num_queries):
    contest, problem, papers, people = jury
    with django_assert_num_queries(13):
        problem_facts(contest, [problem], required={1: 2})
    more = make_contest("more", problems=1, papers=30)
    GradingGroup.objects.create(problem=more.problems.get()).jurors.add(*people.values())
    problems = list(more.problems.all())
    with django_assert_num_queries(13):
        problem_facts(more, problems, required={1: 2})
