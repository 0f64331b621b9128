"""Amending a problem's scheme: wording as a new version that reopens nothing, points that
reopen the marks of their criteria (listed, recorded, told), the sentences for bad input, a
final contest refused, and a scheme with no mark yet that just changes."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from grading.models import Mark, MarkEvent, Notification
from grading.rules.refusals import ContestFinal, NotAllowed
from grading.schemes.amend import amendment_read, scheme_amend
from rubrics.models import Contest, Criterion, SchemeVersion
from tests import factories
from tests.grading import scenario

pytestmark = pytest.mark.django_db


def _points():
    return sorted(Mark.objects.values_list("pk", "points", "note"))


def _notices(kind):
    return sorted(
        Notification.objects.filter(kind=kind).values_list("recipient__username", "sentence")
    )


def test_a_guidance_change_after_marks_is_a_version_that_applies_at_once():
    graded = scenario.build()
    p1, chair = graded["problems"][1], graded["chair"]
    before = _points()

    version = scheme_amend(
        p1,
        changes={"A1": {"guidance": "Accept the plural without its article."}},
        reason="The group read the plural the same way.",
        actor=chair,
    )

    p1.refresh_from_db()
    assert (version.number, version.reopens_marks, p1.scheme_version) == (2, False, 2)
    assert version.changes == [
        {
            "criterion": "A1",
            "field": "guidance",
            "old": "",
            "new": "Accept the plural without its article.",
        }
    ]
    assert Criterion.objects.get(problem=p1, code="A1").guidance == (
        "Accept the plural without its article."
    )
    assert _points() == before
    assert Mark.objects.filter(reopened_by__isnull=False).count() == 0
    sentence = (
        "P1: the grading scheme is amended (version 2: guidance of A1); it applies at once. "
        "Reason: The group read the plural the same way."
    )
    assert _notices(Notification.Kind.SCHEME_AMENDED) == [
        ("alice", sentence),
        ("bob", sentence),
        ("dan", sentence),
    ]
    assert _notices(Notification.Kind.MARKS_REOPENED) == []


def test_moving_a_point_reopens_every_mark_of_both_criteria_never_rescaled():
    graded = scenario.build()
    p1, chair = graded["problems"][1], graded["chair"]
    changes = {"A1": {"points": "11"}, "T1": {"points": "9"}}
    preview = amendment_read(p1, changes=changes, reason="T1 weighs more.")
    before = _points()
    events = MarkEvent.objects.count()

    version = scheme_amend(p1, changes=changes, reason="T1 weighs more.", actor=chair)

    reopened = Mark.objects.filter(reopened_by=version)
    p1_marks = Mark.objects.filter(sheet__problem=p1, points__isnull=False)
    assert sorted(reopened.values_list("pk", flat=True)) == sorted(
        p1_marks.values_list("pk", flat=True)
    )
    assert sorted(m.mark_id for m in preview.reopening) == sorted(
        reopened.values_list("pk", flat=True)
    )
    assert [(m.juror, m.code) for m in preview.reopening[:2]] == [("alice", "A1"), ("alice", "T1")]
    assert len(preview.reopening) == 18
    # Never rescaled: every stored mark keeps its points; each reopened one has its event.
    assert _points() == before
    scheme_events = MarkEvent.objects.filter(channel=MarkEvent.Channel.SCHEME)
    assert MarkEvent.objects.count() - events == 18 == scheme_events.count()
    assert all(e.old_points == e.new_points and e.actor == chair for e in scheme_events)
    # A reopened mark counts for no cell until its juror re-confirms it.
    assert Mark.objects.submitted().filter(sheet__problem=p1).count() == 0
    assert version.reopens_marks
    reopen_sentence = (
        "P1: 6 of your marks reopened with scheme version 2; re-confirm or re-mark them in "
        "your sheet. 1 of them no longer fits the criterion (above the new maximum or off the "
        "step): re-mark it. Reason: T1 weighs more."
    )
    assert _notices(Notification.Kind.MARKS_REOPENED) == [
        ("alice", reopen_sentence),
        ("bob", reopen_sentence),
        ("dan", reopen_sentence),
    ]
    assert [name for name, _ in _notices(Notification.Kind.SCHEME_AMENDED)] == [
        "alice",
        "bob",
        "dan",
    ]
    # The other problem's marks are left alone.
    assert (
        Mark.objects.filter(sheet__problem=graded["problems"][2], reopened_by__isnull=False).count()
        == 0
    )


def test_the_preview_flags_the_marks_the_amended_criterion_no_longer_takes():
    """Issue 31, finding 13: the preview did not flag 2.5 under a new maximum of 2, whose
    re-confirmation its juror's save then refused."""
    graded = scenario.build()
    p1 = graded["problems"][1]
    # A1 12 → 11 (the three 12s of Orca no longer fit); T1 8 → 9 (every mark still fits).
    preview = amendment_read(
        p1, changes={"A1": {"points": "11"}, "T1": {"points": "9"}}, reason="T1 weighs more."
    )
    orca = scenario.label(graded, "Team Orca", 1)
    assert sorted((m.juror, m.label, m.code, m.unfit) for m in preview.reopening if m.unfit) == [
        (juror, orca, "A1", "12 is more than the 11 points this criterion allows")
        for juror in ("alice", "bob", "dan")
    ]
    assert (preview.unfit, len(preview.reopening)) == (3, 18)
    # A new step leaves marks off it: they are flagged the same way.
    preview = amendment_read(p1, changes={"T1": {"step": "4"}}, reason="Whole halves.")
    assert sorted({(m.code, m.points, m.unfit) for m in preview.reopening}) == [
        ("T1", Decimal("2"), "2 is not a multiple of the step 4"),
        ("T1", Decimal("4"), ""),
        ("T1", Decimal("6"), "6 is not a multiple of the step 4"),
        ("T1", Decimal("8"), ""),
    ]


def test_the_reopened_notice_says_how_many_marks_need_new_points():
    """Noticed after issue 31's finding 13: the notice said "re-confirm or re-mark" of every
    reopened mark, though Enter cannot re-confirm one the criterion no longer takes."""
    graded = scenario.build()
    scheme_amend(
        graded["problems"][1],
        changes={"A1": {"points": "11"}, "T1": {"points": "9"}},
        reason="T1 weighs more.",
        actor=graded["chair"],
    )
    sentences = dict(_notices(Notification.Kind.MARKS_REOPENED))
    assert set(sentences) == {"alice", "bob", "dan"}
    for sentence in sentences.values():
        assert (
            "1 of them no longer fits the criterion (above the new maximum or off the step): "
            "re-mark it." in sentence
        )


def test_a_tolerance_wider_than_the_criterions_points_is_refused():
    """Issue 31, finding 13: tolerance 99 was taken on a criterion worth 4.5."""
    graded = scenario.build()
    with pytest.raises(ValidationError) as refused:
        scheme_amend(
            graded["problems"][1],
            changes={"T1": {"tolerance": "8.5"}},
            reason="Wider.",
            actor=graded["chair"],
        )
    assert refused.value.messages == [
        "Criterion T1: the tolerance 8.5 is more than the criterion's 8 points."
    ]
    assert SchemeVersion.objects.count() == 0


def test_bad_input_is_refused_with_a_sentence_per_criterion_and_field_and_nothing_written():
    graded = scenario.build()
    p1 = graded["problems"][1]
    before = (_points(), list(Criterion.objects.values_list("pk", "points", "step", "title")))

    with pytest.raises(ValidationError) as refused:
        scheme_amend(
            p1,
            changes={
                "A1": {"points": "0", "step": "0", "title": " "},
                "T1": {"points": "7", "step": "2", "tolerance": "-1"},
                "Z9": {"points": "1"},
            },
            reason="",
            actor=graded["chair"],
        )

    assert refused.value.messages == [
        "Criterion Z9 is not in the scheme of P1.",
        "Criterion A1: the title cannot be blank.",
        "Criterion A1: the points must be more than 0, not 0.",
        "Criterion A1: the step must be more than 0, not 0.",
        "Criterion T1: the tolerance cannot be negative (-1).",
        "Criterion T1: 7 points is not a multiple of the step 2.",
        "The criteria would add up to 7 points, but P1 is worth 20: move points between "
        "criteria so that they still add up.",
        "Give a reason for the amendment: the jurors read it with the notice and beside the "
        "marks it reopens.",
    ]
    after = (_points(), list(Criterion.objects.values_list("pk", "points", "step", "title")))
    assert after == before
    assert SchemeVersion.objects.count() == 0


def test_points_that_do_not_add_up_and_an_empty_amendment_are_refused():
    graded = scenario.build()
    p1 = graded["problems"][1]
    with pytest.raises(ValidationError) as refused:
        amendment_read(p1, changes={"A1": {"points": "11.5"}}, reason="Less for A1.")
    assert refused.value.messages == [
        "The criteria would add up to 19.5 points, but P1 is worth 20: move points between "
        "criteria so that they still add up."
    ]
    with pytest.raises(ValidationError) as refused:
        amendment_read(p1, changes={"A1": {"points": "12"}}, reason="Nothing.")
    assert refused.value.messages == ["Nothing would change in the scheme of P1."]
    with pytest.raises(ValidationError) as refused:
        amendment_read(p1, changes={"A1": {"step": "0.125"}}, reason="Finer.")
    assert refused.value.messages == [
        "Criterion A1: the step 0.125 has more than 2 decimals or more than 3 digits before "
        "the point."
    ]


def test_a_final_contest_scheme_is_refused_and_a_juror_may_not_amend():
    graded = scenario.build()
    p1 = graded["problems"][1]
    with pytest.raises(NotAllowed):
        scheme_amend(
            p1, changes={"A1": {"title": "New"}}, reason="Clearer.", actor=graded["users"]["alice"]
        )
    Contest.objects.filter(pk=graded["contest"].pk).update(state=Contest.State.FINAL)
    with pytest.raises(ContestFinal):
        scheme_amend(p1, changes={"A1": {"title": "New"}}, reason="Clearer.", actor=graded["chair"])
    assert Criterion.objects.get(problem=p1, code="A1").title == "assignment A1"
    assert SchemeVersion.objects.count() == 0


def test_before_any_mark_the_criteria_just_change_without_a_version():
    contest = factories.make_contest("fresh")
    juror = factories.make_user("jo", "juror")
    factories.assign(contest, [juror], problems=[1])
    chair = factories.make_user("chen", "chair")
    p1 = contest.problems.get(number=1)

    version = scheme_amend(
        p1,
        changes={"A1": {"points": "10", "step": "1"}, "T1": {"points": "10"}},
        reason="Before grading.",
        actor=chair,
    )

    p1.refresh_from_db()
    assert version is None
    assert p1.scheme_version == 1
    assert list(Criterion.objects.filter(problem=p1).values_list("code", "points", "step")) == [
        ("A1", Decimal("10"), Decimal("1")),
        ("T1", Decimal("10"), Decimal("0.5")),
    ]
    assert SchemeVersion.objects.count() == 0
    assert Notification.objects.count() == 0
    assert MarkEvent.objects.count() == 0


def test_marks_no_longer_valid_stay_as_they_are_for_their_juror_to_re_mark():
    graded = scenario.build()
    p1 = graded["problems"][1]
    scheme_amend(
        p1,
        changes={"A1": {"points": "10"}, "T1": {"points": "10"}},
        reason="A1 was worth too much.",
        actor=graded["chair"],
    )
    twelve = Mark.objects.filter(sheet__problem=p1, criterion__code="A1", points=Decimal("12"))
    assert twelve.count() == 3
    assert all(mark.reopened_by is not None for mark in twelve)
