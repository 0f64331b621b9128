"""print_covers and import_scans, the organizer's doors to scanned papers, end to end."""

from io import StringIO

import pytest
import zxingcpp
from django.core.management import CommandError, call_command

from grading.models import Paper, ScanPage
from tests import factories
from tests.grading.intake.scans import scanmaker


@pytest.fixture
def contest(db, settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    return factories.make_contest("iol", problems=2, papers=1)


def test_covers_printed_by_the_command_sort_the_scans_imported_by_the_other(contest, tmp_path):
    codes = tmp_path / "codes.txt"
    codes.write_text("C101\n\nC102\n", encoding="utf-8")
    covers_file = tmp_path / "covers.pdf"
    out = StringIO()
    call_command("print_covers", "iol", codes=codes, out=covers_file, stdout=out)
    assert "Wrote 4 covers" in out.getvalue()
    covers = scanmaker.rasterise(covers_file.read_bytes())
    assert [zxingcpp.read_barcodes(page)[0].text for page in covers] == [
        "JURY1|iol|1|C101",
        "JURY1|iol|2|C101",
        "JURY1|iol|1|C102",
        "JURY1|iol|2|C102",
    ]
    # Each cover on top of its answer, the whole pile scanned into one file.
    pile = []
    for cover, (code, number) in zip(
        covers, [("C101", 1), ("C101", 2), ("C102", 1), ("C102", 2)], strict=True
    ):
        pile += [scanmaker.tilt(cover, 1), *scanmaker.answer_pages(code, number, 1)]
    scan = tmp_path / "scan-001.pdf"
    scan.write_bytes(scanmaker.as_pdf(pile))
    out = StringIO()
    call_command("import_scans", "iol", str(scan), stdout=out)
    assert "Imported 4 scanned pages: 4 answers of 2 contestants (2 new papers)." in out.getvalue()
    assert Paper.objects.filter(source=Paper.Source.HUMAN).count() == 2
    assert ScanPage.objects.count() == 4


def test_import_scans_refuses_with_every_sentence(contest, tmp_path):
    scan = tmp_path / "scan-002.pdf"
    scan.write_bytes(scanmaker.as_pdf([scanmaker.noise()]))
    with pytest.raises(CommandError) as refused:
        call_command("import_scans", "iol", str(scan), stdout=StringIO())
    assert str(refused.value) == (
        "Nothing was imported; fix these first:\n"
        "  - scan-002.pdf, page 1 is unreadable (no cover found before it)."
    )
    assert not ScanPage.objects.exists()


def test_import_scans_refuses_a_hostile_scan_by_its_bounds(contest, tmp_path):
    scan = tmp_path / "scan-003.pdf"
    scan.write_bytes(scanmaker.blank_pages_pdf(2000))
    with pytest.raises(CommandError) as refused:
        call_command("import_scans", "iol", str(scan), stdout=StringIO())
    assert str(refused.value) == (
        "Nothing was imported; fix these first:\n"
        "  - scan-003.pdf: the file has 2,000 pages; a scanned file has at most 1,000 "
        "(SCAN_MAX_PAGES). Split it into smaller files."
    )
    assert not ScanPage.objects.exists()


def test_print_covers_refuses_names_for_codes(contest, tmp_path):
    codes = tmp_path / "codes.txt"
    codes.write_text("Ivanova\n", encoding="utf-8")
    with pytest.raises(CommandError, match="may be a name"):
        call_command("print_covers", "iol", codes=codes, out=tmp_path / "covers.pdf")
    assert not (tmp_path / "covers.pdf").exists()
