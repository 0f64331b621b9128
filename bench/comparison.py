"""A problem's comparison as the chair opens it, at 25 and at 255 papers: the page's time at the
large size against the small one in one run, its queries at each size, and a profile of the
large page (cProfile, the ten functions that take the most time of their own).

The contest has the real shape of the page's grid (issue 32's measure): 5 problems of 15
criteria, a group of 8 jurors per problem, 2 jurors a paper (3 on problem 3), every sheet
submitted, a few percent of the cells disagreeing, the chair having decided a third of those.
Every problem is graded, as the comparison reads the whole contest's marks for the
medal-straddle flag. Written with `bulk_create` as bench/pages.py writes its contests; timed
through Django's WSGI handler with DEBUG off, the sizes taking turns, medians.

Run: .venv/bin/python bench/comparison.py [--query "all=1"] [--no-profile] [--sort cumtime]
(prints: name  measured  goal  met/not met)"""

import argparse
import cProfile
import io
import pstats
import random
import statistics
import sys
import time
from decimal import Decimal

# bench/ is on the path when a script runs, as Python puts its folder first.
from _throwaway import throwaway_database

SMALL, LARGE = 25, 255
PROBLEMS, CRITERIA, GROUP = 5, 15, 8
DISAGREE = 0.015
ROUNDS = 9
# The goal for the comparison of one problem, 25 → 255 contestants.
GOAL = 2.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--query", default="", help="the page's query string, e.g. all=1")
    parser.add_argument("--no-profile", action="store_true", help="no cProfile of the large page")
    parser.add_argument("--sort", default="tottime", help="the profile's order (pstats' keys)")
    parser.add_argument("--top", type=int, default=10, help="how many functions the profile lists")
    args = parser.parse_args()
    with throwaway_database():
        _run(args.query, profile=(not args.no_profile) and (args.sort, args.top))


def _run(query: str, *, profile) -> None:
    started = time.perf_counter()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from grading.rules import roles
    from tests import factories

    chair = factories.make_user("bench-chair", roles.CHAIR)
    urls = {}
    for size in (SMALL, LARGE):
        contest = build(size, chair)
        urls[size] = reverse("comparison", args=[contest.slug, 1]) + (f"?{query}" * bool(query))
    print(f"# set-up {time.perf_counter() - started:.1f} s", file=sys.stderr)

    client = Client(HTTP_HOST="localhost")
    client.force_login(chair)
    queries, sizes = {}, {}
    for size in (SMALL, LARGE):
        # Also the warm-up: templates compiled, caches filled, before any timing.
        with CaptureQueriesContext(connection) as captured:
            response = client.get(urls[size])
        assert response.status_code == 200, (urls[size], response.status_code)
        queries[size], sizes[size] = len(captured), len(response.content)

    def get(size):
        # Through the WSGI handler, as bench/pages.py: the test client keeps every template's
        # context alive, which no server does.
        environ = client._base_environ(
            PATH_INFO=urls[size].partition("?")[0],
            QUERY_STRING=urls[size].partition("?")[2],
            REQUEST_METHOD="GET",
        )
        response = client.handler(environ)
        assert response.status_code == 200

    times = {SMALL: [], LARGE: []}
    for _ in range(ROUNDS):
        for size in (SMALL, LARGE):
            start = time.perf_counter()
            get(size)
            times[size].append(time.perf_counter() - start)
    ms = {size: statistics.median(values) * 1000 for size, values in times.items()}
    for size in (SMALL, LARGE):
        print(
            f"# {size} papers: {ms[size]:.0f} ms (median of {ROUNDS}), {queries[size]} queries, "
            f"{sizes[size] / 1000:.0f} kB",
            file=sys.stderr,
        )
    ratio = ms[LARGE] / ms[SMALL]
    print(
        f"comparison_{LARGE}_vs_{SMALL}_papers  {ratio:.2f}x  <={GOAL:g}x  "
        + ("met" if ratio <= GOAL else "not met")
    )
    same = queries[SMALL] == queries[LARGE]
    print(
        f"comparison_queries_{LARGE}_vs_{SMALL}  {queries[LARGE]} == {queries[SMALL]}  "
        + ("met" if same else "not met")
    )
    if profile:
        profiler = cProfile.Profile()
        profiler.runcall(get, LARGE)
        out = io.StringIO()
        sort, top = profile
        pstats.Stats(profiler, stream=out).sort_stats(sort).print_stats(top)
        print(out.getvalue(), file=sys.stderr)
    print(f"# comparison.py took {time.perf_counter() - started:.0f} s", file=sys.stderr)


def build(papers: int, chair):
    """A contest in the resolution phase with `papers` papers and the shape above."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from grading.intake.labels import paper_labels_ensure
    from grading.models import (
        Assignment,
        Comment,
        GradingGroup,
        Mark,
        Paper,
        Resolution,
        Sheet,
        draw_public_code,
    )
    from rubrics.models import Contest, Criterion, MedalCutoff, Problem

    rng = random.Random(papers)
    contest = Contest.objects.create(
        slug=f"cmp-{papers}", name=f"Comparison {papers}", state=Contest.State.RESOLUTION
    )
    MedalCutoff.objects.bulk_create(
        MedalCutoff(contest=contest, name=name, min_total=Decimal(minimum), order=order)
        for order, (name, minimum) in enumerate(
            (("gold", "70.0"), ("silver", "50.5"), ("bronze", "35.0")), start=1
        )
    )
    problems = Problem.objects.bulk_create(
        Problem(contest=contest, number=n, title=f"Problem {n}") for n in range(1, PROBLEMS + 1)
    )
    criteria = Criterion.objects.bulk_create(
        Criterion(
            problem=problem,
            code=f"C{order + 1}",
            kind="assignment",
            title=f"criterion {order + 1}",
            points=Decimal("2"),
            step=Decimal("0.5"),
            tolerance=Decimal("0"),
            order=order,
        )
        for problem in problems
        for order in range(CRITERIA)
    )
    codes: set[str] = set()
    paper_rows = Paper.objects.bulk_create(
        Paper(contest=contest, identity=f"c-{index}", public_code=draw_public_code(codes))
        for index in range(papers)
    )
    paper_labels_ensure(contest=contest)
    group_of, sheet_of = {}, {}
    for problem in problems:
        jurors = User.objects.bulk_create(
            User(username=f"j-{papers}-{problem.number}-{j}") for j in range(GROUP)
        )
        GradingGroup.objects.create(problem=problem).jurors.add(*jurors)
        group_of[problem.pk] = jurors
        for juror in jurors:
            sheet_of[(problem.pk, juror.pk)] = Sheet(
                juror=juror,
                problem=problem,
                state=Sheet.State.SUBMITTED,
                submitted_at=timezone.now(),
            )
    Sheet.objects.bulk_create(sheet_of.values())
    graders = {
        (problem.pk, paper.pk): [
            group_of[problem.pk][(index + j) % GROUP]
            for j in range(3 if problem.number == 3 else 2)
        ]
        for problem in problems
        for index, paper in enumerate(paper_rows)
    }
    Assignment.objects.bulk_create(
        (
            Assignment(paper_id=paper_id, problem_id=problem_id, juror=juror)
            for (problem_id, paper_id), jurors in graders.items()
            for juror in jurors
        ),
        batch_size=5000,
    )
    steps = [Decimal(n) / 2 for n in range(5)]
    marks, resolutions, comments = [], [], []
    for criterion in criteria:
        for paper in paper_rows:
            base = rng.randrange(len(steps))
            jurors = graders[(criterion.problem_id, paper.pk)]
            odd = rng.randrange(len(jurors)) if rng.random() < DISAGREE * len(jurors) else None
            for position, juror in enumerate(jurors):
                shift = (2 if base + 2 < len(steps) else -2) if position == odd else 0
                marks.append(
                    Mark(
                        sheet=sheet_of[(criterion.problem_id, juror.pk)],
                        paper=paper,
                        criterion=criterion,
                        points=steps[base + shift],
                        version=1,
                    )
                )
            if odd is None:
                continue
            comments.append(
                Comment(paper=paper, criterion=criterion, author=jurors[odd], text="Item 2?")
            )
            if rng.random() < 1 / 3:
                resolutions.append(
                    Resolution(
                        paper=paper,
                        criterion=criterion,
                        kind=Resolution.Kind.CHAIR,
                        points=steps[base],
                        reason="Rule 2 is stated.",
                        decided_by=chair,
                    )
                )
    Mark.objects.bulk_create(marks, batch_size=5000)
    Comment.objects.bulk_create(comments)
    Resolution.objects.bulk_create(resolutions)
    return contest


if __name__ == "__main__":
    main()
