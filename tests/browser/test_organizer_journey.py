"""The organizer's whole journey in the browser, from an empty database (only the organizer's
account) to a final contest's results exported: a contest created with medal cut-offs, its
problem set and grading schemes imported, six AI systems imported from a zip of record folders
(a background job), two jurors added with one-time sign-in links, the papers assigned, grading
opened; each juror signs in by the link read from their person page (a browser context of their
own) and grades their sheets with the keyboard and submits; the chair resolves the one open cell
and finalizes after the confirmation; the results are downloaded from the results page and
as a background job from the console's jobs page, and read back.

Nothing is set up behind the browser's back except the organizer's account (who also chairs
the jury, as in a small jury: the console creates jurors, not chairs). The background job is
run by the task worker's own function (`jobs.job_run`, what `manage.py jobs_worker` calls for
each task) in the test's thread, once the page says the job is waiting: SQLite's in-memory test
database is shared with the live server's thread, and a worker process could not see it."""

import csv
import io
import json
import re
import shutil
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from grading.jobs import running as jobs
from grading.models import Job
from grading.rules import roles
from tests.browser.worker import run_as_the_worker
from tests.factories import make_user
from tests.grading import scenario

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PROBLEMSET = FIXTURES / "importers" / "problemset"
KESTREL = FIXTURES / "importers" / "outputs" / "records" / "04_team-kestrel"
SYSTEMS = ["aurora", "basalt", "cinder", "drift", "ember", "fjord"]

# One criterion per problem of the Oru problem set (tests/fixtures/importers/problemset).
SCHEMES = {
    "p1.toml": """problem = 1
title = "Oru canoes"
language = "Oru"
max_points = 20

[[criteria]]
code = "A1"
kind = "assignment"
title = "Translations"
points = 20
step = 1
task = "12030010100"
""",
    "p2.toml": """problem = 2
title = "Oru numbers"
language = "Oru"
max_points = 20

[[criteria]]
code = "A1"
kind = "assignment"
title = "Numbers"
points = 20
step = 1
task = "12030020100"
""",
}

JURORS = """name, username, email, problems
Ann Adebayo, ann, , 1 2
Ben Brandt, ben, , 1 2
"""


@pytest.fixture(autouse=True)
def folders(settings, tmp_path):
    settings.IMPORTS_DIR = tmp_path / "imports"
    settings.JOBS_DIR = tmp_path / "jobs"
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture
def olga(transactional_db):
    """The only account: the organizer, who also chairs the jury."""
    olga = make_user("olga", roles.ORGANIZER)
    olga.groups.add(Group.objects.get(name=roles.CHAIR))
    return olga


def _six_systems_zip(tmp_path) -> Path:
    """Six record folders, each a copy of the Kestrel fixture under its own team's name."""
    buffer = io.BytesIO()
    metadata = json.loads((KESTREL / "metadata.json").read_text(encoding="utf-8"))
    predictions = (KESTREL / "predictions.json").read_text(encoding="utf-8")
    with zipfile.ZipFile(buffer, "w") as archive:
        for number, name in enumerate(SYSTEMS, start=1):
            folder = f"records/{number:02d}_team-{name}"
            record = metadata | {"team": f"team-{name}", "submission_id": f"{name}-1"}
            archive.writestr(f"{folder}/metadata.json", json.dumps(record))
            archive.writestr(f"{folder}/predictions.json", predictions)
    path = tmp_path / "systems.zip"
    path.write_bytes(buffer.getvalue())
    return path


def _scheme_files(tmp_path) -> list[str]:
    folder = tmp_path / "schemes"
    folder.mkdir()
    for name, text in SCHEMES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [str(folder / name) for name in SCHEMES]


def _grade_and_submit(browser, live_server, link: str, sheets: dict[int, list[str]]) -> None:
    """A juror opens their sign-in link in a browser of their own, chooses a password, and
    grades each of their two sheets with the keyboard only (the sheet starts in the first
    ungraded cell; Enter goes down), then submits it."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    juror = context.new_page()
    juror.set_default_timeout(10_000)
    juror.goto(link)
    assert juror.locator("h1").inner_text() == "Choose your password"
    juror.fill("#id_new_password1", "kettle-lantern-93")
    juror.fill("#id_new_password2", "kettle-lantern-93")
    juror.click("#sign-in-form button[type=submit]")
    juror.wait_for_url(f"{live_server.url}/")
    juror.on("dialog", lambda dialog: dialog.accept())
    for number, points in sheets.items():
        juror.goto(f"{live_server.url}/contests/oru30/p{number}/sheet/")
        juror.wait_for_selector("#cell-tools:not([hidden])")
        for index, value in enumerate(points):
            juror.keyboard.type(value)
            # Enter goes down a column; below the last row, Tab leaves the grid, saving.
            juror.keyboard.press("Enter" if index < len(points) - 1 else "Tab")
        expect(juror.locator("#sheet-count")).to_have_text(f"{len(points)} of {len(points)}")
        expect(juror.locator("input.cell.saving")).to_have_count(0)
        juror.get_by_role("button", name="Submit my sheet").click()
        expect(juror.locator(".messages li").first).to_contain_text(
            f"Your sheet for P{number} is submitted"
        )
    context.close()


def test_the_organizer_runs_a_contest_from_an_empty_database_to_its_exported_results(
    browser, page, log_in, live_server, olga, tmp_path
):
    log_in(olga)
    page.click("#console-link")

    # The contest, with a maximum of 40 (two problems of 20) and three medals.
    page.fill("#id_slug", "oru30")
    page.fill("#id_name", "Oru 2030")
    page.fill("#id_max_total", "40")
    page.click("#contest-create button[type=submit]")
    page.goto(f"{live_server.url}/console/contests/oru30/")
    page.fill("#id_gold", "32")
    page.fill("#id_silver", "24")
    page.fill("#id_bronze", "16")
    page.click("#contest-settings button[type=submit]")
    page.goto(f"{live_server.url}/console/")
    assert "gold ≥ 32; silver ≥ 24; bronze ≥ 16" in page.locator("#contests").inner_text()

    # The problem set, its schemes, and six systems from a zip (a background job).
    page.goto(f"{live_server.url}/console/contests/oru30/")
    page.click("text=imports")
    page.click("#import-kinds >> text=Problem set")
    page.set_input_files("#id_test", str(PROBLEMSET / "test.csv"))
    page.set_input_files("#id_solution", str(PROBLEMSET / "solution.csv"))
    page.click("#import-upload button[type=submit]")
    page.click("#import-confirm button[name=confirm]")
    expect(page.locator(".messages li.success")).to_contain_text("5 tasks")

    page.click("text=All imports")
    page.click("#import-kinds >> text=Grading schemes")
    page.set_input_files("#id_files", _scheme_files(tmp_path))
    page.click("#import-upload button[type=submit]")
    expect(page.locator("table.import-criteria")).to_have_count(2)
    page.click("#import-confirm button[name=confirm]")
    expect(page.locator(".messages li.success")).to_contain_text("loaded")

    page.click("text=All imports")
    page.click("#import-kinds >> text=AI outputs")
    page.set_input_files("#id_file", str(_six_systems_zip(tmp_path)))
    page.click("#import-upload button[type=submit]")
    expect(page.locator("#import-details li")).to_have_count(6)
    page.click("#import-confirm button[name=confirm]")
    page.wait_for_url("**/jobs/**")
    expect(page.locator(".job-sentence")).to_contain_text("Waiting for the task worker")
    (job,) = Job.objects.filter(state=Job.State.QUEUED)
    jobs.job_run(job_id=job.pk, worker_id="test-worker")  # the worker's part
    page.wait_for_selector("#job-status.job-done", timeout=15_000)

    # Two jurors, each with a one-time sign-in link read from their person page.
    page.goto(f"{live_server.url}/console/")
    page.click("#contests >> text=Add jurors")
    page.fill("#id_text", JURORS)
    page.click("#jurors-form button[type=submit]")
    page.click("#jurors-confirm button[type=submit]")
    expect(page.locator(".messages li.success")).to_contain_text("2 jurors added")
    links = {}
    for username in ("ann", "ben"):
        page.goto(f"{live_server.url}/console/people/{username}/")
        links[username] = page.locator("#sign-in-link").inner_text()
        assert re.fullmatch(rf"{re.escape(live_server.url)}/accounts/sign-in/\S+/", links[username])

    # Both jurors grade every paper of both problems; grading opens after its confirmation.
    page.goto(f"{live_server.url}/console/contests/oru30/assignments/")
    page.get_by_label("P1: jurors per paper").fill("2")
    page.get_by_label("P2: jurors per paper").fill("2")
    page.get_by_role("button", name="Preview the assignment").click()
    # The preview is a job: the page follows it while the worker solves each problem.
    run_as_the_worker(Job.objects.get(kind=Job.Kind.ASSIGNMENT))
    expect(page.locator("#preview-summary")).to_contain_text("24 new assignments", timeout=15_000)
    page.get_by_role("button", name="Save this assignment").click()
    # Saved by a job too, which the page follows until it has saved.
    expect(page.locator("#confirmation .job-sentence")).to_contain_text("Waiting for the task")
    run_as_the_worker(Job.objects.get(kind=Job.Kind.ASSIGNMENT_CONFIRM))
    expect(page.locator(".messages li")).to_contain_text("24 assignments created", timeout=15_000)
    page.get_by_role("link", name="the contest's life").click()
    page.get_by_role("link", name="Open grading…").click()
    page.get_by_label("I understand that jurors will grade and submit their sheets").check()
    page.get_by_role("button", name="Open grading").click()
    expect(page.locator(".messages li")).to_have_text(
        "Grading is open: jurors may now grade and submit their sheets."
    )

    # Ann gives every paper 16; Ben agrees except on his first paper of P1 (4): one open cell.
    _grade_and_submit(browser, live_server, links["ann"], {1: ["16"] * 6, 2: ["16"] * 6})
    _grade_and_submit(browser, live_server, links["ben"], {1: ["4"] + ["16"] * 5, 2: ["16"] * 6})

    # The chair opens the resolution phase and decides the open cell.
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="Queue").click()
    page.get_by_label("I understand that jurors will be able to revise").check()
    page.get_by_role("button", name="Start the resolution phase").click()
    expect(page.locator("#queue-count")).to_have_text("1 open discrepancy")
    page.locator("#queue").get_by_role("link", name="Discuss / decide").first.click()
    page.fill("#decide-points", "10")
    page.fill("#decide-reason", "Half the forms right: 10 of 20.")
    page.get_by_role("button", name="Decide").click()
    page.wait_for_url(f"{live_server.url}/contests/oru30/queue/")  # no open cell is left
    expect(page.locator("#queue-count")).to_have_text("0 open discrepancies")

    # Finalizing, only after the confirmation that names the reveal of identities.
    page.goto(f"{live_server.url}/contests/oru30/results/")
    page.get_by_role("button", name="Finalize the contest").click()
    page.get_by_role("button", name="Finalize and reveal the identities").click()
    page.get_by_label(
        "I understand that the identities will be revealed to the chair and that nothing can "
        "change afterwards."
    ).check()
    page.get_by_role("button", name="Finalize and reveal the identities").click()
    page.wait_for_url(f"{live_server.url}/contests/oru30/reveal/")

    # The results, downloaded from the results page and read back.
    page.goto(f"{live_server.url}/contests/oru30/results/")
    with page.expect_download() as download:
        page.locator("a", has_text="CSV").first.click()
    path = tmp_path / "results.csv"
    shutil.copyfile(download.value.path(), path)
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    assert len(rows) == 6
    totals = sorted(row["total"] for row in rows)
    assert totals == ["26.00", "32.00", "32.00", "32.00", "32.00", "32.00"]
    medals = {row["total"]: row["medal"] for row in rows}
    assert medals == {"26.00": "silver", "32.00": "gold"}
    assert {row["provisional"] for row in rows} == {"no"}
    # Final: the chair's export names the systems.
    assert sorted(row["identity"] for row in rows) == sorted(f"team-{name}" for name in SYSTEMS)

    # The same results as a background job from the console's jobs page: a zip of the four
    # tables, its wide CSV the very file the results page gave.
    page.goto(f"{live_server.url}/console/contests/oru30/")
    page.get_by_role("link", name="jobs", exact=True).click()
    assert page.locator("h1").inner_text().startswith("Jobs")
    page.get_by_role("button", name="Export the results").click()
    page.wait_for_url("**/jobs/*/")
    (job,) = Job.objects.filter(state=Job.State.QUEUED)
    jobs.job_run(job_id=job.pk, worker_id="test-worker")  # the worker's part
    page.wait_for_selector("#job-status.job-done", timeout=15_000)
    with page.expect_download() as download:
        page.click("a.job-download")
    assert download.value.suggested_filename == "oru30-results.zip"
    with zipfile.ZipFile(download.value.path()) as archive:
        assert sorted(archive.namelist()) == [
            "oru30-results-long.csv",
            "oru30-results-long.xlsx",
            "oru30-results-wide.csv",
            "oru30-results-wide.xlsx",
        ]
        assert archive.read("oru30-results-wide.csv") == path.read_bytes()
