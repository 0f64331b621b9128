"""The comment bank in backups: a problem's notes come back with their authors, whether each is
a juror's proposal or in the group's bank, uses, order and times, and the restored contest exports to the same bytes; a contest without a bank exports as
it did before the bank existed; a restore refuses a note on a criterion the file does not hold,
or with points its criterion does not allow, with a sentence, and writes nothing."""

import json
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection

from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.marking.comment_bank import bank_note_add, bank_note_used
from grading.models import BankNote
from rubrics.models import Contest, Criterion
from tests.grading.backup.backup_helpers import forget_everything


@pytest.fixture
def banked(contest, juror, chair):
    t1 = Criterion.objects.select_related("problem__contest").get(
        problem__contest=contest, problem__number=1, code="T1"
    )
    first = bank_note_add(
        criterion=t1, text="Vowel harmony missed.", points=Decimal("2"), author=juror
    )
    bank_note_add(criterion=t1, text="Half the rule.", points=None, author=chair)
    bank_note_used(note=first, actor=juror)
    return contest


def _bank() -> list[tuple]:
    return list(
        BankNote.objects.order_by("id").values_list(
            "criterion__problem__number",
            "criterion__code",
            "text",
            "points",
            "author__username",
            "adopted",
            "uses",
            "order",
            "created_at",
        )
    )


def test_a_restored_contest_with_a_bank_exports_byte_for_byte_the_same(db, banked, tmp_path):
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest="test", out=str(first), verbosity=0)
    bank = _bank()
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)

    call_command("import_contest", str(first), verbosity=0)
    second = tmp_path / "again.zip"
    call_command("export_contest", contest="test", out=str(second), verbosity=0)

    assert second.read_bytes() == first.read_bytes()
    assert _bank() == bank
    # Alice's note comes back her proposal, not in the group's bank; the chair's in it.
    assert [row[2:7] for row in bank] == [
        ("Vowel harmony missed.", Decimal("2.00"), "alice", False, 1),
        ("Half the rule.", None, "chen", True, 0),
    ]


def test_the_bank_is_written_in_its_problem_and_only_when_it_holds_notes(db, banked):
    document = contest_export(contest=banked)
    problems = {problem["number"]: problem for problem in document["problems"]}
    assert ("bank" in problems[2], [row["text"] for row in problems[1]["bank"]]) == (
        False,
        ["Vowel harmony missed.", "Half the rule."],
    )
    # A proposal says so; a note of the group's bank is written as before proposals existed.
    assert problems[1]["bank"][0]["adopted"] is False
    assert problems[1]["bank"][1] == {
        "criterion": "T1",
        "text": "Half the rule.",
        "points": None,
        "author": "chen",
        "uses": 0,
        "order": 1,
        "created_at": problems[1]["bank"][1]["created_at"],
    }
    BankNote.objects.all().delete()
    assert [("bank" in problem) for problem in contest_export(contest=banked)["problems"]] == [
        False,
        False,
    ]


@pytest.mark.parametrize(
    ("change", "sentence"),
    [
        (
            {"criterion": "Z9"},
            "The backup, problems[0].bank[0]: criterion Z9 of problem 1 is not in the file.",
        ),
        (
            {"points": "9"},
            "The backup, problems[0].bank[0]: Criterion T1: 9 is more than the 8 points this "
            "criterion allows.",
        ),
        (
            {"author": "nobody"},
            "The backup, problems[0].bank[0]: the user “nobody” is not in the file's list of "
            "users.",
        ),
        (
            {"text": "Half the rule."},
            "The backup, problems[0].bank[1]: the note “Half the rule.” appears twice in the "
            "bank of criterion T1.",
        ),
    ],
)
def test_a_restore_refuses_a_wrong_bank_note_with_a_sentence_and_writes_nothing(
    db, banked, change, sentence
):
    document = json.loads(json.dumps(contest_export(contest=banked)))
    bank = document["problems"][0]["bank"]
    if "text" in change:
        # Alice's proposal, in the group's bank as the chair's note is (a backup made before
        # proposals existed has no "adopted": in the bank).
        bank[0]["text"] = change["text"]
        del bank[0]["adopted"]
    else:
        bank[0].update(change)
    forget_everything()

    with pytest.raises(ValidationError) as refused:
        contest_import(document=document)
    assert refused.value.messages == [sentence]
    assert (Contest.objects.count(), BankNote.objects.count()) == (0, 0)
