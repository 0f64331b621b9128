"""The assignment under the jury's constraints, through the service: languages and countries
read from the database, a plan that cannot be complete previewed with its sentences and never
saved, a previewed plan saved exactly or refused when the contest changed since."""

import json
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from grading.assigning.assignments import assignments_create
from grading.assigning.summary import AssignmentSummary
from grading.models import Assignment, GradingGroup, JurorLanguage, JurorProfile, Sheet
from grading.rules import roles
from tests.factories import make_contest, make_delegation, make_user


@pytest.fixture
def jury(db):
    """One problem, six papers: four of delegation EST (Estonia, answered in Estonian), two AI
    papers (English). ann is from Estonia and reads Estonian; ben reads Estonian; cat reads
    it with help; dan reads English only."""
    contest = make_contest("langs", problems=1, papers=6)
    papers = list(contest.papers.order_by("pk"))
    estonia = make_delegation(contest, "EST", papers=papers[:4])
    estonia.country = "Estonia"
    estonia.save()
    for paper in papers[:4]:
        paper.answer_language = "Estonian"
        paper.save()
    people = {name: make_user(name, roles.JUROR) for name in ("ann", "ben", "cat", "dan")}
    JurorProfile.objects.create(user=people["ann"], country="Estonia")
    JurorLanguage.objects.create(user=people["ann"], language="Estonian")
    JurorLanguage.objects.create(user=people["ben"], language="Estonian")
    JurorLanguage.objects.create(
        user=people["cat"], language="Estonian", level=JurorLanguage.Level.WITH_HELP
    )
    for name in ("ann", "ben", "cat", "dan"):
        JurorLanguage.objects.get_or_create(user=people[name], language="English")
    GradingGroup.objects.create(problem=contest.problems.get()).jurors.add(*people.values())
    return contest, papers, people


def _assigned(contest) -> dict[str, set[str]]:
    rows = Assignment.objects.filter(problem__contest=contest).values_list(
        "paper__identity", "juror__username"
    )
    out: dict[str, set[str]] = {}
    for identity, username in rows:
        out.setdefault(identity, set()).add(username)
    return out


def test_no_juror_grades_their_own_country_and_readers_come_first(jury):
    contest, papers, people = jury
    summary = assignments_create(contest=contest, per_problem=2, load_slack=1)

    assigned = _assigned(contest)
    for paper in papers[:4]:
        # ann is from Estonia; ben reads Estonian, cat with help (dan not at all): every
        # Estonian paper goes to ben and cat.
        assert assigned[paper.identity] == {"ben", "cat"}
    assert summary.short == 0
    # With a slack of one, cat (Estonian with help) takes Estonian papers rather than dan.
    assert summary.problems[0].loads == {"ann": 2, "ben": 4, "cat": 4, "dan": 2}
    assert sorted({fit for _, _, fit in summary.problems[0].picks}) == ["reads", "with_help"]


def test_a_plan_that_cannot_be_complete_is_previewed_with_its_sentence_and_never_saved(jury):
    contest, papers, people = jury
    GradingGroup.objects.get().jurors.remove(people["ben"], people["cat"])

    preview = assignments_create(contest=contest, per_problem=2, dry_run=True)
    problem = preview.problems[0]
    assert problem.short == 4
    assert problem.problems[0] == (
        "P1: 4 papers lack a juror: the group has 2 jurors, ann comes from Estonia, and these "
        "are Estonia's contestants."
    )
    with pytest.raises(ValidationError) as refused:
        assignments_create(contest=contest, per_problem=2)
    assert refused.value.messages[0] == problem.problems[0]
    assert Assignment.objects.count() == 0
    assert Sheet.objects.count() == 0


def test_a_previewed_plan_is_saved_exactly_through_json(jury):
    contest, papers, people = jury
    preview = assignments_create(contest=contest, per_problem=2, dry_run=True)
    stored = json.loads(json.dumps(preview.to_dict()))

    saved = assignments_create(contest=contest, plan=AssignmentSummary.from_dict(stored))

    rows = sorted(
        Assignment.objects.values_list("problem_id", "paper_id", "juror_id"),
    )
    problem = preview.problems[0]
    assert rows == sorted((problem.problem_id, p, j) for p, j in problem.pick_ids)
    assert saved.created == preview.created == 12
    assert Sheet.objects.count() == 4


def test_a_plan_is_refused_when_a_juror_became_unavailable_since_its_preview(jury):
    contest, papers, people = jury
    preview = assignments_create(contest=contest, per_problem=2, dry_run=True)
    JurorProfile.objects.create(user=people["dan"], unavailable_since=timezone.now())

    with pytest.raises(ValidationError) as refused:
        assignments_create(contest=contest, plan=preview)

    assert refused.value.messages == [
        "The assignment changed since its preview: P1: dan is unavailable; preview it again."
    ]
    assert Assignment.objects.count() == 0


def test_progress_is_told_after_each_problem(db):
    contest = make_contest("prog", problems=3, papers=4)
    jurors = [make_user(name, roles.JUROR) for name in ("ann", "ben")]
    for problem in contest.problems.all():
        GradingGroup.objects.create(problem=problem).jurors.add(*jurors)
    calls = []
    assignments_create(contest=contest, dry_run=True, progress=lambda *call: calls.append(call))
    assert calls == [(1, 3), (2, 3), (3, 3)]


def _preview_queries(papers: int) -> int:
    contest = make_contest(f"q{papers}", problems=2, papers=papers)
    jurors = [make_user(f"{name}{papers}", roles.JUROR) for name in ("ann", "ben", "cat")]
    for problem in contest.problems.all():
        GradingGroup.objects.create(problem=problem).jurors.add(*jurors)
    for juror in jurors:
        JurorLanguage.objects.create(user=juror, language="English")
    with CaptureQueriesContext(connection) as queries:
        assignments_create(contest=contest, dry_run=True)
    return len(queries)


def test_the_preview_runs_a_fixed_number_of_queries_whatever_the_papers(db):
    assert _preview_queries(3) == _preview_queries(40)


def test_the_command_prints_the_sentences_and_the_flagged_picks(jury):
    contest, papers, people = jury
    GradingGroup.objects.get().jurors.remove(people["ben"])
    preview = assignments_create(contest=contest, per_problem=2, dry_run=True)
    out = StringIO()

    call_command("assign_jurors", "--contest", "langs", "--dry-run", stdout=out)

    problem = preview.problems[0]
    assert problem.flagged
    assert out.getvalue().splitlines() == [
        str(problem),
        *(f"  {sentence}" for sentence in problem.problems),
        *(f"  {label} → {name}: {fit.replace('_', ' ')}" for label, name, fit in problem.flagged),
        str(preview),
    ]


def test_the_command_refuses_a_negative_load_slack(jury):
    with pytest.raises(CommandError) as error:
        call_command("assign_jurors", "--contest", "langs", "--load-slack", "-1")
    assert str(error.value) == "--load-slack is a number of papers, 0 or more, not -1."
