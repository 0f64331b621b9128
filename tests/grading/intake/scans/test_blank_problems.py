"""A contestant who left a problem blank: the scan import records it as "no answer" (never a
refusal) and its preview says who left what blank; a page map says so with a row of no pages."""

import pytest

from grading.intake.importers.errors import ImportProblems
from grading.intake.scans.importing import ScanFile, scans_import
from grading.models import PaperLabel, ScanPage
from tests import factories
from tests.grading.intake.scans import scanmaker


@pytest.fixture
def scans_dir(settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    return settings.SCANS_DIR


@pytest.fixture
def contest(db):
    return factories.make_contest("iol", problems=3, papers=0)


def _blank(contest) -> list[tuple[str, int]]:
    return list(
        PaperLabel.objects.filter(problem__contest=contest, blank=True)
        .order_by("paper__identity", "problem__number")
        .values_list("paper__identity", "problem__number")
    )


def test_a_cover_without_pages_and_a_skipped_cover_are_problems_left_blank(contest, scans_dir):
    covers = scanmaker.covers(contest, ["C101", "C102"])
    # C101 answered P1 and handed in P2's cover with nothing after it; C102 answered P2 only.
    first = [
        covers["C101", 1],
        *scanmaker.answer_pages("C101", 1, 1),
        covers["C101", 2],
        covers["C101", 3],
        *scanmaker.answer_pages("C101", 3, 2),
    ]
    second = [covers["C102", 2], *scanmaker.answer_pages("C102", 2, 1)]
    files = [
        ScanFile("scan-1.pdf", scanmaker.as_pdf(first)),
        ScanFile("scan-2.pdf", scanmaker.as_pdf(second)),
    ]

    preview = scans_import(contest=contest, files=files, actor=None, dry_run=True)
    assert preview.line() == (
        "Would import 4 scanned pages: 3 answers of 2 contestants (2 new papers). "
        "C101 left P2 blank; C102 left P1 and P3 blank: would be recorded as no answer "
        "(0 points, no juror)."
    )
    assert _blank(contest) == []

    summary = scans_import(contest=contest, files=files, actor=None)
    assert summary.line() == (
        "Imported 4 scanned pages: 3 answers of 2 contestants (2 new papers). "
        "C101 left P2 blank; C102 left P1 and P3 blank: are recorded as no answer "
        "(0 points, no juror)."
    )
    assert _blank(contest) == [("C101", 2), ("C102", 1), ("C102", 3)]
    assert sorted(
        ScanPage.objects.values_list("paper__identity", "problem__number", "position")
    ) == [("C101", 1, 1), ("C101", 3, 1), ("C101", 3, 2), ("C102", 2, 1)]


def test_a_page_map_row_without_pages_is_a_problem_left_blank(contest, scans_dir):
    pages = scanmaker.answer_pages("C201", 1, 3)
    page_map = ScanFile(
        "map.csv",
        b"file,problem,first_page,last_page\nC201.pdf,1,1,2\nC201.pdf,2,,\nC201.pdf,3,3,3\n",
    )
    summary = scans_import(
        contest=contest,
        files=[ScanFile("C201.pdf", scanmaker.as_pdf(pages))],
        page_map=page_map,
        actor=None,
    )
    assert summary.line() == (
        "Imported 3 scanned pages: 2 answers of 1 contestant (1 new paper). "
        "C201 left P2 blank: are recorded as no answer (0 points, no juror)."
    )
    assert _blank(contest) == [("C201", 2)]


def test_a_page_map_that_forgets_a_problem_is_refused_with_the_row_to_add(contest, scans_dir):
    pages = scanmaker.answer_pages("C201", 1, 2)
    page_map = ScanFile(
        "map.csv", b"file,problem,first_page,last_page\nC201.pdf,1,1,1\nC201.pdf,3,2,2\n"
    )
    with pytest.raises(ImportProblems) as refused:
        scans_import(
            contest=contest,
            files=[ScanFile("C201.pdf", scanmaker.as_pdf(pages))],
            page_map=page_map,
            actor=None,
        )
    assert refused.value.messages == [
        "contestant C201 has no pages for problem 2 in the page map; if they left it blank, "
        "give it the row C201.pdf,2,, (no pages)."
    ]
    assert _blank(contest) == []
    assert ScanPage.objects.count() == 0


def test_pages_imported_later_for_a_blank_problem_make_it_answered(contest, scans_dir):
    covers = scanmaker.covers(contest, ["C301"])
    first = [covers["C301", 1], *scanmaker.answer_pages("C301", 1, 1)]
    scans_import(
        contest=contest, files=[ScanFile("scan-1.pdf", scanmaker.as_pdf(first))], actor=None
    )
    assert _blank(contest) == [("C301", 2), ("C301", 3)]

    later = [covers["C301", 3], *scanmaker.answer_pages("C301", 3, 1)]
    summary = scans_import(
        contest=contest, files=[ScanFile("scan-2.pdf", scanmaker.as_pdf(later))], actor=None
    )
    assert summary.line() == (
        "Imported 1 scanned page: 1 answer of 1 contestant (0 new papers). "
        "C301 left P2 blank: are recorded as no answer (0 points, no juror)."
    )
    assert _blank(contest) == [("C301", 2)]
