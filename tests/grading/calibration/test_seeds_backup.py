"""Seeds in the backup: each seed (problem, calibration paper's label, juror, seed label) and
each seed mark with its history, written only when present, restored as exported. The round's
own rows (the round, its calibration papers, their reference marks) are the round's sections
(grading/backup/table_calibration.py), restored before the seeds that name its papers."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from grading.assigning.help import help_answer, help_ask, help_assign
from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.marking.seed_cells import seed_mark_set
from grading.models import (
    CalibrationMark,
    CalibrationMarkEvent,
    HelpRequest,
    Notification,
    Seed,
    Sheet,
)
from grading.rules import roles
from rubrics.models import Contest
from tests.factories import make_user
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


def _asked_on_alice_seed(world) -> str:
    """Alice's question on her seed's row, answered by a language specialist: the question and
    the notice that tells her, each naming the seed."""
    alice = world["jurors"][0]
    seed = Seed.objects.select_related("calibration_paper__paper").get(juror=alice)
    question = help_ask(
        actor=alice,
        problem=world["problem"],
        paper=seed.calibration_paper.paper,
        question="What is line 2?",
        seed=seed,
    )
    helper = make_user("sara", roles.SPECIALIST)
    question = help_assign(actor=world["chair"], request=question, helper=helper)
    help_answer(actor=helper, request=question, answer="It says water.")
    return seed.label


def _help_seeds():
    return (
        sorted(HelpRequest.objects.values_list("question", "seed__label")),
        sorted(Notification.objects.values_list("kind", "seed__label")),
    )


def test_a_question_asked_on_a_seed_is_restored_on_its_seed_with_its_notice(world):
    label = _asked_on_alice_seed(world)
    first = contest_export(contest=Contest.objects.get())
    assert [row.get("seed") for row in first["help_requests"]] == [label]
    assert sorted(row.get("seed") or "" for row in first["notifications"]) == ["", "", label]
    before = _help_seeds()
    forget_everything()
    contest_import(document=first)
    assert _help_seeds() == before
    assert contest_export(contest=Contest.objects.get()) == first


def test_a_question_naming_a_seed_the_file_lacks_is_refused(world):
    _asked_on_alice_seed(world)
    first = contest_export(contest=Contest.objects.get())
    first["help_requests"][0]["seed"] = "ZZZZ"
    forget_everything()
    with pytest.raises(ValidationError) as refused:
        contest_import(document=first)
    assert refused.value.messages == [
        "The backup, help_requests[0]: the question names the seed “ZZZZ”, which is not in the "
        "file's list of seeds."
    ]
    assert not Contest.objects.exists()
