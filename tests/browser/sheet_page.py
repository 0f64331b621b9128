"""What the sheet's browser tests share: the sheet of problem 1 opened once its script is ready,
a cell of its grid, and the juror's mark behind a cell."""

from grading.models import Mark


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
