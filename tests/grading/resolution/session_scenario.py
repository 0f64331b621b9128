"""A contest in its resolution phase with open cells in P1, for the discussion sessions: six AI
papers, P1 graded by alice, bob and erin (each paper by all three), P2 by charlie; the chair
chen. alice gives 10 and 6, bob 4 and 2, erin 10 and 6 on every paper: every cell of P1 is open
(A1 10/4/10, T1 6/2/6), twelve in all; P2 agrees."""

from grading.console.contest_life import contest_resolution_open
from grading.rules import roles
from tests.factories import assign, make_contest, make_user
from tests.grading.scenario import grade, submit

MARKS = {"alice": ("10", "6"), "bob": ("4", "2"), "erin": ("10", "6")}


def build() -> dict:
    users = {name: make_user(name, roles.JUROR) for name in ("alice", "bob", "erin", "charlie")}
    users["chen"] = make_user("chen", roles.CHAIR)
    contest = make_contest("room", papers=6)
    problems = {p.number: p for p in contest.problems.all()}
    assign(contest, [users["alice"], users["bob"], users["erin"]], problems=[1])
    assign(contest, [users["charlie"]], problems=[2])
    for paper in contest.papers.all():
        for name, (a1, t1) in MARKS.items():
            grade(users[name], problems[1], paper, a1, t1)
        grade(users["charlie"], problems[2], paper, "5", "5")
    for name in MARKS:
        submit(users[name], problems[1])
    submit(users["charlie"], problems[2])
    contest_resolution_open(contest=contest, actor=users["chen"])
    contest.refresh_from_db()
    return {"contest": contest, "users": users, "problems": problems}
