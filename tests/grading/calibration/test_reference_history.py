"""The chair's reference marks keep their history: every change is recorded (who, when, old and
new points and note); a juror who submitted their calibration sheet before a change is told, and
their sheet shows the reference as it was beside the reference as it is; backups carry the
history, and a backup whose references have none still restores."""

import json
import zipfile
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from grading.calibration import rounds
from grading.calibration.calibration_marks import calibration_mark_set, calibration_sheet_submit
from grading.models import CalibrationSheet, Notification, ReferenceMark, ReferenceMarkEvent
from grading.resolution.inbox_selectors import inbox_entries
from tests.grading.calibration.scenario import juror_marks, make_round

pytestmark = pytest.mark.django_db


@pytest.fixture
def submitted(contest, chair, juror):
    """The round open to alice and bob; alice graded every cell (4) and submitted."""
    round_ = make_round(contest.problems.get(number=1), chair)
    for mark in juror_marks(round_, juror).values():
        calibration_mark_set(mark=mark, points=Decimal("4"), actor=juror)
    calibration_sheet_submit(sheet=CalibrationSheet.objects.get(juror=juror), actor=juror)
    return round_


def _reference(round_, label, code) -> ReferenceMark:
    return ReferenceMark.objects.get(
        calibration_paper__round=round_, calibration_paper__label=label, criterion__code=code
    )


def _change(round_, chair, label, code, points, note):
    reference = _reference(round_, label, code)
    return rounds.references_set(
        round_=round_,
        entries=[(reference.calibration_paper, reference.criterion, Decimal(points), note)],
        actor=chair,
    )


def test_every_change_of_a_reference_is_recorded_and_an_unchanged_one_writes_nothing(
    submitted, chair
):
    # make_round entered four references: each has its first entry on record.
    assert ReferenceMarkEvent.objects.count() == 4
    first = _reference(submitted, "K1", "A1").events.get()
    assert (first.actor, first.old_points, first.new_points, first.new_note) == (
        chair,
        None,
        Decimal("10"),
        "why K1 A1",
    )

    assert _change(submitted, chair, "K1", "A1", "10", "why K1 A1") == 0
    assert ReferenceMarkEvent.objects.count() == 4

    assert _change(submitted, chair, "K1", "A1", "9", "the plural counts") == 1
    change = _reference(submitted, "K1", "A1").events.order_by("id").last()
    assert (change.old_points, change.new_points, change.old_note, change.new_note) == (
        Decimal("10"),
        Decimal("9"),
        "why K1 A1",
        "the plural counts",
    )


def test_a_juror_who_submitted_is_told_and_sees_the_reference_as_it_was(
    client, contest, submitted, chair, juror, other_juror
):
    _change(submitted, chair, "K1", "A1", "9", "the plural counts")
    _change(submitted, chair, "K1", "A1", "8", "the plural counts")
    _change(submitted, chair, "K2", "T1", "8", "a clearer note")

    told = Notification.objects.filter(kind=Notification.Kind.REFERENCE_CHANGED)
    # Bob has not submitted: he has compared nothing yet and is not told.
    assert sorted(told.values_list("recipient__username", flat=True)) == ["alice"] * 3
    assert told.order_by("id").first().sentence == (
        "P1: the chair changed the calibration reference of K1 A1; your calibration sheet "
        "shows it beside what it was when you submitted."
    )
    url = reverse("calibration_sheet", args=[contest.slug, 1])
    kind = Notification.Kind.REFERENCE_CHANGED
    assert {entry.url for entry in inbox_entries(juror, kind=kind)} == {url}

    client.force_login(juror)
    html = client.get(url).content.decode()
    # K1 A1 changed twice since: the reference alice compared with was 10.
    assert (
        '<td class="reference">8 <small class="reference-then">changed since you submitted; '
        "it was 10</small></td>" in html
    )
    assert '<small class="reference-then">(was: why K1 A1)</small>' in html
    # K2 T1 kept its points: only its note says it changed.
    assert '<td class="reference">8</td>' in html
    assert '<small class="reference-then">(was: why K2 T1)</small>' in html
    assert html.count('class="reference-then"') == 3


def _history() -> list[tuple]:
    """Every reference change as the backup must bring it back, by time."""
    return sorted(
        ReferenceMarkEvent.objects.values_list(
            "created_at",
            "reference__calibration_paper__label",
            "reference__criterion__code",
            "actor__username",
            "old_points",
            "new_points",
            "old_note",
            "new_note",
        )
    )


def test_the_history_goes_into_the_backup_and_comes_back(db, submitted, chair, tmp_path):
    _change(submitted, chair, "K1", "A1", "9", "the plural counts")
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest="test", out=str(first), verbosity=0)
    history = _history()
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)
    call_command("import_contest", str(first), verbosity=0)

    assert _history() == history
    second = tmp_path / "again.zip"
    call_command("export_contest", contest="test", out=str(second), verbosity=0)
    read = lambda path: zipfile.ZipFile(path).read("backup.json")  # noqa: E731
    assert read(first) == read(second)


def test_references_without_history_restore_and_export_without_it(db, submitted, tmp_path):
    # Rows made before the history was recorded have none: the file leaves the list out.
    ReferenceMarkEvent.objects.all().delete()
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest="test", out=str(first), verbosity=0)
    document = json.loads(zipfile.ZipFile(first).read("backup.json"))
    references = [
        reference
        for round_ in document["calibration_rounds"]
        for paper in round_["papers"]
        for reference in paper["references"]
    ]
    assert len(references) == 4 and all("history" not in reference for reference in references)
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)
    call_command("import_contest", str(first), verbosity=0)
    assert ReferenceMark.objects.count() == 4 and ReferenceMarkEvent.objects.count() == 0


def test_the_chairs_page_lists_the_changes_of_the_reference(client, contest, submitted, chair):
    url = reverse("calibration", args=[contest.slug, 1])
    client.force_login(chair)
    # The first entries are no change: no list yet.
    assert 'id="reference-changes"' not in client.get(url).content.decode()
    _change(submitted, chair, "K1", "A1", "9", "the plural counts")
    _change(submitted, chair, "K2", "T1", "8", "a clearer note")

    html = client.get(url).content.decode()
    assert "<summary>Changes of the reference (2)</summary>" in html
    changes = html[html.index('id="reference-changes"') :]
    changes = changes[: changes.index("</details>")]
    # Newest first: K2 T1's note, then K1 A1's points and note.
    assert changes.index("K2 T1: note (note: “why K2 T1” → “a clearer note”) · chen") < (
        changes.index("K1 A1: 10 → 9 (note: “why K1 A1” → “the plural counts”) · chen")
    )


def test_a_sheet_restored_without_its_time_of_submission_shows_no_change_since(
    client, contest, submitted, chair, juror
):
    _change(submitted, chair, "K1", "A1", "9", "the plural counts")
    CalibrationSheet.objects.filter(juror=juror).update(submitted_at=None)
    client.force_login(juror)
    response = client.get(reverse("calibration_sheet", args=[contest.slug, 1]))
    assert response.status_code == 200
    assert 'class="reference-then"' not in response.content.decode()
