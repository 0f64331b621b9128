"""The demo's human contestants: answer sheets written, printed, scanned askew (one pile upside
down) with the contest's covers and imported through the real scan import, then assigned and
partly graded like the AI systems' papers."""

from io import StringIO

import pytest
from django.core.management import call_command
from PIL import Image

from grading.models import ScanPage
from grading.papers.images import MASK_GREY
from grading.resolution.comparison import contest_results
from grading.results.analysis import contest_analysis
from grading.results.analysis_selectors import analysis_data
from rubrics.models import Contest

HUMANS = ["C-0417", "C-0582", "C-0736", "C-0921"]
INK = 128  # darker than this is writing


@pytest.fixture
def demo(db, settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    call_command("load_demo", stdout=StringIO())
    return Contest.objects.get(slug="demo")


def _ink_rows(image: Image.Image) -> list[int]:
    """The pixel rows holding writing (the page's edges left out: a tilted scan's borders)."""
    width, height = image.size
    core = image.crop((width // 10, 0, width - width // 10, height))
    return [
        row
        for row in range(height)
        if core.crop((0, row, core.width, row + 1)).getextrema()[0] < INK
    ]


def test_each_contestant_has_one_masked_upright_scanned_page_per_problem(demo, tmp_path):
    pages = list(
        ScanPage.objects.filter(paper__contest=demo)
        .select_related("paper", "problem")
        .order_by("paper__identity", "problem__number")
    )
    assert [(p.paper.identity, p.problem.number, p.position) for p in pages] == [
        (code, number, 1) for code in HUMANS for number in range(1, 6)
    ]
    for page in pages:
        assert page.paper.identity not in page.image
        with Image.open(tmp_path / "scans" / page.image) as image:
            image.load()
            assert (image.size, image.mode, image.info) == ((page.width, page.height), "L", {})
            band = round(image.height * 0.12)
            # The code box's band is painted over in full.
            assert image.crop((0, 0, image.width, band)).getextrema() == (MASK_GREY, MASK_GREY)
            # Upright, the upside-down pile too: the writing starts just below the band and the
            # page's foot is blank (upside down, the code box and the heading would be there).
            rows = _ink_rows(image)
            assert band < rows[0] < image.height * 0.25, page.paper.identity
            assert rows[-1] < image.height * 0.8, page.paper.identity


def test_human_papers_are_graded_like_the_ai_papers_and_ranked_in_the_analysis(demo):
    results = contest_results(demo, identities=True)
    humans = {p.identity: p for p in results.papers if p.is_human}
    assert sorted(humans) == HUMANS
    # P1 graded in full by both jurors and submitted; P2's marks (of two contestants among
    # others) are still in juror3's draft, which counts for nothing yet.
    assert {code: sorted(p.problems_graded) for code, p in humans.items()} == dict.fromkeys(
        HUMANS, [1]
    )
    assert {code: p.problem_points[1] for code, p in humans.items()} == {
        "C-0417": 19,
        "C-0582": 16,  # A2 open between 4 and 5: provisionally their mean, 4.5
        "C-0736": 10.5,
        "C-0921": 2.5,
    }
    analysis = contest_analysis(analysis_data(demo, identities=True), identities=True)
    assert (analysis.human_papers, analysis.rank_basis, analysis.difficulty_basis) == (
        4,
        "jury",
        "jury",
    )
    assert len(analysis.papers) == 6
