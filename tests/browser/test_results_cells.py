import pytest

from grading.resolution.comparison import contest_results
from grading.rules.domain import points_text as pts
from tests.grading import scenario

pytestmark = pytest.mark.browser


@pytest.fixture
def graded(db, settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    return scenario.build()


def test_opening_a_results_row_loads_that_papers_cells_in_place(log_in, live_server, graded):
    orca = graded["papers"]["Team Orca"]
    page = log_in(graded["chair"])
    problems = []
    page.on("console", lambda message: message.type == "error" and problems.append(message.text))
    page.goto(f"{live_server.url}/contests/iol/results/")
    page.evaluate("window.notReloaded = true")
    row = page.locator(f"#result-{orca.public_code}")
    assert page.locator("ul.criteria").count() == 0

    row.locator("details summary").click()
    row.locator("ul.criteria li").first.wait_for()

    result = contest_results(graded["contest"]).paper(orca.pk)
    assert row.locator("ul.criteria li").all_inner_texts() == [
        f"{cell.criterion.problem.code} {cell.criterion.code}: {pts(cell.points)} "
        f"{cell.status.label}"
        for cell in result.cells.values()
    ]
    assert page.locator("ul.criteria").count() == 1
    assert page.evaluate("window.notReloaded") is True
    assert problems == []
