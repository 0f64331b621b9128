"""A team leader's pages once the results are provisional: their delegation's page (4
contestants × 5 problems) and one contestant's problem with its scanned pages, at a contest of
25 and of 255 human contestants.

A throw-away SQLite database with the application's own settings and Django's test client
logged in as the leader of the first delegation, DEBUG off while timing. Each size is a contest
of N human papers in delegations of four, 5 problems of 4 criteria, two jurors per paper and
problem, every sheet submitted, two scanned pages per paper and problem, a `ProvisionalResult`
per paper as publishing writes them. The data is written with `bulk_create`. The sizes take
turns within each round and every figure is a median; each page's query count is taken once
per size, apart from the timing.

Run: .venv/bin/python bench/leader_pages.py   (prints: name  ratio  goal  met/not met)"""

import random
import statistics
import sys
import time
from decimal import Decimal

# bench/ is on the path when a script runs, as Python puts its folder first.
from _throwaway import throwaway_database

SMALL, LARGE = 25, 255
PROBLEMS, CRITERIA, JURORS, PER_PAPER, DELEGATION, SCANS = 5, 4, 4, 2, 4, 2
ROUNDS = 25
# The leader's pages read their own contestants only: the contest's size should not show.
GOAL = 1.5
PAGES = ("leader_delegation", "leader_contestant_problem")


def main() -> None:
    with throwaway_database():
        _run()


def _run() -> None:
    started = time.perf_counter()

    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    urls, leaders, described = {}, {}, []
    for size in (SMALL, LARGE):
        contest, leader, code, summary = build(size)
        described.append(summary)
        leaders[size] = leader
        urls[size] = {
            "leader_delegation": reverse("leader_delegation", args=[contest.slug]),
            "leader_contestant_problem": reverse(
                "leader_contestant_problem", args=[contest.slug, code, 3]
            ),
        }
    print(
        f"# set-up {time.perf_counter() - started:.1f} s: " + "; ".join(described), file=sys.stderr
    )

    clients = {}
    queries = {}
    for size in (SMALL, LARGE):
        clients[size] = Client(HTTP_HOST="localhost")
        clients[size].force_login(leaders[size])
        for page, url in urls[size].items():
            clients[size].get(url)  # the warm-up: templates compiled, the session read
            with CaptureQueriesContext(connection) as captured:
                response = clients[size].get(url)
            assert response.status_code == 200, (url, response.status_code)
            queries[(page, size)] = len(captured)

    times = {(page, size): [] for page in PAGES for size in (SMALL, LARGE)}
    for _ in range(ROUNDS):
        # Pages and sizes take turns, so that a change of load on the machine hits them all alike.
        for page in PAGES:
            for size in (SMALL, LARGE):
                client = clients[size]
                environ = client._base_environ(PATH_INFO=urls[size][page], REQUEST_METHOD="GET")
                start = time.perf_counter()
                response = client.handler(environ)
                times[(page, size)].append(time.perf_counter() - start)
                assert response.status_code == 200
                del response
    ms = {key: statistics.median(values) * 1000 for key, values in times.items()}

    for page in PAGES:
        print(
            f"# {page}: {SMALL} contestants {ms[(page, SMALL)]:.1f} ms, "
            f"{LARGE} contestants {ms[(page, LARGE)]:.1f} ms (median of {ROUNDS})",
            file=sys.stderr,
        )
    for page in PAGES:
        ratio = ms[(page, LARGE)] / ms[(page, SMALL)]
        met = "met" if ratio <= GOAL else "not met"
        print(f"{page}_{LARGE}_vs_{SMALL}_contestants  {ratio:.2f}x  <={GOAL:g}x  {met}")
    for page in PAGES:
        small, large = queries[(page, SMALL)], queries[(page, LARGE)]
        met = "met" if small == large else "not met"
        print(f"{page}_queries_{LARGE}_vs_{SMALL}  {large} == {small}  {met}")
    print(f"# leader_pages.py took {time.perf_counter() - started:.0f} s", file=sys.stderr)


def build(contestants: int):
    """A contest with provisional results and `contestants` human papers in delegations of
    four; returns it, the first delegation's leader, the public code of its first contestant
    and a summary."""
    from django.contrib.auth.models import Group, User
    from django.utils import timezone

    from grading.intake.labels import paper_labels_ensure
    from grading.models import (
        Assignment,
        Delegation,
        GradingGroup,
        Mark,
        Paper,
        ProvisionalResult,
        ScanPage,
        Sheet,
        draw_public_code,
    )
    from grading.rules import roles
    from rubrics.models import Contest, Criterion, Problem

    rng = random.Random(contestants)
    now = timezone.now()
    contest = Contest.objects.create(
        slug=f"leaders-{contestants}",
        name=f"Leaders {contestants}",
        state=Contest.State.PROVISIONAL,
        appeals_deadline=now + timezone.timedelta(days=1),
    )
    problems = Problem.objects.bulk_create(
        Problem(contest=contest, number=n, title=f"Problem {n}") for n in range(1, PROBLEMS + 1)
    )
    criteria = Criterion.objects.bulk_create(
        Criterion(
            problem=problem,
            code=f"C{order}",
            kind="assignment",
            title=f"criterion {order}",
            guidance="Full points for the rule stated and applied.",
            points=Decimal("5"),
            order=order,
        )
        for problem in problems
        for order in range(1, CRITERIA + 1)
    )
    delegations = Delegation.objects.bulk_create(
        Delegation(contest=contest, code=f"D{index:03d}")
        for index in range((contestants + DELEGATION - 1) // DELEGATION)
    )
    delegations = list(contest.delegations.order_by("code"))
    codes: set[str] = set()
    papers = Paper.objects.bulk_create(
        Paper(
            contest=contest,
            source=Paper.Source.HUMAN,
            identity=f"C{index:04d}",
            delegation=delegations[index // DELEGATION],
            public_code=draw_public_code(codes),
        )
        for index in range(contestants)
    )
    papers = list(contest.papers.order_by("identity"))
    paper_labels_ensure(contest=contest)
    ScanPage.objects.bulk_create(
        (
            ScanPage(
                paper=paper,
                problem=problem,
                position=position,
                image=f"page-{paper.pk}-{problem.pk}-{position}.png",
                width=1240,
                height=1754,
            )
            for paper in papers
            for problem in problems
            for position in range(1, SCANS + 1)
        ),
        batch_size=2000,
    )
    sheets, graders = {}, {}
    for problem in problems:
        jurors = User.objects.bulk_create(
            User(username=f"juror-{contestants}-{problem.number}-{j}") for j in range(JURORS)
        )
        group = GradingGroup.objects.create(problem=problem)
        group.jurors.add(*jurors)
        for juror in jurors:
            sheets[(problem.pk, juror.pk)] = Sheet(
                juror=juror, problem=problem, state=Sheet.State.SUBMITTED, submitted_at=now
            )
        for index, paper in enumerate(papers):
            graders[(problem.pk, paper.pk)] = [
                jurors[(index + j) % JURORS] for j in range(PER_PAPER)
            ]
    Sheet.objects.bulk_create(sheets.values())
    Assignment.objects.bulk_create(
        (
            Assignment(paper_id=paper_id, problem_id=problem_id, juror=juror)
            for (problem_id, paper_id), jurors in graders.items()
            for juror in jurors
        ),
        batch_size=5000,
    )
    steps = [Decimal(n) / 2 for n in range(11)]
    marks = [
        Mark(
            sheet=sheets[(criterion.problem_id, juror.pk)],
            paper=paper,
            criterion=criterion,
            points=points,
            version=1,
        )
        for criterion in criteria
        for paper in papers
        for points in [steps[rng.randrange(len(steps))]]
        for juror in graders[(criterion.problem_id, paper.pk)]
    ]
    Mark.objects.bulk_create(marks, batch_size=5000)
    ProvisionalResult.objects.bulk_create(
        ProvisionalResult(
            paper=paper,
            total=Decimal(rng.randrange(0, 1000)) / 10,
            rank=rank,
            medal="",
            published_at=now,
        )
        for rank, paper in enumerate(papers, start=1)
    )
    roles.ensure_role_groups()
    leader = User.objects.create(username=f"leader-{contestants}", first_name="Lea")
    leader.groups.add(Group.objects.get(name=roles.LEADER))
    delegations[0].leaders.add(leader)
    summary = (
        f"{contestants} contestants in {len(delegations)} delegations, {len(marks)} marks, "
        f"{contestants * PROBLEMS * SCANS} scanned pages"
    )
    return contest, leader, papers[0].public_code, summary


if __name__ == "__main__":
    main()
