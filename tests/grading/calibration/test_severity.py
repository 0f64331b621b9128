"""A juror's own calibration: severity (their points − the agreed points, per criterion),
agreement (within the criterion's tolerance), deviation in the calibration round and on seeds,
on a hand-computed example, from the problem's own cells only;
shown to the juror alone and only after submitting, to the chair for the whole group, in a
fixed number of queries."""

import re
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains

from grading.calibration.severity import problem_calibration
from grading.marking.marks import mark_set
from grading.marking.seed_cells import seed_mark_set
from grading.marking.sheets import sheet_submit
from grading.models import CalibrationMark, CalibrationSheet, Mark, Resolution, Sheet
from grading.results.selectors import papers_cells
from grading.rules import roles
from tests.factories import assign, make_contest, make_user
from tests.grading.calibration import seed_scenario

D = Decimal
# Paper by paper (in import order), (A1, T1) of alice and bob. T1 has a tolerance of 1:
# X: A1 8 and 8 agreed 8; T1 4 and 5, agreed at 4.5 (the mean, down to the step)
# Y: A1 10 and 6, decided by the chair at 7; T1 6 and 6
# Z: A1 3 and 3; T1 2 and 3, agreed at 2.5
# W: A1 5 and 9, open (left out); T1 1 and 1
MARKS = {
    "alice": [("8", "4"), ("10", "6"), ("3", "2"), ("5", "1")],
    "bob": [("8", "5"), ("6", "6"), ("3", "3"), ("9", "1")],
}
# Seeds of K1 (reference A1 10, T1 6): alice 11 and 6, bob 8 and 7.
SEEDS = {"alice": ("11", "6"), "bob": ("8", "7")}


def _grade(world, juror, *, submit=True):
    sheet = Sheet.objects.select_related("problem__contest").get(juror=juror)
    for paper, values in zip(world["live"], MARKS[juror.username], strict=True):
        for code, value in zip(("A1", "T1"), values, strict=True):
            mark = Mark.objects.get(sheet=sheet, paper=paper, criterion__code=code)
            mark_set(mark=mark, points=D(value), actor=juror, channel="browser")
    for code, value in zip(("A1", "T1"), SEEDS[juror.username], strict=True):
        mark = CalibrationMark.objects.select_related("criterion").get(
            seed__juror=juror, criterion__code=code
        )
        seed_mark_set(sheet=sheet, mark=mark, points=D(value), actor=juror)
    if submit:
        sheet_submit(sheet=sheet, actor=juror)


@pytest.fixture
def world(db):
    world = seed_scenario.build(papers=5)
    world["problem"].criteria.filter(code="T1").update(tolerance=D("1"))
    for juror in world["jurors"]:
        _grade(world, juror)
    Resolution.objects.create(
        paper=world["live"][1],
        criterion=world["problem"].criteria.get(code="A1"),
        kind=Resolution.Kind.CHAIR,
        points=D("7"),
        reason="Half the forms are right.",
        decided_by=world["chair"],
    )
    return world


def _figures(calibration):
    return [
        (
            figures.criterion.code,
            figures.severity,
            figures.agreement,
            figures.within,
            figures.compared,
            figures.not_agreed,
            figures.seed_deviation,
        )
        for figures in calibration.criteria
    ]


def test_severity_agreement_and_seed_deviation_match_the_hand_computed_figures(world):
    alice, bob = problem_calibration(world["problem"])
    assert (alice.username, bob.username) == ("alice", "bob")
    assert _figures(alice) == [
        ("A1", D("1.00"), D("66.7"), 2, 3, 1, D("1.00")),
        ("T1", D("-0.25"), D("100.0"), 4, 4, 0, D("0.00")),
    ]
    assert _figures(bob) == [
        ("A1", D("-0.33"), D("66.7"), 2, 3, 1, D("-2.00")),
        ("T1", D("0.25"), D("100.0"), 4, 4, 0, D("1.00")),
    ]
    assert (alice.not_agreed, alice.seeded) == (1, True)


def _mine(client, world, juror):
    client.force_login(juror)
    return client.get(reverse("calibration_mine", args=[world["contest"].slug, 1]))


def test_a_juror_sees_only_their_own_figures_and_only_after_submitting(client, db):
    world = seed_scenario.build(papers=5)
    alice, bob = world["jurors"]
    _grade(world, alice)
    _grade(world, bob, submit=False)
    before = _mine(client, world, bob).content.decode()
    assert 'id="submit-first"' in before
    assert 'id="calibration"' not in before
    mine = _mine(client, world, alice).content.decode()
    assert 'id="mine-A1"' in mine
    assert "bob" not in mine
    sheet = client.get(reverse("sheet", args=[world["contest"].slug, 1])).content.decode()
    assert reverse("calibration_mine", args=[world["contest"].slug, 1]) in sheet
    # bob's draft is nobody's business: alice's figures do not move with it.
    assert problem_calibration(world["problem"], juror=bob) == []
    assert [c.username for c in problem_calibration(world["problem"])] == ["alice"]


def test_the_chairs_pages_show_every_juror_and_a_juror_gets_none_of_them(client, world):
    slug = world["contest"].slug
    client.force_login(world["chair"])
    group = client.get(reverse("calibration_jurors", args=[slug, 1])).content.decode()
    assert 'id="calibration-alice"' in group and 'id="calibration-bob"' in group
    seeds = client.get(reverse("calibration_seeds", args=[slug, 1])).content.decode()
    assert 'id="seeds-alice"' in seeds and 'id="seeds-bob"' in seeds
    assert "<circle" in seeds
    assert client.get(reverse("calibration_mine", args=[slug, 1])).status_code == 302
    client.force_login(world["jurors"][0])
    for name in ("calibration_jurors", "calibration_seeds"):
        assert client.get(reverse(name, args=[slug, 1])).status_code == 404
    client.logout()
    assert client.get(reverse("calibration_mine", args=[slug, 1])).status_code == 302


def _queries(client, user, url) -> int:
    client.force_login(user)
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


@pytest.mark.parametrize("name", ["calibration_jurors", "calibration_seeds"])
def test_the_chairs_pages_run_the_same_queries_with_4_and_40_papers(client, db, name):
    counts = []
    for papers in (5, 41):
        world = seed_scenario.build(papers=papers, slug=f"s{papers}")
        for juror in world["jurors"]:
            sheet = Sheet.objects.get(juror=juror)
            Mark.objects.filter(sheet=sheet).update(points=D("2"))
            CalibrationMark.objects.filter(seed__juror=juror).update(points=D("3"))
            sheet_submit(sheet=sheet, actor=juror)
        url = reverse(name, args=[world["contest"].slug, 1])
        counts.append(_queries(client, world["chair"], url))
    assert counts[0] == counts[1]


def test_my_calibration_runs_the_same_queries_with_4_and_40_papers(client, db):
    counts = []
    for papers in (5, 41):
        world = seed_scenario.build(papers=papers, slug=f"m{papers}")
        juror = world["jurors"][0]
        sheet = Sheet.objects.get(juror=juror)
        Mark.objects.filter(sheet=sheet).update(points=D("2"))
        CalibrationMark.objects.filter(seed__juror=juror).update(points=D("3"))
        sheet_submit(sheet=sheet, actor=juror)
        url = reverse("calibration_mine", args=[world["contest"].slug, 1])
        counts.append(_queries(client, juror, url))
    assert counts[0] == counts[1]


def _calibrate(world, juror, points: dict[str, str], *, submit: bool = True) -> None:
    """The juror's calibration sheet of the round, graded on K1 (reference A1 10, T1 6)."""
    sheet = CalibrationSheet.objects.create(
        round=world["round"],
        juror=juror,
        state=CalibrationSheet.State.SUBMITTED if submit else CalibrationSheet.State.DRAFT,
        submitted_at=timezone.now() if submit else None,
    )
    for criterion in world["problem"].criteria.all():
        CalibrationMark.objects.create(
            sheet=sheet,
            calibration_paper=world["k1"],
            criterion=criterion,
            points=D(points[criterion.code]),
            version=1,
        )


def test_my_calibration_shows_my_deviation_in_the_calibration_round(client, world):
    alice, bob = world["jurors"]
    _calibrate(world, alice, {"A1": "9", "T1": "7.5"})
    # Bob's draft is compared with nothing, and shown to nobody.
    _calibrate(world, bob, {"A1": "12", "T1": "0"}, submit=False)
    figures = {c.username: c for c in problem_calibration(world["problem"])}
    assert [(f.criterion.code, f.round_deviation) for f in figures["alice"].criteria] == [
        ("A1", D("-1.00")),
        ("T1", D("1.50")),
    ]
    assert (figures["alice"].calibrated, figures["bob"].calibrated) == (True, False)

    mine = _mine(client, world, alice)
    assertContains(
        mine,
        '<thead><tr><th scope="col">Criterion</th><th scope="col">Severity</th>'
        '<th scope="col">Agreement</th><th scope="col">Calibration round</th>'
        '<th scope="col">Seeds</th><th scope="col">Not agreed yet</th></tr></thead>',
        html=True,
    )
    assertContains(mine, '<td class="round-deviation">−1</td>', html=True)
    assertContains(mine, '<td class="round-deviation">+1.5</td>', html=True)
    assert "your deviation in the calibration round, the mean of your points − the chair's " in (
        mine.content.decode()
    )
    assert 'class="round-deviation"' not in _mine(client, world, bob).content.decode()

    client.force_login(world["chair"])
    group = client.get(reverse("calibration_jurors", args=[world["contest"].slug, 1]))
    assert re.findall(r'<td class="round-deviation">([^<]*)</td>', group.content.decode()) == [
        "−1",
        "+1.5",
        "—",
        "—",
    ]


def _cells(cells) -> list[tuple]:
    return [(cell.paper_id, cell.criterion.pk, cell.status, cell.points) for cell in cells]


def test_a_problems_figures_settle_its_own_cells_as_the_whole_contests_read_does(db):
    """Problem 1's cells, read for its criteria alone (its marks and resolutions only, not
    every problem's of the papers), settle as the whole contest's read settles them, whatever
    problem 2 holds; its jurors' figures are compared with them."""
    contest = make_contest("two", problems=2, papers=4)
    alice, bob = make_user("alice", roles.JUROR), make_user("bob", roles.JUROR)
    assign(contest, [alice, bob])
    p1, p2 = contest.problems.order_by("number")
    papers = list(contest.papers.order_by("pk"))
    # Problem 1: A1 agreed at 4 everywhere, T1 open (4 against 6) but on the first paper,
    # decided by the chair at 5. Problem 2 (the same codes): far apart, and decided elsewhere.
    for juror, t1 in ((alice, "4"), (bob, "6")):
        Mark.objects.filter(sheet__juror=juror, sheet__problem=p1, criterion__code="A1").update(
            points=D("4")
        )
        Mark.objects.filter(sheet__juror=juror, sheet__problem=p1, criterion__code="T1").update(
            points=D(t1)
        )
        Mark.objects.filter(sheet__juror=juror, sheet__problem=p2).update(
            points=D("1") if juror == alice else D("7")
        )
        for sheet in Sheet.objects.filter(juror=juror):
            sheet_submit(sheet=sheet, actor=juror)
    for problem, code, paper, points in ((p1, "T1", 0, "5"), (p2, "A1", 1, "2")):
        Resolution.objects.create(
            paper=papers[paper],
            criterion=problem.criteria.get(code=code),
            kind=Resolution.Kind.CHAIR,
            points=D(points),
            reason="As the scheme reads.",
            decided_by=make_user(f"chen-{code}", roles.CHAIR),
        )

    ids = [paper.pk for paper in papers]
    whole = papers_cells(contest, paper_ids=ids)
    mine = papers_cells(contest, paper_ids=ids, criteria=p1.criteria.all())
    assert {paper_id: _cells(cells) for paper_id, cells in mine.items()} == {
        paper_id: _cells(c for c in cells if c.criterion.problem_id == p1.pk)
        for paper_id, cells in whole.items()
    }
    alice_figures, bob_figures = problem_calibration(p1)
    assert [
        (f.criterion.code, f.severity, f.compared, f.not_agreed) for f in alice_figures.criteria
    ] == [
        ("A1", D("0.00"), 4, 0),
        ("T1", D("-1.00"), 1, 3),
    ]
    assert [
        (f.criterion.code, f.severity, f.compared, f.not_agreed) for f in bob_figures.criteria
    ] == [
        ("A1", D("0.00"), 4, 0),
        ("T1", D("1.00"), 1, 3),
    ]
