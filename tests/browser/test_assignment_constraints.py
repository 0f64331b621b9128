"""The assignment under a jury's constraints in the browser: the organizer previews an
assignment (a background job the page follows) where a contestant's paper in Tagalog is
flagged, reads why, and saves it; mid-grading, a juror who has marked some of their papers is
marked unavailable, and only their ungraded papers move; the colleague who takes them reads so
in their inbox."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from grading.marking.marks import mark_set
from grading.models import (
    Assignment,
    AssignmentMove,
    GradingGroup,
    Job,
    JurorLanguage,
    Mark,
    Paper,
    PaperLabel,
)
from grading.rules import roles
from tests import factories
from tests.browser.test_console_imports import assert_accessible
from tests.browser.test_console_imports import page as page  # noqa: F401 (the axe-ready page)
from tests.browser.worker import run_as_the_worker
from tests.grading.scenario import grade

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def folders(settings, tmp_path):
    settings.JOBS_DIR = tmp_path / "jobs"


def _contest():
    """One problem of four papers: a Filipino contestant's answers in Tagalog, and three AI
    papers in the working language (English). ann reads English and Tagalog with help; ben and
    cat read English only."""
    contest = factories.make_contest("iol", problems=1, papers=4)
    tagalog = contest.papers.order_by("pk").first()
    factories.make_delegation(contest, "PHL", papers=[tagalog])
    Paper.objects.filter(pk=tagalog.pk).update(answer_language="Tagalog")
    jurors = {name: factories.make_user(name, roles.JUROR) for name in ("ann", "ben", "cat")}
    for juror in jurors.values():
        JurorLanguage.objects.create(user=juror, language="English")
    JurorLanguage.objects.create(user=jurors["ann"], language="Tagalog", level="with_help")
    GradingGroup.objects.create(problem=contest.problems.get()).jurors.add(*jurors.values())
    label = PaperLabel.objects.get(paper=tagalog).label
    return contest, jurors, label


def test_a_flagged_preview_is_saved_then_a_leaving_jurors_ungraded_papers_move(
    page, browser, log_in, live_server, organizer, transactional_db
):
    contest, jurors, tagalog = _contest()
    log_in(organizer)
    page.goto(f"{live_server.url}/console/contests/iol/assignments/")
    page.fill("#id_p1", "2")
    page.fill("#id_load_slack", "1")
    page.click("#assignments-form button[name=preview]")
    expect(page.locator("#preview .job-sentence")).to_contain_text("Waiting for the task worker")
    (job,) = Job.objects.filter(kind=Job.Kind.ASSIGNMENT)
    run_as_the_worker(job)
    # The page follows the job by itself and shows the plan once it is solved.
    rows = page.locator("#preview-papers-p1 tbody tr")
    expect(rows.first).to_have_class("flagged", timeout=15_000)
    first = rows.first.inner_text()
    assert first.startswith(f"⚑ flagged {tagalog}\tTagalog\t")
    assert "reads Tagalog with help" in first
    assert "reads no Tagalog: needs a helper" in first
    assert page.locator("#preview-papers-p1 tbody tr.flagged").count() == 1
    expect(page.locator("#preview-jurors-p1")).to_contain_text("English, Tagalog (with help)")
    assert_accessible(page)
    assert not Assignment.objects.exists()
    page.click("#assignments-confirm button[type=submit]")
    # The confirmation is a job too: the page follows it, and nothing is written until it runs.
    expect(page.locator("#confirmation .job-sentence")).to_contain_text("Waiting for the task")
    assert_accessible(page)
    assert not Assignment.objects.exists()
    run_as_the_worker(Job.objects.get(kind=Job.Kind.ASSIGNMENT_CONFIRM))
    expect(page.locator(".messages li.success")).to_contain_text(
        "8 assignments created", timeout=15_000
    )
    assert Assignment.objects.count() == 8

    # Grading begins: ben marks one of his papers fully and half of another, then cannot go on.
    ben = jurors["ben"]
    problem = contest.problems.get()
    his = list(Paper.objects.filter(assignments__juror=ben).order_by("labels__label"))
    grade(ben, problem, his[0], "6", "4")
    half = Mark.objects.get(sheet__juror=ben, paper=his[1], criterion__code="A1")
    mark_set(mark=half, points=Decimal("3"), actor=ben, channel="browser")
    page.goto(f"{live_server.url}/console/contests/iol/assignments/leaving/")
    page.select_option("#id_juror", "ben")
    page.fill("#id_reason", "ill from Tuesday")
    page.click("#leaving-form button[type=submit]")
    moving = len(his) - 1
    expect(page.locator("#leaving-sentences")).to_contain_text(
        f"P1: {moving} ungraded papers move to colleagues"
        if moving > 1
        else "P1: 1 ungraded paper moves to colleagues"
    )
    expect(page.locator("#leaving-sentences")).to_contain_text(
        "P1: 1 graded paper stays with ben; those marks count once their sheet is submitted"
    )
    assert_accessible(page)
    page.click("#leaving-confirm button[type=submit]")
    expect(page.locator(".messages li.success")).to_contain_text(
        f"ben is unavailable from now; {moving} paper{'s' if moving > 1 else ''} moved to "
        "colleagues."
    )
    assert list(Assignment.objects.filter(juror=ben).values_list("paper_id", flat=True)) == [
        his[0].pk
    ]
    moves = list(AssignmentMove.objects.select_related("to_juror"))
    assert sorted(move.paper_id for move in moves) == sorted(paper.pk for paper in his[1:])
    # The half-marked paper's mark stays on record.
    assert Mark.objects.get(pk=half.pk).points == Decimal("3")

    # A colleague who took papers reads so in their inbox, with a link to their sheet.
    receiver = moves[0].to_juror
    taken = sum(1 for move in moves if move.to_juror_id == receiver.pk)
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    other = context.new_page()
    other.goto(f"{live_server.url}/accounts/login/")
    other.fill("#id_username", receiver.username)
    other.fill("#id_password", factories.PASSWORD)
    other.click("button[type=submit]")
    other.wait_for_url(f"{live_server.url}/")
    other.goto(f"{live_server.url}/inbox/")
    noun = "paper" if taken == 1 else "papers"
    notice = other.locator("#notifications .headline")
    expect(notice).to_have_text(f"P1: {taken} {noun} moved to you from a colleague.")
    assert "ben" not in other.locator("#notifications").inner_text()
    other.click("#notifications summary")
    other.click(f"#notifications a >> text=P1: {taken} {noun} moved to you")
    other.wait_for_url("**/contests/iol/p1/sheet/")
    context.close()
