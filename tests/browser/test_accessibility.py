"""Accessibility in Chromium: axe-core (vendored in tests/browser/vendor/axe-core/) on every page
as every role of the scenario contest in grading, resolution and final, with no violation on the
site's pages (none serious or critical on Django's bare error pages); and what axe cannot judge,
checked by hand: the skip link, where focus lands on load, visible criterion titles, table header
scopes and the reasons of disabled buttons."""

from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from django.urls import reverse

from grading.console.contest_life import contest_finalize
from grading.marking.marks import mark_set
from grading.models import Mark
from grading.resolution.decisions import comment_add, discrepancy_decide, mark_revise
from grading.rules import roles
from tests.factories import PASSWORD, make_user
from tests.grading import scenario

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
# The site's own pages, its 403 page among them, are held to no violation at all; a page drawn
# without the site's template to none serious or critical.
BLOCKING = ("serious", "critical")
EVERY_IMPACT = ("minor", "moderate", "serious", "critical")
# axe's verdicts, each with the CSS targets of its nodes, for the impacts that fail the test.
RUN_AXE = """async (impacts) => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.filter((v) => impacts.includes(v.impact)).map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    targets: v.nodes.map((node) => node.target.join(" ")),
  }));
}"""

# The element holding focus, if anything but the page itself does.
FOCUSED = """() => document.activeElement && document.activeElement !== document.body
  ? document.activeElement.outerHTML.slice(0, 80) : null"""


@pytest.fixture
def graded(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    # Dan leaves a cell of his P1 sheet blank and does not submit: the grading phase shows a
    # sheet with a disabled Submit, its upload preview and a locked comparison.
    graded = scenario.build(submit_sheets=False)
    users, problems = graded["users"], graded["problems"]
    Mark.objects.filter(
        sheet__juror=users["dan"],
        paper=graded["papers"]["Team Lynx"],
        criterion__code="T1",
    ).update(points=None)
    for name in ("alice", "bob"):
        scenario.submit(users[name], problems[1])
    for name in ("charlie", "erin"):
        scenario.submit(users[name], problems[2])
    graded["organizer"] = make_user("olga", roles.ORGANIZER)
    comment_add(
        paper=graded["papers"]["Team Orca"],
        criterion=problems[1].criteria.get(code="T1"),
        author=users["alice"],
        text="Rule 2 is stated but never applied to item 3.",
    )
    return graded


def _pages(graded) -> dict[str, str]:
    """Every page of the contest, by name, as paths."""
    contest, orca = graded["contest"].slug, scenario.label(graded, "Team Orca", 1)
    return {
        "home": reverse("home"),
        "inbox": reverse("inbox"),
        "sheet P1": reverse("sheet", args=[contest, 1]),
        "cell history": reverse("sheet_cell_history", args=[contest, 1, orca, "T1"]),
        "paper": reverse("paper_detail", args=[contest, 1, orca]),
        "comparison P1": reverse("comparison", args=[contest, 1]),
        "comparison P1 T1": reverse("comparison", args=[contest, 1]) + "?criterion=T1",
        "comparison P1 paper": reverse("comparison", args=[contest, 1]) + f"?paper={orca}",
        "comparison P2": reverse("comparison", args=[contest, 2]),
        "discussion": reverse("discussion", args=[contest, 1, orca, "T1"]),
        "queue": reverse("chair_queue", args=[contest]),
        "results": reverse("results", args=[contest]),
        "results paper": reverse(
            "results_paper", args=[contest, graded["papers"]["Team Orca"].public_code]
        ),
        "reveal": reverse("reveal", args=[contest]),
        "cutoffs": reverse("cutoffs", args=[contest]),
        "analysis": reverse("analysis", args=[contest]),
        "autoscore": reverse("autoscore_ranking", args=[contest]),
        "printouts": reverse("jobs", args=[contest]),
        # The contest's life and its progress change with its state (the chair's and the
        # organizer's; the console's other pages are seen once).
        "life": reverse("console:life", args=[contest]),
        "life finalize": reverse("console:life_step", args=[contest, "finalize"]),
        "life reopen": reverse("console:life_step", args=[contest, "reopen"]),
        "progress": reverse("console:progress", args=[contest]),
        "console assignments": reverse("console:assignments", args=[contest]),
        "console juror leaving": reverse("console:juror_leaving", args=[contest]),
        "console": reverse("console:index"),
        "console contest": reverse("console:contest", args=[contest]),
        "console jurors": reverse("console:jurors_add", args=[contest]),
        "console delegations": reverse("console:delegations", args=[contest]),
        "console leaders": reverse("console:leaders_add", args=[contest]),
        "console delegations import": reverse("console:import_delegations", args=[contest]),
        "console people": reverse("console:people"),
        "console juror facts": reverse("console:juror_facts"),
        "console answer languages": reverse("console:answer_languages", args=[contest]),
        "console restore": reverse("console:restore"),
        "console person": reverse("console:person", args=["dan"]),
        "console imports": reverse("console:imports", args=[contest]),
        "console problem set": reverse("console:import_problemset", args=[contest]),
        "console schemes": reverse("console:import_schemes", args=[contest]),
        "console outputs": reverse("console:import_outputs", args=[contest]),
        "console human scores": reverse("console:import_human_scores", args=[contest]),
        "console scans": reverse("console:import_scans", args=[contest]),
        "console covers": reverse("console:print_covers", args=[contest]),
    }


class Audit:
    """One browser context per role, kept across the contest's states; every page seen is
    checked by axe and its blocking violations collected as sentences."""

    def __init__(self, browser, base_url: str):
        self.browser, self.base_url = browser, base_url
        self.contexts = {}
        self.failures: list[str] = []
        self.seen: dict[str, list[str]] = {}

    def page(self, role: str, user=None):
        if role not in self.contexts:
            # axe is added to every document the context opens (an init script: compiled by
            # the browser from its own copy, not sent over for each page, a third of a page's
            # audit); the site's Content-Security-Policy (script-src 'self') would refuse it,
            # so these contexts alone bypass the policy. The pages' own scripts come from
            # 'self' and run the same either way.
            context = self.browser.new_context(
                viewport={"width": 1400, "height": 900}, bypass_csp=True
            )
            context.add_init_script(path=str(AXE))
            page = context.new_page()
            page.set_default_timeout(15_000)
            # Leaving the sheet with a refused value asks "Leave site?": yes.
            page.on("dialog", lambda dialog: dialog.accept())
            if user is not None:
                page.goto(f"{self.base_url}/accounts/login/")
                page.fill("#id_username", user.username)
                page.fill("#id_password", PASSWORD)
                page.click("button[type=submit]")
                page.wait_for_url(f"{self.base_url}/")
            self.contexts[role] = page
        return self.contexts[role]

    def check(self, page, where: str, impacts=EVERY_IMPACT) -> None:
        if not page.evaluate("() => typeof axe === 'object'"):
            page.add_script_tag(path=str(AXE))
        self.seen.setdefault(where.split(" · ")[0], []).append(where)
        for violation in page.evaluate(RUN_AXE, list(impacts)):
            self.failures.append(
                f"{where}: {violation['impact']} {violation['id']} ({violation['help']}) at "
                + ", ".join(violation["targets"])
            )

    def visit(self, role: str, user, state: str, pages: dict[str, str]) -> None:
        page = self.page(role, user)
        for name, path in pages.items():
            response = page.goto(f"{self.base_url}{path}")
            # A page the role may not see answers 404 (or 403 with a page saying why, which is
            # checked); the 404 page is the same everywhere and checked once, below.
            if response.status == 404:
                continue
            if response.status >= 500:
                self.failures.append(
                    f"{role} · {state} · {name}: the server answered {response.status}"
                )
                continue
            where = f"{role} · {state} · {name} ({response.status})"
            ours = page.locator("main#content").count() == 1  # built on templates/base.html
            self.check(page, where, EVERY_IMPACT if ours else BLOCKING)
            # Focus stays at the top of the page on load, so the heading is read first; only
            # the sheet, whose whole purpose is typing marks, starts in a cell (its grid is
            # named by the heading: see the test below).
            focused = page.evaluate(FOCUSED)
            if focused and not name.startswith("sheet"):
                self.failures.append(f"{where}: focus jumps to {focused} on load")

    def close(self) -> None:
        for page in self.contexts.values():
            page.context.close()


def _upload_preview(audit: Audit, juror, graded, tmp_path) -> None:
    """Dan downloads his sheet, fills the blank cell, puts an impossible value in another and
    uploads it: the preview lists a change and an error."""
    page = audit.page("juror", juror)
    page.goto(f"{audit.base_url}{reverse('sheet', args=[graded['contest'].slug, 1])}")
    with page.expect_download() as download_info:
        page.click("#xlsx-download")
    path = tmp_path / "sheet.xlsx"
    download_info.value.save_as(path)
    book = openpyxl.load_workbook(path)
    marks = book["Marks"]
    rows = {marks.cell(row=row, column=1).value: row for row in range(3, marks.max_row + 1)}
    marks.cell(row=rows[scenario.label(graded, "Team Lynx", 1)], column=3).value = 2
    marks.cell(row=rows[scenario.label(graded, "Team Heron", 1)], column=2).value = 99
    book.save(path)
    page.set_input_files("#xlsx-file", str(path))
    page.click("text=Preview the changes")
    page.wait_for_url("**/sheet/upload/preview/")
    assert page.locator("#upload-errors tbody tr").count() == 1
    audit.check(page, "juror · grading · upload preview")


def _sheet_in_use(audit: Audit, juror, graded) -> None:
    """Dan's sheet as he works in it: a refused value with its message, then a cell's history
    and the paper's solution beside the grid."""
    page = audit.page("juror", juror)
    page.goto(f"{audit.base_url}{reverse('sheet', args=[graded['contest'].slug, 1])}")
    page.wait_for_selector("#cell-tools:not([hidden])")
    page.keyboard.type("99")
    page.keyboard.press("ArrowLeft")  # leaving the cell saves it: refused, over 8 points
    page.wait_for_selector(".cell-msg")
    audit.check(page, "juror · grading · sheet with a refused value")
    page.keyboard.press("h")
    page.wait_for_selector("#history-panel .history")
    page.wait_for_selector("#solution-panel .solution-body")
    audit.check(page, "juror · grading · sheet with history and solution")
    # A change waiting through a dropped network, then refused on arrival (the cell changed
    # meanwhile): marked in its cell, then shown with both values and the choice.
    page.keyboard.press("ArrowDown")
    page.context.set_offline(True)
    page.keyboard.type("3")
    page.keyboard.press("ArrowUp")
    page.wait_for_selector("input.cell.pending")
    audit.check(page, "juror · grading · sheet with a change waiting")
    label, code = page.locator("input.cell.pending").get_attribute("aria-label").split()
    mark = Mark.objects.get(
        sheet__juror=juror,
        sheet__problem__number=1,
        paper__labels__label=label,
        criterion__code=code,
    )
    mark_set(mark=mark, points=Decimal("2"), actor=juror, channel="browser")
    page.context.set_offline(False)
    refused = page.locator("input.cell[data-conflict]")
    refused.wait_for(timeout=40_000)
    refused.focus()
    page.wait_for_selector("#cell-conflict:not([hidden])")
    audit.check(page, "juror · grading · sheet with a refused waiting change")
    # Beside the refused change, another waits through a dropped network: both at once.
    orca = scenario.label(graded, "Team Orca", 1)
    page.context.set_offline(True)
    page.locator(f'#row-{orca} input.cell[data-code="A1"]').click()
    page.keyboard.type("11")
    page.keyboard.press("Tab")
    page.wait_for_function(
        "document.getElementById('sheet-status').textContent === 'Offline: 1 change waiting'"
    )
    assert page.locator("input.cell[data-conflict]").count() == 1
    audit.check(page, "juror · grading · sheet with a refused change and one waiting")
    page.context.set_offline(False)


def _decision_refused(audit: Audit, chair, graded) -> None:
    """The chair's decision refused in place (more points than the criterion allows)."""
    page = audit.page("chair", chair)
    orca = scenario.label(graded, "Team Orca", 1)
    page.goto(
        f"{audit.base_url}{reverse('discussion', args=[graded['contest'].slug, 1, orca, 'T1'])}"
    )
    page.fill("#decide-points", "99")
    page.fill("#decide-reason", "Checked in the meeting.")
    page.click("#decide-button")
    page.wait_for_selector("#decide-error")
    audit.check(page, "chair · resolution · discussion with a refused decision")


def _locked_out(audit: Audit, base_url: str) -> None:
    page = audit.page("visitor")
    page.goto(f"{base_url}/accounts/login/")
    audit.check(page, "visitor · log-in page")
    for _ in range(5):
        page.fill("#id_username", "mallory")
        page.fill("#id_password", "wrong")
        page.click("button[type=submit]")
        page.wait_for_load_state()
    assert page.locator("h1").inner_text() == "Log-in paused"
    audit.check(page, "visitor · locked-out page")


ROLES = ("juror", "chair", "organizer")


def _advance(graded, state: str) -> None:
    """The contest taken from grading to `state` as it goes: Dan fills his blank cell and
    submits and the chair opens the resolution; then Bob revises, the chair decides the open
    cell and finalizes."""
    users, papers, problems = graded["users"], graded["papers"], graded["problems"]
    if state == "grading":
        return
    scenario.grade(users["dan"], problems[1], papers["Team Lynx"], "4", "2")
    scenario.submit(users["dan"], problems[1])
    scenario.open_resolution(graded)
    if state == "resolution":
        return
    mark_revise(
        mark=Mark.objects.get(
            sheet__juror=users["bob"], paper=papers["Team Heron"], criterion__code="A1"
        ),
        points=Decimal("8"),
        actor=users["bob"],
    )
    discrepancy_decide(
        paper=papers["Team Orca"],
        criterion=problems[1].criteria.get(code="T1"),
        points=Decimal("7"),
        reason="Rule 2 stated, not applied.",
        actor=graded["chair"],
    )
    contest_finalize(contest=graded["contest"], actor=graded["chair"])


def _user(graded, role: str):
    return {
        "juror": graded["users"]["dan"],
        "chair": graded["chair"],
        "organizer": graded["organizer"],
    }[role]


def _passed(audit: Audit) -> None:
    # What was seen, for counting the pages audited (-s, or -rP under pytest-xdist).
    print("\n".join(where for seen in audit.seen.values() for where in seen))
    print("\n".join(audit.failures))
    assert audit.failures == []


# One test a role in a state, so that pytest-xdist spreads them and a failure names both. The
# organizer's console does not change with the contest's state: its pages are seen in grading
# only, as a group of their own (the organizer's are most of them).
AUDITS = [
    pytest.param(state, role, group, id="-".join((role, state, group)))
    for state in ("grading", "resolution", "final")
    for role in ROLES
    for group in (("contest", "console") if state == "grading" else ("contest",))
]


@pytest.mark.parametrize(("state", "role", "group"), AUDITS)
def test_every_page_as_every_role_in_every_state_passes_axe_core(
    browser, live_server, graded, state, role, group
):
    _advance(graded, state)
    pages = {
        name: path
        for name, path in _pages(graded).items()
        if name.startswith("console") == (group == "console")
    }
    audit = Audit(browser, live_server.url)
    try:
        audit.visit(role, _user(graded, role), state, pages)
    finally:
        audit.close()
    _passed(audit)


@pytest.mark.parametrize(
    "moment", ["locked-out", "sheet-in-use", "upload-preview", "decision-refused"]
)
def test_the_pages_met_while_working_pass_axe_core(browser, live_server, graded, tmp_path, moment):
    """What a page shows only once someone acts on it: the log-in paused after wrong
    passwords, Dan's sheet with a refused value and a cell's history, his XLSX upload's
    preview, the chair's refused decision."""
    audit = Audit(browser, live_server.url)
    try:
        if moment == "locked-out":
            _locked_out(audit, live_server.url)
        elif moment == "sheet-in-use":
            _sheet_in_use(audit, graded["users"]["dan"], graded)
        elif moment == "upload-preview":
            _upload_preview(audit, graded["users"]["dan"], graded, tmp_path)
        else:
            _advance(graded, "resolution")
            _decision_refused(audit, graded["chair"], graded)
    finally:
        audit.close()
    _passed(audit)


def test_the_check_reports_a_violation_with_where_it_is(browser, live_server):
    """The audit is not vacuous: an image without a text alternative (critical) and an unnamed
    button (critical) are reported with their targets."""
    audit = Audit(browser, live_server.url)
    try:
        page = audit.page("visitor")
        page.goto(f"{live_server.url}/accounts/login/")
        page.evaluate(
            """() => document.querySelector("main").insertAdjacentHTML(
                "beforeend", '<img id="bare" src="x.png"><button id="empty"></button>')"""
        )
        audit.check(page, "visitor · log-in page with faults")
    finally:
        audit.close()
    assert audit.failures == [
        "visitor · log-in page with faults: critical button-name (Buttons must have "
        "discernible text) at #empty",
        "visitor · log-in page with faults: critical image-alt (Images must have alternative "
        "text) at #bare",
    ]


def test_the_404_page_is_the_sites_own_and_passes_axe_core(browser, live_server, graded):
    audit = Audit(browser, live_server.url)
    try:
        for role, user in (("visitor", None), ("juror", graded["users"]["dan"])):
            page = audit.page(role, user)
            response = page.goto(f"{live_server.url}/no-such-page/")
            assert (
                response.status,
                page.locator("header.site-header").count(),
                page.locator("main#content h1").inner_text(),
            ) == (404, 1, "Page not found")
            audit.check(page, f"{role} · 404")
    finally:
        audit.close()
    assert audit.failures == []


def _describer(page, selector: str) -> str:
    """The visible text of the elements named by an element's aria-describedby ('' if none)."""
    return page.evaluate(
        """(selector) => (document.querySelector(selector).getAttribute("aria-describedby") || "")
          .split(" ").filter(Boolean)
          .map((id) => document.getElementById(id))
          .filter((el) => el && el.checkVisibility())
          .map((el) => el.innerText.trim()).join(" ")""",
        selector,
    )


def test_the_chair_reads_skip_link_header_scopes_criterion_titles_and_why_finalize_waits(
    log_in, live_server, graded
):
    users, problems = graded["users"], graded["problems"]
    scenario.grade(users["dan"], problems[1], graded["papers"]["Team Lynx"], "4", "2")
    scenario.submit(users["dan"], problems[1])
    scenario.open_resolution(graded)
    page = log_in(graded["chair"])
    page.goto(f"{live_server.url}/contests/iol/results/")

    # Charis SIL reaches the browser as WOFF2 (the TTFs are the printouts').
    page.evaluate("document.fonts.ready")
    assert sorted(
        page.evaluate(
            """() => performance.getEntriesByType("resource").map((entry) => entry.name)
              .filter((name) => name.includes("/fonts/")).map((name) => name.split("/").pop())"""
        )
    ) == ["CharisSIL-Bold.woff2", "CharisSIL-Regular.woff2"]

    # The skip link is the first stop of the keyboard, shows itself, and leads past the header.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    assert page.evaluate("document.activeElement.innerText") == "Skip to content"
    assert page.locator(".skip-link").bounding_box()["y"] >= 0
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == "#content"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('main') !== null") is True

    # Finalizing waits for open and pending cells, and says so in text beside the button; the
    # button's description is that text and the counts of the state line above it.
    button = page.locator("#finalize-form button[type=submit]")
    assert button.is_disabled()
    assert button.get_attribute("title") is None
    assert page.locator("#finalize-why").inner_text() == (
        "Finalizing is possible once no discrepancy is open and every assigned juror has submitted."
    )
    assert _describer(page, "#finalize-form button[type=submit]") == (
        page.locator("#finalize-why").inner_text() + " " + page.locator("#state").inner_text()
    )

    # The header's unread count says what it counts (the resolution phase's notice).
    assert page.get_by_role("link", name="Inbox 1 unread", exact=True).count() == 1

    # The comparison names each criterion in visible text and scopes every header.
    page.goto(f"{live_server.url}/contests/iol/p1/comparison/")
    titles = ("assignment A1", "theory T1")
    thead = page.locator("#comparison-grid thead").inner_text()
    assert [title in thead for title in titles] == [True, True]

    # So does the chair's queue, for each open discrepancy.
    page.goto(f"{live_server.url}/contests/iol/queue/")
    rows = page.locator("#queue tbody tr").all_inner_texts()
    assert [any(title in row for title in titles) for row in rows] == [True, True]
    assert (
        page.evaluate(
            """() => [...document.querySelectorAll("main table th")]
          .filter((th) => !th.hasAttribute("scope")).map((th) => th.outerHTML.slice(0, 60))"""
        )
        == []
    )


def test_the_log_in_form_and_the_sheet_grid_are_named_by_their_headings(
    log_in, live_server, graded, browser
):
    # The log-in page starts in the username field; the form is named by the page's heading,
    # which a screen reader reads on entering it.
    visitor = browser.new_context()
    try:
        login = visitor.new_page()
        login.goto(f"{live_server.url}/accounts/login/")
        assert login.evaluate("document.activeElement.id") == "id_username"
        assert login.locator("form").aria_snapshot().splitlines()[0] == '- form "Log in":'
    finally:
        visitor.close()

    # Dan's sheet starts in his blank cell, inside a grid named by the heading; each criterion
    # column shows its title.
    page = log_in(graded["users"]["dan"])
    page.goto(f"{live_server.url}/contests/iol/p1/sheet/")
    page.wait_for_selector("#cell-tools:not([hidden])")
    lynx = scenario.label(graded, "Team Lynx", 1)
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == f"{lynx} T1"
    assert (
        page.evaluate(
            """() => document.getElementById(
          document.activeElement.closest("table").getAttribute("aria-labelledby")).tagName"""
        )
        == "H1"
    )
    thead = page.locator("#sheet-grid thead").inner_text()
    assert [title in thead for title in ("assignment A1", "theory T1")] == [True, True]


def test_a_problem_with_nothing_submitted_reads_as_such_on_the_results(
    log_in, live_server, db, settings
):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    graded = scenario.build(submit_sheets=False)
    for name in ("alice", "bob", "dan"):
        scenario.submit(graded["users"][name], graded["problems"][1])
    page = log_in(graded["chair"])
    page.goto(f"{live_server.url}/contests/iol/results/")
    cells = page.locator('#results td[data-problem="2"]')
    assert cells.count() == 3
    for index in range(3):
        snapshot = cells.nth(index).aria_snapshot()
        assert ("no submitted mark yet" in snapshot, "–" in snapshot) == (True, False)
