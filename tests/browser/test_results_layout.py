"""The results page at a desktop width: a final contest of five problems, with identities, human
ranks and the provisional columns the appeals add, never widens the page sideways; what does not
fit scrolls within the table's own box."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from grading.models import ProvisionalResult
from grading.rules import roles
from rubrics.models import Contest
from tests.factories import assign, make_contest, make_delegation, make_user
from tests.grading import scenario

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}


def test_the_final_results_page_of_five_problems_fits_a_1280_pixel_screen(
    log_in, live_server, transactional_db, settings
):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    names = [f"Frontier reasoning model number {index} (extended thinking)" for index in range(6)]
    contest = make_contest("wide-results", problems=5, identities=[*names, "C-0417", "C-0582"])
    humans = list(contest.papers.filter(identity__startswith="C-"))
    make_delegation(contest, "EST", papers=humans)
    alice = make_user("alice-wide", roles.JUROR)
    assign(contest, [alice])
    for problem in contest.problems.all():
        for paper in contest.papers.all():
            scenario.grade(alice, problem, paper, "11.5", "7.5")
        scenario.submit(alice, problem)
    now = timezone.now()
    ProvisionalResult.objects.bulk_create(
        ProvisionalResult(
            paper=paper, total=Decimal("61.5"), rank=2, medal="silver", published_at=now
        )
        for paper in contest.papers.all()
    )
    Contest.objects.filter(pk=contest.pk).update(
        state=Contest.State.FINAL, appeals_deadline=now - timedelta(days=1)
    )
    page = log_in(make_user("olga-wide", roles.ORGANIZER))
    page.set_viewport_size(DESKTOP)
    response = page.goto(f"{live_server.url}{reverse('results', args=[contest.slug])}")
    assert response.status == 200
    assert page.locator("#results tbody tr").count() == 8
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    table_right = page.eval_on_selector("#results", "t => t.getBoundingClientRect().right")
    main_right = page.eval_on_selector("main", "m => m.getBoundingClientRect().right")
    assert (widths[0], table_right <= main_right) == (widths[1], True)
