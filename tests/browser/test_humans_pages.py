"""Human contestants beside the AI systems in the browser: the results page shows each paper's
kind to the organizer only (before the contest is final), the analysis page its human ranks,
shares and difficulty chart to the chair; both pass axe-core."""

from django.urls import reverse

from grading.intake.importers.human_scores import human_scores_import
from grading.rules import roles
from tests.browser.test_accessibility import Audit
from tests.factories import make_user
from tests.grading import humans_scenario, scenario

SYSTEMS = {
    "Team Walrus": ((12, 8), (0, 0)),
    "Team Xerus": ((12, 8), (12, 8)),
    "Team Yak": ((0, 0), (0, 4)),
}
HUMANS = {
    "H-101": ((12, 8), (12, 8)),
    "H-102": ((12, 4), (12, 0)),
    "H-103": ((6, 8), (0, 8)),
    "H-104": ((0, 0), (12, 4)),
}


def test_the_organizer_sees_kinds_the_chair_the_analysis_and_both_pass_axe(
    browser, live_server, db, settings
):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    contest = humans_scenario.build("mixed", systems=SYSTEMS, humans=HUMANS)
    human_scores_import(contest=contest, text="contestant,p1,p2\nc9,12,12\n")
    organizer, chair = make_user("olga", roles.ORGANIZER), make_user("chen", roles.CHAIR)
    audit = Audit(browser, live_server.url)
    try:
        page = audit.page("organizer", organizer)
        page.goto(f"{live_server.url}{reverse('results', args=[contest.slug])}")
        kinds = page.locator("#results td.kind").all_inner_texts()
        audit.check(page, "organizer · results")

        page = audit.page("chair", chair)
        page.goto(f"{live_server.url}{reverse('results', args=[contest.slug])}")
        chair_kinds = page.locator("#results td.kind").count()
        audit.check(page, "chair · results")
        page.goto(f"{live_server.url}{reverse('analysis', args=[contest.slug])}")
        ranks = page.locator("#paper-table td.rank").all_inner_texts()
        spearman = page.locator("#difficulty-spearman").inner_text()
        chart = page.locator('img[src$="/difficulty.svg"]')
        chart_width = chart.evaluate("image => image.naturalWidth")
        audit.check(page, "chair · analysis")
    finally:
        audit.close()
    # Xerus and H-101 tie at 100, ordered by their random public codes.
    assert sorted(kinds) == ["AI system"] * 3 + ["Human contestant"] * 4
    assert (chair_kinds, ranks, spearman) == (0, ["1", "4", "5"], "-0.58")
    assert chart_width > 0
    assert audit.failures == []
