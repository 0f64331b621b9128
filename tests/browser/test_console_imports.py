"""The organizer imports into a contest from the console, in the browser: the problem set (its
CSV pair), the grading schemes (the criteria table before confirming), a bad file refused with
the importer's sentences, and a zip of record folders whose job page follows the import."""

import io
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from grading.jobs import running as jobs
from grading.models import Job, Paper
from rubrics.models import Contest, Criterion, Task
from tests.browser.test_accessibility import AXE, EVERY_IMPACT, RUN_AXE

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser):
    # axe is added as a script tag, which the site's Content-Security-Policy would refuse (as
    # in test_accessibility.py); the pages' own scripts come from 'self' either way.
    context = browser.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def assert_accessible(page) -> None:
    """axe finds nothing on the page as it is now (a preview, a list of refusals)."""
    page.add_script_tag(path=str(AXE))
    assert page.evaluate(RUN_AXE, list(EVERY_IMPACT)) == []


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PROBLEMSET = FIXTURES / "importers" / "problemset"
RECORDS = FIXTURES / "importers" / "outputs" / "records"


@pytest.fixture(autouse=True)
def folders(settings, tmp_path):
    settings.IMPORTS_DIR = tmp_path / "imports"
    settings.JOBS_DIR = tmp_path / "jobs"


def _records_zip(tmp_path) -> Path:
    path = tmp_path / "records.zip"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for file in sorted(RECORDS.rglob("*")):
            if file.is_file():
                archive.write(file, str(file.relative_to(RECORDS.parent)))
    path.write_bytes(buffer.getvalue())
    return path


def test_organizer_imports_a_problem_set_and_outputs_in_the_browser(
    page, log_in, live_server, organizer, transactional_db, tmp_path
):
    Contest.objects.create(slug="oru30", name="Oru 2030")
    log_in(organizer)
    page.goto(f"{live_server.url}/console/contests/oru30/")
    page.click("text=imports")
    page.click("#import-kinds >> text=Problem set")

    # A bad pair first: the importer's sentence, nothing written.
    bad = tmp_path / "bad" / "test.csv"
    bad.parent.mkdir()
    bad.write_text("", encoding="utf-8")
    page.set_input_files("#id_test", str(bad))
    page.set_input_files("#id_solution", str(PROBLEMSET / "solution.csv"))
    page.click("#import-upload button[type=submit]")
    # all_inner_texts() does not wait for the answer's page; the expectation does.
    expect(page.locator("#import-errors li")).to_have_count(1)
    assert page.locator("#import-errors li").all_inner_texts() == ["test.csv: the file is empty."]
    assert_accessible(page)

    page.set_input_files("#id_test", str(PROBLEMSET / "test.csv"))
    page.set_input_files("#id_solution", str(PROBLEMSET / "solution.csv"))
    page.click("#import-upload button[type=submit]")
    assert "Dry run, nothing written." in page.locator("#import-summary").inner_text()
    assert not Task.objects.exists()
    assert_accessible(page)
    page.click("#import-confirm button[name=confirm]")
    assert "5 tasks" in page.locator(".messages li.success").inner_text()
    assert Task.objects.filter(problem__contest__slug="oru30").count() == 5

    page.click("text=All imports")
    page.click("#import-kinds >> text=AI outputs")
    page.set_input_files("#id_file", str(_records_zip(tmp_path)))
    page.click("#import-upload button[type=submit]")
    # count() does not wait for the preview's page; the expectation does.
    expect(page.locator("#import-details li")).to_have_count(2)
    page.click("#import-confirm button[name=confirm]")
    page.wait_for_url("**/jobs/**")
    assert "Import of AI outputs" in page.locator("h1").inner_text()
    assert not Paper.objects.exists()

    job = Job.objects.get()
    jobs.job_run(job_id=job.pk, worker_id="test")  # what the worker does
    page.wait_for_selector("#job-status.job-done", timeout=15_000)  # htmx polls the progress
    assert page.locator(".job-sentence").inner_text() == (
        "Imported; the report says what each system got."
    )
    assert Paper.objects.filter(contest__slug="oru30").count() == 2


def test_organizer_sees_the_criteria_table_before_loading_schemes(
    page, log_in, live_server, organizer, transactional_db
):
    from tests.factories import make_contest

    make_contest("schemes", problems=2, papers=2, criteria=())
    log_in(organizer)
    page.goto(f"{live_server.url}/console/contests/schemes/imports/schemes/")
    schemes = FIXTURES / "schemes"
    page.set_input_files("#id_files", [str(schemes / "p1.toml"), str(schemes / "p2.toml")])
    page.click("#import-upload button[type=submit]")
    expect(page.locator("table.import-criteria")).to_have_count(2)
    codes = page.locator("table.import-criteria >> nth=0 >> tbody tr td:first-child")
    assert codes.all_inner_texts()[0] == "A1"
    assert not Criterion.objects.exists()
    assert_accessible(page)
    page.click("#import-confirm button[name=confirm]")
    assert "loaded" in page.locator(".messages li.success").inner_text()
    assert Criterion.objects.exists()
