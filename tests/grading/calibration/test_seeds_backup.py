"""Seeds in the backup: each seed (problem, calibration paper's label, juror, seed label) and
each seed mark with its history, written only when present, restored as exported. The round's
own rows (the round, its calibration papers, their reference marks) are the round's sections
(grading/backup/table_calibration.py), restored before the seeds that name its papers."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.marking.seed_cells import seed_mark_set
from grading.models import CalibrationMark, CalibrationMarkEvent, Seed, Sheet
from rubrics.models import Contest
from tests.grading.backup.backup_helpers import forget_everything
from tests.grading.backup.test_backup_table import _wrong_rows
from tests.grading.calibration import seed_scenario


@pytest.fixture
def world(db):
    world = seed_scenario.build()
    for juror, points in zip(world["jurors"], ("9", "11.5"), strict=True):
        sheet = Sheet.objects.select_related("problem__contest").get(juror=juror)
        mark = CalibrationMark.objects.select_related("criterion").get(
            seed__juror=juror, criterion__code="A1"
        )
        seed_mark_set(sheet=sheet, mark=mark, points=Decimal(points), actor=juror)
        seed_mark_set(sheet=sheet, mark=mark, points=Decimal(points), note="why", actor=juror)
    return world


def _seeds():
    return sorted(Seed.objects.values_list("juror__username", "calibration_paper__label", "label"))


def _seed_marks():
    return sorted(
        CalibrationMark.objects.values_list(
            "seed__label", "criterion__code", "points", "note", "version", "updated_at"
        )
    )


def _events():
    return sorted(
        CalibrationMarkEvent.objects.values_list(
            "mark__seed__label", "actor__username", "new_points", "new_note", "version"
        )
    )


def test_a_contest_without_seeds_exports_without_their_lists(db):
    seed_scenario.build(draw=False)
    document = contest_export(contest=Contest.objects.get())
    assert "seeds" not in document and "seed_marks" not in document


def test_the_backup_holds_each_seed_and_its_marks_with_their_history(world):
    document = contest_export(contest=Contest.objects.get())
    alice_label = Seed.objects.get(juror__username="alice").label
    assert [(row["juror"], row["calibration_paper"]) for row in document["seeds"]] == sorted(
        [("alice", "K1"), ("bob", "K1")],
        key=lambda pair: Seed.objects.get(juror__username=pair[0]).label,
    )
    alice_a1 = next(
        row
        for row in document["seed_marks"]
        if row["seed"] == alice_label and row["criterion"] == "A1"
    )
    assert (alice_a1["points"], alice_a1["note"], alice_a1["version"]) == ("9.00", "why", 2)
    assert [(e["actor"], e["new_points"], e["new_note"]) for e in alice_a1["events"]] == [
        ("alice", "9.00", ""),
        ("alice", "9.00", "why"),
    ]
    assert len(document["seed_marks"]) == 4
    assert _wrong_rows(document) == []


CALIBRATION_IDENTITY = "system-3"  # the scenario's last paper is K1


def test_a_restored_contest_with_seeds_exports_the_same(world):
    assert world["calibration_paper"].identity == CALIBRATION_IDENTITY
    first = contest_export(contest=Contest.objects.get())
    seeds, marks, events = _seeds(), _seed_marks(), _events()
    forget_everything()
    # The round and K1 come back through the round's own sections, before the seeds.
    contest_import(document=first)
    assert (_seeds(), _seed_marks(), _events()) == (seeds, marks, events)
    assert contest_export(contest=Contest.objects.get()) == first


def test_a_seed_naming_a_calibration_paper_the_file_lacks_is_refused_and_nothing_written(world):
    first = contest_export(contest=Contest.objects.get())
    # The file's round without its paper K1 (and K1's references with it).
    first["calibration_rounds"][0]["papers"] = []
    forget_everything()
    with pytest.raises(ValidationError) as refused:
        contest_import(document=first)
    assert refused.value.messages == [
        "A seed of problem 1 names the calibration paper “K1”, which the file's calibration "
        "rounds do not hold; nothing was imported."
    ]
    assert not Contest.objects.exists() and not Seed.objects.exists()


def test_the_restore_names_a_seed_mark_without_its_seed(world):
    first = contest_export(contest=Contest.objects.get())
    first["seed_marks"][0]["seed"] = "ZZZZ"
    first["seed_marks"][1]["points"] = "13"
    forget_everything()
    with pytest.raises(ValidationError) as refused:
        contest_import(document=first)
    assert refused.value.messages == [
        "The backup, seed_marks[0]: the mark's seed is not in the file's list of seeds.",
        "The backup, seed_marks[1]: Criterion T1: 13 is more than the 8 points this criterion "
        "allows.",
    ]
    assert not Contest.objects.exists()
