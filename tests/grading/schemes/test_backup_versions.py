"""Backups carry scheme versions: each problem's versions (number, reason, changes, whether they
reopened marks, who made them, when) and each reopened mark's version, written only when not
the default; a restored contest exports to the same bytes; a restore refuses a mark reopened by
a version the file does not hold, with a sentence, and writes nothing."""

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection

from grading.backup.archive import backup_read
from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.models import Mark
from grading.schemes.amend import scheme_amend
from rubrics.models import Contest, SchemeVersion
from tests.grading import scenario
from tests.grading.backup.backup_helpers import forget_everything

pytestmark = pytest.mark.django_db(transaction=True)


def _amended():
    graded = scenario.build()
    p1 = graded["problems"][1]
    scheme_amend(
        p1,
        changes={"A1": {"guidance": "Article optional."}},
        reason="Wording.",
        actor=graded["chair"],
    )
    scheme_amend(
        p1,
        changes={"A1": {"points": "11"}, "T1": {"points": "9"}},
        reason="T1 weighs more.",
        actor=graded["chair"],
    )
    return graded


def test_a_contest_without_versions_exports_without_their_fields():
    scenario.build()
    document = contest_export(contest=Contest.objects.get())
    assert [("scheme_versions" in problem) for problem in document["problems"]] == [False, False]
    assert [("reopened_by" in mark) for mark in document["marks"]] == [False] * len(
        document["marks"]
    )


def test_versions_and_reopened_marks_round_trip_byte_for_byte(tmp_path):
    _amended()
    document = contest_export(contest=Contest.objects.get())
    p1 = document["problems"][0]
    assert [
        (v["number"], v["reason"], v["reopens_marks"], v["created_by"])
        for v in p1["scheme_versions"]
    ] == [(2, "Wording.", False, "chen"), (3, "T1 weighs more.", True, "chen")]
    assert p1["scheme_versions"][1]["changes"] == [
        {"criterion": "A1", "field": "points", "old": "12", "new": "11"},
        {"criterion": "T1", "field": "points", "old": "8", "new": "9"},
    ]
    assert "scheme_versions" not in document["problems"][1]
    assert sorted({m.get("reopened_by") for m in document["marks"] if m["problem"] == 1}) == [3]
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest="iol", out=str(first), verbosity=0)
    reopened = sorted(
        Mark.objects.filter(reopened_by__isnull=False).values_list(
            "paper__identity", "sheet__juror__username", "criterion__code", "points"
        )
    )
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)

    call_command("import_contest", str(first), verbosity=0)
    second = tmp_path / "again.zip"
    call_command("export_contest", contest="iol", out=str(second), verbosity=0)

    assert second.read_bytes() == first.read_bytes()
    assert list(SchemeVersion.objects.values_list("number", "reason")) == [
        (2, "Wording."),
        (3, "T1 weighs more."),
    ]
    after = sorted(
        Mark.objects.filter(reopened_by__number=3).values_list(
            "paper__identity", "sheet__juror__username", "criterion__code", "points"
        )
    )
    assert after == reopened and len(after) == 18


def test_a_mark_reopened_by_a_version_the_file_lacks_is_refused(tmp_path):
    _amended()
    path = tmp_path / "backup.zip"
    call_command("export_contest", contest="iol", out=str(path), verbosity=0)
    document = backup_read(path)
    document["problems"][0]["scheme_versions"].pop()
    forget_everything()
    with pytest.raises(ValidationError) as refused:
        contest_import(document=document)
    suffix = (
        ": the mark was reopened by scheme version 3, which is not among the versions of problem 1."
    )
    assert [m for m in refused.value.messages if m.endswith(suffix)] != []
    assert len([m for m in refused.value.messages if m.endswith(suffix)]) == 18
    assert [m for m in refused.value.messages if not m.endswith(suffix)] == []
    assert Contest.objects.count() == 0
