"""bench/_scale_build.py at three contestants: the contest bench/scale.py measures is built the
organizer's way, with what makes a real one hard (delegations with leaders, answer languages,
jurors' countries and languages, blank answers, an upside-down pile behind covers, handwritten
pages of every contestant's own, a seeded calibration round, appeals), and the solver's
assignment keeps to those facts."""

import hashlib
import sys
from pathlib import Path

import pytest
from django.db.models import F

from grading.models import (
    Appeal,
    Assignment,
    CalibrationRound,
    Delegation,
    JurorLanguage,
    Paper,
    ScanPage,
    Seed,
    Sheet,
)
from grading.papers import images
from rubrics.models import Contest

ROOT = Path(__file__).resolve().parent.parent
PAPERS = 3


@pytest.fixture
def builder():
    # The builder imports its neighbours as the bench's scripts do: bench/ first on the path.
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import _scale_build

        yield _scale_build
    finally:
        sys.path.remove(str(ROOT / "bench"))


@pytest.mark.django_db(transaction=True)
def test_the_scale_contest_is_built_the_organizers_way(builder, settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    schemes = builder.widened_schemes(tmp_path / "schemes")
    organizer, chair = builder.organizer_and_chair()
    contest, steps = builder.build(
        PAPERS, organizer=organizer, chair=chair, schemes=schemes, workdir=tmp_path
    )
    assert contest.state == Contest.State.GRADING
    humans = list(Paper.objects.filter(contest=contest, source=Paper.Source.HUMAN))
    assert len(humans) == PAPERS

    # Delegations with their countries and leaders, every contestant in one, and languages.
    delegations = list(Delegation.objects.filter(contest=contest).prefetch_related("leaders"))
    assert len(delegations) == builder.delegation_count(PAPERS) == steps["delegations"]
    assert all(d.country and d.leaders.count() == 1 for d in delegations)
    assert all(paper.delegation_id and paper.answer_language for paper in humans)

    # Blank answers (no page, no juror), a pile behind covers fed upside down, and 2–4 pages of
    # their own for every other answer.
    assert steps["blank"] >= 1 and steps["covered"] == 1 and steps["upside_down"] == 1
    pages: dict[tuple[int, int], list] = {}
    for page in ScanPage.objects.filter(paper__contest=contest).order_by("position"):
        pages.setdefault((page.paper_id, page.problem_id), []).append(page)
    answers = {(paper.pk, problem.pk) for paper in humans for problem in contest.problems.all()}
    blank = answers - pages.keys()
    assert len(blank) == steps["blank"]
    assigned = Assignment.objects.filter(problem__contest=contest)
    assert not blank & set(assigned.values_list("paper_id", "problem_id"))
    assert all(2 <= len(found) <= 4 for found in pages.values())
    assert sum(len(found) for found in pages.values()) == steps["pages"]
    first_pages = {
        hashlib.sha256((images.scans_dir() / found[0].image).read_bytes()).hexdigest()
        for found in pages.values()
    }
    assert len(first_pages) == len(pages), "every answer's pages are its own"

    # The jurors' facts, and an assignment that keeps them: nobody grades their own country's
    # contestants, though some jurors share a country with a delegation.
    jurors = {a.juror for a in Assignment.objects.filter(problem__contest=contest)}
    assert len(jurors) == builder.JURORS
    assert all(juror.juror_profile.country for juror in jurors)
    assert JurorLanguage.objects.filter(
        user__in=jurors, level=JurorLanguage.Level.WITH_HELP
    ).exists()
    countries = {d.country for d in delegations}
    assert any(juror.juror_profile.country in countries for juror in jurors)
    own_country = Assignment.objects.filter(
        problem__contest=contest,
        paper__source=Paper.Source.HUMAN,
        paper__delegation__country=F("juror__juror_profile__country"),
    )
    assert not own_country.exists()

    # The seeded calibration round closed and drew its seeds; every sheet is submitted.
    round_ = CalibrationRound.objects.get(problem__contest=contest)
    assert round_.seeded and round_.state == CalibrationRound.State.CLOSED
    assert Seed.objects.filter(calibration_paper__round=round_).exists()
    sheets = Sheet.objects.filter(problem__contest=contest)
    assert sheets.exists() and not sheets.exclude(state=Sheet.State.SUBMITTED).exists()

    # Then the provisional results and the leaders' appeals.
    from grading.console.contest_life import contest_resolution_open

    contest_resolution_open(contest=contest, actor=chair)
    filed = builder.provisional_with_appeals(contest, PAPERS, chair=chair, organizer=organizer)
    assert (
        filed
        == builder.appeal_count(PAPERS)
        == Appeal.objects.filter(paper__contest=contest).count()
    )
