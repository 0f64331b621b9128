"""A problem a contestant left blank is "no answer": no juror is assigned to it, it is worth 0
points without a mark, it is settled (finalizing does not wait for it), and the results page,
its per-paper cells, the exports and the backup all say so."""

import csv
import io
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from grading.assigning.assignments import assignments_create, unassigned_papers
from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.marking.marks import mark_set
from grading.marking.selectors import sheet_grid
from grading.marking.sheets import sheet_submit
from grading.models import Assignment, GradingGroup, Mark, PaperLabel, Sheet
from grading.resolution.comparison import contest_results
from grading.results import exports
from grading.rules import roles
from grading.rules.domain import ZERO, CellStatus
from tests.crawl import refetched, shared_data
from tests.factories import make_contest, make_user
from tests.grading import scenario
from tests.grading.backup.backup_helpers import forget_everything


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _build_graded():
    """Two papers in two problems; the second paper's contestant left problem 2 blank. Two
    jurors per problem are assigned by the service, mark every cell they have 5 and 3, and
    submit."""
    contest = make_contest("iol", problems=2, papers=2, identities=["H-answered", "H-blank"])
    blank_paper = contest.papers.get(identity="H-blank")
    PaperLabel.objects.filter(paper=blank_paper, problem__number=2).update(blank=True)
    jurors = [make_user(name, roles.JUROR) for name in ("alice", "bob")]
    for problem in contest.problems.all():
        GradingGroup.objects.create(problem=problem).jurors.add(*jurors)
    assignments_create(contest=contest, per_problem=2)
    for mark in Mark.objects.select_related("sheet", "criterion"):
        mark_set(
            mark=mark,
            points=min(mark.criterion.points, 5),
            actor=mark.sheet.juror,
            channel="browser",
        )
    for sheet in Sheet.objects.all():
        sheet_submit(sheet=sheet, actor=sheet.juror)
    return {"contest": contest, "blank": blank_paper, "jurors": jurors}


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield _build_graded()


@pytest.fixture
def graded(graded_once, db):
    return refetched(graded_once)


def test_no_juror_is_assigned_to_a_problem_left_blank_and_no_sheet_lists_it(graded):
    assert sorted(
        Assignment.objects.values_list("paper__identity", "problem__number", "juror__username")
    ) == [
        ("H-answered", 1, "alice"),
        ("H-answered", 1, "bob"),
        ("H-answered", 2, "alice"),
        ("H-answered", 2, "bob"),
        ("H-blank", 1, "alice"),
        ("H-blank", 1, "bob"),
    ]
    sheet = Sheet.objects.get(juror__username="alice", problem__number=2)
    labels = PaperLabel.objects.filter(problem__number=2).order_by("paper__identity")
    assert [row.label for row in sheet_grid(sheet=sheet).rows] == [labels[0].label]
    assert unassigned_papers(graded["contest"]) == {1: 0, 2: 0}


def test_a_problem_left_blank_is_no_answer_worth_0_and_settled(graded):
    results = contest_results(graded["contest"])
    paper = results.paper(graded["blank"].pk)
    blank_cells = [cell for cell in paper.cells.values() if cell.criterion.problem.number == 2]
    assert [(cell.status, cell.points) for cell in blank_cells] == [
        (CellStatus.NO_ANSWER, ZERO),
        (CellStatus.NO_ANSWER, ZERO),
    ]
    assert paper.blank_problems == {2}
    assert paper.problem_points == {1: 10, 2: 0}
    assert paper.provisional is False
    assert results.pending_cells == []


def test_the_results_page_and_a_papers_cells_say_no_answer(graded, client):
    chair = make_user("chen", roles.CHAIR)
    client.force_login(chair)
    page = client.get(reverse("results", args=["iol"])).content.decode()
    code = graded["blank"].public_code
    row = re.search(rf'<tr id="result-{code}">(.*?)</tr>', page, re.S).group(1)
    cells = re.findall(r'<td class="num" data-problem="(\d)">(.*?) <small', row, re.S)
    assert cells == [("1", "10"), ("2", '<span class="no-answer">no answer</span>')]

    listed = client.get(
        reverse("results_paper", args=["iol", code]), headers={"HX-Request": "true"}
    )
    items = [
        re.sub(r"</?small>", "", item)
        for item in re.findall(r"<li>(.*?)</li>", listed.content.decode())
    ]
    assert items == [
        "P1 A1: 5 agreed",
        "P1 T1: 5 agreed",
        "P2 A1: 0 no answer",
        "P2 T1: 0 no answer",
    ]


def test_the_exports_say_no_answer(graded):
    results = contest_results(graded["contest"], with_marks=True)
    wide = list(
        csv.DictReader(
            io.StringIO(
                exports.results_export(results, long=False, identities=False, fmt="csv").decode(
                    "utf-8-sig"
                )
            )
        )
    )
    assert [(row["paper"], Decimal(row["P2"]), row["no answer"]) for row in wide] == [
        (paper.public_code, paper.problem_points[2], "P2" if paper.blank_problems else "")
        for paper in results.papers
    ]
    assert sorted(row["no answer"] for row in wide) == ["", "P2"]
    long = list(
        csv.DictReader(
            io.StringIO(
                exports.results_export(results, long=True, identities=False, fmt="csv").decode(
                    "utf-8-sig"
                )
            )
        )
    )
    blank_rows = [
        (row["problem"], row["criterion"], Decimal(row["agreed"]), row["how"])
        for row in long
        if row["paper"] == graded["blank"].public_code
    ]
    assert blank_rows == [
        ("1", "A1", 5, "agreed"),
        ("1", "T1", 5, "agreed"),
        ("2", "A1", 0, "no answer"),
        ("2", "T1", 0, "no answer"),
    ]


def test_a_backup_carries_problems_left_blank_and_an_older_backup_has_none(graded):
    document = contest_export(contest=graded["contest"])
    assert [(paper["identity"], paper["blank_problems"]) for paper in document["papers"]] == [
        ("H-answered", []),
        ("H-blank", [2]),
    ]

    def blank():
        return sorted(
            PaperLabel.objects.filter(blank=True).values_list("paper__identity", "problem__number")
        )

    forget_everything()
    contest_import(document=document)
    assert blank() == [("H-blank", 2)]

    for paper in document["papers"]:
        del paper["blank_problems"]
    forget_everything()
    contest_import(document=document)
    assert blank() == []
