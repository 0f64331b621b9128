"""A small contest of AI systems' and human contestants' papers, every cell graded by one juror
(so agreed once the sheets are submitted), shared by the analysis and the results tests."""

from grading.models import Paper
from grading.rules import roles
from tests.factories import assign, make_contest, make_user
from tests.grading import scenario


def build(slug: str, *, systems: dict, humans: dict, submit_p2: bool = True):
    """`systems` and `humans` map an identity (a contestant code for humans) to its (A1 of 12,
    T1 of 8) marks in P1 and P2; 40 points make a total out of 100 (×2.5)."""
    alice = make_user(f"alice-{slug}", roles.JUROR)
    contest = make_contest(slug, identities=[*systems, *humans])
    Paper.objects.filter(contest=contest, identity__in=list(humans)).update(
        source=Paper.Source.HUMAN
    )
    assign(contest, [alice])
    papers = {paper.identity: paper for paper in contest.papers.all()}
    problems = {problem.number: problem for problem in contest.problems.all()}
    for identity, per_problem in {**systems, **humans}.items():
        for number, (a1, t1) in enumerate(per_problem, start=1):
            scenario.grade(alice, problems[number], papers[identity], str(a1), str(t1))
    scenario.submit(alice, problems[1])
    if submit_p2:
        scenario.submit(alice, problems[2])
    return contest
