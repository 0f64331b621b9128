"""Query-count guards for the pages of the resolution phase: each runs the same number of queries
for 4 papers as for 40, read by the chair, so that a query per paper, per cell or per comment
shows up here before a jury of a thousand papers feels it."""

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from grading.console.contest_life import contest_resolution_open
from grading.models import Mark, PaperLabel
from grading.resolution.comparison import problem_comparison
from grading.resolution.decisions import comment_add, discrepancy_decide, mark_revise
from grading.rules import roles
from tests.factories import make_user
from tests.grading.results.test_results import _graded_contest

D = Decimal
SMALL, LARGE = 4, 40


def _discussed_contest(papers: int, chair) -> dict:
    """`_graded_contest` in the resolution phase, with a history that grows with its size: on
    the first paper's open T1 cell bob revises his mark, everyone comments and the chair
    decides, papers // 4 times each; the chair also decides the other open cells but one."""
    contest = _graded_contest(papers)
    contest_resolution_open(contest=contest, actor=chair)
    problem = contest.problems.get(number=1)
    t1 = problem.criteria.get(code="T1")
    first, *others = contest.papers.order_by("pk")
    alice, bob = (User.objects.get(username=f"{name}{papers}") for name in ("alice", "bob"))
    bob_mark = Mark.objects.get(sheet__juror=bob, paper=first, criterion=t1)
    for round_ in range(papers // 4):
        # 3 and 4 against alice's 2: the cell stays open for the chair.
        mark_revise(mark=bob_mark, points=D(3 + round_ % 2), actor=bob)
        for author in (alice, bob, chair):
            comment_add(paper=first, criterion=t1, author=author, text=f"Round {round_}.")
    for round_ in range(papers // 4):
        discrepancy_decide(
            paper=first, criterion=t1, points=D(2 + round_ % 3), reason="Rule 2.", actor=chair
        )
    # Papers 0, 2, 4, … disagree on T1; the first is decided above and one is left open.
    for paper in others[1::2][1:]:
        discrepancy_decide(paper=paper, criterion=t1, points=D("3"), reason="Half.", actor=chair)
    label = PaperLabel.objects.get(paper=first, problem=problem).label
    return {"contest": contest, "label": label, "code": first.public_code}


def _url(page: str, discussed: dict) -> str:
    slug = discussed["contest"].slug
    return {
        "comparison": reverse("comparison", args=[slug, 1]),
        "comparison_totals": reverse("comparison", args=[slug, 1]) + "?view=totals",
        "comparison_criterion": reverse("comparison", args=[slug, 1]) + "?criterion=T1",
        "comparison_discrepancies": reverse("comparison", args=[slug, 1]) + "?only=discrepancies",
        "comparison_read": reverse("comparison", args=[slug, 1])
        + f"?criterion=T1&read={discussed['label']}",
        "discussion": reverse("discussion", args=[slug, 1, discussed["label"], "T1"]),
        "queue": reverse("chair_queue", args=[slug]),
        "queue_filtered": reverse("chair_queue", args=[slug])
        + "?problem=1&status=any&straddle=1&label=A",
        "results": reverse("results", args=[slug]),
        "results_paper": reverse("results_paper", args=[slug, discussed["code"]]),
        "export": reverse("results_export", args=[slug, "csv"]),
        "export_long": reverse("results_export", args=[slug, "csv"]) + "?table=long",
    }[page]


@pytest.mark.parametrize(
    ("page", "queries"),
    # Each page extending the base page counts the reader's unread notifications (its header).
    [
        # The problem's own reads (`problem_comparison`, ten queries), the straddles of the
        # papers shown (`read_straddles`, one) and the page's. Each read that counts marks asks
        # the jurors' countries once (`grading.rules.counting`).
        ("comparison", 16),
        ("comparison_totals", 16),
        ("comparison_criterion", 16),
        ("comparison_discrepancies", 16),
        # A paper opened in the one-criterion view: the paper, its solutions and tasks, its pages.
        ("comparison_read", 20),
        # The cell, its marks, history, comments and resolution, the criterion's tasks and the
        # paper's solutions, its scanned pages, its translation notes, and the header's inbox
        # count.
        ("discussion", 19),
        # The results' with marks, the comments' counts and the header's inbox count, filtered
        # or not.
        ("queue", 16),
        ("queue_filtered", 16),
        ("results", 15),
        # The paper, its assignments, marks, resolutions, blank problems and the criteria, and the
        # header's count.
        ("results_paper", 12),
        # The results with the automatic scorer's three queries (the wide table's `score`).
        ("export", 16),
        ("export_long", 14),
    ],
)
def test_each_resolution_page_runs_the_same_queries_for_4_and_40_papers(
    db, client, django_assert_num_queries, page, queries
):
    chair = make_user("chen", roles.CHAIR)
    discussed_contests = [_discussed_contest(papers, chair) for papers in (SMALL, LARGE)]
    client.force_login(chair)
    for discussed in discussed_contests:
        with django_assert_num_queries(queries):
            response = client.get(_url(page, discussed))
        assert response.status_code == 200


def test_a_problems_comparison_reads_in_ten_queries_for_4_and_40_papers(
    db, django_assert_num_queries
):
    chair = make_user("chen", roles.CHAIR)
    for papers in (SMALL, LARGE):
        problem = _discussed_contest(papers, chair)["contest"].problems.get(number=1)
        with django_assert_num_queries(10):
            data = problem_comparison(problem)
        assert len(data.rows) == papers


def test_the_queue_walks_step_in_the_same_queries_for_4_and_40_papers(
    db, client, django_assert_num_queries
):
    chair = make_user("chen", roles.CHAIR)
    worlds = [_discussed_contest(papers, chair) for papers in (SMALL, LARGE)]
    client.force_login(chair)
    for world in worlds:
        step = reverse("chair_queue_step", args=[world["contest"].slug])
        # The queue's reads, the session's walk saved, and the messages.
        with django_assert_num_queries(18):
            response = client.get(step, {"at": f"1:{world['label']}:T1"})
        assert response.status_code == 302
