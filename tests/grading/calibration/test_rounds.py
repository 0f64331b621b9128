"""The calibration round's services: each refusal's sentence (and nothing written), the
round's life (create, reference, open, close) with its notices, and final means final."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from grading.calibration import rounds
from grading.marking.marks import mark_set
from grading.models import (
    CalibrationMark,
    CalibrationPaper,
    CalibrationRound,
    CalibrationSheet,
    JurorProfile,
    Mark,
    Notification,
    PaperLabel,
    ReferenceMark,
    Seed,
)
from grading.rules.refusals import ContestFinal, NotAllowed, WrongState
from tests.grading.calibration.scenario import close_round, make_round, problem_labels


@pytest.fixture
def problem(contest):
    return contest.problems.get(number=1)


def test_a_round_gets_its_papers_as_k_labels_in_the_order_picked(problem, chair):
    labels = problem_labels(problem)
    round_ = rounds.round_create(
        problem=problem, labels=[labels[2], labels[0]], seeded=True, actor=chair
    )
    assert [(p.label, p.position, p.paper_id) for p in round_.papers.order_by("position")] == [
        ("K1", 1, PaperLabel.objects.get(problem=problem, label=labels[2]).paper_id),
        ("K2", 2, PaperLabel.objects.get(problem=problem, label=labels[0]).paper_id),
    ]
    assert round_.seeded is True and round_.state == CalibrationRound.State.OPEN


def test_only_the_chair_or_the_organizer_leads_a_round(problem, juror, organizer):
    with pytest.raises(NotAllowed) as refused:
        rounds.round_create(
            problem=problem, labels=problem_labels(problem)[:2], seeded=False, actor=juror
        )
    assert refused.value.messages == ["Only the chair or the organizer leads a calibration round."]
    rounds.round_create(
        problem=problem, labels=problem_labels(problem)[:2], seeded=False, actor=organizer
    )
    assert CalibrationRound.objects.count() == 1


@pytest.mark.parametrize(
    ("pick", "sentence"),
    [
        (lambda labels: labels[:1], "Pick 2 to 5 papers for the calibration round; 1 is picked."),
        (lambda labels: [labels[0], labels[0]], "Paper {0} is picked twice; pick each paper once."),
        (lambda labels: [labels[0], "ZZ9"], "P1 has no paper labelled ZZ9; pick among its labels."),
    ],
)
def test_a_bad_pick_of_papers_is_refused_with_a_sentence(problem, chair, pick, sentence):
    labels = problem_labels(problem)
    with pytest.raises(ValidationError) as refused:
        rounds.round_create(problem=problem, labels=pick(labels), seeded=False, actor=chair)
    assert refused.value.messages == [sentence.format(*labels)]
    assert CalibrationRound.objects.count() == 0


def test_a_paper_that_left_the_problem_blank_is_no_calibration_paper(problem, chair):
    labels = problem_labels(problem)
    PaperLabel.objects.filter(problem=problem, label=labels[1]).update(blank=True)
    with pytest.raises(ValidationError) as refused:
        rounds.round_create(problem=problem, labels=labels[:2], seeded=False, actor=chair)
    assert refused.value.messages == [
        f"Paper {labels[1]} left P1 blank: a calibration paper needs an answer to grade."
    ]


def test_no_round_once_a_live_mark_has_points(problem, chair, juror):
    mark = Mark.objects.filter(sheet__juror=juror, criterion__problem=problem).first()
    mark_set(mark=mark, points=Decimal("1"), actor=juror, channel="browser")
    with pytest.raises(WrongState) as refused:
        rounds.round_create(
            problem=problem, labels=problem_labels(problem)[:2], seeded=False, actor=chair
        )
    assert refused.value.messages == [
        "P1 has 1 live mark already: a calibration round comes before grading."
    ]


def test_no_round_in_the_resolution_phase_nor_a_second_one(problem, chair, contest):
    make_round(problem, chair, opened=False)
    with pytest.raises(WrongState) as refused:
        make_round(problem, chair)
    assert refused.value.messages == ["P1 has a calibration round already."]
    contest.state = "resolution"
    contest.save()
    other = contest.problems.get(number=2)
    with pytest.raises(WrongState) as refused:
        make_round(other, chair)
    assert refused.value.messages == [
        "P2 can have a calibration round only before its grading: Contest test is in its "
        "resolution phase."
    ]


def test_a_reference_is_validated_as_a_mark_is(problem, chair):
    round_ = rounds.round_create(
        problem=problem, labels=problem_labels(problem)[:2], seeded=False, actor=chair
    )
    paper = round_.papers.get(label="K1")
    criterion = problem.criteria.get(code="A1")
    with pytest.raises(ValidationError) as refused:
        rounds.reference_set(
            calibration_paper=paper,
            criterion=criterion,
            points=Decimal("12.25"),
            note="",
            actor=chair,
        )
    assert refused.value.messages == [
        "Paper K1, criterion A1: 12.25 is more than the 12 points this criterion allows."
    ]
    with pytest.raises(ValidationError) as refused:
        rounds.reference_set(
            calibration_paper=paper,
            criterion=criterion,
            points=Decimal("0.3"),
            note="",
            actor=chair,
        )
    assert refused.value.messages == [
        "Paper K1, criterion A1: 0.3 is not a multiple of the step 0.5."
    ]
    assert ReferenceMark.objects.count() == 0


def test_a_reference_grid_with_one_bad_cell_writes_nothing(problem, chair):
    round_ = rounds.round_create(
        problem=problem, labels=problem_labels(problem)[:2], seeded=False, actor=chair
    )
    a1, t1 = problem.criteria.get(code="A1"), problem.criteria.get(code="T1")
    paper = round_.papers.get(label="K1")
    with pytest.raises(ValidationError):
        rounds.references_set(
            round_=round_,
            entries=[(paper, a1, Decimal("3"), "fine"), (paper, t1, Decimal("9"), "too many")],
            actor=chair,
        )
    assert ReferenceMark.objects.count() == 0


def test_opening_needs_every_reference_and_names_the_missing_ones(problem, chair):
    round_ = rounds.round_create(
        problem=problem, labels=problem_labels(problem)[:2], seeded=False, actor=chair
    )
    rounds.reference_set(
        calibration_paper=round_.papers.get(label="K1"),
        criterion=problem.criteria.get(code="A1"),
        points=Decimal("3"),
        note="",
        actor=chair,
    )
    with pytest.raises(ValidationError) as refused:
        rounds.round_open_to_jurors(round_=round_, actor=chair)
    assert refused.value.messages == [
        "3 references are missing (K1 T1, K2 A1, K2 T1): give every paper a reference for "
        "every criterion before opening the round."
    ]
    assert CalibrationSheet.objects.count() == 0 and Notification.objects.count() == 0


def test_opening_gives_every_juror_of_the_group_a_sheet_and_a_notice(
    problem, chair, juror, other_juror, outside_juror
):
    round_ = make_round(problem, chair)
    assert sorted(round_.sheets.values_list("juror__username", flat=True)) == ["alice", "bob"]
    assert CalibrationMark.objects.filter(sheet__juror=juror, points__isnull=True).count() == 4
    assert sorted(
        Notification.objects.filter(kind=Notification.Kind.CALIBRATION_OPEN).values_list(
            "recipient__username", "sentence"
        )
    ) == [
        (
            name,
            "P1: a calibration round waits for you; grade its papers in your calibration "
            "sheet before grading opens.",
        )
        for name in ("alice", "bob")
    ]
    with pytest.raises(WrongState) as refused:
        rounds.round_papers_set(round_=round_, labels=problem_labels(problem)[1:3], actor=chair)
    assert refused.value.messages == [
        "The round is open to the jurors: the papers graded in it stay as they are until it "
        "closes; only the papers kept for seeding may change."
    ]


def test_a_juror_who_left_gets_no_calibration_sheet_and_the_round_waits_not_for_them(
    problem, chair, juror, other_juror
):
    """Issue 31, finding 8: a juror marked unavailable was counted in the round ("0 of 5")."""
    JurorProfile.objects.create(user=other_juror, unavailable_since=timezone.now())
    round_ = make_round(problem, chair)
    assert list(round_.sheets.values_list("juror__username", flat=True)) == ["alice"]


def test_papers_may_be_picked_again_until_the_opening(problem, chair):
    round_ = make_round(problem, chair, opened=False)
    labels = problem_labels(problem)
    rounds.round_papers_set(round_=round_, labels=[labels[1], labels[2]], actor=chair)
    live = dict(PaperLabel.objects.filter(problem=problem).values_list("paper_id", "label"))
    assert [(p.label, live[p.paper_id]) for p in round_.papers.order_by("position")] == [
        ("K1", labels[1]),
        ("K2", labels[2]),
    ]
    # The reference of the paper kept follows it; the one left out goes with it.
    assert ReferenceMark.objects.filter(calibration_paper__round=round_).count() == 2


def test_closing_opens_grading_and_tells_the_group(problem, chair):
    round_ = make_round(problem, chair)
    close_round(round_, chair)
    round_.refresh_from_db()
    assert round_.state == CalibrationRound.State.CLOSED and round_.grading_opened_at is not None
    assert sorted(
        Notification.objects.filter(kind=Notification.Kind.GRADING_OPENED).values_list(
            "recipient__username", "sentence"
        )
    ) == [
        (name, "P1: the calibration round is closed; grading is open in your sheet.")
        for name in ("alice", "bob")
    ]
    with pytest.raises(WrongState) as refused:
        close_round(round_, chair)
    assert refused.value.messages == ["The calibration round of P1 is closed; grading is open."]


def test_closing_a_seeded_round_brings_the_papers_kept_for_seeding_as_seeds(
    problem, chair, juror, other_juror
):
    round_ = make_round(problem, chair, seeded=True, kept=1)
    assert Seed.objects.count() == 0
    # Alice grades K3's paper (kept for seeding) live: she gets no seed of it (the same
    # answers twice in one sheet would tell the seed); bob does not, and gets one. Bob does
    # not grade K1's paper live either, but graded it in the round: no seed of it, nor of K2.
    k1, k3 = (
        CalibrationPaper.objects.get(round=round_, label=label).paper for label in ("K1", "K3")
    )
    k3.assignments.filter(problem=problem, juror=other_juror).delete()
    k1.assignments.filter(problem=problem, juror=other_juror).delete()
    close_round(round_, chair)
    assert sorted(Seed.objects.values_list("calibration_paper__label", "juror__username")) == [
        ("K3", "bob")
    ]
    # Their labels are fresh: none is a label of the problem's papers.
    labels = set(PaperLabel.objects.filter(problem=problem).values_list("label", flat=True))
    assert not labels & set(Seed.objects.values_list("label", flat=True))


def test_a_final_contest_refuses_every_round_service(problem, chair, contest):
    round_ = make_round(problem, chair, opened=False)
    contest.state = "final"
    contest.save()
    paper = CalibrationPaper.objects.get(round=round_, label="K1")
    calls = [
        lambda: rounds.round_open_to_jurors(round_=round_, actor=chair),
        lambda: close_round(round_, chair),
        lambda: rounds.round_papers_set(
            round_=round_, labels=problem_labels(problem)[:2], actor=chair
        ),
        lambda: rounds.round_seeded_set(round_=round_, seeded=True, actor=chair),
        lambda: rounds.reference_set(
            calibration_paper=paper,
            criterion=problem.criteria.get(code="A1"),
            points=Decimal("1"),
            note="",
            actor=chair,
        ),
        lambda: rounds.round_create(
            problem=contest.problems.get(number=2), labels=[], seeded=False, actor=chair
        ),
    ]
    for call in calls:
        with pytest.raises(ContestFinal) as refused:
            call()
        assert refused.value.messages == [
            "Contest test is final: its calibration rounds are read-only. An organizer can "
            "reopen it, with a reason, from its results page."
        ]
