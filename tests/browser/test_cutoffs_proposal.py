"""The chair's medal cut-offs in the browser: typing a share recomputes the proposal in place
(htmx, no reload), and confirming it sets the cut-offs the page showed."""

from decimal import Decimal

import pytest

from grading.models import HumanScore
from rubrics.models import MedalCutoff
from tests.grading import scenario

pytestmark = pytest.mark.browser


@pytest.fixture
def graded(db, settings):
    """The scenario, resolved, with twelve human contestants' totals 95, 90, …, 40."""
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    graded = scenario.build()
    scenario.resolve(graded)
    HumanScore.objects.bulk_create(
        HumanScore(contest=graded["contest"], contestant=f"H{n}", problem_points={}, total=total)
        for n, total in enumerate(Decimal(t) for t in range(95, 35, -5))
    )
    return graded


def test_typing_a_share_recomputes_the_proposal_in_place_and_confirming_sets_it(
    log_in, live_server, graded
):
    page = log_in(graded["chair"])
    problems = []
    page.on("console", lambda message: message.type == "error" and problems.append(message.text))
    page.goto(f"{live_server.url}/contests/iol/cutoffs/")
    page.evaluate("window.notReloaded = true")
    silver = page.locator("#proposal-silver .cutoff")
    assert silver.inner_text() == "≥ 85"

    page.fill("#id_share_silver", "33.34")
    page.locator("#proposal-silver .cutoff", has_text="≥ 75").wait_for()

    assert page.evaluate("window.notReloaded") is True
    page.check("#id_confirm")
    page.click("#confirm-form button[type=submit]")
    page.wait_for_url(f"{live_server.url}/contests/iol/results/")
    assert list(
        MedalCutoff.objects.filter(contest=graded["contest"]).values_list("name", "min_total")
    ) == [
        ("gold", Decimal("95.00")),
        ("silver", Decimal("75.00")),
        ("honourable mention", Decimal("65.00")),
    ]
    assert problems == []
