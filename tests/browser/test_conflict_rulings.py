"""The chair keeps or discards, in the browser, the marks alice gave EST's papers before she
was made EST's team leader; the organizer's console then moves only the discarded paper."""

import pytest
from playwright.sync_api import expect

from grading.rules import roles
from tests.conflicts_scenario import conflicts_world
from tests.factories import make_user
from tests.grading.scenario import grade, submit

pytestmark = pytest.mark.browser


def test_the_chair_keeps_one_paper_and_discards_the_other_and_the_console_moves_only_that(
    sign_in, live_server, transactional_db
):
    world = conflicts_world()
    for juror in (world.alice, world.bob):
        for paper in world.papers:
            grade(juror, world.problem, paper, "4", "2")
        submit(juror, world.problem)
    world.problem.group.jurors.add(make_user("carol", roles.JUROR))
    chen = make_user("chen", roles.CHAIR)
    olga = make_user("olga", roles.ORGANIZER)
    world.est.leaders.add(world.alice)

    chair = sign_in(chen)
    chair.goto(f"{live_server.url}/contests/{world.contest.slug}/queue/")
    chair.click("#conflict-rulings-link a")
    rows = chair.locator("#held-marks tbody tr")
    expect(rows).to_have_count(2)
    first, second = world.kept
    assert rows.nth(0).inner_text().split("\t")[:4] == [
        "P1",
        first,
        "alice",
        "alice leads the paper's delegation",
    ]
    rows.nth(0).get_by_label("Reason").fill("Graded before the appointment; read again.")
    rows.nth(0).get_by_role("button", name="Keep the marks").click()
    expect(chair.locator(".messages li.success")).to_have_text(
        "The marks are kept: they count from now on."
    )
    expect(rows).to_have_count(1)
    rows.nth(0).get_by_label("Reason").fill("Cannot be sure.")
    rows.nth(0).get_by_role("button", name="Discard the marks").click()
    expect(chair.locator("#no-held-marks")).to_be_visible()
    decided = chair.locator("#conflict-rulings tbody tr")
    expect(decided).to_have_count(2)
    texts = decided.all_inner_texts()
    assert "Kept: they count" in texts[0] and first in texts[0]
    assert "Discarded: they never count" in texts[1] and second in texts[1]
    assert texts[1].endswith("Cannot be sure.")

    organizer = sign_in(olga)
    organizer.goto(f"{live_server.url}/console/contests/{world.contest.slug}/assignments/leaving/")
    moves = organizer.locator("#conflicts table tbody tr")
    expect(moves).to_have_count(1)
    assert moves.nth(0).inner_text().split("\t")[:2] == ["P1", second]
    assert moves.nth(0).inner_text().split("\t")[2].startswith("carol")
    organizer.click("#conflicts-confirm button[type=submit]")
    expect(organizer.locator(".messages li.success")).to_contain_text("1 paper moved")
    expect(organizer.locator("#conflicts")).to_contain_text(
        "No paper sits with a juror in conflict with it."
    )
