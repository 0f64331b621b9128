"""Papers the chair keeps out of the calibration round for seeding (issue 31, finding 7: a seed
was a calibration paper its juror had graded in the round, so its answers gave it away). A
seeded round draws its seeds from those papers alone; no juror of the round reaches one while
it is open (sheet, solution pane, scanned pages, cell saves and history, the paper's own page,
counts and spread), and the chair reads and references it like the others."""

import re
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from PIL import Image
from pytest_django.asserts import assertContains

from grading.calibration import rounds
from grading.calibration.calibration_marks import calibration_mark_set, calibration_sheet_submit
from grading.calibration.seeds import seeds_draw
from grading.models import (
    CalibrationMark,
    CalibrationPaper,
    CalibrationSheet,
    Notification,
    PaperLabel,
    ReferenceMark,
    ScanPage,
    Seed,
)
from tests.grading.calibration import seed_scenario
from tests.grading.calibration.scenario import close_round, juror_marks, make_round, problem_labels


@pytest.fixture
def problem(contest):
    return contest.problems.get(number=1)


def _url(name, contest, *args):
    return reverse(name, args=[contest.slug, 1, *args])


def _reads(secret: str, text: str) -> bool:
    """The secret as a word of its own ("K3" inside a CSRF token is there by chance)."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", text) is not None


def test_a_jurors_seed_is_never_a_paper_they_graded_in_the_round(db):
    """Issue 31, finding 7: every calibration paper came back as a seed, those the jurors had
    just graded in the round included."""
    world = seed_scenario.build(draw=False, spare=1)
    graded = CalibrationPaper.objects.create(
        round=world["round"], paper=world["spare"][0], label="K2", position=2
    )
    for juror in world["jurors"]:
        sheet = CalibrationSheet.objects.create(
            round=world["round"], juror=juror, state=CalibrationSheet.State.SUBMITTED
        )
        CalibrationMark.objects.bulk_create(
            CalibrationMark(sheet=sheet, calibration_paper=graded, criterion=criterion, points=1)
            for criterion in world["problem"].criteria.all()
        )
    assert seeds_draw(world["round"]) == 2
    assert sorted(Seed.objects.values_list("juror__username", "calibration_paper__label")) == [
        ("alice", "K1"),
        ("bob", "K1"),
    ]


def test_a_seeded_round_that_keeps_no_paper_for_seeding_draws_no_seed(
    problem, chair, juror, other_juror
):
    round_ = make_round(problem, chair, seeded=True)
    # Nobody grades the round's papers live: only having seen them in the round stops a seed.
    CalibrationPaper.objects.get(round=round_, label="K1").paper.assignments.all().delete()
    close_round(round_, chair)
    assert not Seed.objects.exists()


@pytest.fixture
def kept_round(settings, tmp_path, problem, chair, juror):
    """An open round of K1 and K2, with K3 kept for seeding (a scanned page each); alice does
    not grade K3's paper live, so that only the round could have shown it to her."""
    settings.SCANS_DIR = tmp_path / "scans"
    settings.SCANS_DIR.mkdir()
    round_ = make_round(problem, chair, seeded=True, kept=1)
    for index, paper in enumerate(round_.papers.order_by("position")):
        name = f"page-{index}.png"
        Image.new("RGB", (20, 30), "white").save(settings.SCANS_DIR / name)
        ScanPage.objects.create(
            paper=paper.paper, problem=problem, position=1, image=name, width=20, height=30
        )
    kept = round_.papers.get(label="K3")
    kept.paper.assignments.filter(juror=juror).delete()
    return round_


def test_the_juror_never_reaches_a_paper_kept_for_seeding_while_the_round_is_open(
    client, contest, problem, juror, kept_round
):
    kept = kept_round.papers.get(label="K3")
    live_label = PaperLabel.objects.get(problem=problem, paper=kept.paper).label
    assert kept.for_seeding
    assert sorted(juror_marks(kept_round, juror)) == [
        ("K1", "A1"),
        ("K1", "T1"),
        ("K2", "A1"),
        ("K2", "T1"),
    ]
    client.force_login(juror)
    sheet = client.get(_url("calibration_sheet", contest)).content.decode()
    assert re.findall(r'<tr id="row-([A-Z0-9]+)"', sheet) == ["K1", "K2"]
    assert re.search(r'<progress id="sheet-progress" max="4" value="0"', sheet)
    assert not _reads("K3", sheet)
    for label, status in (("K2", 200), ("K3", 404)):
        assert client.get(_url("calibration_solution", contest, label)).status_code == status
        assert client.get(_url("calibration_scan_page", contest, label, 1)).status_code == status
        saved = client.post(
            _url("calibration_cell_save", contest, label, "A1"), {"points": "1", "version": 0}
        )
        assert saved.status_code == status
        noted = client.post(
            _url("calibration_note_save", contest, label, "A1"), {"note": "x", "version": 1}
        )
        assert noted.status_code == status
        history = client.get(_url("calibration_cell_history", contest, label, "A1"))
        assert history.status_code == status
    assert client.get(_url("calibration_sheet", contest) + "?row=K3").status_code == 404
    # Nor by its live label: reading the round's papers is no door to the one kept out of it.
    assert client.get(_url("paper_detail", contest, live_label)).status_code == 404
    assert client.get(_url("scan_page_image", contest, live_label, 1)).status_code == 404
    assert not CalibrationMark.objects.filter(calibration_paper=kept).exists()


def test_the_chair_reads_and_references_the_paper_kept_for_seeding(
    client, contest, problem, chair, kept_round
):
    kept = kept_round.papers.get(label="K3")
    live_label = PaperLabel.objects.get(problem=problem, paper=kept.paper).label
    client.force_login(chair)
    page = client.get(_url("calibration", contest))
    html = page.content.decode()
    assert "Papers: K1, K2 · kept for seeding: K3 · seeded checks." in html
    assertContains(
        page,
        '<th scope="col" colspan="2">K3 <small class="kept">kept for seeding</small></th>',
        html=True,
    )
    assert f'name="ref-{kept.pk}-' in html
    assertContains(
        page, f'<input type="checkbox" name="kept" value="{live_label}" checked>', html=True
    )
    assert client.get(_url("calibration_scan_page", contest, "K3", 1)).status_code == 200
    assert client.get(_url("paper_detail", contest, live_label)).status_code == 200


def test_submitting_and_the_spread_leave_out_the_paper_kept_for_seeding(
    client, contest, problem, chair, juror, kept_round
):
    for mark in juror_marks(kept_round, juror).values():
        calibration_mark_set(mark=mark, points=Decimal("2"), actor=juror)
    calibration_sheet_submit(sheet=CalibrationSheet.objects.get(juror=juror), actor=juror)
    kept = kept_round.papers.get(label="K3")
    # A change of its reference is not told to the jurors who submitted: they never saw it.
    entries = [(kept, criterion, Decimal("1"), "moved") for criterion in problem.criteria.all()]
    entries.append(
        (kept_round.papers.get(label="K1"), problem.criteria.get(code="A1"), Decimal("9"), "")
    )
    rounds.references_set(round_=kept_round, entries=entries, actor=chair)
    told = Notification.objects.filter(recipient=juror).order_by("-pk").first()
    assert "K1 A1" in told.sentence and not _reads("K3", told.sentence)
    client.force_login(juror)
    sheet = client.get(_url("calibration_sheet", contest)).content.decode()
    assert re.findall(r'<tr id="row-([A-Z0-9]+)"', sheet) == ["K1", "K2"]
    assert not _reads("K3", sheet) and "moved" not in sheet
    client.force_login(chair)
    spread = client.get(_url("calibration", contest)).context["view"]
    assert [row.label for row in spread.graded_rows] == ["K1", "K2"]
    assert [[row.label for row, _ in cells] for _, cells in spread.by_criterion] == [
        ["K1", "K2"],
        ["K1", "K2"],
    ]


def test_closing_draws_the_seeds_from_the_paper_kept_for_seeding_alone(
    problem, chair, juror, other_juror, kept_round
):
    # Nobody grades K1 live any more: having graded it in the round is what keeps it no seed.
    kept_round.papers.get(label="K1").paper.assignments.all().delete()
    close_round(kept_round, chair)
    assert sorted(Seed.objects.values_list("juror__username", "calibration_paper__label")) == [
        ("alice", "K3")
    ]
    # The seed is read against the chair's reference (grading/calibration/severity.py).
    seed = Seed.objects.get()
    assert sorted(
        ReferenceMark.objects.filter(calibration_paper=seed.calibration_paper).values_list(
            "criterion__code", "points"
        )
    ) == [("A1", Decimal("7")), ("T1", Decimal("2.5"))]


def test_the_chair_keeps_papers_for_seeding_from_the_rounds_page(client, contest, problem, chair):
    first, second, third = problem_labels(problem)
    client.force_login(chair)
    both = client.post(
        _url("calibration_create", contest),
        {"labels": [first, second], "kept": [second], "seeded": "on"},
        follow=True,
    )
    assert [str(m) for m in both.context["messages"]] == [
        f"Paper {second} is picked both to grade in the round and to keep for seeding: a seed "
        "must be a paper its juror never saw, so pick it for one or the other."
    ]
    created = client.post(
        _url("calibration_create", contest),
        {"labels": [first, second], "kept": [third], "seeded": "on"},
        follow=True,
    )
    assert [str(m) for m in created.context["messages"]] == [
        "The calibration round of P1 is created: enter its reference."
    ]
    assert sorted(CalibrationPaper.objects.values_list("label", "for_seeding")) == [
        ("K1", False),
        ("K2", False),
        ("K3", True),
    ]
    round_ = CalibrationPaper.objects.get(label="K1").round
    # K3 needs its reference too before the round opens.
    entries = [
        (paper, criterion, Decimal("1"), "")
        for paper in round_.papers.filter(label__in=["K1", "K2"])
        for criterion in problem.criteria.all()
    ]
    rounds.references_set(round_=round_, entries=entries, actor=chair)
    with pytest.raises(ValidationError) as refused:
        rounds.round_open_to_jurors(round_=round_, actor=chair)
    assert "K3 A1" in refused.value.messages[0]
    # Once open to the jurors, the paper kept for seeding may still change: left out here.
    round_.papers.get(label="K3").delete()
    rounds.round_open_to_jurors(round_=round_, actor=chair)
    changed = client.post(
        _url("calibration_change", contest), {"kept": [third], "seeded": "on"}, follow=True
    )
    assert [str(m) for m in changed.context["messages"]] == [
        "The calibration round of P1 is changed: papers kept for seeding and seeded checks saved."
    ]
    kept = round_.papers.get(label="K3")
    assert kept.for_seeding and not CalibrationMark.objects.filter(calibration_paper=kept).exists()
    # Kept after the opening, it has no reference yet: the round does not close without it.
    with pytest.raises(ValidationError) as refused:
        close_round(round_, chair)
    assert refused.value.messages == [
        "2 references of the papers kept for seeding are missing (K3 A1, K3 T1): give them "
        "before closing the round, as the seeds are read against them."
    ]
