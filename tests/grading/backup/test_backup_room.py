"""Backups carry the room: the appeals evening with its tables and meetings, and the discussion
sessions with their cells, members and outcomes, each outcome with who was present (a record
nothing else can rebuild). A restored contest exports to the same bytes and holds every field
back; a contest without them, and every backup written before they existed, is the document it
was; a restore checks every such row first, with a sentence naming it, and writes nothing when
one is wrong."""

import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from hypothesis import given
from hypothesis import strategies as st

from grading.backup.archive import backup_read
from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.models import (
    AppealEvening,
    AppealMeeting,
    AppealTables,
    DiscussionSession,
    SessionMember,
    SessionOutcome,
)
from grading.resolution import sessions
from rubrics.models import Contest
from tests.fuzz import (
    fuzz_settings,
)
from tests.grading.backup.backup_helpers import damaged_in, forget_everything, restored_or_refused
from tests.grading.backup.room_scenario import add_room, room_state
from tests.grading.resolution import session_scenario

BACKUPS = Path(__file__).resolve().parents[2] / "fixtures" / "backups"
ROOM_LISTS = ["appeal_evenings", "appeal_meetings", "appeal_tables", "discussion_sessions"]


@pytest.fixture
def room(db):
    """The room scenario (P1's open cells, alice, bob and erin its group, chen the chair) with a
    session walked through the services (one cell left open with alice, bob and chen present),
    then the evening and two more sessions written directly."""
    scenario = session_scenario.build()
    users = scenario["users"]
    session = sessions.session_start(problem=scenario["problems"][1], actor=users["alice"])
    for name in ("bob", "chen"):
        sessions.session_join(session=session, actor=users[name])
    sessions.session_move(session=session, actor=users["bob"], position=1)
    sessions.session_end(session=session, actor=users["alice"])
    add_room(scenario["contest"], [users[name] for name in ("alice", "bob", "erin")])
    return scenario["contest"]


def _counts() -> tuple[int, ...]:
    models = (AppealEvening, AppealTables, AppealMeeting, DiscussionSession, SessionMember)
    present = SessionOutcome.present.through.objects.count()
    return (*(model.objects.count() for model in models), SessionOutcome.objects.count(), present)


def test_a_restored_contest_with_its_room_exports_byte_for_byte_the_same(db, room, tmp_path):
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest="room", out=str(first), verbosity=0)
    counts, state = _counts(), room_state(room)
    # Restore into an empty database (flush resets the id sequences, as a new deployment's).
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)

    call_command("import_contest", str(first), verbosity=0)
    second = tmp_path / "again.zip"
    call_command("export_contest", contest="room", out=str(second), verbosity=0)

    assert second.read_bytes() == first.read_bytes()
    # 1 evening, 2 problems' tables, 3 meetings, 3 sessions, 3 + 3 + 2 members, 1 + 5
    # outcomes, 3 + (3 + 2 + 2 + 1 + 0) present.
    assert counts == (1, 2, 3, 3, 8, 6, 11)
    assert _counts() == counts
    assert room_state(Contest.objects.get(slug="room")) == state


def test_every_field_of_the_room_comes_back_by_natural_key(db, room):
    document = contest_export(contest=room)
    state = room_state(room)
    document["contest"]["slug"] = "restored"
    forget_everything()

    contest_import(document=document, source="backup.json")

    restored = room_state(Contest.objects.get(slug="restored"))
    assert restored == state
    assert (restored["evening"]["slot_minutes"], restored["evening"]["slots"]) == (15, 6)
    assert restored["evening"]["published_at"] is not None
    assert restored["tables"] == [(1, 2), (2, 3)]
    assert restored["meetings"] == [(0, 1, "EST"), (1, 1, "LAT"), (2, 2, "EST")]
    # By their start: the two written directly last July, then the one walked just now.
    ended, running, walked = restored["sessions"]
    assert [
        (s["started_by"], s["order"], s["position"], s["ended_at"] is None)
        for s in restored["sessions"]
    ] == [("alice", "criterion", 3, False), ("bob", "paper", 1, True), ("alice", "paper", 1, False)]
    # The cell of a paper deleted since comes back as it went: naming no paper.
    assert ended["cells"][-1] == [None, "A1"]
    assert [
        (o["kind"], o["points"], o["recorded_by"], o["present"]) for o in ended["outcomes"]
    ] == [
        ("agreed", Decimal("10.00"), "alice", ["alice", "bob", "erin"]),
        ("value", Decimal("4.50"), "bob", ["alice", "bob"]),
        ("chair", None, "erin", ["bob", "erin"]),
        ("open", None, "alice", ["alice"]),
    ]
    assert ended["outcomes"][1]["reason"] == "The gloss is half right."
    assert [(name, left is None) for name, _, left in ended["members"]] == [
        ("alice", True),
        ("bob", True),
        ("erin", False),
    ]
    assert [o["present"] for o in running["outcomes"]] == [[]]
    assert [(o["kind"], o["present"]) for o in walked["outcomes"]] == [
        ("open", ["alice", "bob", "chen"])
    ]


def test_the_backup_names_the_rooms_people_as_users(db, room):
    document = contest_export(contest=room)

    assert {"alice", "bob", "erin", "chen"} <= {row["username"] for row in document["users"]}
    session = document["discussion_sessions"][0]
    assert session["cells"][:2] == [["system-0", "A1"], ["system-0", "T1"]]
    assert document["appeal_evenings"] == [
        {
            "published_at": "2026-07-25T18:30:00+00:00",
            "slot_minutes": 15,
            "slots": 6,
            "starts_at": "2026-07-26T18:00:00+00:00",
        }
    ]


def test_a_contest_without_an_evening_or_sessions_exports_without_their_lists(db, contest):
    assert [key for key in ROOM_LISTS if key in contest_export(contest=contest)] == []


@pytest.mark.parametrize("name", ["demo-34bfedc.zip", "demo-e7b6ba3.json.gz"])
def test_a_backup_written_before_the_room_restores_with_none(db, settings, tmp_path, name):
    settings.SCANS_DIR = tmp_path / "scans"
    written = BACKUPS / name
    assert [key for key in ROOM_LISTS if key in backup_read(written)] == []

    call_command("import_contest", str(written), verbosity=0)

    assert Contest.objects.filter(slug="demo").exists()
    assert _counts() == (0, 0, 0, 0, 0, 0, 0)


def test_the_restore_names_every_broken_room_row_and_writes_nothing(db, room, tmp_path):
    document = contest_export(contest=room)
    document["appeal_evenings"].append(dict(document["appeal_evenings"][0], slots=-1))
    document["appeal_tables"][1]["problem"] = 9
    document["appeal_meetings"][0]["delegation"] = "XYZ"
    document["appeal_meetings"][2].update(problem=1, delegation="LAT")
    ended, running, walked = document["discussion_sessions"]
    walked["started_by"] = "mallory"
    walked["ended_at"] = None
    ended["order"] = "alphabetical"
    ended["cells"][0] = ["Team Nobody", "A1"]
    ended["cells"][1] = ["system-1", "Z9"]
    ended["cells"][2] = "system-1"
    ended["members"].append(dict(ended["members"][0]))
    ended["outcomes"][0]["criterion"] = "Z9"
    ended["outcomes"][1]["paper"] = "Team Nobody"
    ended["outcomes"][2]["present"] += ["mallory", "bob"]
    ended["outcomes"][3]["kind"] = "shrugged"
    running["outcomes"][0]["recorded_by"] = "mallory"
    path = tmp_path / "backup.json"
    path.write_text(json.dumps(document))
    forget_everything()

    with pytest.raises(CommandError) as caught:
        call_command("import_contest", str(path), verbosity=0)

    assert str(caught.value).splitlines() == [
        "Nothing was imported:",
        "  - backup.json, appeal_evenings[1].slots: expected a whole number of 0 or more; got -1.",
        "  - backup.json, appeal_evenings[1]: a contest has one appeals evening; this is a second.",
        "  - backup.json, appeal_tables[1]: problem 9 is not in the file.",
        "  - backup.json, appeal_meetings[0]: the delegation “XYZ” is not in the file's list of "
        "delegations.",
        "  - backup.json, appeal_meetings[2]: the delegation “LAT” meets the group of problem 1 "
        "twice.",
        "  - backup.json, discussion_sessions[0]: order: Value 'alphabetical' is not a valid "
        "choice.",
        "  - backup.json, discussion_sessions[0].cells[0]: “Team Nobody” is not the identity of a "
        "paper in the file.",
        "  - backup.json, discussion_sessions[0].cells[1]: criterion Z9 of problem 1 is not in "
        "the file.",
        "  - backup.json, discussion_sessions[0].cells[2]: expected [paper identity, criterion "
        'code]; got "system-1".',
        "  - backup.json, discussion_sessions[0].members[3]: the user “alice” is a member twice.",
        "  - backup.json, discussion_sessions[0].outcomes[0]: criterion Z9 of problem 1 is not "
        "in the file.",
        "  - backup.json, discussion_sessions[0].outcomes[1]: the paper is not in the file's "
        "list of papers.",
        "  - backup.json, discussion_sessions[0].outcomes[2].present: the user “mallory” is not "
        "in the file's list of users.",
        "  - backup.json, discussion_sessions[0].outcomes[2].present: the user “bob” is named "
        "twice.",
        "  - backup.json, discussion_sessions[0].outcomes[3]: kind: Value 'shrugged' is not a "
        "valid choice.",
        "  - backup.json, discussion_sessions[1].outcomes[0]: the user “mallory” is not in the "
        "file's list of users.",
        "  - backup.json, discussion_sessions[2]: the user “mallory” is not in the file's list "
        "of users.",
        "  - backup.json, discussion_sessions[2]: problem 1 has a second discussion session that "
        "has not ended; a problem has one running at a time.",
    ]
    assert (_counts(), Contest.objects.count()) == ((0, 0, 0, 0, 0, 0, 0), 0)


def test_a_room_without_its_evening_is_refused(db, room):
    document = contest_export(contest=room)
    del document["appeal_evenings"]
    document["contest"]["slug"] = "restored"

    with pytest.raises(ValidationError) as caught:
        contest_import(document=document, source="backup.json")

    assert caught.value.messages == [
        "backup.json, appeal_tables[0]: the file holds no appeals evening for this row to "
        "belong to.",
        "backup.json, appeal_tables[1]: the file holds no appeals evening for this row to "
        "belong to.",
        *(
            f"backup.json, appeal_meetings[{index}]: the file holds no appeals evening for this "
            "row to belong to."
            for index in range(3)
        ),
    ]
    assert Contest.objects.filter(slug="restored").count() == 0


@fuzz_settings(max_examples=40)
@given(data=st.data())
def test_a_damaged_backup_of_the_room_is_restored_or_refused_with_sentences(room, data):
    document = contest_export(contest=room)
    document["contest"]["slug"] = "restored"
    restored_or_refused(damaged_in(data, document, [*ROOM_LISTS, None]))
