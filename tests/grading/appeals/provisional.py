"""A contest at provisional results, for the appeals' tests: four human contestants in two
delegations (EST: est-1, est-2; LAT: lat-1, lat-2) and one AI paper, two problems of criteria A1
(12 points) and T1 (8), every cell agreed.

P1 is graded by alice and bob (every paper) and erin (the LAT papers and the AI paper only): erin
is a juror of the group who did not mark est-1. P2 by charlie and dan. Leaders: lena leads EST,
liam leads LAT; mia is a juror of P1 and a leader of EST. The organizer is olga, the chair chen."""

from datetime import timedelta
from decimal import Decimal

from django.utils import timezone

from grading.console.contest_life import contest_provisional_publish, contest_resolution_open
from grading.marking.marks import mark_set
from grading.marking.sheets import sheet_get_or_create, sheet_submit
from grading.models import Assignment, GradingGroup, Mark, Paper, PaperLabel
from grading.rules import roles
from tests.factories import make_contest, make_delegation, make_user

IDENTITIES = ["est-1", "est-2", "lat-1", "lat-2", "ai-system"]
# Each paper's (A1, T1) in each problem, the same from every juror who marks it.
# A third problem (for the browser's journey, `build(problems=3)`) is graded as P1 is.
POINTS = {
    "est-1": {1: ("10", "6"), 2: ("9", "5"), 3: ("6", "2")},
    "est-2": {1: ("8", "4"), 2: ("6", "4"), 3: ("8", "4")},
    "lat-1": {1: ("12", "8"), 2: ("12", "8"), 3: ("12", "8")},
    "lat-2": {1: ("4", "2"), 2: ("5", "2"), 3: ("4", "2")},
    "ai-system": {1: ("6", "4"), 2: ("6", "4"), 3: ("6", "4")},
}
P1_GRADERS = {"alice": IDENTITIES, "bob": IDENTITIES, "erin": ["lat-1", "lat-2", "ai-system"]}
GRADERS = {1: P1_GRADERS, 2: {"charlie": IDENTITIES, "dan": IDENTITIES}, 3: P1_GRADERS}


def build(
    *, publish: bool = True, deadline_in: timedelta = timedelta(days=1), problems: int = 2
) -> dict:
    users = {
        name: make_user(name, roles.JUROR)
        for name in ("alice", "bob", "erin", "charlie", "dan", "mia")
    }
    users["olga"] = make_user("olga", roles.ORGANIZER)
    users["chen"] = make_user("chen", roles.CHAIR)
    for name in ("lena", "liam"):
        users[name] = make_user(name)
    contest = make_contest("iol", identities=IDENTITIES, problems=problems)
    graders_of = {number: GRADERS[number] for number in range(1, problems + 1)}
    papers = {paper.identity: paper for paper in Paper.objects.filter(contest=contest)}
    problems = {problem.number: problem for problem in contest.problems.all()}
    make_delegation(
        contest,
        "EST",
        papers=[papers["est-1"], papers["est-2"]],
        leaders=[users["lena"], users["mia"]],
    )
    make_delegation(
        contest, "LAT", papers=[papers["lat-1"], papers["lat-2"]], leaders=[users["liam"]]
    )
    for number, graders in graders_of.items():
        group, _ = GradingGroup.objects.get_or_create(problem=problems[number])
        group.jurors.add(*(users[name] for name in graders))
        for name, identities in graders.items():
            Assignment.objects.bulk_create(
                Assignment(paper=papers[identity], problem=problems[number], juror=users[name])
                for identity in identities
            )
            sheet_get_or_create(juror=users[name], problem=problems[number])
    # mia is in P1's group, with one AI paper to mark: a juror who leads EST.
    GradingGroup.objects.get(problem=problems[1]).jurors.add(users["mia"])
    Assignment.objects.create(paper=papers["ai-system"], problem=problems[1], juror=users["mia"])
    sheet = sheet_get_or_create(juror=users["mia"], problem=problems[1])
    for number, graders in {**graders_of, 1: {**GRADERS[1], "mia": ["ai-system"]}}.items():
        for name, identities in graders.items():
            for identity in identities:
                for code, value in zip(("A1", "T1"), POINTS[identity][number], strict=True):
                    mark = Mark.objects.get(
                        sheet__juror=users[name],
                        sheet__problem=problems[number],
                        paper=papers[identity],
                        criterion__code=code,
                    )
                    mark_set(mark=mark, points=Decimal(value), actor=users[name], channel="browser")
            sheet = sheet_get_or_create(juror=users[name], problem=problems[number])
            sheet_submit(sheet=sheet, actor=users[name])
    contest_resolution_open(contest=contest, actor=users["chen"])
    contest.refresh_from_db()
    built = {"contest": contest, "users": users, "papers": papers, "problems": problems}
    if publish:
        publish_results(built, deadline_in=deadline_in)
    return built


def publish_results(scenario, *, deadline_in: timedelta = timedelta(days=1)) -> dict:
    """The organizer publishes the provisional results, with the appeals' deadline
    `deadline_in` from now: `build`'s last step, for a module that builds the scenario
    unpublished once and publishes it in each test that needs it."""
    contest = scenario["contest"]
    contest_provisional_publish(
        contest=contest, deadline=timezone.now() + deadline_in, actor=scenario["users"]["olga"]
    )
    contest.refresh_from_db()
    return scenario


def criteria(scenario, number: int, *codes: str):
    problem = scenario["problems"][number]
    return [problem.criteria.get(code=code) for code in codes]


def deadline_passes(contest) -> None:
    """The clock moves past the deadline: written straight to the contest row, as time would,
    since the extension service only ever moves it later."""
    contest.appeals_deadline = timezone.now() - timedelta(minutes=1)
    contest.save(update_fields=["appeals_deadline"])


def label(scenario, identity: str, number: int) -> str:
    """The paper's label in problem `number`, as its jurors know it."""
    return PaperLabel.objects.get(
        paper=scenario["papers"][identity], problem=scenario["problems"][number]
    ).label
