"""The pages of the resolution phase as the chair opens them: a problem's comparison, the chair's
queue and the results, at 100 and at 1,000 papers.

A throw-away SQLite database with the application's own settings (WAL, immediate transactions)
and Django's test client logged in as the chair, with DEBUG off so that queries are not recorded
while timing. Each size is a contest of N papers × 5 problems; each problem has a group of four
jurors, three of whom grade each paper, four criteria, every sheet submitted; a few percent of
the cells disagree and the chair has decided about a third of those. The data is written with
`bulk_create`: nothing derived is kept, so nothing needs rebuilding. The sizes take turns within
each round and every figure is a median; each page's query count is taken once per size, apart
from the timing.

Run: .venv/bin/python bench/pages.py   (prints: name  ratio  goal  met/not met)"""

import random
import statistics
import sys
import time
from decimal import Decimal

# bench/ is on the path when a script runs, as Python puts its folder first.
from _throwaway import throwaway_database

SMALL, LARGE = 100, 1000
PROBLEMS, GROUP, PER_PAPER = 5, 4, 3
# Four criteria of 5 points per problem; the last one has a tolerance, as theory criteria often do.
CRITERIA = (("A1", "0"), ("A2", "0"), ("A3", "0"), ("T1", "0.5"))
# A juror's mark moves one step away from the others' in this share of the cells.
DISAGREE = 0.015
ROUNDS = 15
# Linear would be 10×; the 5 % above it leaves room for measurement noise only.
GOAL = 10.5
PAGES = ("comparison_page", "chair_queue", "results_page")


def main() -> None:
    with throwaway_database():
        _run()


def _run() -> None:
    started = time.perf_counter()

    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from grading.rules import roles
    from tests import factories

    chair = factories.make_user("bench-chair", roles.CHAIR)
    urls, described = {}, []
    for size in (SMALL, LARGE):
        contest, summary = build(size, chair)
        described.append(summary)
        urls[size] = {
            "comparison_page": reverse("comparison", args=[contest.slug, 1]),
            "chair_queue": reverse("chair_queue", args=[contest.slug]),
            "results_page": reverse("results", args=[contest.slug]),
        }
    print(
        f"# set-up {time.perf_counter() - started:.1f} s: " + "; ".join(described), file=sys.stderr
    )

    client = Client(HTTP_HOST="localhost")
    client.force_login(chair)
    queries = {}
    for size in (SMALL, LARGE):
        for page, url in urls[size].items():
            # Also the warm-up: templates compiled, caches filled, before any timing.
            with CaptureQueriesContext(connection) as captured:
                response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
            queries[(page, size)] = len(captured)

    times = {(page, size): [] for page in PAGES for size in (SMALL, LARGE)}
    for _ in range(ROUNDS):
        # Pages and sizes take turns, so that a change of load on the machine hits them all alike.
        for page in PAGES:
            for size in (SMALL, LARGE):
                # Through the client's WSGI handler rather than `client.get`: the test client
                # records every template's context (the 1,000-paper results included) and keeps
                # it alive, which no server does. The answer is dropped at once, as a server does.
                environ = client._base_environ(PATH_INFO=urls[size][page], REQUEST_METHOD="GET")
                start = time.perf_counter()
                response = client.handler(environ)
                times[(page, size)].append(time.perf_counter() - start)
                assert response.status_code == 200
                del response
    ms = {key: statistics.median(values) * 1000 for key, values in times.items()}

    for page in PAGES:
        print(
            f"# {page}: {SMALL} papers {ms[(page, SMALL)]:.0f} ms, "
            f"{LARGE} papers {ms[(page, LARGE)]:.0f} ms (median of {ROUNDS})",
            file=sys.stderr,
        )
    for page in PAGES:
        ratio = ms[(page, LARGE)] / ms[(page, SMALL)]
        met = "met" if ratio <= GOAL else "not met"
        print(f"{page}_{LARGE}_vs_{SMALL}_papers  {ratio:.2f}x  <={GOAL:g}x  {met}")
    for page in PAGES:
        small, large = queries[(page, SMALL)], queries[(page, LARGE)]
        met = "met" if small == large else "not met"
        print(f"{page}_queries_{LARGE}_vs_{SMALL}  {large} == {small}  {met}")
    print(f"# pages.py took {time.perf_counter() - started:.0f} s", file=sys.stderr)


def build(papers: int, chair):
    """A contest in the resolution phase with `papers` papers, written with bulk_create (the
    services' validation and history are not what is measured); returns it with a summary."""
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
        slug=f"bench-{papers}", name=f"Bench {papers}", state=Contest.State.RESOLUTION
    )
    MedalCutoff.objects.bulk_create(
        MedalCutoff(contest=contest, name=name, min_total=Decimal(minimum), order=order)
        for order, (name, minimum) in enumerate(
            (("gold", "70.0"), ("silver", "58.4"), ("honourable mention", "35.3")), start=1
        )
    )
    problems = Problem.objects.bulk_create(
        Problem(contest=contest, number=n, title=f"Problem {n}") for n in range(1, PROBLEMS + 1)
    )
    criteria = Criterion.objects.bulk_create(
        Criterion(
            problem=problem,
            code=code,
            kind="assignment" if code.startswith("A") else "theory",
            title=f"criterion {code}",
            points=Decimal("5"),
            step=Decimal("0.5"),
            tolerance=Decimal(tolerance),
            order=order,
        )
        for problem in problems
        for order, (code, tolerance) in enumerate(CRITERIA)
    )
    # bulk_create skips Paper.save, which draws each paper's public code: drawn here instead.
    codes: set[str] = set()
    paper_rows = Paper.objects.bulk_create(
        Paper(
            contest=contest,
            identity=f"system-{index}",
            metadata={"team": f"team {index}"},
            public_code=draw_public_code(codes),
        )
        for index in range(papers)
    )
    paper_labels_ensure(contest=contest)

    group_of, sheet_of = {}, {}
    for problem in problems:
        jurors = User.objects.bulk_create(
            User(username=f"juror-{papers}-{problem.number}-{j}") for j in range(GROUP)
        )
        group = GradingGroup.objects.create(problem=problem)
        group.jurors.add(*jurors)
        group_of[problem.pk] = jurors
        for juror in jurors:
            sheet_of[(problem.pk, juror.pk)] = Sheet(
                juror=juror,
                problem=problem,
                state=Sheet.State.SUBMITTED,
                submitted_at=timezone.now(),
            )
    Sheet.objects.bulk_create(sheet_of.values())

    # Each paper goes to three of the group's four jurors, in turn.
    graders = {
        (problem.pk, paper.pk): [
            group_of[problem.pk][(index + j) % GROUP] for j in range(PER_PAPER)
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

    steps = [Decimal(n) / 2 for n in range(11)]
    marks, resolutions, comments, disagreeing = [], [], [], 0
    for criterion in criteria:
        for paper in paper_rows:
            base = rng.randrange(len(steps))
            jurors = graders[(criterion.problem_id, paper.pk)]
            odd = rng.randrange(PER_PAPER) if rng.random() < DISAGREE * PER_PAPER else None
            for position, juror in enumerate(jurors):
                shift = 0
                if position == odd:
                    # Two steps: beyond the 0.5 tolerance too, so that the cell is open.
                    shift = 2 if base + 2 < len(steps) else -2
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
            disagreeing += 1
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
    cells = len(criteria) * papers
    summary = (
        f"{papers} papers, {len(marks)} marks, {disagreeing} of {cells} cells disagreeing "
        f"({100 * disagreeing / cells:.1f} %), {len(resolutions)} decided by the chair"
    )
    return contest, summary


if __name__ == "__main__":
    main()
