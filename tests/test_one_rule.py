"""One function decides a cell's outcome (`grading.rules.domain.cell_outcome`), and every door agrees
with it: on a generated contest (random marks, tolerances, missing sheets, chair decisions and
consensus revisions), the outcome computed here straight from the marks is compared with the
results selector, the comparison page, the chair's queue, every discussion page, the results
page's counts and the long export of `export_results`."""

import csv
import html
import random
import re
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.urls import reverse

from grading.console.contest_life import contest_resolution_open
from grading.marking.marks import mark_set
from grading.marking.reconcile import resolution_write
from grading.marking.sheets import sheet_get_or_create, sheet_submit
from grading.models import Assignment, Mark, PaperLabel, Resolution, Sheet
from grading.resolution.comparison import contest_results
from grading.resolution.decisions import discrepancy_decide, mark_revise
from grading.rules import roles
from grading.rules.domain import CellStatus, Outcome, cell_outcome
from rubrics.models import Criterion
from tests.factories import assign, make_contest, make_user
from tests.grading import scenario

D = Decimal


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _generated_contest(seed: int):
    """Ten papers, two problems; P1 by three jurors, P2 by two plus a third who grades half
    the papers and never submits (pending cells). Marks scatter around a base value so that
    some cells agree, some within tolerance, some open; then the chair decides a few open
    cells and a juror revises another to consensus."""
    rng = random.Random(seed)
    contest = make_contest("gen", papers=10)
    Criterion.objects.filter(problem__contest=contest, code="T1").update(tolerance=D("0.5"))
    p1, p2 = contest.problems.order_by("number")
    jurors = [make_user(f"j{i}", roles.JUROR) for i in range(6)]
    chair = make_user("chair", roles.CHAIR)
    assign(contest, jurors[:3], problems=[1])
    assign(contest, jurors[3:5], problems=[2])
    late = jurors[5]
    half = list(contest.papers.order_by("pk"))[::2]
    Assignment.objects.bulk_create(Assignment(paper=p, problem=p2, juror=late) for p in half)
    sheet_get_or_create(juror=late, problem=p2)
    # The last paper's contestant left P2 blank: no answer, no juror, 0 points.
    blank = contest.papers.order_by("pk").last()
    PaperLabel.objects.filter(paper=blank, problem=p2).update(blank=True)
    Assignment.objects.filter(paper=blank, problem=p2).delete()
    Mark.objects.filter(paper=blank, criterion__problem=p2).delete()
    for mark in Mark.objects.select_related("criterion").order_by("pk"):
        top = int(mark.criterion.points / mark.criterion.step)
        base = (mark.paper_id * 7 + mark.criterion_id * 3) % (top + 1)
        steps = min(top, max(0, base + rng.choice([0, 0, 0, 1, -1, 2])))
        mark_set(mark=mark, points=steps * mark.criterion.step, actor=None, channel="import")
    for sheet in Sheet.objects.exclude(juror=late):
        sheet_submit(sheet=sheet, actor=sheet.juror)
    contest_resolution_open(contest=contest, actor=chair)
    open_cells = contest_results(contest).open_cells
    assert len(open_cells) >= 4, "the seed should make some discrepancies"
    for cell in open_cells[:2]:
        discrepancy_decide(
            paper=contest.papers.get(pk=cell.paper_id),
            criterion=cell.criterion,
            points=cell.lo,
            reason="The lower mark.",
            actor=chair,
        )
    # Revisions to the highest mark close another as consensus (a P1 cell: every juror is in).
    cell = next(c for c in open_cells[2:] if c.criterion.problem_id == p1.pk)
    for mark in Mark.objects.filter(
        paper_id=cell.paper_id, criterion=cell.criterion, sheet__state="submitted"
    ).select_related("sheet__juror"):
        if mark.points != cell.hi:
            mark_revise(mark=mark, points=cell.hi, actor=mark.sheet.juror)
    # A cell an appeal decided, as a contest reopened after its appeals holds one: written as
    # the appeal's decision writes it (its own phase is tests/grading/appeals').
    agreed = next(c for c in contest_results(contest).cells if c.status == CellStatus.AGREED)
    resolution_write(
        paper=contest.papers.get(pk=agreed.paper_id),
        criterion=agreed.criterion,
        kind=Resolution.Kind.APPEAL,
        points=agreed.criterion.points,
        reason="Appeal 1 on P1: the rule is stated.",
        actor=chair,
        existing=None,
    )
    contest.refresh_from_db()
    return contest, chair


def _expected(contest) -> dict[tuple[str, int, str], Outcome]:
    """Each cell's outcome by (label, problem number, criterion code), gathered here from the
    rows and decided by the one rule."""
    expected = {}
    links = PaperLabel.objects.filter(problem__contest=contest)
    labels = {(link.paper_id, link.problem_id): link.label for link in links}
    blank = {(link.paper_id, link.problem_id) for link in links if link.blank}
    for paper in contest.papers.order_by("pk"):
        for criterion in Criterion.objects.filter(problem__contest=contest).select_related(
            "problem"
        ):
            assigned = Assignment.objects.filter(paper=paper, problem=criterion.problem).count()
            no_answer = (paper.pk, criterion.problem_id) in blank
            if not assigned and not no_answer:
                continue
            marks = Mark.objects.filter(
                paper=paper, criterion=criterion, sheet__state="submitted", points__isnull=False
            ).values_list("points", flat=True)
            resolution = Resolution.objects.filter(paper=paper, criterion=criterion).first()
            kind = resolution.kind if resolution else ""
            key = (
                labels[(paper.pk, criterion.problem_id)],
                criterion.problem.number,
                criterion.code,
            )
            expected[key] = cell_outcome(
                list(marks),
                expected=assigned,
                tolerance=criterion.tolerance,
                step=criterion.step,
                chair_points=resolution.points if kind == "chair" else None,
                consensus=kind == "consensus",
                no_answer=no_answer,
                appeal_points=resolution.points if kind == "appeal" else None,
            )
    return expected


def _points(text: str) -> Decimal | None:
    return D(text) if text.strip() else None


@pytest.mark.parametrize("seed", [1, 2])
def test_every_door_agrees_with_the_one_rule(db, client, tmp_path, seed):
    contest, chair = _generated_contest(seed)
    expected = _expected(contest)
    assert {o.status for o in expected.values()} == set(CellStatus), "every status is reached"

    # The results selector.
    results = contest_results(contest)
    got = {
        (paper.labels[cell.criterion.problem.number], cell.criterion.problem.number, code): (
            cell.status,
            cell.points,
        )
        for paper in results.papers
        for cell in paper.cells.values()
        for code in [cell.criterion.code]
        if cell.criterion.problem_id in paper.assigned_problems
        or cell.criterion.problem.number in paper.blank_problems
    }
    assert got == {key: (o.status, o.points) for key, o in expected.items()}

    client.force_login(chair)
    # The comparison pages: each cell's discussion link carries its status label.
    shown = {}
    for number in (1, 2):
        page = client.get(reverse("comparison", args=[contest.slug, number])).content.decode()
        for label, code, title in re.findall(
            rf'href="/contests/{contest.slug}/p{number}/papers/(\w+)/criteria/(\w+)/"'
            r' title="([^",]*)',
            page,
        ):
            shown[(label, number, code)] = title
    # The comparison sets jurors' marks side by side: a problem left blank has none to show.
    graded = {key: o for key, o in expected.items() if o.status != CellStatus.NO_ANSWER}
    assert shown == {key: o.status.label for key, o in graded.items()}

    # The chair's queue lists exactly the open cells.
    page = client.get(reverse("chair_queue", args=[contest.slug])).content.decode()
    queued = set(re.findall(r'<tr data-label="(\w+)" data-criterion="(\w+)">', page))
    assert queued == {
        (label, code) for (label, _, code), o in expected.items() if o.status == CellStatus.OPEN
    }

    # Every discussion page states the status, and the agreed value where there is one; a
    # problem left blank has nothing to discuss.
    for (label, number, code), outcome in expected.items():
        url = reverse("discussion", args=[contest.slug, number, label, code])
        response = client.get(url)
        if outcome.status == CellStatus.NO_ANSWER:
            assert response.status_code == 404
            continue
        page = response.content.decode()
        assert re.search(r'id="cell-status">([^<]*)<', page).group(1) == outcome.status.label
        value = re.search(r'id="cell-value">([^<]*)<', page)
        assert (D(value.group(1)) if value else None) == (
            outcome.points if outcome.has_value else None
        )

    # The results page counts what the rule counts.
    page = html.unescape(client.get(reverse("results", args=[contest.slug])).content.decode())
    opened = sum(1 for o in expected.values() if o.status == CellStatus.OPEN)
    pending = sum(1 for o in expected.values() if o.status == CellStatus.PENDING)
    state = re.search(r'<p id="state">(.*?)</p>', page, re.S).group(1)
    assert re.sub(r"<[^>]+>", "", state).split()[1:] == (
        f"{opened} open discrepancies, {pending} cells waiting for a submitted mark.".split()
    )

    # The long export, written by the management command.
    out = tmp_path / "long.csv"
    call_command("export_results", contest=contest.slug, format="csv", out=str(out), long=True)
    with out.open(encoding="utf-8") as handle:
        exported = {
            (row["label"], int(row["problem"]), row["criterion"]): (
                row["how"],
                _points(row["agreed"]),
            )
            for row in csv.DictReader(handle)
            if (row["label"], int(row["problem"]), row["criterion"]) in expected
        }
    assert exported == {
        key: (o.status.label, o.points if o.has_value else None) for key, o in expected.items()
    }
