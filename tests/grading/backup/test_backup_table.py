"""The backup's table (grading.backup.table) is the one place both ends read a section's fields
from: every field of every model it backs up is in it or left out by name, never a password
nor a stored image's name, and each row of a written backup holds exactly its section's fields."""

import json
import zipfile
from pathlib import Path

import pytest

from grading.backup import table
from grading.backup.export import contest_export
from grading.models import BankNote, DeclaredConflict
from rubrics.models import Criterion
from tests.grading.assigning_scenario import contest_with_assignment_facts
from tests.grading.backup.room_scenario import add_room
from tests.grading.calibration.scenario import calibration_rows

BACKUPS = Path(__file__).resolve().parents[2] / "fixtures" / "backups"
SECTIONS = [value for value in vars(table).values() if isinstance(value, table.Section)]
# Sections whose rows are nested in another's: a problem's tasks and criteria, a paper's
# solutions, a mark's or a resolution's events, an appeal's criteria and events, a session's
# members and outcomes.
NESTED = (
    table.TASKS,
    table.SCHEME_VERSIONS,
    table.CRITERIA,
    table.SOLUTIONS,
    table.MARK_EVENTS,
    table.RESOLUTION_EVENTS,
    table.APPEAL_CRITERIA,
    table.APPEAL_EVENTS,
    # A calibration round's papers, references, sheets, marks and events.
    table.CALIBRATION_PAPERS,
    table.REFERENCE_MARKS,
    table.REFERENCE_MARK_EVENTS,
    table.CALIBRATION_SHEETS,
    table.CALIBRATION_MARKS,
    table.CALIBRATION_MARK_EVENTS,
    table.SEED_MARK_EVENTS,
    table.BANK,
    # A discussion session's members and outcomes.
    table.SESSION_MEMBERS,
    table.SESSION_OUTCOMES,
)
# Seeded checks: a contest of the appeals' scenario has none (tests/grading/calibration).
SEED_SECTIONS = (table.SEEDS, table.SEED_MARKS)
# Nested lists left out of their row while empty: a problem's scheme versions and comment bank,
# a reference's history.
OPTIONAL_NESTS = {"scheme_versions", "bank", "history"}
LISTS = [s for s in SECTIONS if s not in NESTED and s is not table.CONTEST]


@pytest.mark.parametrize("section", SECTIONS, ids=lambda section: section.model.__name__)
def test_every_field_of_a_backed_up_model_is_in_the_table_or_left_out_by_name(section):
    said = {column.name for column in section.columns if column.lookup is None}
    said |= {column.lookup.split("__")[0] for column in section.columns if column.lookup}
    said |= {"id", section.scope.split("__")[0], *section.left_out}
    fields = {field.name for field in section.model._meta.concrete_fields}
    assert sorted(fields - said) == []


def test_no_password_and_no_stored_image_name_is_read_for_a_backup():
    lookups = {(s.model.__name__, c.lookup) for s in SECTIONS for c in s.columns if c.lookup}
    assert [lookup for lookup in lookups if "password" in lookup[1]] == []
    assert ("ScanPage", "image") not in lookups
    assert (table.USERS.left_out[0], table.SCAN_PAGES.left_out[0]) == ("password", "image")


def _rows(document: dict):
    """Each row of the document with the section it belongs to and what it nests."""
    yield table.CONTEST, document["contest"], set()
    nests = {
        "problems": {"tasks", "criteria", "jurors", "scheme_versions", "bank"},
        "papers": {"solutions"},
        "marks": {"events"},
        "resolutions": {"events"},
        "scan_pages": {"image", "sha256"},
        "appeals": {"criteria", "events"},
        "calibration_rounds": {"papers", "sheets"},
        "seed_marks": {"events"},
        "discussion_sessions": {"members", "outcomes"},
    }
    for section in LISTS:
        rows = document.get(section.key, [])
        yield from ((section, row, nests.get(section.key, set())) for row in rows)
    for problem in document["problems"]:
        yield from ((table.TASKS, row, set()) for row in problem["tasks"])
        yield from ((table.CRITERIA, row, set()) for row in problem["criteria"])
        versions = problem.get("scheme_versions", [])
        yield from ((table.SCHEME_VERSIONS, row, set()) for row in versions)
        yield from ((table.BANK, row, set()) for row in problem.get("bank", []))
    for paper in document["papers"]:
        yield from ((table.SOLUTIONS, row, set()) for row in paper["solutions"])
    for key, events in (("marks", table.MARK_EVENTS), ("resolutions", table.RESOLUTION_EVENTS)):
        yield from ((events, event, set()) for row in document[key] for event in row["events"])
    for appeal in document.get("appeals", []):
        yield from ((table.APPEAL_CRITERIA, row, set()) for row in appeal["criteria"])
        yield from ((table.APPEAL_EVENTS, row, set()) for row in appeal["events"])
    for round_ in document.get("calibration_rounds", []):
        for paper in round_["papers"]:
            yield table.CALIBRATION_PAPERS, paper, {"references"}
            for row in paper["references"]:
                yield table.REFERENCE_MARKS, row, {"history"}
                yield from (
                    (table.REFERENCE_MARK_EVENTS, change, set())
                    for change in row.get("history", [])
                )
        for sheet in round_["sheets"]:
            yield table.CALIBRATION_SHEETS, sheet, {"marks"}
            for mark in sheet["marks"]:
                yield table.CALIBRATION_MARKS, mark, {"events"}
                yield from ((table.CALIBRATION_MARK_EVENTS, row, set()) for row in mark["events"])
    for mark in document.get("seed_marks", []):
        yield from ((table.SEED_MARK_EVENTS, row, set()) for row in mark["events"])
    for session in document.get("discussion_sessions", []):
        yield from ((table.SESSION_MEMBERS, row, set()) for row in session["members"])
        yield from ((table.SESSION_OUTCOMES, row, set()) for row in session["outcomes"])


def _wrong_rows(document: dict) -> list:
    """The rows that hold other fields than their section's (a sparse field may be missing)."""
    wrong = []
    for section, row, nested in _rows(document):
        fields = {c.name for c in section.columns} | nested
        if not set(row) <= fields or fields - set(row) - set(section.sparse) - OPTIONAL_NESTS:
            wrong.append((section.model.__name__, sorted(set(row) ^ fields)))
    return wrong


def test_each_row_of_a_written_backup_holds_exactly_its_sections_fields():
    with zipfile.ZipFile(BACKUPS / "demo-34bfedc.zip") as archive:
        document = json.loads(archive.read("backup.json"))

    assert _wrong_rows(document) == []
    # That release wrote no delegations, appeals or assignment facts, nor a contest's appeals
    # deadline or working language.
    assert sorted(document) == sorted(
        ["format", "version", "contest", *(s.key for s in LISTS if not s.sparse_list)]
    )
    assert [
        key for key in ("appeals_deadline", "working_language") if key in document["contest"]
    ] == []


def test_each_row_of_a_backup_with_appeals_and_assignment_facts_holds_exactly_its_fields(
    db, contest, juror, other_juror, chair
):
    contest_with_assignment_facts(contest, juror=juror, other_juror=other_juror, chair=chair)
    # And a calibration round, closed before grading, and a note in a comment bank.
    calibration_rows(contest.problems.get(number=2), chair=chair, juror=other_juror)
    criterion = Criterion.objects.get(problem__contest=contest, problem__number=1, code="T1")
    BankNote.objects.create(criterion=criterion, text="Vowel harmony missed.", author=juror)
    # And an appeals evening with its tables and meetings, and discussion sessions.
    add_room(contest, [juror, other_juror, chair])
    # And the conflicts the organizer declared, with a delegation and with one contestant.
    DeclaredConflict.objects.create(
        juror=juror, delegation=contest.delegations.get(code="EST"), reason="Coached them."
    )
    DeclaredConflict.objects.create(
        juror=other_juror,
        paper=contest.papers.get(identity="Team Orca"),
        reason="Cousin.",
        declared_by=chair,
    )
    document = contest_export(contest=contest)

    assert _wrong_rows(document) == []
    # Scheme versions have their own round trip (tests/grading/schemes/test_backup_versions.py).
    sparse = [
        s
        for s in SECTIONS
        if s.sparse_list and s not in SEED_SECTIONS and s is not table.SCHEME_VERSIONS
    ]
    sparse += [table.APPEAL_CRITERIA, table.APPEAL_EVENTS]
    sparse += [table.SESSION_MEMBERS, table.SESSION_OUTCOMES]
    written = {section.key for section, _, _ in _rows(document) if section in sparse}
    assert sorted(written) == sorted(section.key for section in sparse)
    lists = [s.key for s in LISTS if s not in SEED_SECTIONS]
    assert sorted(document) == sorted(["format", "version", "contest", *lists])
    assert (document["contest"]["appeals_deadline"], document["contest"]["working_language"]) == (
        "2026-07-26T00:00:00+00:00",
        "Spanish",
    )
