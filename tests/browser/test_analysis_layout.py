"""The analysis page at a desktop width: the papers table of a five-problem contest (three
columns a problem, a total, a medal and a rank) fits beside the page's margins instead of
widening the page sideways."""

import pytest
from django.urls import reverse

from grading.rules import roles
from tests.factories import assign, make_contest, make_user
from tests.grading import scenario

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}


def test_the_papers_table_of_five_problems_fits_a_1280_pixel_screen(
    log_in, live_server, transactional_db, settings
):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    contest = make_contest("wide", problems=5, papers=6)
    alice, chair = make_user("alice-wide", roles.JUROR), make_user("chen-wide", roles.CHAIR)
    assign(contest, [alice])
    for problem in contest.problems.all():
        for paper in contest.papers.all():
            scenario.grade(alice, problem, paper, "11.5", "7.5")
        scenario.submit(alice, problem)
    page = log_in(chair)
    page.set_viewport_size(DESKTOP)
    response = page.goto(f"{live_server.url}{reverse('analysis', args=[contest.slug])}")
    assert response.status == 200
    table_right = page.eval_on_selector("#paper-table", "t => t.getBoundingClientRect().right")
    main_right = page.eval_on_selector("main", "m => m.getBoundingClientRect().right")
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    # Whole, not scrolled: every column of five problems is in view at once.
    table_scrolls = page.eval_on_selector("#paper-table", "t => t.scrollWidth > t.clientWidth")
    assert page.locator("#paper-table tbody tr").count() == 6
    assert (widths[0], table_right <= main_right, table_scrolls) == (widths[1], True, False)
