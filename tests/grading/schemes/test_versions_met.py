"""The comparison and the results say where marks given under different scheme versions meet,
in a fixed number of queries."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.marking.marks import mark_set
from grading.models import Mark
from grading.resolution.comparison import contest_results, problem_comparison
from grading.resolution.decisions import mark_revise
from grading.rules.schemes import problem_versions_met, versions_met
from grading.schemes.amend import scheme_amend
from tests.grading import scenario

pytestmark = pytest.mark.django_db


def test_the_sentence_names_every_version_that_meets():
    assert versions_met([1, 1]) == ""
    assert versions_met([2, 1, 2]) == "marks given under scheme versions 1 and 2"
    assert versions_met([3, 1, 2]) == "marks given under scheme versions 1, 2 and 3"


def test_a_problem_s_sentence_names_only_the_versions_that_meet_in_one_cell():
    # A1's marks all of version 1, T1's all re-confirmed under version 3: nothing meets.
    assert problem_versions_met([{1}, {3}]) == ""
    assert problem_versions_met([{1}, {1, 3}, {2}]) == "marks given under scheme versions 1 and 3"
    assert problem_versions_met([]) == ""


def test_once_every_reopened_mark_is_re_confirmed_no_total_says_that_versions_meet(client):
    """Issue 31, finding 13: after every mark was re-confirmed, every total still carried
    "marks given under scheme versions 1 and 3" (A1's marks of version 1 beside T1's
    re-confirmed under version 3, in different cells)."""
    graded = scenario.build()
    p1, chair = graded["problems"][1], graded["chair"]
    scheme_amend(p1, changes={"A1": {"guidance": "Say it."}}, reason="Wording.", actor=chair)
    version = scheme_amend(
        p1, changes={"T1": {"tolerance": "0.5"}}, reason="Half a point apart agrees.", actor=chair
    )
    assert version.number == 3
    for mark in Mark.objects.filter(reopened_by=version).select_related("sheet__juror"):
        mark_set(mark=mark, points=mark.points, actor=mark.sheet.juror, channel="browser")
    assert sorted(
        set(Mark.objects.filter(sheet__problem=p1).values_list("criterion__code", "scheme_version"))
    ) == [
        ("A1", 1),
        ("T1", 3),
    ]
    results = contest_results(graded["contest"])
    assert [paper.versions_met for paper in results.papers] == [{}, {}, {}]
    assert problem_comparison(p1).versions_met == []
    client.force_login(chair)
    page = client.get(reverse("results", args=[graded["contest"].slug]))
    assert "versions-met" not in page.content.decode()

    # Positive control: a mark re-marked under version 3 beside two of version 1 in one cell.
    scenario.open_resolution(graded)
    bob = Mark.objects.get(
        sheet__juror=graded["users"]["bob"],
        paper=graded["papers"]["Team Heron"],
        criterion__code="A1",
    )
    mark_revise(mark=bob, points=Decimal("8"), actor=graded["users"]["bob"])
    heron = graded["papers"]["Team Heron"].public_code
    assert {
        paper.public_code: paper.versions_met for paper in contest_results(graded["contest"]).papers
    } == {
        code: ({1: "marks given under scheme versions 1 and 3"} if code == heron else {})
        for code in (paper.public_code for paper in results.papers)
    }


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
