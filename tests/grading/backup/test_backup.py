"""Backup and restore: export_contest writes one file; import_contest restores it into a
database without that contest, and exporting the restored contest gives the same bytes. A
backup written before the archive (version 1, plain or gzipped JSON) still restores."""

import gzip
import json
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from django.db import connection

from grading.backup.archive import backup_read
from grading.backup.export import contest_document, contest_export
from grading.backup.restore import contest_import
from grading.console.contest_life import contest_resolution_open
from grading.marking.marks import mark_set
from grading.marking.sheets import sheet_submit
from grading.models import (
    Comment,
    HumanCriterionRate,
    HumanScore,
    Mark,
    MarkEvent,
    Notification,
    Paper,
    Resolution,
    ResolutionEvent,
    Sheet,
    Solution,
)
from grading.resolution.comparison import contest_results
from grading.resolution.decisions import comment_add, discrepancy_decide, mark_revise
from grading.resolution.inbox import notifications_read
from grading.resolution.revision_requests import revision_request
from grading.results import exports
from rubrics.models import Contest, Criterion, Task
from tests.factories import assign, make_contest
from tests.grading.backup.backup_helpers import forget_everything
from tests.grading.backup.version1 import version1_bytes, version1_document


def _mark(juror, paper, code, problem=1) -> Mark:
    return Mark.objects.get(
        sheet__juror=juror, sheet__problem__number=problem, paper=paper, criterion__code=code
    )


def _set(juror, paper, code, points, problem=1, note=None):
    return mark_set(
        mark=_mark(juror, paper, code, problem),
        points=None if points is None else Decimal(points),
        actor=juror,
        channel=MarkEvent.Channel.BROWSER,
        note=note,
    )


@pytest.fixture
def graded(contest, juror, other_juror, outside_juror, chair):
    """Problem 1 graded by alice and bob and submitted, with one discrepancy decided twice by
    the chair and one closed by consensus; problem 2 half graded by charlie in a draft."""
    orca, heron, lynx = (
        Paper.objects.get(identity=name) for name in ("Team Orca", "Team Heron", "Team Lynx")
    )
    for paper in (orca, heron, lynx):
        _set(juror, paper, "A1", "10")
        _set(juror, paper, "T1", "6")
        _set(other_juror, paper, "A1", "10")
        _set(other_juror, paper, "T1", "6")
    _set(juror, orca, "A1", "11.5", note="partly right on item 2")
    _set(juror, orca, "A1", "12")  # a third version
    _set(other_juror, orca, "A1", "9")
    _set(other_juror, heron, "T1", "5")
    for person in (juror, other_juror):
        sheet_submit(sheet=Sheet.objects.get(juror=person, problem__number=1), actor=person)
    _set(outside_juror, orca, "A1", "7", problem=2)
    _set(outside_juror, heron, "A1", "8", problem=2)
    _set(outside_juror, heron, "A1", None, problem=2)  # cleared again: NULL, not 0
    contest_resolution_open(contest=contest, actor=chair)
    a1 = Criterion.objects.get(problem__number=1, code="A1")
    comment_add(paper=orca, criterion=a1, author=juror, text="Item 2 keeps the plural: full marks.")
    comment_add(paper=orca, criterion=a1, author=chair, text="Item 2 drops the *-ri* suffix.")
    discrepancy_decide(
        paper=orca, criterion=a1, points=Decimal("10"), reason="Suffix.", actor=chair
    )
    discrepancy_decide(
        paper=orca,
        criterion=a1,
        points=Decimal("10.5"),
        reason="Half credit for item 2.",
        actor=chair,
    )
    mark_revise(mark=_mark(juror, heron, "T1"), points=Decimal("5"), actor=juror)
    Paper.objects.filter(identity="Team Lynx").update(
        metadata={"team": "Team Lynx", "model": "lynx-7b", "repository": "https://example.org/lynx"}
    )
    HumanScore.objects.create(
        contest=contest,
        contestant="Ana",
        problem_points={"1": "18", "2": "15.5"},
        total=Decimal("33.5"),
    )
    HumanCriterionRate.objects.create(criterion=a1, share_met=Decimal("0.4375"))
    return contest


def _results_csv(contest) -> bytes:
    results = contest_results(contest, with_marks=True)
    return exports.results_export(results, long=True, identities=False, fmt="csv")


@pytest.fixture
def empty_database(db):
    """Start from a flushed database, sequences included, as a new deployment would."""
    call_command("flush", interactive=False, verbosity=0)


def test_a_restored_contest_exports_byte_for_byte_the_same(
    empty_database, graded, juror, other_juror, chair, tmp_path
):
    # Every kind of notification, some read: the inbox travels too.
    revision_request(
        paper=Paper.objects.get(identity="Team Lynx"),
        criterion=Criterion.objects.get(problem__number=1, code="T1"),
        juror=other_juror,
        actor=chair,
        text="Item 1 is half right.",
    )
    notifications_read(user=juror)
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest="test", out=str(first), verbosity=0)
    notices = backup_read(first)["notifications"]
    assert (
        sorted({row["kind"] for row in notices}),
        sorted({row["read_at"] is None for row in notices}),
        len(notices),
    ) == (
        ["comment", "decision", "resolution_open", "revise_request"],
        [False, True],
        Notification.objects.count(),
    )
    results_before = _results_csv(graded)
    # Restore into an empty database: flush resets the id sequences too, so the papers get
    # back the ids the results export shows. PostgreSQL will not truncate tables with foreign
    # key checks still deferred in this transaction; checking them now settles them.
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)

    call_command("import_contest", str(first), verbosity=0)
    second = tmp_path / "again.zip"
    call_command("export_contest", contest="test", out=str(second), verbosity=0)

    assert second.read_bytes() == first.read_bytes()
    assert _results_csv(Contest.objects.get(slug="test")) == results_before


def test_the_backup_holds_history_discussion_and_resolutions(graded, tmp_path):
    path = tmp_path / "backup.json"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    document = backup_read(path)
    orca_a1 = [
        mark
        for mark in document["marks"]
        if (mark["problem"], mark["juror"], mark["paper"], mark["criterion"])
        == (1, "alice", "Team Orca", "A1")
    ]
    (resolution,) = [r for r in document["resolutions"] if r["kind"] == "chair"]
    assert (
        [event["new_points"] for event in orca_a1[0]["events"]],
        orca_a1[0]["note"],
        [comment["author"] for comment in document["comments"]],
        (resolution["points"], [event["new_points"] for event in resolution["events"]]),
        [user["username"] for user in document["users"]],
        "password" in json.dumps(document["users"]),
        [(r["paper"], r["criterion"], r["kind"]) for r in document["resolutions"]],
    ) == (
        ["10.00", "11.50", "12.00"],
        "partly right on item 2",
        ["alice", "chen"],
        ("10.50", ["10.00", "10.50"]),
        ["alice", "bob", "charlie", "chen"],
        False,
        [("Team Heron", "T1", "consensus"), ("Team Orca", "A1", "chair")],
    )


def test_restored_rows_keep_their_time_stamps_versions_and_labels(graded, tmp_path):
    path = tmp_path / "backup.json"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)

    def snapshot():
        return (
            Contest.objects.values_list("created_at").get(),
            sorted(
                MarkEvent.objects.values_list(
                    "mark__paper__identity", "mark__criterion__code", "version", "created_at"
                )
            ),
            sorted(
                Mark.objects.values_list(
                    "paper__identity",
                    "criterion__code",
                    "version",
                    "updated_at",
                    "sheet__juror__username",
                )
            ),
            sorted(Comment.objects.values_list("text", "created_at")),
            sorted(Resolution.objects.values_list("points", "decided_at")),
            sorted(ResolutionEvent.objects.values_list("new_points", "created_at")),
            sorted(
                Paper.objects.values_list(
                    "identity", "created_at", "labels__problem__number", "labels__label"
                )
            ),
            sorted(Sheet.objects.values_list("juror__username", "state", "submitted_at")),
        )

    before = snapshot()
    forget_everything()
    call_command("import_contest", str(path), verbosity=0)
    assert snapshot() == before


def test_restored_users_have_their_groups_and_no_usable_password(graded, tmp_path):
    path = tmp_path / "backup.json"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    forget_everything()
    call_command("import_contest", str(path), verbosity=0)
    users = {
        user.username: (
            user.has_usable_password(),
            sorted(user.groups.values_list("name", flat=True)),
        )
        for user in User.objects.all()
    }
    assert users == {
        "alice": (False, ["juror"]),
        "bob": (False, ["juror"]),
        "charlie": (False, ["juror"]),
        "chen": (False, ["chair"]),
    }


def test_a_version_1_backup_plain_or_gzipped_restores_the_same_contest(graded, tmp_path):
    current = tmp_path / "current.zip"
    call_command("export_contest", contest="test", out=str(current), verbosity=0)
    old = version1_document(*contest_document(contest=Contest.objects.get(slug="test")))
    plain, packed = tmp_path / "backup.json", tmp_path / "backup.json.gz"
    plain.write_bytes(version1_bytes(old))
    packed.write_bytes(version1_bytes(old, compress=True))
    for path in (plain, packed):
        forget_everything()
        call_command("import_contest", str(path), verbosity=0)
        again = tmp_path / "again.zip"
        call_command("export_contest", contest="test", out=str(again), verbosity=0)
        assert (path.name, again.read_bytes()) == (path.name, current.read_bytes())


def _counts():
    return (
        Contest.objects.count(),
        Paper.objects.count(),
        Mark.objects.count(),
        MarkEvent.objects.count(),
        User.objects.count(),
    )


def test_the_import_refuses_a_contest_that_already_exists(graded, tmp_path):
    path = tmp_path / "backup.json"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    before = _counts()
    with pytest.raises(CommandError) as caught:
        call_command("import_contest", str(path), verbosity=0)
    assert str(caught.value) == (
        "Nothing was imported:\n  - A contest with the slug “test” already exists in this "
        "database; import_contest restores only into a database without it. Delete it first "
        "or restore into another database."
    )
    assert _counts() == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"{not json",
            "backup.json is not valid JSON: Expecting property name enclosed in double quotes at line 1, column 2.",
        ),
        (b"\xff\xfe", "backup.json is not UTF-8 text."),
        (
            b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage",
            "backup.json looks gzipped but cannot be unpacked.",
        ),
        # mtime=0: the gzip header holds the time it was written, and the bytes are part of the
        # test's id, which every pytest-xdist worker must collect alike.
        (gzip.compress(b"[]", mtime=0)[:-4], "backup.json looks gzipped but cannot be unpacked."),
        (b"[1, 2]", "backup.json is not a contest backup: expected a JSON object."),
        (
            b'{"format": "something-else"}',
            'backup.json is not a contest backup made by export_contest (its “format” is "something-else").',
        ),
        (
            b'{"format": "jury-contest-backup", "version": 9}',
            "backup.json is a version 9 backup; this application reads versions 1 and 2.",
        ),
    ],
)
def test_the_import_refuses_a_file_that_is_not_a_backup(db, tmp_path, content, message):
    path = tmp_path / "backup.json"
    path.write_bytes(content)
    with pytest.raises(CommandError) as caught:
        call_command("import_contest", str(path), verbosity=0)
    assert (str(caught.value), _counts()) == (
        f"Nothing was imported:\n  - {message}",
        (0, 0, 0, 0, 0),
    )


def test_the_import_names_every_broken_field_and_writes_nothing(graded, tmp_path):
    path = tmp_path / "backup.json"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    document = backup_read(path)
    document["marks"][0]["points"] = "lots"
    document["marks"][1]["paper"] = "Team Nobody"
    document["marks"][2]["points"] = "99"
    del document["papers"][0]["created_at"]
    document["comments"][0]["author"] = "mallory"
    document["sheets"][0]["state"] = "sealed"
    path.write_text(json.dumps(document))
    forget_everything()
    with pytest.raises(CommandError) as caught:
        call_command("import_contest", str(path), verbosity=0)
    assert str(caught.value).splitlines() == [
        "Nothing was imported:",
        "  - backup.json, papers[0]: the field “created_at” is missing.",
        "  - backup.json, sheets[0]: state: Value 'sealed' is not a valid choice.",
        "  - backup.json, marks[0].points: “lots” is not a number.",
        "  - backup.json, marks[1]: the paper is not in the file's list of papers.",
        "  - backup.json, marks[2]: Criterion A1: 99 is more than the 12 points this criterion allows.",
        "  - backup.json, comments[0]: the user “mallory” is not in the file's list of users.",
    ]
    assert _counts() == (0, 0, 0, 0, 0)


def test_a_file_the_database_refuses_is_undone_completely(graded, tmp_path):
    path = tmp_path / "backup.json"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    document = backup_read(path)
    # Two papers with the same label in problem 1: every field is fine on its own, the
    # database's unique constraint refuses it after the contest, problems and users exist.
    document["papers"][1]["labels"]["1"] = document["papers"][0]["labels"]["1"]
    path.write_text(json.dumps(document))
    forget_everything()
    with pytest.raises(CommandError) as caught:
        call_command("import_contest", str(path), verbosity=0)
    assert str(caught.value).startswith(
        "Nothing was imported:\n  - backup.json contradicts itself and was not imported: "
        "the database refused it ("
    )
    assert (_counts(), Group.objects.count()) == ((0, 0, 0, 0, 0), 0)


def test_a_dry_run_checks_the_file_and_writes_nothing(graded, tmp_path):
    path = tmp_path / "backup.json"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    forget_everything()
    call_command("import_contest", str(path), dry_run=True, verbosity=0)
    assert _counts() == (0, 0, 0, 0, 0)


def test_exporting_an_unknown_contest_is_refused_with_a_sentence(db, tmp_path):
    with pytest.raises(CommandError) as caught:
        call_command("export_contest", contest="nope", out=str(tmp_path / "x.json"))
    assert str(caught.value) == "There is no contest “nope”."


def test_the_export_runs_the_same_queries_for_a_small_and_a_large_contest(
    graded, juror, other_juror, django_assert_num_queries
):
    large = make_contest("large", problems=5, papers=30)
    assign(large, [juror, other_juror])
    # 23 for grading and results (the scheme versions one of them), 8 for delegations,
    # provisional results and appeals, 3 for the seeds, their marks and the marks' history,
    # 1 for the comment banks, 1 for the calibration rounds (none here), 1 for the declared
    # conflicts, 1 for the chair's decisions on marks given in conflict, 1 each for the appeals
    # evening and the discussion sessions (none here).
    with django_assert_num_queries(44):
        contest_export(contest=graded)
    with django_assert_num_queries(44):
        contest_export(contest=large)


def test_importing_a_missing_file_is_refused_with_a_sentence(db, tmp_path):
    with pytest.raises(CommandError) as caught:
        call_command("import_contest", str(tmp_path / "nowhere.json"), verbosity=0)
    assert (
        str(caught.value)
        == f"Nothing was imported:\n  - There is no file {tmp_path / 'nowhere.json'}."
    )


def test_the_official_explanation_travels_with_its_task_and_old_backups_still_restore(
    empty_database, graded, tmp_path
):
    Task.objects.filter(problem__contest=graded).update(reference_explanation="Plural *-ru*.")
    document = contest_export(contest=graded)
    without = json.loads(json.dumps(document))
    for problem in without["problems"]:
        for task in problem["tasks"]:
            del task["reference_explanation"]  # as backups made before the field had it
    for backup, expected in ((document, "Plural *-ru*."), (without, "")):
        forget_everything()
        contest_import(document=backup)
        assert set(Task.objects.values_list("reference_explanation", flat=True)) == {expected}


def test_the_contests_history_and_withdrawn_consensus_travel_and_old_backups_still_restore(
    empty_database, graded, juror, other_juror, tmp_path
):
    heron = Paper.objects.get(identity="Team Heron")
    # The consensus on Heron's T1 falls apart: withdrawn, kept with its events.
    mark_revise(mark=_mark(juror, heron, "T1"), points=Decimal("4"), actor=juror)
    document = contest_export(contest=graded)
    assert [(e["actor"], e["from_state"], e["to_state"]) for e in document["contest_events"]] == [
        ("chen", "grading", "resolution")
    ]
    without = json.loads(json.dumps(document))
    del without["contest_events"]  # as backups made before contests kept their history
    for backup, events in ((document, [("grading", "resolution")]), (without, [])):
        forget_everything()
        contest_import(document=backup)
        contest = Contest.objects.get(slug="test")
        assert list(contest.events.values_list("from_state", "to_state")) == events
        resolution = Resolution.objects.get(paper__identity="Team Heron")
        assert list(resolution.events.values_list("old_kind", "new_kind")) == [
            ("", "consensus"),
            ("consensus", "withdrawn"),
        ]


def test_solutions_answer_counts_travel_and_old_backups_still_restore(
    empty_database, graded, tmp_path
):
    Solution.objects.filter(paper__contest=graded).update(answers_given=1, items_expected=2)
    document = contest_export(contest=graded)
    without = json.loads(json.dumps(document))
    for paper in without["papers"]:
        for solution in paper["solutions"]:
            # As backups made before solutions kept their counts.
            del solution["answers_given"], solution["items_expected"]
    for backup, expected in ((document, {(1, 2)}), (without, {(None, None)})):
        forget_everything()
        contest_import(document=backup)
        assert set(Solution.objects.values_list("answers_given", "items_expected")) == expected
