"""The sheet through a dropped network, in Chromium: every change typed while offline is kept
in the browser, sent when the network is back and stored exactly once (marks and history); a
change survives the tab being closed; a save whose answer was lost is sent again and applied
once; a change refused on arrival stays in its cell with both values; signing out clears what
waits."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from grading.marking.marks import mark_set
from grading.models import Mark, MarkEvent, Resolution
from grading.resolution.decisions import discrepancy_decide
from tests import factories
from tests.browser.sheet_page import (
    grid_cell,
    open_sheet,
    page_without_workers,
    sheet_labels,
    sheet_mark,
)
from tests.grading import scenario

# The saves' answers depend on the database: the PostgreSQL run keeps these (tests/layers.py).
pytestmark = [pytest.mark.browser, pytest.mark.on_both_databases]

# The queue retries with a backoff that doubles up to 30 s; the `online` event sends at once.
BACK_ONLINE_MS = 40_000


@pytest.fixture(autouse=True)
def _fast_hashers(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


# Service workers blocked (tests/browser/sheet_page.py says why).
page = page_without_workers


def _stored(juror) -> dict:
    return {
        (label, code): (points, note, version)
        for label, code, points, note, version in Mark.objects.filter(
            sheet__juror=juror, sheet__problem__number=1, paper__labels__problem__number=1
        ).values_list("paper__labels__label", "criterion__code", "points", "note", "version")
    }


def test_three_cells_and_a_note_typed_offline_are_stored_once_when_the_network_is_back(
    log_in, live_server, contest, juror
):
    page = open_sheet(log_in(juror), live_server, contest)
    first, second, _ = sheet_labels(contest)
    page.context.set_offline(True)
    keyboard = page.keyboard
    keyboard.type("10")  # first A1, where the page starts
    keyboard.press("Tab")
    keyboard.type("5")  # first T1
    keyboard.press("Tab")
    keyboard.type("3")  # second A1
    keyboard.press("Tab")
    keyboard.press(";")  # the note of second T1
    keyboard.type("see page 2")
    keyboard.press("Enter")  # back to the cell: the note is left, and kept
    status = page.locator("#sheet-status")
    expect(status).to_have_text("Offline: 4 changes waiting")
    expect(page.locator("input.cell.pending")).to_have_count(4)
    expect(page.locator(".pending-tag")).to_have_count(4)
    assert MarkEvent.objects.count() == 0

    page.context.set_offline(False)
    expect(status).to_have_text("All changes saved", timeout=BACK_ONLINE_MS)
    expect(page.locator("input.cell.pending")).to_have_count(0)
    stored = _stored(juror)
    assert stored[(first, "A1")] == (Decimal("10"), "", 1)
    assert stored[(first, "T1")] == (Decimal("5"), "", 1)
    assert stored[(second, "A1")] == (Decimal("3"), "", 1)
    assert stored[(second, "T1")] == (None, "see page 2", 1)
    assert MarkEvent.objects.count() == 4
    assert page.locator("#sheet-count").inner_text() == "3 of 6"
    assert (
        page.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('jury-pending:'))")
        == []
    )


def test_a_change_typed_offline_in_a_closed_tab_is_stored_when_the_sheet_is_opened_again(
    log_in, live_server, contest, juror
):
    page = open_sheet(log_in(juror), live_server, contest)
    first = sheet_labels(contest)[0]
    page.context.set_offline(True)
    page.keyboard.type("7")
    page.keyboard.press("Tab")
    expect(page.locator("#sheet-status")).to_have_text("Offline: 1 change waiting")
    context = page.context
    page.close()
    assert MarkEvent.objects.count() == 0

    context.set_offline(False)
    again = open_sheet(context.new_page(), live_server, contest)
    expect(grid_cell(again, first, "A1")).to_have_value("7")
    expect(again.locator("#sheet-status")).to_have_text("All changes saved", timeout=BACK_ONLINE_MS)
    assert _stored(juror)[(first, "A1")] == (Decimal("7"), "", 1)
    assert MarkEvent.objects.count() == 1


def test_a_save_whose_answer_was_lost_is_sent_again_and_applied_once(
    log_in, live_server, contest, juror
):
    page = open_sheet(log_in(juror), live_server, contest)
    first = sheet_labels(contest)[0]
    lost = []

    def lose_the_first_answer(route):
        if lost:
            route.continue_()
            return
        route.fetch()  # the server gets the save and answers it ...
        lost.append(route.request.post_data)
        route.abort()  # ... and the browser sees a network error

    page.route("**/sheet/cells/**", lose_the_first_answer)
    page.keyboard.type("9")
    page.keyboard.press("Tab")
    expect(page.locator("#sheet-status")).to_have_text("All changes saved", timeout=BACK_ONLINE_MS)
    assert len(lost) == 1
    mark = sheet_mark(juror, first, "A1")
    assert (mark.points, mark.version) == (Decimal("9"), 1)
    assert mark.events.count() == 1
    assert grid_cell(page, first, "A1").get_attribute("data-version") == "1"


def _refused_on_arrival(page, contest, juror):
    """6 typed into the first cell offline while another session of the juror's gives it 4,
    then the network back: the change is refused in its cell. Returns the label and the cell."""
    first = sheet_labels(contest)[0]
    page.context.set_offline(True)
    page.keyboard.type("6")
    page.keyboard.press("Tab")
    expect(page.locator("#sheet-status")).to_have_text("Offline: 1 change waiting")
    mark_set(
        mark=sheet_mark(juror, first, "A1"), points=Decimal("4"), actor=juror, channel="browser"
    )
    page.context.set_offline(False)
    cell = grid_cell(page, first, "A1")
    expect(cell).to_have_attribute("aria-invalid", "true", timeout=BACK_ONLINE_MS)
    return first, cell


def test_a_change_queued_offline_that_meets_a_newer_mark_is_refused_in_place_with_both_values(
    log_in, live_server, contest, juror
):
    page = open_sheet(log_in(juror), live_server, contest)
    first, cell = _refused_on_arrival(page, contest, juror)
    expect(cell).to_have_value("6")
    bubble = page.locator(f"#row-{first} td .cell-msg")
    expect(bubble).to_contain_text("This mark was changed to 4 at ")
    expect(bubble).to_contain_text("Yours: 6; the server's: 4.")
    assert sheet_mark(juror, first, "A1").points == Decimal("4")
    assert page.locator("input.cell.pending").count() == 0

    cell.focus()
    panel = page.locator("#cell-conflict")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("Yours: 6; the server's: 4.")
    panel.get_by_role("button", name="Keep mine").click()
    expect(page.locator("#sheet-status")).to_have_text(f"Saved {first} A1: 6.")
    mark = sheet_mark(juror, first, "A1")
    assert (mark.points, mark.version) == (Decimal("6"), 2)
    assert list(mark.events.values_list("new_points", flat=True)) == [Decimal("4"), Decimal("6")]
    expect(panel).to_be_hidden()


def test_use_the_servers_value_takes_it_into_the_cell_and_writes_nothing(
    log_in, live_server, contest, juror
):
    page = open_sheet(log_in(juror), live_server, contest)
    _, cell = _refused_on_arrival(page, contest, juror)
    cell.focus()
    page.locator("#cell-conflict").get_by_role("button", name="Use the server's").click()
    expect(cell).to_have_value("4")
    assert cell.get_attribute("aria-invalid") is None
    assert cell.get_attribute("data-version") == "1"
    assert MarkEvent.objects.count() == 1


def test_signing_out_from_the_sheet_asks_then_clears_the_jurors_waiting_changes(
    log_in, live_server, contest, juror
):
    page = open_sheet(log_in(juror), live_server, contest)
    # The saves fail as on a dropped network while the rest of the site answers.
    page.route("**/sheet/cells/**", lambda route: route.abort())
    page.keyboard.type("8")
    page.keyboard.press("Tab")
    expect(page.locator("#sheet-status")).to_have_text("Offline: 1 change waiting")
    waiting = "Object.keys(localStorage).filter((k) => k.startsWith('jury-pending:')).length"
    assert page.evaluate(waiting) == 1
    asked = []

    def leave(dialog):
        asked.append(dialog.type)
        dialog.accept()

    page.on("dialog", leave)
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(f"{live_server.url}/accounts/login/**")
    assert asked == ["beforeunload"]
    assert page.evaluate(waiting) == 0
    assert MarkEvent.objects.count() == 0


def test_a_second_tab_takes_over_the_changes_waiting_in_the_first_and_each_is_stored_once(
    log_in, live_server, contest, juror
):
    first_tab = open_sheet(log_in(juror), live_server, contest)
    first = sheet_labels(contest)[0]
    # The first tab's saves fail as on a dropped network; the second tab's go through.
    first_tab.route("**/sheet/cells/**", lambda route: route.abort())
    first_tab.keyboard.type("11")
    first_tab.keyboard.press("Tab")
    expect(first_tab.locator("#sheet-status")).to_have_text("Offline: 1 change waiting")

    second_tab = open_sheet(first_tab.context.new_page(), live_server, contest)
    expect(second_tab.locator("#sheet-status")).to_have_text("All changes saved")
    assert sheet_mark(juror, first, "A1").points == Decimal("11")
    # The first tab's own retry, once its network is back, is recognised: no second change.
    first_tab.unroute("**/sheet/cells/**")
    first_tab.bring_to_front()
    expect(first_tab.locator("#sheet-status")).to_have_text(
        "All changes saved", timeout=BACK_ONLINE_MS
    )
    mark = sheet_mark(juror, first, "A1")
    assert (mark.points, mark.version, mark.events.count()) == (Decimal("11"), 1, 1)
    waiting = "Object.keys(localStorage).filter((k) => k.startsWith('jury-pending:')).length"
    assert first_tab.evaluate(waiting) == 0


def test_sixty_seconds_offline_thirty_cells_and_five_notes_are_stored_once_without_retyping(
    log_in, live_server, juror
):
    """A sheet of 15 papers (30 cells): every cell and five notes typed through a minute
    offline (Playwright's clock: the queue's retries run on it, so the minute passes at once)."""
    contest = factories.make_contest("offline", problems=1, papers=15)
    factories.assign(contest, [juror], problems=[1])
    page = log_in(juror)
    page.clock.install()
    open_sheet(page, live_server, contest)
    # The rows as the grid shows them, which Tab walks through.
    labels = page.eval_on_selector_all(
        "#sheet-grid tbody tr[data-label]", "(rows) => rows.map((row) => row.dataset.label)"
    )
    assert sorted(labels) == sheet_labels(contest) and len(labels) == 15
    page.context.set_offline(True)
    keyboard = page.keyboard
    typed = {}
    for row, label in enumerate(labels):
        for code, points in (("A1", row % 12 + 1), ("T1", row % 8 + 1)):
            keyboard.type(str(points))
            typed[(label, code)] = (Decimal(points), "")
            if code == "T1" and row < 5:
                keyboard.press(";")  # the note of the cell just typed
                keyboard.type(f"rule {row + 1} applied")
                keyboard.press("Enter")  # back to the cell: the note is left, and kept
                typed[(label, code)] = (Decimal(points), f"rule {row + 1} applied")
            keyboard.press("Tab")
    page.clock.fast_forward(60_000)
    status = page.locator("#sheet-status")
    expect(status).to_have_text("Offline: 35 changes waiting")
    expect(page.locator("input.cell.pending")).to_have_count(30)
    assert MarkEvent.objects.count() == 0

    page.context.set_offline(False)
    # The retry due next comes now, whether or not the browser says it is online again.
    page.clock.fast_forward(30_000)
    expect(status).to_have_text("All changes saved", timeout=BACK_ONLINE_MS)
    expect(page.locator("input.cell.pending")).to_have_count(0)
    assert page.locator("input.cell.error").count() == 0
    stored = _stored(juror)
    for (label, code), (points, note) in typed.items():
        version = 2 if note else 1
        assert stored[(label, code)] == (points, note, version), (label, code)
    events = MarkEvent.objects.filter(mark__sheet__juror=juror)
    assert events.count() == 35
    assert events.values("change_key").distinct().count() == 35
    assert page.locator("#sheet-count").inner_text() == "30 of 30"


def test_a_change_queued_offline_that_meets_the_chairs_decision_is_refused_in_place(
    log_in, live_server
):
    """In the resolution phase alice revises Orca's T1 (8) to 5 while offline; meanwhile the
    chair decides the cell at 6. Back online, her change is refused in its cell with both
    values and the chair's sentence, and nothing is overwritten."""
    graded = scenario.build()
    scenario.open_resolution(graded)
    alice = graded["users"]["alice"]
    orca = scenario.label(graded, "Team Orca", 1)
    page = open_sheet(log_in(alice), live_server, graded["contest"])
    cell = grid_cell(page, orca, "T1")
    cell.click()
    page.context.set_offline(True)
    page.keyboard.type("5")
    page.keyboard.press("Tab")
    status = page.locator("#sheet-status")
    expect(status).to_have_text("Offline: 1 change waiting")
    mark = sheet_mark(alice, orca, "T1")
    events_before = mark.events.count()
    discrepancy_decide(
        paper=graded["papers"]["Team Orca"],
        criterion=mark.criterion,
        points=Decimal("6"),
        reason="Item 3 is half right, as agreed in the meeting.",
        actor=graded["chair"],
    )

    page.context.set_offline(False)
    expect(cell).to_have_attribute("aria-invalid", "true", timeout=BACK_ONLINE_MS)
    expect(cell).to_have_value("5")
    bubble = page.locator(f"#row-{orca} td .cell-msg")
    expect(bubble).to_contain_text(
        "The chair decided criterion T1 for this paper (6 points); only the chair can change it."
    )
    expect(bubble).to_contain_text("Yours: 5; the server's: 8.")
    assert page.locator("input.cell.pending").count() == 0
    mark.refresh_from_db()
    assert (mark.points, mark.events.count()) == (Decimal("8"), events_before)
    assert Resolution.objects.get(
        paper=graded["papers"]["Team Orca"], criterion=mark.criterion
    ).points == Decimal("6")

    cell.focus()
    panel = page.locator("#cell-conflict")
    expect(panel).to_contain_text("Yours: 5; the server's: 8.")
    # Keeping hers is checked again like any save: the chair's decision still refuses it.
    panel.get_by_role("button", name="Keep mine").click()
    expect(status).to_contain_text("The chair decided criterion T1")
    expect(panel).to_be_visible()
    mark.refresh_from_db()
    assert (mark.points, mark.events.count()) == (Decimal("8"), events_before)


def test_a_change_made_after_the_session_ended_waits_for_the_juror_to_sign_in_again(
    log_in, live_server, contest, juror
):
    page = open_sheet(log_in(juror), live_server, contest)
    first = sheet_labels(contest)[0]
    # The session ends (it expired, or the juror signed out in another tab); the sheet stays.
    context = page.context
    kept = [cookie for cookie in context.cookies() if "session" not in cookie["name"]]
    context.clear_cookies()
    context.add_cookies(kept)
    page.keyboard.type("9")
    page.keyboard.press("Tab")
    expect(page.locator("#sheet-status")).to_have_text(
        "You are signed out: sign in again (in another tab) and they are sent; 1 change waiting"
    )
    assert MarkEvent.objects.count() == 0

    # Signing in again in another tab gives a new CSRF token, which the queue reads there.
    from tests.browser.signing_in import submit_log_in

    other = submit_log_in(context.new_page(), live_server, juror)
    other.close()
    page.bring_to_front()
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(page.locator("#sheet-status")).to_have_text("All changes saved", timeout=BACK_ONLINE_MS)
    assert _stored(juror)[(first, "A1")] == (Decimal("9"), "", 1)
    assert MarkEvent.objects.count() == 1
