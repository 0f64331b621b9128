"""Backups carry the calibration rounds: a restored contest with a round exports to the same
bytes; a contest without one exports without the list; a paper kept out of the round for
seeding says so (only then: older backups have no such paper); a restore checks every row
first, with a sentence naming it, and writes nothing when one is wrong."""

import json
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection

from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.calibration.calibration_marks import calibration_mark_set, calibration_sheet_submit
from grading.models import (
    CalibrationMark,
    CalibrationMarkEvent,
    CalibrationPaper,
    CalibrationRound,
    CalibrationSheet,
    ReferenceMark,
)
from rubrics.models import Contest
from tests.grading.backup.backup_helpers import forget_everything
from tests.grading.calibration.scenario import juror_marks, make_round


@pytest.fixture
def with_round(contest, chair, juror):
    round_ = make_round(contest.problems.get(number=1), chair, seeded=True, kept=1)
    for (label, code), mark in juror_marks(round_, juror).items():
        calibration_mark_set(mark=mark, points=Decimal("4"), note=f"{label}{code}", actor=juror)
    calibration_sheet_submit(sheet=CalibrationSheet.objects.get(juror=juror), actor=juror)
    return round_


def _state():
    return {
        "rounds": list(
            CalibrationRound.objects.values_list(
                "problem__number", "state", "seeded", "created_by__username"
            )
        ),
        "papers": list(
            CalibrationPaper.objects.order_by("id").values_list(
                "paper__identity", "label", "position", "for_seeding"
            )
        ),
        "references": list(
            ReferenceMark.objects.order_by("id").values_list(
                "calibration_paper__label", "criterion__code", "points", "note"
            )
        ),
        "sheets": list(
            CalibrationSheet.objects.order_by("id").values_list("juror__username", "state")
        ),
        "marks": list(
            CalibrationMark.objects.order_by("id").values_list(
                "sheet__juror__username",
                "calibration_paper__label",
                "criterion__code",
                "points",
                "note",
                "version",
            )
        ),
        "events": CalibrationMarkEvent.objects.count(),
    }


def test_a_restored_contest_with_a_calibration_round_exports_byte_for_byte_the_same(
    db, with_round, tmp_path
):
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest="test", out=str(first), verbosity=0)
    state = _state()
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)
    call_command("import_contest", str(first), verbosity=0)
    second = tmp_path / "again.zip"
    call_command("export_contest", contest="test", out=str(second), verbosity=0)
    assert second.read_bytes() == first.read_bytes()
    assert _state() == state
    assert state["events"] == 4 and len(state["marks"]) == 8 and len(state["references"]) == 6
    assert [paper[1:] for paper in state["papers"]] == [
        ("K1", 1, False),
        ("K2", 2, False),
        ("K3", 3, True),
    ]


def test_a_contest_without_a_round_exports_without_the_list(contest):
    assert "calibration_rounds" not in contest_export(contest=contest)


def test_the_round_in_the_document(with_round, contest):
    [round_] = contest_export(contest=contest)["calibration_rounds"]
    assert (round_["problem"], round_["state"], round_["seeded"], round_["created_by"]) == (
        1,
        "open",
        True,
        "chen",
    )
    # The flag is written only for a paper kept for seeding.
    assert [
        (p["label"], p["position"], p.get("for_seeding"), len(p["references"]))
        for p in round_["papers"]
    ] == [("K1", 1, None, 2), ("K2", 2, None, 2), ("K3", 3, True, 2)]
    assert [(s["juror"], s["state"], len(s["marks"])) for s in round_["sheets"]] == [
        ("alice", "submitted", 4),
        ("bob", "draft", 4),
    ]


def _broken(document, damage) -> list[str]:
    damage(document["calibration_rounds"][0])
    forget_everything()
    with pytest.raises(ValidationError) as refused:
        contest_import(document=json.loads(json.dumps(document)), source="backup.json")
    assert CalibrationRound.objects.count() == 0
    return refused.value.messages


@pytest.mark.parametrize(
    ("damage", "sentence"),
    [
        (
            lambda r: r.update(problem=9),
            "backup.json, calibration_rounds[0]: problem 9 is not in the file.",
        ),
        (
            lambda r: r.update(state="half"),
            "backup.json, calibration_rounds[0]: state: Value 'half' is not a valid choice.",
        ),
        (
            lambda r: r["papers"][1].update(label="K1"),
            "backup.json, calibration_rounds[0].papers[1]: the calibration label “K1” appears twice.",
        ),
        (
            lambda r: r["papers"][0].update(paper="Team Nobody"),
            "backup.json, calibration_rounds[0].papers[0]: the paper is not in the file's list of papers.",
        ),
        (
            lambda r: r["papers"][0]["references"][0].update(points="99"),
            "backup.json, calibration_rounds[0].papers[0].references[0]: Criterion A1: 99 is more than the 12 points this criterion allows.",
        ),
        (
            lambda r: r["sheets"][0]["marks"][0].update(paper="K7"),
            "backup.json, calibration_rounds[0].sheets[0].marks[0]: the round has no paper labelled “K7”.",
        ),
        (
            lambda r: r["papers"][0].update(for_seeding=True),
            "backup.json, calibration_rounds[0].sheets[0].marks[0]: paper “K1” is kept out of "
            "the round for seeding: no calibration sheet has a mark on it.",
        ),
        (
            lambda r: r["papers"][2].update(for_seeding="yes"),
            'backup.json, calibration_rounds[0].papers[2].for_seeding: expected true or false; got "yes".',
        ),
        (
            lambda r: r["sheets"][0].update(juror="nobody"),
            "backup.json, calibration_rounds[0].sheets[0]: the user “nobody” is not in the file's list of users.",
        ),
    ],
)
def test_a_broken_round_is_refused_with_a_sentence_and_nothing_written(
    with_round, contest, damage, sentence
):
    document = contest_export(contest=contest)
    assert sentence in _broken(document, damage)


def test_a_round_without_papers_kept_for_seeding_writes_no_flag_and_an_older_backup_keeps_none(
    contest, chair
):
    make_round(contest.problems.get(number=1), chair, seeded=True)
    document = contest_export(contest=contest)
    papers = document["calibration_rounds"][0]["papers"]
    assert [sorted(paper) for paper in papers] == [["label", "paper", "position", "references"]] * 2
    forget_everything()
    contest_import(document=json.loads(json.dumps(document)), source="backup.json")
    assert list(CalibrationPaper.objects.values_list("for_seeding", flat=True)) == [False, False]
    again = contest_export(contest=Contest.objects.get())
    assert again["calibration_rounds"] == document["calibration_rounds"]
