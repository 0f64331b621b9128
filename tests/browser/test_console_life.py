"""The organizer runs a contest's life from the console, in the browser: assigns the papers
after a preview, opens grading after its confirmation, follows the progress, and finalizes only
after the confirmation that names the reveal of identities. The organizer here also chairs the
jury (finalizing is the chair's), as in a small jury."""

from decimal import Decimal

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from grading.marking.marks import mark_set
from grading.models import GradingGroup, Job, Mark
from grading.rules import roles
from rubrics.models import Contest
from tests.browser.worker import run_as_the_worker
from tests.factories import make_contest, make_user
from tests.grading import scenario

pytestmark = pytest.mark.browser


@pytest.fixture
def graded(db, settings, tmp_path):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    settings.JOBS_DIR = tmp_path / "jobs"
    olga = make_user("olga", roles.ORGANIZER)
    olga.groups.add(Group.objects.get(name=roles.CHAIR))
    jurors = [make_user(name, roles.JUROR) for name in ("ann", "ben", "cat")]
    contest = make_contest("iol", problems=1, papers=3)
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.SETUP)
    GradingGroup.objects.create(problem=contest.problems.get()).jurors.add(*jurors[:2])
    return {"olga": olga, "jurors": jurors, "contest": contest}


def _grade_and_submit(graded) -> None:
    """Every juror gives every cell the same points and submits (no discrepancy)."""
    problem = graded["contest"].problems.get()
    for juror in graded["jurors"]:
        for mark in Mark.objects.filter(sheet__juror=juror).select_related("paper", "criterion"):
            mark_set(mark=mark, points=Decimal("2"), actor=juror, channel="browser")
        scenario.submit(juror, problem)


def test_the_organizer_assigns_opens_grading_follows_progress_and_finalizes(
    log_in, live_server, graded
):
    page = log_in(graded["olga"])
    page.get_by_role("link", name="Organizer's console").click()
    page.get_by_role("link", name="Contest iol").click()
    page.get_by_role("link", name="groups and assignments").click()

    # cat joins the problem's grading group.
    page.get_by_label("cat grades P1").check()
    page.get_by_role("button", name="Save the grading groups").click()
    assert page.locator(".messages li").inner_text() == "Contest iol: grading groups saved."
    expect(page.get_by_label("cat grades P1")).to_be_checked()

    # Two jurors per paper, previewed before anything is saved.
    page.get_by_label("P1: jurors per paper").fill("2")
    page.get_by_role("button", name="Preview the assignment").click()
    # The preview is a job: the page follows it while the worker solves the problem.
    run_as_the_worker(Job.objects.get(kind=Job.Kind.ASSIGNMENT))
    expect(page.locator("#preview-summary")).to_be_visible(timeout=15_000)
    assert (
        page.locator("#preview-summary")
        .inner_text()
        .startswith("6 new assignments (0 already there).")
    )
    assert page.locator("#preview-loads tbody").inner_text().split("\n") == [
        "ann\t2\t2",
        "ben\t2\t2",
        "cat\t2\t2",
    ]
    page.get_by_role("button", name="Save this assignment").click()
    # Saved by a job too, which the page follows; once done, it says what was saved.
    expect(page.locator("#confirmation .job-sentence")).to_contain_text("Waiting for the task")
    run_as_the_worker(Job.objects.get(kind=Job.Kind.ASSIGNMENT_CONFIRM))
    expect(page.locator(".messages li")).to_have_text(
        "6 assignments created in 1 problem of iol (0 already there).", timeout=15_000
    )

    # Grading opens after its confirmation.
    page.get_by_role("link", name="the contest's life").click()
    assert page.locator("#transition-finalize .why").inner_text() == (
        "Not at this stage of the contest."
    )
    page.get_by_role("link", name="Open grading…").click()
    page.get_by_label("I understand that jurors will grade and submit their sheets").check()
    page.get_by_role("button", name="Open grading").click()
    assert page.locator(".messages li").inner_text() == (
        "Grading is open: jurors may now grade and submit their sheets."
    )

    _grade_and_submit(graded)
    page.get_by_role("link", name="progress").first.click()
    assert page.locator("#problem-1").inner_text().split("\t") == [
        "P1",
        "12 of 12 ",
        "3 of 3",
        "0",
        "0",
    ]

    # The results page's finalize button leads to the confirmation, which says what happens;
    # nothing happens until its box is ticked.
    page.goto(f"{live_server.url}/contests/iol/results/")
    page.get_by_role("button", name="Finalize the contest").click()
    assert page.locator("#what strong").inner_text() == (
        "Finalizing reveals every paper's identity, which AI system wrote it, to the chair, "
        "and nothing can change afterwards:"
    )
    page.get_by_role("button", name="Finalize and reveal the identities").click()
    assert page.url.split("?")[0] == f"{live_server.url}/console/contests/iol/life/finalize/"
    graded["contest"].refresh_from_db()
    assert graded["contest"].state == "grading"
    page.get_by_label(
        "I understand that the identities will be revealed to the chair and that nothing can "
        "change afterwards."
    ).check()
    page.get_by_role("button", name="Finalize and reveal the identities").click()
    page.wait_for_url(f"{live_server.url}/contests/iol/reveal/")
    graded["contest"].refresh_from_db()
    assert graded["contest"].state == "final"
