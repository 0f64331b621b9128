"""The sheet through server faults, in Chromium: a server that answers 500 (a locked database, a
bug, a proxy's error page) or dies mid-burst is waited out as a dropped network is. The changes
wait in the browser, the status line says the server is not answering, and once it is back
every change is stored exactly once, a change the server applied before failing included (its
change key). One change the server fails on every time, while it answers the next, is refused
in its cell rather than holding back every change behind it. The app's own refusals (its JSON
sentence with 400, 403, 409) stay refusals: see test_sheet_offline.py and
test_sheet_keyboard_and_errors.py."""

import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import urllib.request
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit, urlunsplit

import pytest
from playwright.sync_api import expect

from grading.models import MarkEvent
from tests import waiting
from tests.browser.sheet_page import (
    grid_cell,
    open_sheet,
    page_without_workers,
    sheet_labels,
    sheet_mark,
)
from tests.browser.signing_in import submit_log_in
from tests.grading import scenario
from tests.layers import on_postgresql

# The saves' answers depend on the database: the PostgreSQL run keeps these (tests/layers.py).
pytestmark = [pytest.mark.browser, pytest.mark.on_both_databases]

ROOT = Path(__file__).resolve().parents[2]
# The queue's backoff doubles up to 30 s; a test waits at most for one full step of it.
RETRY_MOST_MS = 30_000
BACK_MS = 40_000
# A proxy's (or Django's own) error page: HTML, not the app's JSON.
ERROR_PAGE = "<!doctype html><title>Server Error (500)</title><h1>Server Error (500)</h1>"


@pytest.fixture(autouse=True)
def _fast_hashers(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


# Service workers blocked (tests/browser/sheet_page.py says why).
page = page_without_workers


def test_a_500_mid_burst_is_waited_out_and_each_change_is_stored_once(
    log_in, live_server, contest, juror
):
    page = open_sheet(log_in(juror), live_server, contest)
    labels = sheet_labels(contest)
    sent = []  # each save's form, as the browser sent it
    faulty = {"on": True}

    def fail_from_the_second_save(route):
        sent.append(route.request.post_data)
        if len(sent) == 1 or not faulty["on"]:
            route.continue_()
        elif len(sent) == 2:
            # The server applies the second save and then fails (as a response lost to a
            # fault after the commit): the browser sees a 500 page.
            route.fetch()
            route.fulfill(status=500, content_type="text/html", body=ERROR_PAGE)
        else:
            route.fulfill(status=500, content_type="text/html", body=ERROR_PAGE)

    page.route("**/sheet/cells/**", fail_from_the_second_save)
    typed = {}
    for label in labels:
        for code, points in (("A1", "7"), ("T1", "3")):
            page.keyboard.type(points)
            page.keyboard.press("Tab")
            typed[(label, code)] = Decimal(points)
    status = page.locator("#sheet-status")
    # The first save went through; five wait, the second of them applied but not heard of.
    expect(status).to_have_text("The server is not answering: 5 changes waiting")
    expect(page.locator("input.cell.pending")).to_have_count(5)
    assert page.locator("input.cell.error").count() == 0
    assert MarkEvent.objects.count() == 2

    faulty["on"] = False
    expect(status).to_have_text("All changes saved", timeout=BACK_MS)
    expect(page.locator("input.cell.pending")).to_have_count(0)
    for (label, code), points in typed.items():
        mark = sheet_mark(juror, label, code)
        assert (mark.points, mark.version, mark.events.count()) == (points, 1, 1), (label, code)
    # The second save was sent again with its key, and answered from its history event.
    second = sheet_mark(juror, labels[0], "T1").events.get()
    assert sum(f"change_key={second.change_key}" in form for form in sent) >= 2
    assert MarkEvent.objects.count() == 6
    assert page.locator("#sheet-count").inner_text() == "6 of 6"


def test_a_proxys_page_answered_200_is_not_taken_for_a_save(log_in, live_server, contest, juror):
    """A captive portal or a misconfigured proxy answers 200 with its own page: the change was
    not saved by the app, so it waits and goes through once the app answers again."""
    page = open_sheet(log_in(juror), live_server, contest)
    first = sheet_labels(contest)[0]
    answered = []

    def portal_first(route):
        if answered:
            route.continue_()
            return
        answered.append(True)
        route.fulfill(status=200, content_type="text/html", body="<h1>Sign in to the Wi-Fi</h1>")

    page.route("**/sheet/cells/**", portal_first)
    page.keyboard.type("5")
    page.keyboard.press("Tab")
    expect(page.locator("#sheet-status")).to_have_text("All changes saved", timeout=BACK_MS)
    mark = sheet_mark(juror, first, "A1")
    assert (mark.points, mark.version, mark.events.count()) == (Decimal("5"), 1, 1)
    assert answered == [True]


# ---- the web server killed and restarted during a burst -------------------------------------

# The served contest: one problem of 100 papers, two criteria each, graded by alice: 200 cells.
SEED = """
import django
django.setup()
from grading.rules import roles
from tests import factories
juror = factories.make_user("alice", roles.JUROR)
contest = factories.make_contest("burst", problems=1, papers=100)
factories.assign(contest, [juror], problems=[1])
"""

# Types the values into the sheet's cells from `start` on and leaves each cell, as a juror
# tabbing through would: every change goes through the sheet's own save path (its queue).
TYPE_CELLS = """([start, values]) => {
  const cells = [...document.querySelectorAll("#sheet-grid input.cell")];
  values.forEach((value, i) => {
    const cell = cells[start + i];
    cell.focus();
    cell.value = value;
  });
  cells[0].focus();
}"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/accounts/login/", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


class Served:
    """The project under `manage.py runserver` in a process of its own, on a database of its
    own (a SQLite file, or a database made on the test run's PostgreSQL server), so that the
    test can kill it (SIGKILL, mid-request) and start it again on the same port."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.log = (folder / "server.log").open("a")
        self.postgres = os.environ["DATABASE_URL"] if on_postgresql() else None
        if self.postgres:
            self.name = f"jury_burst_{secrets.token_hex(4)}"
            self._admin(f"CREATE DATABASE {self.name}")
            parts = urlsplit(self.postgres)
            database_url = urlunsplit(parts._replace(path=f"/{self.name}"))
        else:
            database_url = f"sqlite:///{folder / 'jury.sqlite3'}"
        self.env = {
            key: value
            for key, value in os.environ.items()
            # tests/conftest.py lets Playwright's thread use the ORM; the served process may not.
            if key not in ("DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_SETTINGS_MODULE")
        }
        self.env.update(
            DEBUG="true",  # runserver serves the static files
            SECRET_KEY=secrets.token_urlsafe(50),
            DATABASE_URL=database_url,
            JOBS_DIR=str(folder / "jobs"),
            CACHE_DIR=str(folder / "cache"),
            DJANGO_SETTINGS_MODULE="grading.settings",
        )
        self.python = str(ROOT / ".venv" / "bin" / "python")
        if not os.path.exists(self.python):
            self.python = sys.executable
        subprocess.run(
            [self.python, "manage.py", "migrate", "--no-input", "-v0"],
            cwd=ROOT,
            env=self.env,
            check=True,
        )
        subprocess.run([self.python, "-c", SEED], cwd=ROOT, env=self.env, check=True)

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.postgres, autocommit=True) as connection:
            connection.execute(sql)

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.python, "manage.py", "runserver", "--noreload", f"127.0.0.1:{self.port}"],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        up = waiting.until(lambda: _answers(self.url) or self.process.poll() is not None, 120)
        if not up or self.process.poll() is not None:
            pytest.fail(f"runserver did not come up:\n{(self.folder / 'server.log').read_text()}")

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def query(self, sql: str) -> list[tuple]:
        if self.postgres:
            import psycopg

            with psycopg.connect(self.env["DATABASE_URL"]) as connection:
                return connection.execute(sql).fetchall()
        with sqlite3.connect(self.folder / "jury.sqlite3", timeout=20) as connection:
            return connection.execute(sql).fetchall()

    def close(self) -> None:
        if self.process and self.process.poll() is None:
            self.kill()
        self.log.close()
        if self.postgres:
            self._admin(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


@pytest.fixture
def served(tmp_path):
    server = Served(tmp_path)
    try:
        server.start()
        yield server
    finally:
        server.close()


EVENTS = "SELECT COUNT(*) FROM grading_markevent"
# Each mark of the served sheet: its paper's label, criterion, points, version and events.
MARKS = """
SELECT l.label, c.code, m.points, m.version,
       (SELECT COUNT(*) FROM grading_markevent e WHERE e.mark_id = m.id),
       (SELECT COUNT(DISTINCT e.change_key) FROM grading_markevent e WHERE e.mark_id = m.id)
FROM grading_mark m
JOIN grading_paperlabel l ON l.paper_id = m.paper_id
JOIN rubrics_criterion c ON c.id = m.criterion_id
"""


def test_a_change_the_server_keeps_failing_on_is_refused_once_it_answers_the_next(
    log_in, live_server, contest, juror
):
    """A bug that fails one change every time (its own 500) must not hold back every change
    typed after it: once the server has failed it three times and then answered the next one,
    it is refused in its cell with a sentence and the rest are saved; typed again once the bug
    is gone, it is saved."""
    page = open_sheet(log_in(juror), live_server, contest)
    first, second = sheet_labels(contest)[:2]
    failing = f"/cells/{first}/A1/"
    tries = []

    def fail_one_cell(route):
        if failing in route.request.url:
            tries.append(route.request.post_data)
            route.fulfill(status=500, content_type="text/html", body=ERROR_PAGE)
        else:
            route.continue_()

    page.route("**/sheet/cells/**", fail_one_cell)
    for points in ("7", "3", "5"):  # first A1, first T1, second A1
        page.keyboard.type(points)
        page.keyboard.press("Tab")
    status = page.locator("#sheet-status")
    expect(status).to_contain_text(
        f"Not saved: {first} A1: The server failed on this change 3 times", timeout=BACK_MS
    )
    bubble = page.locator(f"#row-{first} td .cell-msg")
    expect(bubble).to_contain_text("it is not saved. Type it again to try once more.")
    expect(page.locator("input.cell.pending")).to_have_count(0)
    assert len(tries) == 3
    assert sheet_mark(juror, first, "A1").events.count() == 0
    for label, code, points in ((first, "T1", "3"), (second, "A1", "5")):
        mark = sheet_mark(juror, label, code)
        assert (mark.points, mark.events.count()) == (Decimal(points), 1), (label, code)

    page.unroute("**/sheet/cells/**")
    cell = grid_cell(page, first, "A1")
    cell.fill("7")
    cell.press("Tab")
    expect(status).to_have_text(f"Saved {first} A1: 7.")
    assert sheet_mark(juror, first, "A1").points == Decimal("7")


def test_a_server_failing_every_change_holds_them_all_until_it_is_back(
    log_in, live_server, contest, juror
):
    """When the next change fails as well, the server is what is wrong, not one change: both
    wait, none is refused, and both are saved once the server answers again, the second (of
    the same cell) on the version the first one's answer gives."""
    page = open_sheet(log_in(juror), live_server, contest)
    first = sheet_labels(contest)[0]
    sent = []
    faulty = {"on": True}

    def fail_all(route):
        if not faulty["on"]:
            route.continue_()
            return
        sent.append(route.request.post_data)
        route.fulfill(status=500, content_type="text/html", body=ERROR_PAGE)

    page.route("**/sheet/cells/**", fail_all)
    cell = grid_cell(page, first, "A1")
    # The second change is sent only past the first, once that one has failed three times.
    with page.expect_request(
        lambda request: "points=8" in (request.post_data or ""), timeout=BACK_MS
    ):
        page.keyboard.type("7")
        page.keyboard.press("Tab")
        cell.fill("8")
        cell.press("Tab")
    status = page.locator("#sheet-status")
    expect(status).to_have_text("The server is not answering: 2 changes waiting")
    assert page.locator("input.cell.error").count() == 0
    # Failed three times before the next change was tried past it (later tries of both, on
    # the backoff, may have come since).
    past = next(index for index, form in enumerate(sent) if "points=8" in form)
    assert [("points=7" in form) for form in sent[:past]] == [True] * 3

    faulty["on"] = False
    expect(status).to_have_text("All changes saved", timeout=BACK_MS)
    assert page.locator("input.cell.error").count() == 0
    mark = sheet_mark(juror, first, "A1")
    assert (mark.points, mark.version, mark.events.count()) == (Decimal("8"), 2, 2)


def test_the_web_server_killed_and_restarted_during_a_burst_of_200_saves_loses_none(
    browser, served
):
    """200 cells typed (the sheet's own save path, driven by a script: typing them key by key
    adds minutes and nothing the other tests do not show). The server is killed with SIGKILL
    once 30 saves have landed, the second half of the cells is typed while it is down, and
    it is started again on the same port: every change acknowledged before the kill and every
    one queued is stored exactly once."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.on("dialog", lambda dialog: dialog.accept())
        # The queue's retry timers run on this clock, so that the test need not wait for
        # the backoff in real time once the server is back.
        page.clock.install()
        user = SimpleNamespace(username="alice")
        submit_log_in(page, served, user)
        page.goto(f"{served.url}/contests/burst/p1/sheet/")
        page.wait_for_selector("#cell-tools:not([hidden])")
        cells = page.locator("#sheet-grid input.cell")
        assert cells.count() == 200
        values = [str(i // 2 % 8 + 1) for i in range(200)]

        page.evaluate(TYPE_CELLS, [0, values[:100]])
        assert waiting.until(lambda: served.query(EVENTS)[0][0] >= 30, 60)
        served.kill()
        # What the page had heard back before the kill: saved, nothing waiting in the cell.
        acknowledged = page.evaluate(
            """() => [...document.querySelectorAll("#sheet-grid input.cell")]
                .filter((cell) => !cell.classList.contains("pending") && cell.dataset.saved !== "")
                .map((cell) => cell.getAttribute("aria-label"))"""
        )
        stored_at_the_kill = served.query(EVENTS)[0][0]
        # Every acknowledged change was stored; one more may be, its answer lost in the kill.
        assert 0 < len(acknowledged) <= stored_at_the_kill < 200

        page.evaluate(TYPE_CELLS, [100, values[100:]])
        status = page.locator("#sheet-status")
        expect(status).to_contain_text("changes waiting", timeout=BACK_MS)
        waiting_now = int(page.locator("input.cell.pending").count())
        assert waiting_now > 100

        served.start()
        # The retry due next (the backoff has grown while the server was down) comes now.
        page.clock.fast_forward(RETRY_MOST_MS)
        expect(status).to_have_text("All changes saved", timeout=120_000)
        expect(page.locator("input.cell.pending")).to_have_count(0)
        assert page.locator("input.cell.error").count() == 0

        marks = served.query(MARKS)
        assert len(marks) == 200
        typed = {
            (label, code): values[i]
            for i, (label, code) in enumerate(
                page.evaluate(
                    """() => [...document.querySelectorAll("#sheet-grid input.cell")]
                        .map((cell) => [cell.closest("tr").dataset.label, cell.dataset.code])"""
                )
            )
        }
        for label, code, points, version, events, keys in marks:
            assert (Decimal(str(points)), version, events, keys) == (
                Decimal(typed[(label, code)]),
                1,
                1,
                1,
            ), (label, code)
        assert served.query(EVENTS)[0][0] == 200
    finally:
        context.close()


@pytest.mark.skipif(on_postgresql(), reason="PostgreSQL waits on a row lock instead of failing")
def test_a_save_that_meets_a_locked_sqlite_database_waits_and_goes_through_once(browser, served):
    """Another process holds SQLite's write lock past the busy timeout (20 s): the save fails
    with "database is locked", a 500; the change waits, and goes through once the lock is gone."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.clock.install()
        submit_log_in(page, served, SimpleNamespace(username="alice"))
        page.goto(f"{served.url}/contests/burst/p1/sheet/")
        page.wait_for_selector("#cell-tools:not([hidden])")
        lock = sqlite3.connect(served.folder / "jury.sqlite3", isolation_level=None)
        try:
            lock.execute("BEGIN IMMEDIATE")
            page.keyboard.type("4")
            page.keyboard.press("Tab")
            expect(page.locator("#sheet-status")).to_have_text(
                "The server is not answering: 1 change waiting", timeout=60_000
            )
            assert page.locator("input.cell.error").count() == 0
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        page.clock.fast_forward(RETRY_MOST_MS)
        expect(page.locator("#sheet-status")).to_have_text("All changes saved", timeout=BACK_MS)
        marks = [row for row in served.query(MARKS) if row[2] is not None]
        assert [(Decimal(str(row[2])), *row[3:]) for row in marks] == [(Decimal(4), 1, 1, 1)]
        assert "database is locked" in (served.folder / "server.log").read_text()
    finally:
        context.close()
