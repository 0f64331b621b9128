"""Backups carry what the assignment knows: the contest's working language, the papers' answer
languages, the delegations' countries, the facts of the users the backup names (country,
capacity, availability, the languages they read), the papers moved during grading and the
questions for language help: a restored contest exports to the same bytes; a contest without
them, and every backup written before they existed, is the document it was; a restore checks
every such row first, with a sentence naming it, and writes nothing when one is wrong; an
existing account's facts are left as they are, as the account is."""

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import connection
from hypothesis import given
from hypothesis import strategies as st

from grading.backup.archive import backup_read
from grading.backup.export import contest_export
from grading.models import (
    AssignmentMove,
    Delegation,
    HelpRequest,
    JurorLanguage,
    JurorProfile,
    Paper,
)
from rubrics.models import Contest
from tests.factories import make_user
from tests.fuzz import (
    fuzz_settings,
)
from tests.grading.assigning_scenario import contest_with_assignment_facts
from tests.grading.backup.backup_helpers import damaged_in, forget_everything, restored_or_refused

BACKUPS = Path(__file__).resolve().parents[2] / "fixtures" / "backups"
NEW_LISTS = ["assignment_moves", "help_requests", "juror_languages", "juror_profiles"]


@pytest.fixture
def with_facts(contest, juror, other_juror, chair):
    return contest_with_assignment_facts(contest, juror=juror, other_juror=other_juror, chair=chair)


def _counts() -> tuple[int, ...]:
    models = (JurorProfile, JurorLanguage, AssignmentMove, HelpRequest)
    return tuple(model.objects.count() for model in models)


def _facts() -> dict:
    return {
        "profiles": sorted(
            JurorProfile.objects.values_list(
                "user__username", "country", "capacity", "unavailable_since"
            )
        ),
        "languages": sorted(
            JurorLanguage.objects.values_list("user__username", "language", "level")
        ),
        "moves": list(
            AssignmentMove.objects.order_by("id").values_list(
                "paper__identity", "from_juror__username", "to_juror__username", "actor__username"
            )
        ),
        "help": list(
            HelpRequest.objects.order_by("id").values_list(
                "paper__identity", "asked_by__username", "helper__username", "answer"
            )
        ),
    }


def test_a_restored_contest_with_assignment_facts_exports_byte_for_byte_the_same(
    db, with_facts, tmp_path
):
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest="test", out=str(first), verbosity=0)
    facts = _facts()
    # Restore into an empty database (flush resets the id sequences, as a new deployment's).
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)

    call_command("import_contest", str(first), verbosity=0)
    second = tmp_path / "again.zip"
    call_command("export_contest", contest="test", out=str(second), verbosity=0)

    assert second.read_bytes() == first.read_bytes()
    assert _counts() == (2, 4, 2, 2)
    assert _facts() == facts
    assert facts["moves"] == [
        ("Team Heron", "alice", "bob", "chen"),
        ("Team Orca", "alice", "bob", "chen"),
    ]
    assert Contest.objects.get().working_language == "Spanish"
    assert sorted(Paper.objects.values_list("identity", "answer_language")) == [
        ("Team Heron", "Finnish"),
        ("Team Lynx", ""),
        ("Team Orca", "Estonian"),
    ]
    assert sorted(Delegation.objects.values_list("code", "country")) == [
        ("EST", "Estonia"),
        ("FIN", ""),
    ]
    assert [request.state for request in HelpRequest.objects.order_by("id")] == [
        "answered",
        "asked",
    ]


def test_the_backup_names_the_specialist_and_writes_each_new_field_only_when_not_the_default(
    db, with_facts
):
    document = contest_export(contest=with_facts)

    users = {row["username"]: row["groups"] for row in document["users"]}
    assert users["sami"] == ["specialist"]
    assert document["contest"]["working_language"] == "Spanish"
    assert [paper.get("answer_language") for paper in document["papers"]] == [
        "Estonian",
        "Finnish",
        None,
    ]
    assert [row.get("country") for row in document["delegations"]] == ["Estonia", None]
    assert document["juror_profiles"] == [
        {
            "user": "alice",
            "country": "Latvia",
            "capacity": 12,
            "unavailable_since": "2026-07-22T14:30:00+00:00",
        },
        {"user": "bob", "country": "Estonia", "capacity": None, "unavailable_since": None},
    ]
    assert [tuple(row.values()) for row in document["juror_languages"]] == [
        ("alice", "Estonian", "reads"),
        ("alice", "Finnish", "with_help"),
        ("bob", "Finnish", "reads"),
        ("sami", "Estonian", "reads"),
    ]
    assert [
        (row["paper"], row["helper"], row["assigned_by"]) for row in document["help_requests"]
    ] == [("Team Orca", "sami", "chen"), ("Team Heron", None, None)]


def test_a_contest_without_assignment_facts_exports_without_their_lists_or_fields(
    db, contest, juror
):
    # A person's facts travel with a backup that names the person, never with another's.
    JurorLanguage.objects.create(user=make_user("dana"), language="Tagalog")

    document = contest_export(contest=contest)

    assert [key for key in NEW_LISTS if key in document] == []
    assert "working_language" not in document["contest"]
    assert all("answer_language" not in paper for paper in document["papers"])


def test_a_backup_written_before_the_assignment_facts_restores_with_none(db, settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    written = BACKUPS / "demo-34bfedc.zip"
    assert [key for key in NEW_LISTS if key in backup_read(written)] == []

    call_command("import_contest", str(written), verbosity=0)

    assert _counts() == (0, 0, 0, 0)
    assert Contest.objects.get(slug="demo").working_language == "English"
    assert set(Paper.objects.values_list("answer_language", flat=True)) == {""}


def test_restoring_leaves_an_existing_accounts_facts_as_they_are(db, with_facts, tmp_path):
    path = tmp_path / "backup.json"
    path.write_text(json.dumps(contest_export(contest=with_facts)))
    forget_everything()
    # Alice has an account in this database already, with facts of her own; Bob has none.
    alice = make_user("alice")
    JurorProfile.objects.create(user=alice, country="Lithuania")
    JurorLanguage.objects.create(user=alice, language="Lithuanian")

    call_command("import_contest", str(path), verbosity=0)

    assert _facts()["profiles"] == [
        ("alice", "Lithuania", None, None),
        ("bob", "Estonia", None, None),
    ]
    assert _facts()["languages"] == [
        ("alice", "Lithuanian", "reads"),
        ("bob", "Finnish", "reads"),
        ("sami", "Estonian", "reads"),
    ]


def test_the_restore_names_every_broken_assignment_fact_and_writes_nothing(
    db, with_facts, tmp_path
):
    document = contest_export(contest=with_facts)
    document["contest"]["working_language"] = ""
    document["papers"][0]["answer_language"] = "E" * 61
    document["delegations"][1]["country"] = 7
    document["juror_profiles"][0]["capacity"] = -1
    document["juror_profiles"][1]["user"] = "alice"
    document["juror_languages"][1]["level"] = "fluent"
    document["juror_languages"][2] |= {"user": "alice", "language": "Estonian"}
    document["juror_languages"][3]["user"] = "mallory"
    document["assignment_moves"][0]["to_juror"] = "mallory"
    document["assignment_moves"][1]["problem"] = 9
    document["help_requests"][0]["answered_at"] = "soon"
    document["help_requests"][1]["paper"] = "Team Nobody"
    document["help_requests"][1]["question"] = ""
    path = tmp_path / "backup.json"
    path.write_text(json.dumps(document))
    forget_everything()

    with pytest.raises(CommandError) as caught:
        call_command("import_contest", str(path), verbosity=0)

    assert str(caught.value).splitlines() == [
        "Nothing was imported:",
        "  - backup.json, contest: working_language: This field cannot be blank.",
        "  - backup.json, papers[0]: answer_language: Ensure this value has at most 60 "
        "characters (it has 61).",
        "  - backup.json, delegations[1].country: expected text; got 7.",
        "  - backup.json, assignment_moves[0]: the user “mallory” is not in the file's list "
        "of users.",
        "  - backup.json, assignment_moves[1]: problem 9 is not in the file.",
        "  - backup.json, help_requests[0].answered_at: “soon” is not a date and time with a "
        "time zone.",
        "  - backup.json, help_requests[1]: the paper is not in the file's list of papers.",
        "  - backup.json, help_requests[1]: question: This field cannot be blank.",
        "  - backup.json, juror_profiles[0].capacity: expected a whole number of 0 or more; "
        "got -1.",
        "  - backup.json, juror_profiles[1]: the facts of “alice” appear twice.",
        "  - backup.json, juror_languages[1]: level: Value 'fluent' is not a valid choice.",
        "  - backup.json, juror_languages[2]: “Estonian” appears twice among the languages of "
        "“alice”.",
        "  - backup.json, juror_languages[3]: the user “mallory” is not in the file's list of "
        "users.",
    ]
    assert (_counts(), Contest.objects.count(), User.objects.count()) == ((0, 0, 0, 0), 0, 0)


def test_the_export_with_assignment_facts_runs_the_same_queries_for_a_small_and_a_large_contest(
    db, with_facts, django_assert_num_queries
):
    # The comment banks', the calibration rounds' and the declared conflicts' one query each
    # (grading/backup/export.py: _calibration, _declared), and the appeals evening's and the
    # discussion sessions' (grading/backup/export_room.py).
    with django_assert_num_queries(44):
        contest_export(contest=with_facts)
    for number in range(40):
        user = make_user(f"juror-{number}")
        JurorProfile.objects.create(user=user, country=f"Country {number}")
        JurorLanguage.objects.create(user=user, language="Estonian")
        AssignmentMove.objects.create(
            paper=Paper.objects.get(identity="Team Lynx"),
            problem=with_facts.problems.get(number=1),
            from_juror=User.objects.get(username="alice"),
            to_juror=user,
            actor=user,
            reason="More hands.",
        )
    # The comment banks', the calibration rounds' and the declared conflicts' one query each
    # (grading/backup/export.py: _calibration, _declared), and the appeals evening's and the
    # discussion sessions' (grading/backup/export_room.py).
    with django_assert_num_queries(44):
        contest_export(contest=with_facts)


@fuzz_settings(max_examples=60)
@given(data=st.data())
def test_a_damaged_backup_with_assignment_facts_is_restored_or_refused_with_sentences(
    with_facts, data
):
    document = contest_export(contest=with_facts)
    document["contest"]["slug"] = "restored"
    restored_or_refused(damaged_in(data, document, [*NEW_LISTS, "contest", "papers", None]))
