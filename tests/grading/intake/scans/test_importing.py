"""The scan import against real scans: covers printed by the covers module, answer pages typeset
and rasterised, turned a little or upside down, and delivered as PDFs."""

import re
import struct
from collections import Counter
from pathlib import Path

import pytest
from django.db import IntegrityError
from PIL import Image

from grading.intake.importers.errors import ImportProblems
from grading.intake.scans.importing import ScanFile, scans_import
from grading.models import Paper, PaperLabel, ScanPage
from grading.papers.images import MASK_GREY
from grading.rules.refusals import ContestFinal, NotAllowed
from tests import factories
from tests.grading.intake.scans import scanmaker


@pytest.fixture
def scans_dir(settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    return settings.SCANS_DIR


@pytest.fixture
def contest(db):
    return factories.make_contest("iol", problems=2, papers=1)


def _stored_files(scans_dir: Path) -> list[Path]:
    return [path for path in scans_dir.rglob("*") if path.is_file()] if scans_dir.exists() else []


def _png_chunks(path: Path) -> list[str]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, offset = [], 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        chunks.append(data[offset + 4 : offset + 8].decode("ascii"))
        offset += 12 + length
    return chunks


def _counts(contest) -> dict[tuple[str, int], int]:
    return dict(
        Counter(
            ScanPage.objects.filter(paper__contest=contest).values_list(
                "paper__identity", "problem__number"
            )
        )
    )


def _mean(image: Image.Image, box) -> float:
    region = image.crop(box)
    return sum(region.get_flattened_data()) / (region.width * region.height)


def test_scans_are_sorted_by_their_covers_into_masked_upright_pages(contest, scans_dir):
    covers = scanmaker.covers(contest, ["C101", "C102"])
    first = [
        scanmaker.tilt(covers["C101", 1], 1.5),
        *(scanmaker.tilt(page, -1) for page in scanmaker.answer_pages("C101", 1, 2)),
        scanmaker.tilt(covers["C101", 2], -2),
        *scanmaker.answer_pages("C101", 2, 1),
    ]
    # The second contestant's answer to problem 2 went through the scanner upside down.
    second = [
        covers["C102", 1],
        *scanmaker.answer_pages("C102", 1, 1),
        *(
            scanmaker.upside_down(page)
            for page in [covers["C102", 2], *scanmaker.answer_pages("C102", 2, 2)]
        ),
    ]
    summary = scans_import(
        contest=contest,
        files=[
            ScanFile("scan-001.pdf", scanmaker.as_pdf(first)),
            ScanFile("scan-002.pdf", scanmaker.as_pdf(second)),
        ],
        actor=None,
    )

    assert _counts(contest) == {("C101", 1): 2, ("C101", 2): 1, ("C102", 1): 1, ("C102", 2): 2}
    assert (summary.contestants, summary.new_papers, summary.answers, summary.pages) == (
        2,
        2,
        4,
        6,
    )
    humans = Paper.objects.filter(contest=contest, source=Paper.Source.HUMAN)
    assert sorted(humans.values_list("identity", flat=True)) == ["C101", "C102"]
    # Labelled in every problem like the AI paper, afresh per problem.
    assert PaperLabel.objects.filter(paper__in=humans).count() == 4
    positions = list(
        ScanPage.objects.filter(paper__identity="C102", problem__number=2).values_list(
            "position", flat=True
        )
    )
    assert positions == [1, 2]
    files = _stored_files(scans_dir)
    assert sorted(path.name for path in files) == sorted(
        ScanPage.objects.values_list("image", flat=True)
    )
    for scan in ScanPage.objects.all():
        path = scans_dir / scan.image
        # Letters only, so that no code (it always holds a digit) can show in it.
        assert re.fullmatch(r"[a-z]{26}\.png", scan.image)
        assert _png_chunks(path) == ["IHDR", "IDAT", "IEND"]
        with Image.open(path) as image:
            assert image.size == (scan.width, scan.height)
            assert image.info == {}
            image.load()
            band = round(image.height * 0.12)
            top = set(image.crop((0, 0, image.width, band)).get_flattened_data())
            # The code box at the top of an answer's first page is painted over, all of it; a
            # continuation page has no box, and its first lines stay to be read.
            assert (top == {MASK_GREY}) is (scan.position == 1)
            # Upright: the black bar at the foot of every answer page is at the bottom.
            middle = _mean(image, (0, band, image.width, image.height // 2))
            foot = _mean(image, (0, image.height * 3 // 4, image.width, image.height))
            assert foot < middle - 30


def test_a_contestant_imported_before_keeps_their_paper(contest, scans_dir):
    paper = Paper.objects.create(contest=contest, source=Paper.Source.HUMAN, identity="C101")
    covers = scanmaker.covers(contest, ["C101"])
    pages = [
        covers["C101", 1],
        *scanmaker.answer_pages("C101", 1, 1),
        covers["C101", 2],
        *scanmaker.answer_pages("C101", 2, 1),
    ]
    summary = scans_import(
        contest=contest, files=[ScanFile("C101.pdf", scanmaker.as_pdf(pages))], actor=None
    )
    assert summary.new_papers == 0
    assert set(ScanPage.objects.values_list("paper_id", flat=True)) == {paper.pk}


def test_every_problem_is_reported_as_a_sentence_and_nothing_is_written(contest, scans_dir):
    factories.make_contest("other", problems=1, papers=0)
    from rubrics.models import Contest

    other = Contest.objects.get(slug="other")
    covers = scanmaker.covers(contest, ["C101", "C102"])
    wrong_contest = scanmaker.covers(other, ["C103"])
    # A problem's pages come before its cover (its problem 2, skipped, is left blank).
    out_of_order = [*scanmaker.answer_pages("C101", 1, 1), covers["C101", 1]]
    # A page of noise before any cover, then a cover twice.
    muddled = [
        scanmaker.noise(),
        covers["C102", 1],
        *scanmaker.answer_pages("C102", 1, 1),
        covers["C102", 2],
        *scanmaker.answer_pages("C102", 2, 1),
        covers["C102", 1],
        *scanmaker.answer_pages("C102", 1, 1),
    ]
    foreign = [wrong_contest["C103", 1], *scanmaker.answer_pages("C103", 1, 1)]
    with pytest.raises(ImportProblems) as refused:
        scans_import(
            contest=contest,
            files=[
                ScanFile("scan-017.pdf", scanmaker.as_pdf(out_of_order)),
                ScanFile("scan-018.pdf", scanmaker.as_pdf(muddled)),
                ScanFile("scan-019.pdf", scanmaker.as_pdf(foreign)),
            ],
            actor=None,
        )
    sentences = refused.value.messages
    assert sentences == [
        "scan-017.pdf, page 1 is unreadable (no cover found before it); if it belongs to the "
        "cover on page 2, put that cover before it.",
        "scan-018.pdf, page 1 is unreadable (no cover found before it); if it belongs to the "
        "cover on page 2, put that cover before it.",
        "scan-018.pdf, page 6: a second answer of contestant C102 to problem 1 (the first is "
        "at scan-018.pdf, page 2); remove one",
        "scan-019.pdf, page 1: the cover's code names contest other, not this one",
    ]
    assert not Paper.objects.filter(source=Paper.Source.HUMAN).exists()
    assert not ScanPage.objects.exists()
    assert _stored_files(scans_dir) == []


def test_files_that_are_not_pdfs_or_are_named_after_people_are_refused(contest, scans_dir):
    page = scanmaker.as_pdf(scanmaker.answer_pages("C101", 1, 1))
    with pytest.raises(ImportProblems) as refused:
        scans_import(
            contest=contest,
            files=[ScanFile("ivanova.pdf", page), ScanFile("scan-3.pdf", b"PK\x03\x04 a zip")],
            actor=None,
        )
    assert refused.value.messages == [
        "ivanova.pdf: a scanned file's name may be a contestant's code or a scan number "
        "(“scan-017.pdf”), never a name: it holds no digit, so it may be a name rather than a "
        "code. Rename the file",
        "scan-3.pdf: this is not a PDF file; scan to PDF",
    ]
    assert _stored_files(scans_dir) == []


def test_a_final_contest_refuses_scans(contest, scans_dir):
    contest.state = "final"
    contest.save()
    with pytest.raises(ContestFinal):
        scans_import(contest=contest, files=[ScanFile("scan-1.pdf", b"%PDF-")], actor=None)
    assert not ScanPage.objects.exists()


def test_only_an_organizer_imports_scans(contest, scans_dir, juror, organizer):
    with pytest.raises(NotAllowed):
        scans_import(contest=contest, files=[], actor=juror)


def test_a_page_map_sorts_scans_without_covers(contest, scans_dir):
    pages = [*scanmaker.answer_pages("C201", 1, 2), *scanmaker.answer_pages("C201", 2, 1)]
    page_map = ScanFile(
        "map.csv", b"file,problem,first_page,last_page\nC201.pdf,1,1,2\nC201.pdf,2,3,3\n"
    )
    scans_import(
        contest=contest,
        files=[ScanFile("C201.pdf", scanmaker.as_pdf(pages))],
        page_map=page_map,
        actor=None,
    )
    assert _counts(contest) == {("C201", 1): 2, ("C201", 2): 1}


def test_a_page_map_must_place_every_page_once(contest, scans_dir):
    pages = scanmaker.answer_pages("C201", 1, 3)
    page_map = ScanFile(
        "map.csv",
        b"file,problem,first_page,last_page\nC201.pdf,1,1,2\nC201.pdf,2,2,2\nC202.pdf,1,1,1\n",
    )
    with pytest.raises(ImportProblems) as refused:
        scans_import(
            contest=contest,
            files=[ScanFile("C201.pdf", scanmaker.as_pdf(pages))],
            page_map=page_map,
            actor=None,
        )
    assert refused.value.messages == [
        "map.csv, row 4: no scanned file is called C202.pdf",
    ]
    page_map = ScanFile(
        "map.csv", b"file,problem,first_page,last_page\nC201.pdf,1,1,2\nC201.pdf,2,2,2\n"
    )
    with pytest.raises(ImportProblems) as refused:
        scans_import(
            contest=contest,
            files=[ScanFile("C201.pdf", scanmaker.as_pdf(pages))],
            page_map=page_map,
            actor=None,
        )
    assert refused.value.messages == [
        "map.csv, row 3: page 2 of C201.pdf is in row 2 already.",
        "C201.pdf, page 3 is in no row of map.csv.",
        "contestant C201 has no pages for problem 2 in the page map; if they left it blank, "
        "give it the row C201.pdf,2,, (no pages).",
    ]
    assert _stored_files(scans_dir) == []


def test_images_moved_in_are_removed_when_the_transaction_fails(contest, scans_dir, monkeypatch):
    covers = scanmaker.covers(contest, ["C101"])
    pages = [
        covers["C101", 1],
        *scanmaker.answer_pages("C101", 1, 1),
        covers["C101", 2],
        *scanmaker.answer_pages("C101", 2, 1),
    ]

    def fail(*args, **kwargs):
        raise IntegrityError("the database went away")

    monkeypatch.setattr(ScanPage.objects, "bulk_create", fail)
    with pytest.raises(IntegrityError):
        scans_import(
            contest=contest, files=[ScanFile("scan-1.pdf", scanmaker.as_pdf(pages))], actor=None
        )
    assert _stored_files(scans_dir) == []
    assert not Paper.objects.filter(source=Paper.Source.HUMAN).exists()


def test_a_run_fed_sideways_is_stored_upright(contest, scans_dir):
    covers = scanmaker.covers(contest, ["C101"])
    quarter = Image.Transpose.ROTATE_90
    pages = [
        covers["C101", 1].transpose(quarter),
        *(page.transpose(quarter) for page in scanmaker.answer_pages("C101", 1, 1)),
        covers["C101", 2],
        *scanmaker.answer_pages("C101", 2, 1),
    ]
    scans_import(contest=contest, files=[ScanFile("C101.pdf", scanmaker.as_pdf(pages))])
    for scan in ScanPage.objects.all():
        assert scan.height > scan.width
        with Image.open(scans_dir / scan.image) as image:
            foot = _mean(image, (0, image.height * 3 // 4, image.width, image.height))
            assert foot < _mean(image, (0, image.height // 4, image.width, image.height // 2)) - 30


def test_codes_of_ai_papers_problems_the_contest_lacks_and_pages_imported_before_are_refused(
    contest, scans_dir
):
    Paper.objects.create(contest=contest, identity="GPT-5")
    covers = scanmaker.covers(contest, ["C101"])
    first = [
        covers["C101", 1],
        *scanmaker.answer_pages("C101", 1, 1),
        covers["C101", 2],
        *scanmaker.answer_pages("C101", 2, 1),
    ]
    scans_import(contest=contest, files=[ScanFile("scan-1.pdf", scanmaker.as_pdf(first))])
    before = sorted(path.name for path in _stored_files(scans_dir))
    page_map = ScanFile(
        "map.csv",
        b"file,problem,first_page,last_page\nGPT-5.pdf,1,1,1\nGPT-5.pdf,2,2,2\nGPT-5.pdf,9,3,3\n",
    )
    with pytest.raises(ImportProblems) as refused:
        scans_import(
            contest=contest,
            files=[
                ScanFile("scan-1.pdf", scanmaker.as_pdf(first)),
                ScanFile("GPT-5.pdf", scanmaker.as_pdf(scanmaker.answer_pages("X", 1, 3))),
            ],
            page_map=page_map,
        )
    assert refused.value.messages == [
        "map.csv, row 4: there is no problem 9 in Contest iol",
        "GPT-5 is already the name of an AI system's paper in this contest.",
        "contestant C101 already has scanned pages for problem 1; they were imported before.",
        "contestant C101 already has scanned pages for problem 2; they were imported before.",
    ]
    assert sorted(path.name for path in _stored_files(scans_dir)) == before
    assert ScanPage.objects.count() == 2


def test_a_scan_page_names_its_paper_by_its_label_only(contest, scans_dir):
    covers = scanmaker.covers(contest, ["C101"])
    pages = [
        covers["C101", 1],
        *scanmaker.answer_pages("C101", 1, 1),
        covers["C101", 2],
        *scanmaker.answer_pages("C101", 2, 1),
    ]
    scans_import(contest=contest, files=[ScanFile("C101.pdf", scanmaker.as_pdf(pages))])
    scan = ScanPage.objects.get(problem__number=2)
    label = PaperLabel.objects.get(paper=scan.paper, problem=scan.problem).label
    assert str(scan) == f"page 1 of paper {label}"
    assert scan.paper.public_code not in str(scan)
