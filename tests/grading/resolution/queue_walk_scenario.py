"""A chair's queue of 40 open cells for the walk's tests: 20 papers of one problem, each with
both criteria (A1 of 12, T1 of 8) open between two jurors, their totals spread around the
medal cut-offs so that a decision moves its paper, and its other cell, up or down the queue."""

from decimal import Decimal

from grading.rules import roles
from tests.factories import assign, make_contest, make_user
from tests.grading import scenario

PAPERS = 20


def build(slug: str = "walk", papers: int = PAPERS) -> dict:
    alice, bob = make_user(f"alice-{slug}", roles.JUROR), make_user(f"bob-{slug}", roles.JUROR)
    chair = make_user(f"chair-{slug}", roles.CHAIR)
    contest = make_contest(slug, problems=1, papers=papers)
    assign(contest, [alice, bob])
    problem = contest.problems.get()
    for index, paper in enumerate(contest.papers.order_by("pk")):
        a1, t1 = Decimal((index * 5) % 11), Decimal((index * 3) % 7)
        scenario.grade(alice, problem, paper, str(a1), str(t1))
        scenario.grade(bob, problem, paper, str(a1 + 2), str(t1 + Decimal("1.5")))
    scenario.submit(alice, problem)
    scenario.submit(bob, problem)
    return {"contest": contest, "problem": problem, "chair": chair}


def decision(count: int, code: str) -> str:
    """The points the walk's tests decide the `count`-th cell at: its criterion's maximum or
    nothing, in turn, so that each decision moves its paper far along the queue."""
    return ("12" if code == "A1" else "8") if count % 2 else "0"
