"""Small builders for test data. They go through the same services as the application where a
service exists (labels, sheets, marks), so tests exercise the real write paths."""

from decimal import Decimal

from django.contrib.auth.models import Group, User

from grading.intake.labels import paper_labels_ensure
from grading.marking.sheets import sheet_get_or_create
from grading.models import Assignment, Delegation, GradingGroup, Paper, Solution
from grading.models.papers import draw_public_code
from grading.rules import roles
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, Task

PASSWORD = "correct-horse-battery"


def make_user(username: str, role: str | None = None, **extra) -> User:
    user = User.objects.create_user(username=username, password=PASSWORD, **extra)
    if role:
        roles.ensure_role_groups()
        user.groups.add(Group.objects.get(name=role))
        if role in (roles.ORGANIZER, roles.CHAIR):
            user.is_staff = True
            user.save(update_fields=["is_staff"])
    return user


def make_contest(
    slug: str = "test",
    *,
    problems: int = 2,
    papers: int = 3,
    criteria: tuple[tuple[str, str, str], ...] = (
        ("A1", "assignment", "12"),
        ("T1", "theory", "8"),
    ),
    identities: list[str] | None = None,
) -> Contest:
    """A contest with `problems` problems of one task (two items) each, a 20-point scheme per
    problem, medal cut-offs as at IOL 2026, and `papers` AI papers with solutions and labels."""
    contest = Contest.objects.create(slug=slug, name=f"Contest {slug}", state="grading")
    for order, (name, minimum) in enumerate(
        (("gold", "70.0"), ("silver", "58.4"), ("honourable mention", "35.3")), start=1
    ):
        MedalCutoff.objects.create(
            contest=contest, name=name, min_total=Decimal(minimum), order=order
        )
    for number in range(1, problems + 1):
        problem = Problem.objects.create(contest=contest, number=number, title=f"Problem {number}")
        task = Task.objects.create(
            problem=problem,
            number=1,
            external_id=f"12026{number:02d}0100",
            task_type="translation",
            query="Translate into English:\n1. kelo mari\n2. vamu",
            item_count=2,
            answers=[["the dog sleeps"], ["water", "the water"]],
            weight=Decimal("2"),
        )
        for order, (code, kind, points) in enumerate(criteria):
            Criterion.objects.create(
                problem=problem,
                code=code,
                kind=kind,
                title=f"{kind} {code}",
                points=Decimal(points),
                task=task if kind == "assignment" else None,
                order=order,
            )
    identities = identities or [f"system-{index}" for index in range(papers)]
    # In bulk, a few queries whatever the number of papers (a query-count test builds 300, and
    # on a loaded machine each round trip to PostgreSQL costs); codes drawn as Paper.save does.
    codes: set[str] = set()
    made = Paper.objects.bulk_create(
        Paper(
            contest=contest,
            identity=identity,
            metadata={"team": identity},
            public_code=draw_public_code(codes),
        )
        for identity in identities
    )
    tasks = list(Task.objects.filter(problem__contest=contest))
    Solution.objects.bulk_create(
        Solution(
            paper=paper,
            task=task,
            answers=["the dog sleeps", "water"],
            explanation=f"Plural in *-ri*; explanation {index}.",
        )
        for index, paper in enumerate(made)
        for task in tasks
    )
    paper_labels_ensure(contest=contest)
    return contest


def assign(contest: Contest, jurors: list[User], problems: list[int] | None = None) -> None:
    """Put the jurors in the group of each problem and assign them every paper."""
    for problem in contest.problems.all():
        if problems and problem.number not in problems:
            continue
        group, _ = GradingGroup.objects.get_or_create(problem=problem)
        group.jurors.add(*jurors)
        Assignment.objects.bulk_create(
            Assignment(paper=paper, problem=problem, juror=juror)
            for paper in contest.papers.all()
            for juror in jurors
        )
        for juror in jurors:
            sheet_get_or_create(juror=juror, problem=problem)


def make_delegation(
    contest: Contest,
    code: str,
    *,
    papers: list[Paper] = (),
    leaders: list[User] = (),
    country: str = "",
) -> Delegation:
    """A delegation of the contest with the given papers (made human contestants' papers, their
    identity the contestant code), team leaders (given the leader role) and country."""
    delegation = Delegation.objects.create(
        contest=contest, code=code, name=f"Delegation {code}", country=country
    )
    for paper in papers:
        paper.source = Paper.Source.HUMAN
        paper.delegation = delegation
        paper.save(update_fields=["source", "delegation"])
    if leaders:
        roles.ensure_role_groups()
        leader_group = Group.objects.get(name=roles.LEADER)
        for leader in leaders:
            leader.groups.add(leader_group)
        delegation.leaders.add(*leaders)
    return delegation
