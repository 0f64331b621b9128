"""What the sheet's browser tests share: the sheet of problem 1 opened once its script is ready,
a cell of its grid, and the juror's mark behind a cell."""

import pytest

from grading.models import Mark, PaperLabel


def open_sheet(page, live_server, contest):
    page.goto(f"{live_server.url}/contests/{contest.slug}/p1/sheet/")
    # The tools show once sheet.js has set the grid up: before that a key does nothing.
    page.wait_for_selector("#cell-tools:not([hidden])")
    return page


def grid_cell(page, label: str, code: str):
    return page.locator(f'#row-{label} input.cell[data-code="{code}"]')


def sheet_mark(juror, label: str, code: str) -> Mark:
    return Mark.objects.get(
        sheet__juror=juror,
        sheet__problem__number=1,
        paper__labels__label=label,
        criterion__code=code,
    )


def sheet_labels(contest) -> list[str]:
    """The labels of problem 1's papers, sorted: the sheet's rows in order."""
    return sorted(
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1).values_list(
            "label", flat=True
        )
    )


@pytest.fixture
def page_without_workers(browser):
    """As tests/browser/conftest.py's page, with service workers blocked: tests that answer for
    the server with page.route, which does not see what a service worker fetches, while the
    sheet's offline-reading worker (static/grading/sheet_worker.js) may take control of the page
    mid-test. The queue of changes works the same without it (it never caches a save). A test
    module uses it as its `page`: `page = page_without_workers`."""
    context = browser.new_context(viewport={"width": 1400, "height": 900}, service_workers="block")
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()
