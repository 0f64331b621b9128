from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from grading.intake.labels import LABEL_ALPHABET, paper_labels_ensure
from grading.marking.marks import mark_set
from grading.models import Mark, MarkEvent, PaperLabel


def test_every_paper_gets_one_label_per_problem_unique_within_the_problem(contest):
    labels = list(
        PaperLabel.objects.filter(problem__contest=contest).values_list(
            "problem__number", "paper_id", "label"
        )
    )
    assert len(labels) == 2 * 3
    for number in (1, 2):
        in_problem = [label for problem, _, label in labels if problem == number]
        assert len(set(in_problem)) == 3
        assert all(set(label) <= set(LABEL_ALPHABET) for label in in_problem)


def test_labels_are_drawn_afresh_per_problem(db, juror):
    from tests.factories import make_contest

    # With 40 papers the chance that every paper draws the same label in both problems is nil.
    contest = make_contest("fresh", papers=40)
    by_paper = {}
    for paper_id, number, label in PaperLabel.objects.filter(problem__contest=contest).values_list(
        "paper_id", "problem__number", "label"
    ):
        by_paper.setdefault(paper_id, {})[number] = label
    assert sum(1 for labels in by_paper.values() if labels[1] != labels[2]) >= 38


def test_labels_ensure_is_idempotent(contest):
    before = set(PaperLabel.objects.values_list("paper_id", "problem_id", "label"))
    assert paper_labels_ensure(contest=contest) == 0
    assert set(PaperLabel.objects.values_list("paper_id", "problem_id", "label")) == before


def test_mark_set_records_an_event_and_bumps_the_version(contest, juror):
    mark = Mark.objects.filter(sheet__juror=juror).select_related("criterion").first()
    mark_set(mark=mark, points=Decimal("1.5"), actor=juror, channel="browser")
    mark.refresh_from_db()
    assert (mark.points, mark.version) == (Decimal("1.5"), 1)
    events = list(
        MarkEvent.objects.filter(mark=mark).values_list(
            "old_points", "new_points", "channel", "actor_id"
        )
    )
    assert events == [(None, Decimal("1.5"), "browser", juror.pk)]


@pytest.mark.parametrize(
    ("points", "message"),
    [
        (Decimal("13"), "13 is more than the 12 points this criterion allows."),
        (Decimal("-1"), "-1 is negative; points go from 0 to 12."),
        (Decimal("1.25"), "1.25 is not a multiple of the step 0.5."),
    ],
)
def test_mark_set_refuses_invalid_points_and_writes_nothing(contest, juror, points, message):
    mark = Mark.objects.filter(sheet__juror=juror, criterion__code="A1").first()
    with pytest.raises(ValidationError) as error:
        mark_set(mark=mark, points=points, actor=juror, channel="browser")
    assert error.value.messages == [f"Criterion A1: {message}"]
    mark.refresh_from_db()
    assert (mark.points, mark.version) == (None, 0)
    assert MarkEvent.objects.count() == 0


def test_mark_set_refuses_a_stale_version(contest, juror):
    mark = Mark.objects.filter(sheet__juror=juror).first()
    mark_set(mark=mark, points=Decimal("2"), actor=juror, channel="browser", expected_version=0)
    with pytest.raises(ValidationError, match="was changed to 2 at"):
        mark_set(mark=mark, points=Decimal("3"), actor=juror, channel="browser", expected_version=0)
    mark.refresh_from_db()
    assert (mark.points, mark.version) == (Decimal("2"), 1)


def test_mark_set_refuses_a_writer_whose_copy_was_overtaken_after_loading(contest, juror):
    """Two writers load the same mark at version 0; the first wins, the second is refused by
    the conditional write itself (its copy still says version 0), and writes nothing."""

    def load():
        return (
            Mark.objects.select_related("criterion__problem__contest")
            .filter(sheet__juror=juror, criterion__code="A1")
            .first()
        )

    first, second = load(), load()
    mark_set(mark=first, points=Decimal("2"), actor=juror, channel="browser", expected_version=0)
    with pytest.raises(ValidationError, match="was changed to 2 at"):
        mark_set(mark=second, points=Decimal("3"), actor=juror, channel="xlsx", expected_version=0)
    second.refresh_from_db()
    assert (second.points, second.version) == (Decimal("2"), 1)
    assert list(MarkEvent.objects.values_list("new_points", "version", "channel")) == [
        (Decimal("2"), 1, "browser")
    ]


def test_a_criterion_with_marks_cannot_be_deleted_alone_but_its_contest_can(contest, juror):
    from django.db.models import RestrictedError

    from grading.models import Paper
    from rubrics.models import Criterion

    mark = Mark.objects.filter(sheet__juror=juror, criterion__code="A1").first()
    mark_set(mark=mark, points=Decimal("4"), actor=juror, channel="browser")
    with pytest.raises(RestrictedError):
        Criterion.objects.get(pk=mark.criterion_id).delete()
    contest.delete()
    assert (Mark.objects.count(), MarkEvent.objects.count(), Paper.objects.count()) == (0, 0, 0)
