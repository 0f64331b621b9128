"""The comparison and the results say where marks given under different scheme versions meet,
in a fixed number of queries."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.models import Mark
from grading.resolution.comparison import contest_results, problem_comparison
from grading.resolution.decisions import mark_revise
from grading.rules.schemes import versions_met
from grading.schemes.amend import scheme_amend
from tests.grading import scenario

pytestmark = pytest.mark.django_db


def test_the_sentence_names_every_version_that_meets():
    assert versions_met([1, 1]) == ""
    assert versions_met([2, 1, 2]) == "marks given under scheme versions 1 and 2"
    assert versions_met([3, 1, 2]) == "marks given under scheme versions 1, 2 and 3"


def _mixed():
    """Heron's P1 A1: alice and dan marked under version 1, bob revised under version 2."""
    return _mixed_from(scenario.build())


def _queries(call) -> int:
    with CaptureQueriesContext(connection) as queries:
        call()
    return len(queries)


def test_the_comparison_says_where_marks_of_two_versions_meet(client):
    graded = scenario.build()
    p1 = graded["problems"][1]
    before = _queries(lambda: problem_comparison(p1))
    assert problem_comparison(p1).versions_met == []
    graded = _mixed_from(graded)
    comparison = problem_comparison(p1)
    heron = scenario.label(graded, "Team Heron", 1)
    assert comparison.versions_met == [(heron, "A1", "marks given under scheme versions 1 and 2")]
    assert _queries(lambda: problem_comparison(p1)) == before
    client.force_login(graded["chair"])
    page = client.get(reverse("comparison", args=[graded["contest"].slug, 1]))
    html = page.content.decode()
    assert (
        f"<li>Paper {heron}, criterion A1: marks given under scheme versions 1 and 2.</li>" in html
    )
    # The grid's cell says it too, in its tag and in its link's title; no other cell does.
    tag = '<span class="tag versions" title="marks given under scheme versions 1 and 2">'
    assert html.count(tag) == 1
    row = html[html.index(f'<tr id="paper-{heron}">') :]
    row = row[: row.index("</tr>")]
    assert tag in row and ', marks given under scheme versions 1 and 2">' in row


def _mixed_from(graded):
    scenario.open_resolution(graded)
    scheme_amend(
        graded["problems"][1],
        changes={"A1": {"guidance": "The article is optional."}},
        reason="Agreed in the group.",
        actor=graded["chair"],
    )
    bob = Mark.objects.get(
        sheet__juror=graded["users"]["bob"],
        paper=graded["papers"]["Team Heron"],
        criterion__code="A1",
    )
    mark_revise(mark=bob, points=Decimal("8"), actor=graded["users"]["bob"])
    return graded


def test_the_results_say_which_paper_s_problem_has_marks_of_two_versions(client):
    graded = _mixed()
    results = contest_results(graded["contest"])
    met = {paper.public_code: paper.versions_met for paper in results.papers}
    heron = graded["papers"]["Team Heron"].public_code
    assert met == {
        code: ({1: "marks given under scheme versions 1 and 2"} if code == heron else {})
        for code in met
    }
    client.force_login(graded["chair"])
    page = client.get(reverse("results", args=[graded["contest"].slug]))
    assert (
        page.content.decode().count(
            '<small class="versions-met">marks given under scheme versions 1 and 2</small>'
        )
        == 1
    )
