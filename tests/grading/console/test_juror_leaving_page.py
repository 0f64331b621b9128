"""The console's page for a juror who leaves during grading: choose them and the reason, see
what moves (nothing written), confirm; refusals said on the page; a fixed number of queries."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.marking.sheets import sheet_get_or_create
from grading.models import Assignment, AssignmentMove, GradingGroup, JurorProfile
from grading.rules import roles
from tests.factories import make_contest, make_user
from tests.grading.scenario import grade


@pytest.fixture
def client(organizer):
    client = Client()
    client.force_login(organizer)
    return client


def _contest(slug: str, papers: int):
    """One problem whose papers ann and ben grade; cat is in the group with none. ann has
    graded the first paper."""
    contest = make_contest(slug, problems=1, papers=papers)
    problem = contest.problems.get()
    jurors = [make_user(f"{name}-{slug}", roles.JUROR) for name in ("ann", "ben", "cat")]
    GradingGroup.objects.create(problem=problem).jurors.add(*jurors)
    Assignment.objects.bulk_create(
        Assignment(paper=paper, problem=problem, juror=juror)
        for paper in contest.papers.all()
        for juror in jurors[:2]
    )
    for juror in jurors:
        sheet_get_or_create(juror=juror, problem=problem)
    grade(jurors[0], problem, contest.papers.order_by("pk").first(), "12", "8")
    return contest, jurors


def test_the_preview_says_what_moves_and_writes_nothing_then_confirming_moves(client, db):
    contest, (ann, ben, cat) = _contest("iol", 3)
    url = reverse("console:juror_leaving", args=["iol"])
    page = client.get(url)
    assert [choice[1] for choice in page.context["form"].fields["juror"].choices][1:] == [
        ann.username,
        ben.username,
        cat.username,
    ]
    data = {"juror": ann.username, "reason": "ill from Tuesday"}
    preview = client.post(url, data)
    assert preview.status_code == 200
    assert preview.context["plan"].sentences() == [
        f"P1: 2 ungraded papers move to colleagues ({cat.username} 2).",
        f"P1: 1 graded paper stays with {ann.username}; those marks count once their sheet is "
        "submitted, or the chair decides.",
    ]
    assert not AssignmentMove.objects.exists()
    done = client.post(reverse("console:juror_leaving_confirm", args=["iol"]), data, follow=True)
    assert [str(m) for m in done.context["messages"]][0] == (
        f"{ann.username} is unavailable from now; 2 papers moved to colleagues."
    )
    assert AssignmentMove.objects.count() == 2
    assert JurorProfile.objects.get(user=ann).unavailable_since is not None


def test_a_refusal_is_said_on_the_page_and_writes_nothing(client, db):
    contest, (ann, _, _) = _contest("iol", 2)
    contest.state = "final"
    contest.save(update_fields=["state"])
    response = client.post(
        reverse("console:juror_leaving_confirm", args=["iol"]),
        {"juror": ann.username, "reason": "ill"},
    )
    assert response.status_code == 403
    assert response.context["form"].non_field_errors() == [
        "Contest iol is final: its papers' assignments to jurors are read-only. An organizer "
        "can reopen it, with a reason, from its results page."
    ]
    assert not AssignmentMove.objects.exists()


def test_jurors_and_the_chair_get_a_404(db, chair):
    contest, (ann, _, _) = _contest("iol", 2)
    for user in (ann, chair):
        client = Client()
        client.force_login(user)
        assert client.get(reverse("console:juror_leaving", args=["iol"])).status_code == 404


@pytest.mark.parametrize("papers", [2, 20])
def test_the_preview_runs_a_fixed_number_of_queries(client, db, papers):
    contest, (ann, _, _) = _contest(f"q{papers}", papers)
    url = reverse("console:juror_leaving", args=[contest.slug])
    with CaptureQueriesContext(connection) as queries:
        response = client.post(url, {"juror": ann.username, "reason": "ill"})
    assert len(response.context["plan"].moves) == papers - 1
    # 4 of them for the papers that sit with a juror in conflict (none here), 3 more for those
    # of them graded before the conflict came to light, waiting for the chair (none here
    # either), and 1 for the declared conflicts among the facts the solver places the papers by.
    assert len(queries) == 35
