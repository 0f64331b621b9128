"""The chair's seeds page without a seed says why, and what to do: no round, a round not
seeded, a seeded round that keeps no paper for seeding (seeds are drawn from those alone), a
seeded round whose grading has not opened, or a seeded round whose grading opened with nobody
given a seed (seeds are drawn once, when the round closes)."""

from datetime import UTC, datetime

from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains

from grading.models import CalibrationRound, Seed
from tests.grading.calibration import seed_scenario
from tests.grading.calibration.scenario import close_round, make_round


def _no_seeds(client, chair, contest, sentence: str) -> None:
    client.force_login(chair)
    page = client.get(reverse("calibration_seeds", args=[contest.slug, 1]))
    assertContains(page, f'<p class="empty" id="no-seeds">{sentence}</p>', html=True)


def test_without_a_round_the_seeds_page_says_there_is_none(client, contest, chair):
    _no_seeds(
        client,
        chair,
        contest,
        "P1 has no calibration round, so no seeds: seeds are the papers a seeded calibration "
        "round keeps out of the round for seeding, drawn when the round closes.",
    )


def test_a_round_not_seeded_is_named_with_the_tick_that_seeds_it(client, contest, chair):
    make_round(contest.problems.get(number=1), chair, seeded=False)
    round_page = reverse("calibration", args=[contest.slug, 1])
    _no_seeds(
        client,
        chair,
        contest,
        "P1's calibration round is not seeded, so its papers do not come back in the live "
        f'sheets: tick “Seeded checks” on <a href="{round_page}">the round\'s page</a> before '
        "you close it to seed them.",
    )


def test_a_seeded_round_that_keeps_no_paper_for_seeding_says_no_juror_gets_a_seed(
    client, contest, chair
):
    round_ = make_round(contest.problems.get(number=1), chair, seeded=True)
    round_page = reverse("calibration", args=[contest.slug, 1])
    _no_seeds(
        client,
        chair,
        contest,
        "P1's calibration round is seeded but keeps no paper for seeding, so no juror gets a "
        "seed: seeds are drawn only from papers kept out of the round, never from one its "
        f'jurors graded in it: keep 1 to 5 papers for seeding on <a href="{round_page}">the '
        "round's page</a> before you close it.",
    )
    client.force_login(chair)
    assertContains(
        client.get(round_page),
        '<p class="notice warning" id="no-kept-papers">This round is seeded but keeps no paper '
        "for seeding, so no juror gets a seed when it closes: seeds are drawn only from papers "
        "kept out of the round, never from one its jurors graded in it, whose answers would "
        "give the seed away. Keep 1 to 5 papers for seeding under “Change the round”.</p>",
        html=True,
    )
    close_round(round_, chair)
    assert not Seed.objects.exists()
    _no_seeds(
        client,
        chair,
        contest,
        "P1's calibration round is seeded but keeps no paper for seeding, so no juror got a "
        "seed: seeds are drawn only from papers kept out of the round, never from one its "
        "jurors graded in it.",
    )
    assertContains(
        client.get(round_page),
        '<p class="notice warning" id="no-kept-papers">This round was seeded but kept no paper '
        "for seeding, so no juror got a seed: seeds are drawn only from papers kept out of the "
        "round, never from one its jurors graded in it.</p>",
        html=True,
    )


def test_a_seeded_round_still_open_says_the_seeds_come_when_it_closes(client, contest, chair):
    make_round(contest.problems.get(number=1), chair, seeded=True, kept=1)
    round_page = reverse("calibration", args=[contest.slug, 1])
    _no_seeds(
        client,
        chair,
        contest,
        "P1's calibration round is seeded, but grading has not opened: the seeds are drawn "
        f'when you close the round on <a href="{round_page}">its page</a>.',
    )


def test_a_seeded_open_round_where_nobody_has_a_seed_says_when_seeds_were_drawn(client, db):
    world = seed_scenario.build(draw=False)
    opened = datetime(2026, 7, 21, 9, 30, tzinfo=UTC)
    CalibrationRound.objects.filter(pk=world["round"].pk).update(grading_opened_at=opened)
    assert Seed.objects.count() == 0
    when = timezone.localtime(opened).strftime("%Y-%m-%d %H:%M")
    _no_seeds(
        client,
        world["chair"],
        world["contest"],
        "P1's calibration round is seeded and grading is open, but no juror has a seed: seeds "
        f"are drawn once, when the round closed ({when}), for each juror of the group who then "
        "had P1 papers assigned, one of each paper kept for seeding that they do not grade "
        "themselves. Nobody qualified then: the papers were assigned after the round closed, "
        "or every juror grades the papers kept for seeding themselves.",
    )
