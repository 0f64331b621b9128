"""Backups carry delegations with their leaders and contestants, the provisional results, the
appeals deadline and its changes, and the appeals with their criteria and events: a restored
contest exports to the same bytes; a contest without them, and every backup written before
they existed, is the document it was; a restore checks every such row first, with a sentence
naming it, and writes nothing when one is wrong."""

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from hypothesis import given
from hypothesis import strategies as st

from grading.backup.archive import backup_read
from grading.backup.export import contest_export
from grading.models import (
    Appeal,
    AppealCriterion,
    AppealDeadlineChange,
    AppealEvent,
    Delegation,
    Paper,
    ProvisionalResult,
)
from rubrics.models import Contest
from tests.factories import make_contest
from tests.fuzz import (
    fuzz_settings,
)
from tests.grading.appeals_scenario import contest_with_appeals
from tests.grading.backup.backup_helpers import damaged_in, forget_everything, restored_or_refused

BACKUPS = Path(__file__).resolve().parents[2] / "fixtures" / "backups"
NEW_LISTS = ["appeal_deadline_changes", "appeals", "delegations", "provisional_results"]


@pytest.fixture
def with_appeals(contest, juror, other_juror, chair):
    return contest_with_appeals(contest, juror=juror, other_juror=other_juror, chair=chair)


def _counts() -> tuple[int, ...]:
    models = (Delegation, ProvisionalResult, AppealDeadlineChange, Appeal, AppealCriterion)
    return (*(model.objects.count() for model in models), AppealEvent.objects.count())


def _leaders() -> dict[str, list[str]]:
    return {
        delegation.code: sorted(user.username for user in delegation.leaders.all())
        for delegation in Delegation.objects.all()
    }


def test_a_restored_contest_with_appeals_exports_byte_for_byte_the_same(db, with_appeals, tmp_path):
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest="test", out=str(first), verbosity=0)
    counts = _counts()
    # Restore into an empty database (flush resets the id sequences, as a new deployment's).
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)

    call_command("import_contest", str(first), verbosity=0)
    second = tmp_path / "again.zip"
    call_command("export_contest", contest="test", out=str(second), verbosity=0)

    assert second.read_bytes() == first.read_bytes()
    assert counts == (2, 3, 2, 5, 7, 13)
    assert _counts() == counts
    assert _leaders() == {"EST": ["ada", "bob"], "FIN": ["bea"]}
    assert sorted(Paper.objects.values_list("identity", "delegation__code", "source")) == [
        ("Team Heron", "FIN", "human"),
        ("Team Lynx", None, "ai"),
        ("Team Orca", "EST", "human"),
    ]
    assert sorted(Appeal.objects.values_list("state", "outcome")) == [
        ("decided", "partly"),
        ("decided", "rejected"),
        ("decided", "upheld"),
        ("open", ""),
        ("withdrawn", ""),
    ]
    assert Contest.objects.get().appeals_deadline.isoformat() == "2026-07-26T00:00:00+00:00"


def test_the_backup_names_leaders_and_the_appeals_people_as_users_with_their_groups(
    db, with_appeals
):
    document = contest_export(contest=with_appeals)

    users = {row["username"]: row["groups"] for row in document["users"]}
    assert (users["ada"], users["bea"], users["bob"]) == (
        ["leader"],
        ["leader"],
        ["juror", "leader"],
    )
    assert [(row["code"], row["leaders"], row["papers"]) for row in document["delegations"]] == [
        ("EST", ["ada", "bob"], ["Team Orca"]),
        ("FIN", ["bea"], ["Team Heron"]),
    ]
    assert [
        (row["paper"], row["problem"], row["state"], [c["criterion"] for c in row["criteria"]])
        for row in document["appeals"]
    ] == [
        ("Team Heron", 1, "decided", ["A1", "T1"]),
        ("Team Heron", 2, "decided", ["T1"]),
        ("Team Orca", 1, "withdrawn", ["A1"]),
        ("Team Orca", 1, "decided", ["A1", "T1"]),
        ("Team Orca", 2, "open", ["T1"]),
    ]


def test_a_contest_without_delegations_or_appeals_exports_without_their_lists(db, contest):
    document = contest_export(contest=contest)

    assert [key for key in NEW_LISTS if key in document] == []
    assert "appeals_deadline" not in document["contest"]
    assert all("delegation" not in paper for paper in document["papers"])


def test_a_backup_written_before_appeals_restores_with_none(db, settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    written = BACKUPS / "demo-34bfedc.zip"
    assert [key for key in NEW_LISTS if key in backup_read(written)] == []

    call_command("import_contest", str(written), verbosity=0)

    assert _counts() == (0, 0, 0, 0, 0, 0)
    assert Contest.objects.get(slug="demo").appeals_deadline is None
    assert Paper.objects.filter(delegation__isnull=False).count() == 0


def test_the_restore_names_every_broken_delegation_and_appeal_row_and_writes_nothing(
    db, with_appeals, tmp_path
):
    document = contest_export(contest=with_appeals)
    document["contest"]["appeals_deadline"] = "tomorrow"
    document["delegations"][0]["leaders"].append("mallory")
    document["delegations"][1]["papers"] += ["Team Orca", "Team Lynx"]
    document["provisional_results"][0]["total"] = "lots"
    document["appeal_deadline_changes"][1]["actor"] = "mallory"
    appeals = document["appeals"]
    appeals[0]["outcome"] = ""
    appeals[1]["criteria"][0]["points_after"] = "9"
    appeals[2]["state"] = "open"
    appeals[3]["criteria"].append(dict(appeals[3]["criteria"][0]))
    appeals[4]["criteria"][0]["criterion"] = "Z9"
    appeals[4]["events"][0]["kind"] = "shouted"
    path = tmp_path / "backup.json"
    path.write_text(json.dumps(document))
    forget_everything()

    with pytest.raises(CommandError) as caught:
        call_command("import_contest", str(path), verbosity=0)

    assert str(caught.value).splitlines() == [
        "Nothing was imported:",
        "  - backup.json, contest.appeals_deadline: “tomorrow” is not a date and time with a "
        "time zone.",
        "  - backup.json, delegations[0].leaders: the user “mallory” is not in the file's list "
        "of users.",
        "  - backup.json, delegations[1].papers: “Team Orca” is a contestant of the delegation "
        "“EST” already; a paper belongs to one delegation at most.",
        "  - backup.json, delegations[1].papers: “Team Lynx” is an AI system's paper; AI papers "
        "belong to no delegation.",
        "  - backup.json, provisional_results[0].total: “lots” is not a number.",
        "  - backup.json, appeal_deadline_changes[1]: the user “mallory” is not in the file's "
        "list of users.",
        "  - backup.json, appeals[0]: an appeal has an outcome exactly when it is decided; this "
        "one is “decided” with the outcome “”.",
        "  - backup.json, appeals[1].criteria[0]: Criterion T1: 9 is more than the 8 points this "
        "criterion allows.",
        "  - backup.json, appeals[3]: the paper has a second appeal on problem 1 not withdrawn.",
        "  - backup.json, appeals[3].criteria[2]: criterion A1 appears twice in the appeal.",
        "  - backup.json, appeals[4].criteria[0]: criterion Z9 of problem 2 is not in the file.",
        "  - backup.json, appeals[4].events[0]: kind: Value 'shouted' is not a valid choice.",
    ]
    assert (_counts(), Contest.objects.count()) == ((0, 0, 0, 0, 0, 0), 0)


def test_the_export_with_appeals_runs_the_same_queries_for_a_small_and_a_large_contest(
    db, with_appeals, juror, other_juror, chair, django_assert_num_queries
):
    identities = ["Team Orca", "Team Heron", "Team Lynx", *(f"system-{n}" for n in range(30))]
    large = make_contest("large", problems=5, identities=identities)
    contest_with_appeals(
        large, juror=juror, other_juror=other_juror, chair=chair, leaders=("cy", "dee")
    )
    # The comment banks', the calibration rounds' and the declared conflicts' one query each
    # (grading/backup/export.py: _calibration, _declared), and the appeals evening's and the
    # discussion sessions' (grading/backup/export_room.py).
    with django_assert_num_queries(44):
        contest_export(contest=with_appeals)
    with django_assert_num_queries(44):
        contest_export(contest=large)


@fuzz_settings(max_examples=80)
@given(data=st.data())
def test_a_damaged_backup_with_appeals_is_restored_or_refused_with_sentences(with_appeals, data):
    document = contest_export(contest=with_appeals)
    document["contest"]["slug"] = "restored"
    # Mutations where the appeals live, most of the time; anywhere else now and then.
    restored_or_refused(damaged_in(data, document, [*NEW_LISTS, "contest", None]))
