"""The resolution scenario shared by the resolution, results and export tests.

Three AI papers, two problems (criteria A1 of 12 points and T1 of 8, so 40 points scaled to a
total out of 100), IOL 2026 cut-offs. Problem 1 is graded by alice, bob and dan; problem 2 by
charlie and erin, with a tolerance of 0.5 on its T1. Planted disagreements:
- Orca, P1 T1: 8, 8, 6 (the chair decides);
- Heron, P1 A1: 8, 9, 8 (bob revises to 8: consensus);
- Heron, P2 T1: 2 and 2.5, within tolerance (agreed at 2, the mean rounded down to the step)."""

from decimal import Decimal

from grading.marking.marks import mark_set
from grading.marking.sheets import sheet_submit
from grading.models import Mark, Paper, Sheet
from grading.rules import roles
from tests.factories import assign, make_contest, make_user

MARKS = {
    # paper: {problem: {juror: (A1, T1)}}
    "Team Orca": {
        1: {"alice": ("12", "8"), "bob": ("12", "8"), "dan": ("12", "6")},
        2: {"charlie": ("10", "6"), "erin": ("10", "6")},
    },
    "Team Heron": {
        1: {"alice": ("8", "4"), "bob": ("9", "4"), "dan": ("8", "4")},
        2: {"charlie": ("6", "2"), "erin": ("6", "2.5")},
    },
    "Team Lynx": {
        1: {"alice": ("4", "2"), "bob": ("4", "2"), "dan": ("4", "2")},
        2: {"charlie": ("3", "0"), "erin": ("3", "0")},
    },
}

HUMANS_CSV = "contestant,p1,p2\nH1,20,20\nH2,15,15\nH3,10,10\nH4,5,3\n"


def submit(juror, problem) -> Sheet:
    """Submit a sheet through the service the sheet page uses."""
    sheet = Sheet.objects.get(juror=juror, problem=problem)
    return sheet_submit(sheet=sheet, actor=juror)


def grade(juror, problem, paper, a1, t1) -> None:
    for code, value in (("A1", a1), ("T1", t1)):
        mark = Mark.objects.get(
            sheet__juror=juror, sheet__problem=problem, paper=paper, criterion__code=code
        )
        mark_set(mark=mark, points=Decimal(value), actor=juror, channel="browser")


def build(
    chair_name: str = "chen",
    *,
    submit_sheets: bool = True,
    marks=None,
    tolerances=None,
    suffix: str = "",
) -> dict:
    """The scenario's contest with every mark entered (and every sheet submitted). `suffix` is
    added to the usernames and the contest's slug ("alice2", "iol2"), for a second scenario in
    a database that holds a module's first (tests/crawl.py `shared_data`); `users` keeps the
    plain names as keys."""
    users = {
        name: make_user(f"{name}{suffix}", roles.JUROR)
        for name in ("alice", "bob", "dan", "charlie", "erin")
    }
    users[chair_name] = make_user(f"{chair_name}{suffix}", roles.CHAIR)
    marks = marks or MARKS
    contest = make_contest(f"iol{suffix}", identities=list(marks))
    assign(contest, [users["alice"], users["bob"], users["dan"]], problems=[1])
    assign(contest, [users["charlie"], users["erin"]], problems=[2])
    p1, p2 = contest.problems.order_by("number")
    for (number, code), tolerance in (tolerances or {(2, "T1"): "0.5"}).items():
        (p1, p2)[number - 1].criteria.filter(code=code).update(tolerance=Decimal(tolerance))
    papers = {paper.identity: paper for paper in Paper.objects.filter(contest=contest)}
    problems = {1: p1, 2: p2}
    for identity, per_problem in marks.items():
        for number, per_juror in per_problem.items():
            for name, (a1, t1) in per_juror.items():
                grade(users[name], problems[number], papers[identity], a1, t1)
    built = {
        "contest": contest,
        "users": users,
        "chair": users[chair_name],
        "papers": papers,
        "problems": problems,
    }
    return submit_all(built) if submit_sheets else built


def submit_all(graded) -> dict:
    """Submit every sheet of the scenario, in `build`'s order: for a module that builds it with
    `submit_sheets=False` once and submits in each test that needs it submitted."""
    users, problems = graded["users"], graded["problems"]
    for name in ("alice", "bob", "dan"):
        submit(users[name], problems[1])
    for name in ("charlie", "erin"):
        submit(users[name], problems[2])
    return graded


def open_resolution(graded) -> None:
    from grading.console.contest_life import contest_resolution_open

    contest_resolution_open(contest=graded["contest"], actor=graded["chair"])
    graded["contest"].refresh_from_db()


def label(scenario, identity: str, number: int) -> str:
    return scenario["papers"][identity].labels.get(problem=scenario["problems"][number]).label


FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def discrepancies(contest) -> list[tuple[int, int, Decimal, Decimal]]:
    """(paper id, criterion id, lowest, highest) of every open cell, from the results."""
    from grading.resolution.comparison import contest_results

    return [
        (cell.paper_id, cell.criterion.pk, cell.lo, cell.hi)
        for cell in contest_results(contest).open_cells
    ]


def resolve(graded) -> None:
    """The resolution phase as the scenario plans it: bob revises Heron's P1 A1 to 8 (a
    consensus) and the chair decides Orca's P1 T1 at 7. Every cell is then settled."""
    from grading.resolution.decisions import discrepancy_decide, mark_revise

    users, papers = graded["users"], graded["papers"]
    open_resolution(graded)
    bob = Mark.objects.get(
        sheet__juror=users["bob"], paper=papers["Team Heron"], criterion__code="A1"
    )
    mark_revise(mark=bob, points=Decimal("8"), actor=users["bob"])
    discrepancy_decide(
        paper=papers["Team Orca"],
        criterion=graded["problems"][1].criteria.get(code="T1"),
        points=Decimal("7"),
        reason="Rule 2 stated, not applied.",
        actor=graded["chair"],
    )


def finalize(graded) -> None:
    """`resolve`, then the chair finalizes the contest."""
    from grading.console.contest_life import contest_finalize

    resolve(graded)
    contest_finalize(contest=graded["contest"], actor=graded["chair"])
    graded["contest"].refresh_from_db()
