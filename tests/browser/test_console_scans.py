"""The organizer's scanned papers in the browser: from the imports page to the covers (pasted
codes, a PDF downloaded), then the scanned PDFs: a file named after a person refused with the
import's sentence, the preview of codes and pages, the import confirmed and followed on its job's page."""

import pypdfium2 as pdfium
import pytest
from playwright.sync_api import expect

from grading.models import Job, ScanPage
from tests import factories
from tests.browser.test_console_imports import assert_accessible
from tests.browser.test_console_imports import page as page  # noqa: F401 (the axe-ready page)
from tests.browser.worker import run_as_the_worker
from tests.grading.intake.scans import scanmaker

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def folders(settings, tmp_path):
    settings.IMPORTS_DIR = tmp_path / "imports"
    settings.JOBS_DIR = tmp_path / "jobs"
    settings.SCANS_DIR = tmp_path / "scans"


def test_organizer_prints_covers_and_imports_scans_in_the_browser(
    page, log_in, live_server, organizer, transactional_db, tmp_path
):
    contest = factories.make_contest("iol", problems=2, papers=1)
    log_in(organizer)
    page.goto(f"{live_server.url}/console/contests/iol/imports/")
    page.click("#import-kinds >> text=print the covers")

    page.fill("#id_codes", "C101\nC102")
    assert_accessible(page)
    with page.expect_download() as download:
        page.click("#covers-form button[type=submit]")
    assert download.value.suggested_filename == "iol-covers.pdf"
    assert len(pdfium.PdfDocument(download.value.path().read_bytes())) == 4

    page.click("text=Import scanned papers")
    covers = scanmaker.covers(contest, ["C101"])
    pages = [
        covers["C101", 1],
        *scanmaker.answer_pages("C101", 1, 2),
        covers["C101", 2],
        *scanmaker.answer_pages("C101", 2, 1),
    ]
    named = tmp_path / "Anna Smith.pdf"
    named.write_bytes(scanmaker.as_pdf(pages))
    page.set_input_files("#id_files", str(named))
    page.click("#import-upload button[type=submit]")
    # all_inner_texts() does not wait for the answer's page; the expectations do.
    expect(page.locator("#import-errors li")).to_have_count(1)
    errors = page.locator("#import-errors li").all_inner_texts()
    assert len(errors) == 1 and errors[0].startswith(
        "Anna Smith.pdf: a scanned file's name may be a contestant's code"
    )

    good = tmp_path / "scan-001.pdf"
    good.write_bytes(scanmaker.as_pdf(pages))
    page.set_input_files("#id_files", str(good))
    page.click("#import-upload button[type=submit]")
    assert page.locator("#import-summary").inner_text() == (
        "Would import 3 scanned pages: 2 answers of 1 contestant (1 new paper)."
    )
    expect(page.locator("#import-details li")).to_have_count(2)
    assert page.locator("#import-details li").all_inner_texts() == [
        "C101, problem 1: 2 pages.",
        "C101, problem 2: 1 page.",
    ]
    assert_accessible(page)
    assert ScanPage.objects.count() == 0

    page.click("#import-confirm button[name=confirm]")
    page.wait_for_url("**/jobs/**")
    run_as_the_worker(Job.objects.get())
    page.wait_for_selector("#job-status.job-done", timeout=15_000)  # htmx polls the progress
    assert page.locator(".job-sentence").inner_text() == (
        "Imported; the report says how many pages each answer got."
    )
    assert ScanPage.objects.filter(paper__identity="C101").count() == 3


def test_organizer_uploads_a_whole_batch_at_once_and_reads_a_refusal_as_a_sentence(
    page, log_in, live_server, organizer, transactional_db, tmp_path, settings
):
    factories.make_contest("iol", problems=2, papers=1)
    log_in(organizer)
    names = [f"C{100 + n}.pdf" for n in range(1, 13)]
    for name in names:
        (tmp_path / name).write_bytes(scanmaker.blank_pages_pdf(2))
    rows = "".join(f"{name},1,1,1\n{name},2,2,2\n" for name in names)
    (tmp_path / "map.csv").write_text(f"file,problem,first_page,last_page\n{rows}")
    page.goto(f"{live_server.url}/console/contests/iol/imports/scans/")
    # Twelve files chosen at once: Django's old bound of ten answered a bare "Bad Request (400)".
    page.set_input_files("#id_files", [str(tmp_path / name) for name in names])
    page.set_input_files("#id_page_map", str(tmp_path / "map.csv"))
    page.click("#import-upload button[type=submit]")
    assert page.locator("#import-summary").inner_text() == (
        "Would read 24 scanned pages in 12 files: the import reads the covers and sorts the "
        "pages in the background, and its report says what each contestant got."
    )
    page.click("#import-confirm button[name=confirm]")
    page.wait_for_url("**/jobs/**")
    run_as_the_worker(Job.objects.get())
    page.wait_for_selector("#job-status.job-done", timeout=15_000)
    assert ScanPage.objects.count() == 24

    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 5
    page.goto(f"{live_server.url}/console/contests/iol/imports/scans/")
    page.set_input_files("#id_files", [str(tmp_path / name) for name in names])
    page.click("#import-upload button[type=submit]")
    expect(page.locator("#import-errors li")).to_have_count(1)
    assert page.locator("#import-errors li").all_inner_texts() == [
        "The upload holds more than 5 files, the most one upload takes "
        "(DATA_UPLOAD_MAX_NUMBER_FILES). Upload them as one zip, or in a few parts."
    ]
    assert_accessible(page)
