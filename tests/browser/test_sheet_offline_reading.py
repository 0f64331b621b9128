"""The sheet read offline, in Chromium: once opened, the sheet, its papers' answers and scanned
pages come back from the service worker's copy when the network is gone (with the changes
typed offline in their cells, stored once when it is back); online the page is always the
server's; signing out, from any page, leaves no copy and no waiting change in the browser, and
the next juror on the same browser reads nothing of the first's."""

from decimal import Decimal

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from grading.marking.marks import mark_set
from grading.models import CalibrationMark, MarkEvent, PaperLabel
from tests.browser.sheet_page import grid_cell, open_sheet, sheet_mark
from tests.grading import scan_pages, scenario
from tests.grading.calibration.scenario import make_round

# The saves' answers depend on the database: the PostgreSQL run keeps these (tests/layers.py).
pytestmark = [pytest.mark.browser, pytest.mark.on_both_databases]

# The queue retries with a backoff that doubles up to 30 s; the `online` event sends at once.
BACK_ONLINE_MS = 40_000

# Every cache of the page's origin, and the addresses each holds.
CACHES = """async () => {
  const found = {};
  for (const name of await caches.keys()) {
    found[name] = (await (await caches.open(name)).keys()).map((request) => request.url);
  }
  return found;
}"""
WAITING = "Object.keys(localStorage).filter((key) => key.startsWith('jury-pending:')).length"
WORKERS = "navigator.serviceWorker.getRegistrations().then((found) => found.length)"


@pytest.fixture(autouse=True)
def _fast_hashers(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _labels(contest) -> list[str]:
    return sorted(
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1).values_list(
            "label", flat=True
        )
    )


def _kept(page):
    """Waits until the worker controls the sheet and has copied it; returns the page."""
    page.wait_for_function("() => Boolean(navigator.serviceWorker.controller)")
    expect(page.locator("html")).to_have_attribute("data-offline-reading", "kept")
    return page


def _wait_copied(page, path: str):
    """Waits until the juror's cache holds a copy of `path` (the worker puts it in as the answer
    reaches the page)."""
    page.wait_for_function(
        """async (path) => {
          const address = new URL(path, location.href).href;
          for (const name of await caches.keys()) {
            if (await (await caches.open(name)).match(address)) return true;
          }
          return false;
        }""",
        arg=path,
    )


def _leave_when_asked(page):
    """Leaving a sheet with changes waiting asks first (sheet.js): the juror confirms."""
    page.on("dialog", lambda dialog: dialog.accept())


def _sheet_url(live_server, contest) -> str:
    return f"{live_server.url}/contests/{contest.slug}/p1/sheet/"


def test_a_sheet_reloaded_offline_shows_the_changes_typed_offline_which_are_stored_once_online(
    log_in, live_server, contest, juror
):
    page = _kept(open_sheet(log_in(juror), live_server, contest))
    first, second, third = _labels(contest)
    page.context.set_offline(True)
    # Changed on the server after the copy was made: the offline page is the copy, not this.
    mark_set(
        mark=sheet_mark(juror, third, "A1"), points=Decimal("2"), actor=juror, channel="browser"
    )
    page.keyboard.type("10")  # first A1, where the page starts
    page.keyboard.press("Tab")
    page.keyboard.type("5")  # first T1
    page.keyboard.press("Tab")
    status = page.locator("#sheet-status")
    expect(status).to_have_text("Offline: 2 changes waiting")

    _leave_when_asked(page)
    page.reload()
    page.wait_for_selector("#cell-tools:not([hidden])")
    expect(grid_cell(page, first, "A1")).to_have_value("10")
    expect(grid_cell(page, first, "T1")).to_have_value("5")
    expect(page.locator("input.cell.pending")).to_have_count(2)
    expect(grid_cell(page, third, "A1")).to_have_value("")
    expect(status).to_have_text("Offline: 2 changes waiting")

    # Each stored once, whether or not Playwright's offline emulation let the first save through
    # before the worker's page was offline too (seen in 1 run of 4): its key makes it count once.
    page.context.set_offline(False)
    expect(status).to_have_text("All changes saved", timeout=BACK_ONLINE_MS)
    for code, points in (("A1", Decimal("10")), ("T1", Decimal("5"))):
        mark = sheet_mark(juror, first, code)
        assert (mark.points, mark.version, mark.events.count()) == (points, 1, 1)
    assert MarkEvent.objects.count() == 3
    assert page.evaluate(WAITING) == 0


def test_marks_saved_after_the_copy_was_made_show_in_it_offline_and_later_changes_build_on_them(
    log_in, live_server, contest, juror
):
    page = _kept(open_sheet(log_in(juror), live_server, contest))
    first = _labels(contest)[0]
    page.keyboard.type("6")  # first A1, saved online after the page was copied
    page.keyboard.press("Tab")
    expect(grid_cell(page, first, "A1")).to_have_attribute("data-version", "1")
    assert page.locator("#offline-copy").count() == 0

    page.context.set_offline(True)
    page.reload()
    page.wait_for_selector("#cell-tools:not([hidden])")
    expect(page.locator("#offline-copy")).to_contain_text("The server cannot be reached")
    cell = grid_cell(page, first, "A1")
    expect(cell).to_have_value("6")
    expect(cell).to_have_attribute("data-version", "1")
    expect(page.locator(f"#row-{first} [data-total]")).to_have_text("6")
    expect(page.locator("#sheet-count")).to_have_text("1 of 6")
    cell.focus()
    page.keyboard.type("7")
    page.keyboard.press("Tab")
    status = page.locator("#sheet-status")
    expect(status).to_have_text("Offline: 1 change waiting")

    page.context.set_offline(False)
    expect(status).to_have_text("All changes saved", timeout=BACK_ONLINE_MS)
    mark = sheet_mark(juror, first, "A1")
    assert (mark.points, mark.version) == (Decimal("7"), 2)
    assert list(mark.events.values_list("new_points", flat=True)) == [Decimal("6"), Decimal("7")]
    assert cell.get_attribute("aria-invalid") is None


def test_online_the_sheet_is_always_the_servers_never_the_copy(log_in, live_server, contest, juror):
    page = _kept(open_sheet(log_in(juror), live_server, contest))
    first = _labels(contest)[0]
    mark_set(
        mark=sheet_mark(juror, first, "T1"), points=Decimal("4"), actor=juror, channel="browser"
    )
    page.reload()
    page.wait_for_selector("#cell-tools:not([hidden])")
    expect(grid_cell(page, first, "T1")).to_have_value("4")
    # And the copy follows: offline, the page read last online.
    page.context.set_offline(True)
    page.reload()
    page.wait_for_selector("#cell-tools:not([hidden])")
    expect(grid_cell(page, first, "T1")).to_have_value("4")


def test_a_papers_answers_shown_once_on_the_sheet_are_readable_offline_after_a_reload(
    log_in, live_server, contest, juror
):
    page = _kept(open_sheet(log_in(juror), live_server, contest))
    first, second, _ = _labels(contest)
    panel = page.locator("#solution-panel .solution-body")
    grid_cell(page, second, "A1").focus()
    expect(panel).to_have_attribute("data-label", second)
    answers = panel.inner_text()
    _wait_copied(page, f"/contests/{contest.slug}/p1/sheet/solution/{second}/")
    # Only what this page fetched is copied: nothing the worker chose on its own.
    fetched = page.evaluate(
        "[location.href, ...performance.getEntriesByType('resource').map((e) => e.name)]"
    )
    copies = page.evaluate(CACHES)
    assert list(copies) == [f"jury-sheets-{juror.pk}"]
    assert set(copies[f"jury-sheets-{juror.pk}"]) <= set(fetched)

    page.context.set_offline(True)
    page.reload()
    page.wait_for_selector("#cell-tools:not([hidden])")
    expect(panel).to_have_attribute("data-label", first)
    grid_cell(page, second, "A1").focus()
    expect(panel).to_have_attribute("data-label", second)
    assert panel.inner_text() == answers


def test_the_calibration_sheet_reloaded_offline_shows_the_changes_typed_offline(
    log_in, live_server, contest, chair, juror
):
    make_round(contest.problems.get(number=1), chair)
    page = log_in(juror)
    page.goto(f"{live_server.url}/contests/{contest.slug}/p1/calibration/sheet/")
    page.wait_for_selector("#cell-tools:not([hidden])")
    _kept(page)
    page.context.set_offline(True)
    page.keyboard.type("3")  # K1 A1, where the page starts
    page.keyboard.press("Tab")
    status = page.locator("#sheet-status")
    expect(status).to_have_text("Offline: 1 change waiting")
    _leave_when_asked(page)
    page.reload()
    page.wait_for_selector("#cell-tools:not([hidden])")
    expect(page.locator("#offline-copy")).to_be_visible()
    expect(grid_cell(page, "K1", "A1")).to_have_value("3")
    expect(status).to_have_text("Offline: 1 change waiting")

    page.context.set_offline(False)
    expect(status).to_have_text("All changes saved", timeout=BACK_ONLINE_MS)
    mark = CalibrationMark.objects.get(
        sheet__juror=juror, calibration_paper__label="K1", criterion__code="A1"
    )
    assert (mark.points, mark.events.count()) == (Decimal("3"), 1)


@pytest.fixture
def human_contest(db, settings, tmp_path, juror):
    settings.SCANS_DIR = tmp_path / "scans"
    return scan_pages.human_contest("scan", juror, ["C-1001", "C-1002"], pages=2)


SHOWN_PAGE_LOADED = """(label) => {
  const body = document.querySelector(`#solution-panel .solution-body[data-label="${label}"]`);
  const frame = body && [...body.querySelectorAll('.scan-page')].find((f) => !f.hidden);
  const image = frame && frame.querySelector('img');
  return Boolean(image && image.complete && image.naturalWidth > 0);
}"""


def test_a_scanned_page_shown_once_on_the_sheet_is_readable_offline_after_a_reload(
    log_in, live_server, human_contest, juror
):
    first, second = _labels(human_contest)
    page = _kept(open_sheet(log_in(juror), live_server, human_contest))
    page.wait_for_function(SHOWN_PAGE_LOADED, arg=first)
    grid_cell(page, second, "A1").focus()
    page.wait_for_function(SHOWN_PAGE_LOADED, arg=second)
    _wait_copied(page, f"/contests/scan/p1/papers/{second}/pages/1.png")

    page.context.set_offline(True)
    page.reload()
    page.wait_for_selector("#cell-tools:not([hidden])")
    page.wait_for_function(SHOWN_PAGE_LOADED, arg=first)
    grid_cell(page, second, "A1").focus()
    page.wait_for_function(SHOWN_PAGE_LOADED, arg=second)


def _sheet_unreadable_offline(page, live_server, contest):
    page.context.set_offline(True)
    with pytest.raises(PlaywrightError):
        page.goto(_sheet_url(live_server, contest))
    page.context.set_offline(False)


def test_signing_out_from_another_page_leaves_no_copy_and_no_waiting_change(
    log_in, live_server, contest, juror, other_juror
):
    page = _kept(open_sheet(log_in(juror), live_server, contest))
    first = _labels(contest)[0]
    # A save that cannot reach the server while the rest of the site answers: it waits.
    page.route("**/sheet/cells/**", lambda route: route.abort())
    page.keyboard.type("8")
    page.keyboard.press("Tab")
    expect(page.locator("#sheet-status")).to_have_text("Offline: 1 change waiting")
    _leave_when_asked(page)
    page.goto(f"{live_server.url}/inbox/")
    assert list(page.evaluate(CACHES)) == [f"jury-sheets-{juror.pk}"]
    assert page.evaluate(WAITING) == 1

    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(f"{live_server.url}/accounts/login/**")
    assert (page.evaluate(CACHES), page.evaluate(WAITING), page.evaluate(WORKERS)) == ({}, 0, 0)
    _sheet_unreadable_offline(page, live_server, contest)

    # The next juror on this browser: nothing of the first's, online or offline.
    page = log_in(other_juror)
    assert page.evaluate(CACHES) == {}
    _sheet_unreadable_offline(page, live_server, contest)
    page = _kept(open_sheet(page, live_server, contest))
    expect(grid_cell(page, first, "A1")).to_have_value("")
    assert list(page.evaluate(CACHES)) == [f"jury-sheets-{other_juror.pk}"]
    assert MarkEvent.objects.count() == 0


def test_a_session_ended_without_signing_out_leaves_the_next_juror_nothing_to_read(
    log_in, live_server, contest, juror, other_juror
):
    page = _kept(open_sheet(log_in(juror), live_server, contest))
    first = _labels(contest)[0]
    page.keyboard.type("9")  # first A1, saved: remembered for a copy read offline
    page.keyboard.press("Tab")
    expect(grid_cell(page, first, "A1")).to_have_attribute("data-version", "1")
    remembered = (
        f"Object.keys(localStorage).filter((key) => key.startsWith('jury-saved:{juror.pk}:'))"
    )
    assert len(page.evaluate(remembered)) == 1
    # The session ends on its own (its cookie gone): no log-out, no Clear-Site-Data.
    page.context.clear_cookies()
    page = log_in(other_juror)
    assert page.evaluate(CACHES) == {}
    _sheet_unreadable_offline(page, live_server, contest)
    page = open_sheet(page, live_server, contest)
    expect(grid_cell(page, first, "A1")).to_have_value("")
    _kept(page)
    assert list(page.evaluate(CACHES)) == [f"jury-sheets-{other_juror.pk}"]
    assert page.evaluate(remembered) == []
