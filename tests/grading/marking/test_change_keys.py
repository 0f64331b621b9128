"""A save sent again with the same change key (its answer lost on the way) is answered as it was
and applied once: one history event, one version bump, on the live sheet's cells and notes, a
seed's cells and the calibration sheet's; a different change on a stale version is still
refused, and a refused change leaves no key behind."""

from decimal import Decimal

import pytest
from django.urls import reverse

from grading.marking.marks import mark_set
from grading.marking.sheets import sheet_submit
from grading.models import (
    CalibrationMark,
    CalibrationMarkEvent,
    Mark,
    MarkEvent,
    PaperLabel,
    Seed,
    Sheet,
)
from tests.grading.calibration import seed_scenario
from tests.grading.calibration.scenario import juror_marks, make_round


def _label(contest) -> str:
    return (
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1)
        .order_by("label")
        .values_list("label", flat=True)
        .first()
    )


def _post(client, contest, name, label, code, **fields):
    return client.post(reverse(name, args=[contest.slug, 1, label, code]), fields)


def _save(client, contest, label, **fields):
    """The live sheet's save of criterion A1's points in `label`'s cell, as sheet.js posts it."""
    return _post(client, contest, "sheet_cell_save", label, "A1", **fields)


def _note(client, contest, label, **fields):
    """The live sheet's save of A1's note in `label`'s cell."""
    return _post(client, contest, "sheet_note_save", label, "A1", **fields)


def _mark(juror, label) -> Mark:
    return Mark.objects.get(
        sheet__juror=juror,
        sheet__problem__number=1,
        criterion__code="A1",
        paper__labels__label=label,
        paper__labels__problem__number=1,
    )


def test_a_points_save_sent_twice_with_its_key_is_applied_once_and_answered_the_same(
    client, contest, juror
):
    label = _label(contest)
    client.force_login(juror)
    first = _save(client, contest, label, points="4", version=0, change_key="k-first-0001")
    again = _save(client, contest, label, points="4", version=0, change_key="k-first-0001")
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json() == {"points": "4", "note": "", "version": 1, "saved": True}
    mark = _mark(juror, label)
    assert mark.version == 1
    assert list(mark.events.values_list("version", "change_key")) == [(1, "k-first-0001")]


def test_a_note_sent_twice_with_its_key_is_applied_once_even_after_a_later_change(
    client, contest, juror
):
    label = _label(contest)
    client.force_login(juror)
    _save(client, contest, label, points="4", version=0, change_key="k-a-000001")
    note = _note(client, contest, label, note="half", version=1, change_key="k-note-00001")
    later = _save(client, contest, label, points="5", version=2, change_key="k-later-0001")
    assert later.json()["version"] == 3
    again = _note(client, contest, label, note="half", version=1, change_key="k-note-00001")
    # Answered as it was then: the page learns its version 2 was overtaken by its next save.
    assert again.status_code == 200
    assert (
        again.json() == note.json() == {"points": "4", "note": "half", "version": 2, "saved": True}
    )
    mark = _mark(juror, label)
    assert (mark.points, mark.note, mark.version) == (5, "half", 3)
    assert mark.events.count() == 3


def test_a_different_change_on_a_stale_version_is_still_refused_and_leaves_no_key(
    client, contest, juror
):
    label = _label(contest)
    client.force_login(juror)
    _save(client, contest, label, points="4", version=0, change_key="k-one-00001")
    stale = _save(client, contest, label, points="6", version=0, change_key="k-two-00001")
    assert stale.status_code == 409
    assert (stale.json()["points"], stale.json()["version"], stale.json()["saved"]) == (
        "4",
        1,
        False,
    )
    assert stale.json()["error"].startswith("This mark was changed to 4 at ")
    # Sent again, the refused change is refused again: only applied changes are remembered.
    assert (
        _save(client, contest, label, points="6", version=0, change_key="k-two-00001").status_code
        == 409
    )
    assert list(MarkEvent.objects.values_list("change_key", flat=True)) == ["k-one-00001"]


def test_another_jurors_key_on_their_own_mark_answers_nothing_of_it(
    client, contest, juror, other_juror
):
    label = _label(contest)
    client.force_login(other_juror)
    _save(client, contest, label, points="7", version=0, change_key="k-bob-00001")
    client.force_login(juror)
    _save(client, contest, label, points="4", version=0, change_key="k-ali-00001")
    # The key names a change of bob's mark, never alice's: her stale save is refused as stale.
    response = _save(client, contest, label, points="2", version=0, change_key="k-bob-00001")
    assert response.status_code == 409
    assert response.json()["points"] == "4"


@pytest.mark.parametrize("key", ["short", "has space in it", "x" * 41, "é-accented-key"])
def test_a_change_key_the_page_does_not_make_is_refused_and_nothing_is_written(
    client, contest, juror, key
):
    client.force_login(juror)
    response = _save(client, contest, _label(contest), points="4", version=0, change_key=key)
    assert response.status_code == 400
    assert "change id" in response.json()["error"]
    assert not MarkEvent.objects.exists()


def test_a_seed_cell_sent_twice_with_its_key_is_applied_once(client, db):
    world = seed_scenario.build()
    alice = world["jurors"][0]
    client.force_login(alice)
    label = Seed.objects.get(juror=alice).label
    url = reverse("sheet_cell_save", args=[world["contest"].slug, 1, label, "A1"])
    answers = [
        client.post(url, {"points": "9.5", "version": 0, "change_key": "k-seed-0001"}).json()
        for _ in range(2)
    ]
    assert answers[0] == answers[1] == {"points": "9.5", "note": "", "version": 1, "saved": True}
    mark = CalibrationMark.objects.get(seed__juror=alice, criterion__code="A1")
    assert mark.version == 1
    assert list(CalibrationMarkEvent.objects.values_list("version", "change_key")) == [
        (1, "k-seed-0001")
    ]


def test_a_calibration_cell_sent_twice_with_its_key_is_applied_once(client, contest, chair, juror):
    problem = contest.problems.get(number=1)
    round_ = make_round(problem, chair)
    client.force_login(juror)
    label, code = next(iter(juror_marks(round_, juror)))
    url = reverse("calibration_cell_save", args=[contest.slug, 1, label, code])
    answers = [
        client.post(url, {"points": "4", "version": 0, "change_key": "k-cal-00001"})
        for _ in range(2)
    ]
    assert [a.status_code for a in answers] == [200, 200]
    assert (
        answers[0].json()
        == answers[1].json()
        == {"points": "4", "note": "", "version": 1, "saved": True}
    )
    stale = client.post(url, {"points": "5", "version": 0, "change_key": "k-cal-00002"})
    assert stale.status_code == 409
    assert list(CalibrationMarkEvent.objects.values_list("version", "change_key")) == [
        (1, "k-cal-00001")
    ]


def test_a_change_applied_before_the_sheet_was_submitted_is_answered_again_not_refused(
    client, contest, juror
):
    label = _label(contest)
    client.force_login(juror)
    first = _save(client, contest, label, points="4", version=0, change_key="k-before-001")
    for mark in Mark.objects.filter(sheet__juror=juror, sheet__problem__number=1, points=None):
        mark_set(mark=mark, points=Decimal("1"), actor=juror, channel="browser")
    sheet = Sheet.objects.get(juror=juror, problem__number=1)
    sheet_submit(sheet=sheet, actor=juror)
    events = MarkEvent.objects.count()
    # The answer was lost before the sheet was submitted: the retry learns the change is in.
    again = _save(client, contest, label, points="4", version=0, change_key="k-before-001")
    assert again.status_code == 200
    assert again.json() == first.json()
    # A new change is refused by the submitted sheet as before.
    other = _save(client, contest, label, points="5", version=1, change_key="k-after-0001")
    assert other.status_code == 403
    assert MarkEvent.objects.count() == events
