"""An amendment of points, step or tolerance during a calibration round reopens the calibration
marks of that criterion (and the seeds' marks in the live sheets) as it reopens live marks:
listed in the preview with the references to re-enter, their points never changed, each change
recorded, their jurors told; the juror re-confirms or re-marks them in the calibration sheet;
the round neither opens nor closes while a reference does not fit; backups carry them."""

import json
import re
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.calibration import rounds
from grading.calibration.calibration_marks import calibration_mark_set, calibration_sheet_submit
from grading.marking.seed_cells import seed_cell_set
from grading.marking.selectors import sheet_grid
from grading.models import (
    CalibrationMark,
    CalibrationMarkEvent,
    CalibrationSheet,
    MarkEvent,
    Notification,
    Seed,
    Sheet,
)
from grading.resolution.inbox_selectors import inbox_entries
from grading.rules.refusals import ContestFinal, SheetLocked
from grading.schemes.amend import amendment_read, scheme_amend
from rubrics.models import Contest
from tests.grading.backup.backup_helpers import forget_everything
from tests.grading.calibration import seed_scenario
from tests.grading.calibration.scenario import juror_marks, make_round

pytestmark = pytest.mark.django_db

# A1's step goes from 0.5 to 1: K2's reference of A1 (4.5) no longer fits; T1 is untouched.
STEP = {"A1": {"step": "1"}}
REASON = "Half points on A1 split the group."


@pytest.fixture
def graded(contest, chair, juror, other_juror):
    """Alice graded every cell (4, and 3.5 on K2 A1) and submitted; Bob graded K1 A1 only."""
    problem = contest.problems.get(number=1)
    round_ = make_round(problem, chair)
    for (label, code), mark in juror_marks(round_, juror).items():
        points = "3.5" if (label, code) == ("K2", "A1") else "4"
        calibration_mark_set(mark=mark, points=Decimal(points), actor=juror)
    calibration_sheet_submit(sheet=CalibrationSheet.objects.get(juror=juror), actor=juror)
    mark = juror_marks(round_, other_juror)[("K1", "A1")]
    calibration_mark_set(mark=mark, points=Decimal("5"), actor=other_juror)
    return {"problem": problem, "round": round_, "chair": chair}


def _state():
    return sorted(
        CalibrationMark.objects.values_list(
            "sheet__juror__username",
            "calibration_paper__label",
            "criterion__code",
            "points",
            "reopened_by__number",
        )
    )


def _url(name, contest, *args):
    return reverse(name, args=[contest.slug, 1, *args])


def test_the_preview_lists_the_calibration_marks_and_the_references_to_re_enter(graded):
    before = _state()
    amendment = amendment_read(graded["problem"], changes=STEP, reason=REASON)
    assert amendment.under_marks and amendment.reopening == []
    assert [
        (m.juror, m.where, m.label, m.code, m.points, m.unfit)
        for m in amendment.reopening_calibration
    ] == [
        ("alice", "calibration sheet", "K1", "A1", Decimal("4"), ""),
        # Off the new step: Enter cannot re-confirm it (issue 31, finding 13).
        (
            "alice",
            "calibration sheet",
            "K2",
            "A1",
            Decimal("3.5"),
            "3.5 is not a multiple of the step 1",
        ),
        ("bob", "calibration sheet", "K1", "A1", Decimal("5"), ""),
    ]
    assert amendment.unfit == 1
    assert [(r.label, r.code, r.points, r.why) for r in amendment.references_to_reenter] == [
        (
            "K2",
            "A1",
            Decimal("4.5"),
            "Reference of K2, criterion A1: 4.5 is not a multiple of the step 1.",
        )
    ]
    assert _state() == before


def test_the_amendment_reopens_exactly_those_marks_records_and_tells_never_rescaling(
    graded, juror, other_juror
):
    before = _state()
    version = scheme_amend(graded["problem"], changes=STEP, reason=REASON, actor=graded["chair"])
    after = _state()
    # The same points, the A1 marks with points reopened; T1 and Bob's blank cells are not.
    assert [row[:4] for row in after] == [row[:4] for row in before]
    assert [row[:3] for row in after if row[4] == version.number] == [
        ("alice", "K1", "A1"),
        ("alice", "K2", "A1"),
        ("bob", "K1", "A1"),
    ]
    events = CalibrationMarkEvent.objects.filter(channel=MarkEvent.Channel.SCHEME)
    assert sorted(
        events.values_list("mark__sheet__juror__username", "old_points", "new_points")
    ) == [
        ("alice", Decimal("3.5"), Decimal("3.5")),
        ("alice", Decimal("4"), Decimal("4")),
        ("bob", Decimal("5"), Decimal("5")),
    ]
    assert version.reopened_calibration.count() == 3 and version.reopened.count() == 0
    notices = Notification.objects.filter(kind=Notification.Kind.MARKS_REOPENED)
    assert sorted(notices.values_list("recipient__username", "sentence")) == [
        (
            "alice",
            "P1: 2 of your calibration marks reopened with scheme version 2; re-confirm or "
            "re-mark them in your calibration sheet. 1 of them no longer fits the criterion "
            f"(above the new maximum or off the step): re-mark it. Reason: {REASON}",
        ),
        (
            "bob",
            "P1: 1 of your calibration marks reopened with scheme version 2; re-confirm or "
            f"re-mark it in your calibration sheet. Reason: {REASON}",
        ),
    ]
    [entry] = [e for e in inbox_entries(juror) if e.notification.kind == "marks_reopened"]
    assert entry.url == _url("calibration_sheet", graded["problem"].contest)


def test_the_juror_re_confirms_and_re_marks_only_the_reopened_cells_of_a_submitted_sheet(
    client, graded, contest, juror
):
    scheme_amend(graded["problem"], changes=STEP, reason=REASON, actor=graded["chair"])
    client.force_login(juror)
    page = client.get(_url("calibration_sheet", contest)).content.decode()
    assert 'id="reopened-count" data-count="2"' in page
    assert (
        f"2 marks to re-confirm</strong>: an amendment of the scheme reopened them (version 2: {REASON})"
        in page
    )
    assert page.count('<td class="reopened">') == 2
    assert page.count('<tr class="reopened" data-code="A1">') == 2
    # Each reopened cell says what it takes: Enter, or new points off the new step (issue 31,
    # finding 13); the keys' line says the reopened cells are not read-only.
    head = f"Reopened by scheme version 2: {REASON}"
    assert re.findall(r'aria-label="([^"]+)"[^>]*aria-description="([^"]+)"', page) == [
        ("K1 A1", f"{head} Press Enter to re-confirm 4, or type new points."),
        (
            "K2 A1",
            f"{head} 3.5 is not a multiple of the step 1, so Enter cannot re-confirm it: type "
            "new points.",
        ),
    ]
    assert '<span id="reopened-unfit">1 reopened mark no longer fits the amended criterion' in page
    assert (
        '<p class="keys">Read-only but for the reopened cells (marked “re-confirm”, each saying '
        "what it takes): arrows, <kbd>Tab</kbd> and <kbd>Enter</kbd> move · <kbd>h</kbd> "
        "history.</p>" in page
    )
    # The banner of the submitted sheet says which of its cells still take points.
    assert (
        '<p class="notice locked">You submitted this calibration sheet; it is read-only. Its 2 '
        "reopened marks stay open until you re-confirm or re-mark them.</p>" in page
    )
    marks = juror_marks(graded["round"], juror)
    k1, k2, t1 = marks[("K1", "A1")], marks[("K2", "A1")], marks[("K1", "T1")]

    def save(label, code, points, version):
        return client.post(
            _url("calibration_cell_save", contest, label, code),
            {"points": points, "version": version},
        )

    # Untouched cells of the submitted sheet stay read-only; a reopened cell is never blank.
    assert save("K1", "T1", "5", t1.version).json()["saved"] is False
    blank = save("K1", "A1", "", k1.version)
    assert blank.json()["saved"] is False and "not a blank" in blank.json()["error"]
    # Enter on the cell re-confirms its points; typing re-marks it under the new step.
    assert save("K1", "A1", "4", k1.version).json() == {
        "points": "4",
        "note": "",
        "version": k1.version + 1,
        "saved": True,
    }
    assert save("K2", "A1", "3.5", k2.version).json()["saved"] is False  # off the new step
    assert save("K2", "A1", "3", k2.version).json()["saved"] is True
    assert (
        CalibrationMark.objects.filter(sheet__juror=juror, reopened_by__isnull=False).count() == 0
    )
    assert list(
        CalibrationMarkEvent.objects.filter(mark=k1)
        .order_by("version")
        .values_list("channel", "old_points", "new_points")
    )[-2:] == [("scheme", Decimal("4"), Decimal("4")), ("browser", Decimal("4"), Decimal("4"))]
    assert CalibrationMark.objects.get(pk=k2.pk).scheme_version == 2
    # Re-confirmed, it may not change again: the sheet is submitted.
    assert save("K2", "A1", "2", k2.version + 2).json()["saved"] is False


def test_a_draft_sheet_with_a_reopened_mark_is_not_submitted_until_it_is_re_confirmed(
    graded, other_juror
):
    scheme_amend(graded["problem"], changes=STEP, reason=REASON, actor=graded["chair"])
    sheet = CalibrationSheet.objects.get(juror=other_juror)
    for mark in juror_marks(graded["round"], other_juror).values():
        if mark.points is None:
            calibration_mark_set(mark=mark, points=Decimal("2"), actor=other_juror)
    with pytest.raises(ValidationError, match="1 calibration mark reopened by an amendment"):
        calibration_sheet_submit(sheet=sheet, actor=other_juror)
    calibration_mark_set(
        mark=juror_marks(graded["round"], other_juror)[("K1", "A1")],
        points=Decimal("5"),
        actor=other_juror,
    )
    assert calibration_sheet_submit(sheet=sheet, actor=other_juror).is_submitted


def test_the_round_neither_closes_nor_opens_while_a_reference_does_not_fit(
    client, graded, contest, chair
):
    scheme_amend(graded["problem"], changes=STEP, reason=REASON, actor=chair)
    client.force_login(chair)
    page = client.get(_url("calibration", contest)).content.decode()
    assert "3 calibration marks to re-confirm" in page
    assert "Reference of K2, criterion A1: 4.5 is not a multiple of the step 1." in page
    round_ = graded["round"]
    with pytest.raises(ValidationError, match="1 reference no longer fits the amended scheme"):
        rounds.round_close(round_=round_, actor=chair)
    round_.refresh_from_db()
    assert round_.is_open
    paper = round_.papers.get(label="K2")
    criterion = graded["problem"].criteria.get(code="A1")
    rounds.reference_set(
        calibration_paper=paper, criterion=criterion, points=Decimal("5"), note="", actor=chair
    )
    assert (
        "Reference marks to re-enter"
        not in client.get(_url("calibration", contest)).content.decode()
    )
    assert not rounds.round_close(round_=round_, actor=chair, without=["bob"]).is_open


def test_a_final_contest_refuses_the_re_confirmation(graded, juror):
    scheme_amend(graded["problem"], changes=STEP, reason=REASON, actor=graded["chair"])
    Contest.objects.filter(pk=graded["problem"].contest_id).update(state=Contest.State.FINAL)
    mark = juror_marks(graded["round"], juror)[("K1", "A1")]
    with pytest.raises(ContestFinal):
        calibration_mark_set(mark=mark, points=Decimal("4"), actor=juror)
    assert CalibrationMark.objects.get(pk=mark.pk).reopened_by is not None


def test_a_seed_mark_reopens_in_the_live_sheet_as_a_paper_cell_and_is_re_confirmed(client, db):
    world = seed_scenario.build()
    alice = world["jurors"][0]
    seed = Seed.objects.get(juror=alice)
    sheet = Sheet.objects.select_related("problem__contest").get(juror=alice)
    mark = CalibrationMark.objects.select_related("criterion").get(seed=seed, criterion__code="A1")
    seed_cell_set(sheet=sheet, mark=mark, points=Decimal("9.5"), expected_version=0, actor=alice)
    amendment = amendment_read(world["problem"], changes=STEP, reason=REASON)
    assert [(m.juror, m.where, m.label, m.points) for m in amendment.reopening_calibration] == [
        ("alice", "live sheet (seed)", seed.label, Decimal("9.5"))
    ]
    scheme_amend(world["problem"], changes=STEP, reason=REASON, actor=world["chair"])
    # Told with the live marks, as one of "your marks": nothing tells the seed apart.
    assert list(
        Notification.objects.filter(kind=Notification.Kind.MARKS_REOPENED).values_list(
            "recipient__username", "sentence"
        )
    ) == [
        (
            "alice",
            "P1: 1 of your marks reopened with scheme version 2; re-confirm or re-mark it in "
            "your sheet. It no longer fits the criterion (above the new maximum or off the "
            f"step): re-mark it. Reason: {REASON}",
        )
    ]
    grid = sheet_grid(sheet=sheet)
    assert grid.reopened == 1
    client.force_login(alice)
    page = client.get(reverse("sheet", args=[world["contest"].slug, 1])).content.decode()
    assert 'id="reopened-count" data-count="1"' in page and '<td class="reopened">' in page
    mark.refresh_from_db()
    with pytest.raises(SheetLocked, match="not a blank"):
        seed_cell_set(
            sheet=sheet, mark=mark, points=None, expected_version=mark.version, actor=alice
        )
    # Off the new step, 9.5 must be re-marked.
    with pytest.raises(ValidationError):
        seed_cell_set(
            sheet=sheet,
            mark=mark,
            points=Decimal("9.5"),
            expected_version=mark.version,
            actor=alice,
        )
    seed_cell_set(
        sheet=sheet, mark=mark, points=Decimal("9"), expected_version=mark.version, actor=alice
    )
    mark.refresh_from_db()
    assert (mark.points, mark.reopened_by) == (Decimal("9"), None)
    assert sheet_grid(sheet=sheet).reopened == 0


def test_a_reopened_calibration_mark_round_trips_through_the_backup(graded, contest, tmp_path):
    scheme_amend(graded["problem"], changes=STEP, reason=REASON, actor=graded["chair"])
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest=contest.slug, out=str(first), verbosity=0)
    state = _state()
    # The deferred foreign keys checked now: PostgreSQL truncates no table with pending checks.
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)
    call_command("import_contest", str(first), verbosity=0)
    assert _state() == state
    assert sum(1 for row in state if row[4] == 2) == 3
    second = tmp_path / "again.zip"
    call_command("export_contest", contest=contest.slug, out=str(second), verbosity=0)
    assert second.read_bytes() == first.read_bytes()


def test_a_restore_checks_the_references_entered_since_the_amendment(graded, contest):
    # K2 A1 (4.5) was entered before the step went to 1: it waits to be re-entered and
    # restores as it is. A reference dated after the amendment must fit the amended criterion.
    scheme_amend(graded["problem"], changes=STEP, reason=REASON, actor=graded["chair"])
    document = contest_export(contest=contest)
    [version] = document["problems"][0]["scheme_versions"]
    [round_] = document["calibration_rounds"]
    k1 = round_["papers"][0]["references"][0]
    assert (round_["papers"][0]["label"], k1["criterion"]) == ("K1", "A1")
    later = datetime.fromisoformat(version["created_at"]) + timedelta(seconds=1)
    k1.update(points="9.5", updated_at=later.isoformat())
    forget_everything()

    with pytest.raises(ValidationError) as refused:
        contest_import(document=json.loads(json.dumps(document)), source="backup.json")

    assert refused.value.messages == [
        "backup.json, calibration_rounds[0].papers[0].references[0]: Criterion A1: 9.5 is not "
        "a multiple of the step 1."
    ]


def test_the_amend_page_previews_the_calibration_marks_and_the_references(client, graded, contest):
    client.force_login(graded["chair"])
    preview = client.post(
        reverse("scheme", args=[contest.slug, 1]),
        {"A1-step": "1", "reason": REASON, "action": "preview"},
    )
    html = preview.content.decode()
    assert preview.status_code == 200
    assert "3 calibration marks will reopen as well" in html
    assert (
        "<tr><td>bob</td><td>calibration sheet</td><td>K1</td><td>A1</td><td>5</td>"
        "<td>re-confirms (Enter) or re-marks</td></tr>" in html
    )
    assert (
        '<tr class="unfit"><td>alice</td><td>calibration sheet</td><td>K2</td><td>A1</td>'
        "<td>3.5</td><td>types new points: 3.5 is not a multiple of the step 1</td></tr>" in html
    )
    assert 'id="references-to-reenter"' in html
    assert "Reference of K2, criterion A1: 4.5 is not a multiple of the step 1." in html
    assert not CalibrationMark.objects.filter(reopened_by__isnull=False).exists()
