"""The organizer, in Chromium: makes a juror the chair on their page, and restores a deleted
contest from its backup (upload, preview, restore; the check and the restore are jobs the page
follows)."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import expect

from grading.backup.archive import backup_write
from grading.models import Job, Mark, Resolution
from rubrics.models import Contest
from tests.browser.worker import run_as_the_worker
from tests.grading import scenario

pytestmark = pytest.mark.browser


def test_organizer_makes_a_juror_the_chair(page, log_in, live_server, organizer, juror):
    log_in(organizer)
    page.goto(f"{live_server.url}{reverse('console:person', args=['alice'])}")
    page.check("#roles-form input[value=chair]")
    page.click("#roles-form button[type=submit]")
    assert page.locator(".messages li.success").inner_text() == "alice: roles saved."
    assert sorted(User.objects.get(username="alice").groups.values_list("name", flat=True)) == [
        "chair",
        "juror",
    ]


def test_organizer_restores_a_deleted_contest_from_its_backup(
    page, log_in, organizer, tmp_path, settings
):
    settings.JOBS_DIR = tmp_path / "jobs"
    graded = scenario.build("chiara")
    path = tmp_path / "iol.zip"
    backup_write(contest=graded["contest"], path=path)
    marks = Mark.objects.count()
    Mark.objects.all().delete()
    Resolution.objects.all().delete()
    Contest.objects.all().delete()

    log_in(organizer)
    page.click("#console-link")
    page.click("#restore-link")
    page.set_input_files("#id_file", str(path))
    page.click("#restore-upload button[type=submit]")
    # The check is a job, which the page follows until it shows the preview.
    expect(page.locator("#restore-job .job-sentence")).to_contain_text("Waiting for the task")
    run_as_the_worker(Job.objects.get(kind=Job.Kind.RESTORE_PREVIEW))
    expect(page.locator("#restore-summary")).to_have_text(
        "Contest iol (iol), grading: 2 problems, 3 papers, 30 marks, 30 mark events, "
        "0 scanned pages.",
        timeout=15_000,
    )
    page.click("#restore-confirm button[name=confirm]")
    expect(page.locator("#restore-job .job-sentence")).to_contain_text("Waiting for the task")
    run_as_the_worker(Job.objects.get(kind=Job.Kind.RESTORE))
    expect(page.locator(".messages li.success")).to_have_text(
        "Restored Contest iol (iol): 3 papers, 30 marks, 30 mark events.", timeout=15_000
    )
    assert (Contest.objects.get().slug, Mark.objects.count()) == ("iol", marks)
