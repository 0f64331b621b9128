"""Drawing the seeds when a seeded round's grading opens: one per juror of the group with live
papers and paper kept out of the round for seeding (never a paper graded in the round:
tests/grading/calibration/test_kept_for_seeding.py), each under a fresh label unique among the
problem's labels and the other seeds, with a blank mark per criterion; idempotent, and a fixed
number of queries."""

from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from grading.calibration.seeds import seeds_draw
from grading.intake.labels import LABEL_ALPHABET, LABEL_LENGTH, paper_labels_ensure
from grading.models import CalibrationMark, CalibrationPaper, PaperLabel, Seed
from grading.rules import roles
from rubrics.models import Contest
from tests.factories import make_user
from tests.grading.calibration import seed_scenario


def test_each_juror_of_the_group_gets_a_seed_of_each_calibration_paper_under_a_fresh_label(db):
    world = seed_scenario.build(draw=False)
    assert seeds_draw(world["round"]) == 2
    seeds = list(Seed.objects.order_by("juror__username"))
    assert [(s.juror.username, s.calibration_paper.label) for s in seeds] == [
        ("alice", "K1"),
        ("bob", "K1"),
    ]
    paper_labels = set(PaperLabel.objects.values_list("label", flat=True))
    labels = [seed.label for seed in seeds]
    assert len(set(labels)) == 2
    assert not set(labels) & paper_labels
    assert all(len(label) == LABEL_LENGTH and set(label) <= set(LABEL_ALPHABET) for label in labels)
    assert sorted(
        CalibrationMark.objects.values_list("seed__juror__username", "criterion__code", "points")
    ) == [("alice", "A1", None), ("alice", "T1", None), ("bob", "A1", None), ("bob", "T1", None)]
    assert not CalibrationMark.objects.filter(sheet__isnull=False).exists()


def test_drawing_again_changes_nothing_and_a_later_calibration_paper_gets_its_seeds(db):
    world = seed_scenario.build(spare=1)
    before = sorted(Seed.objects.values_list("pk", "label"))
    assert seeds_draw(world["round"]) == 0
    assert sorted(Seed.objects.values_list("pk", "label")) == before
    assert CalibrationMark.objects.count() == 4
    second = CalibrationPaper.objects.create(
        round=world["round"], paper=world["spare"][0], label="K2", position=2, for_seeding=True
    )
    assert seeds_draw(world["round"]) == 2
    assert Seed.objects.filter(calibration_paper=second).count() == 2
    assert Seed.objects.values("label").distinct().count() == 4
    assert CalibrationMark.objects.count() == 8


def test_an_unseeded_round_draws_no_seed(db):
    world = seed_scenario.build(draw=False)
    world["round"].seeded = False
    assert seeds_draw(world["round"]) == 0
    assert not Seed.objects.exists()


def test_a_juror_outside_the_group_or_without_live_papers_gets_no_seed(db):
    world = seed_scenario.build(draw=False)
    make_user("idle", roles.JUROR)
    world["problem"].group.jurors.add(make_user("grouped", roles.JUROR))
    assert seeds_draw(world["round"]) == 2
    assert sorted(Seed.objects.values_list("juror__username", flat=True)) == ["alice", "bob"]


def test_a_paper_labelled_later_never_takes_a_seeds_label(db):
    world = seed_scenario.build()
    taken = set(Seed.objects.values_list("label", flat=True))
    for index in range(40):
        world["contest"].papers.create(identity=f"late-{index}", metadata={})
    paper_labels_ensure(contest=world["contest"])
    assert not taken & set(PaperLabel.objects.values_list("label", flat=True))


def _draw_queries(jurors) -> int:
    world = seed_scenario.build(jurors=jurors, draw=False)
    with CaptureQueriesContext(connection) as queries:
        seeds_draw(world["round"])
    return len(queries)


def test_drawing_runs_the_same_number_of_queries_for_2_and_12_jurors(db):
    small = _draw_queries(("alice", "bob"))
    Seed.objects.all().delete()
    Contest.objects.all().delete()
    User.objects.all().delete()
    large = _draw_queries(tuple(f"juror{index}" for index in range(12)))
    assert small == large
    assert Seed.objects.count() == 12


def test_a_juror_who_grades_a_calibration_paper_live_gets_no_seed_of_it(db):
    # Two rows with the same answers in one sheet would tell the seed at a glance.
    world = seed_scenario.build()
    alice, bob = world["jurors"]
    graded_by_alice = world["live"][0]
    graded_by_alice.assignments.filter(juror=bob).delete()
    k2 = CalibrationPaper.objects.create(
        round=world["round"], paper=graded_by_alice, label="K2", position=2, for_seeding=True
    )
    assert seeds_draw(world["round"]) == 1
    assert list(Seed.objects.filter(calibration_paper=k2).values_list("juror", flat=True)) == [
        bob.pk
    ]
