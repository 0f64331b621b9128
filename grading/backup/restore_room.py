"""Reading a backup's rows of the room, once its scheme, users, papers and delegations are read
(`grading.backup.restore`): the appeals evening with its tables and meetings, and the
discussion sessions with their cells, members and outcomes (each outcome with who was present),
each row checked against its section of `grading.backup.table_room` and against what the file
holds, a sentence for each problem. Backups written before these existed have none of them."""

import json

from grading.backup import table
from grading.backup.reader import Restored, check_row, read_fields


def read_room(d: Restored, document: dict) -> None:
    """Every section of the room the document holds, in its order."""
    if "appeal_evenings" in document:
        for where, row in d.r.items(document, "appeal_evenings", ""):
            values = read_fields(d.r, row, where, table.APPEAL_EVENINGS.spec())
            check_row(d.r, where, table.APPEAL_EVENINGS, values, "contest")
            if d.appeal_evenings:
                d.r.error(where, "a contest has one appeals evening; this is a second.")
            d.appeal_evenings.append(values)
    if "appeal_tables" in document:
        _read_tables(d, document)
    if "appeal_meetings" in document:
        _read_meetings(d, document)
    if "discussion_sessions" in document:
        live = set()
        for where, row in d.r.items(document, "discussion_sessions", ""):
            _read_session(d, live, where, row)


def _evening_ref(d: Restored, where: str) -> None:
    if not d.appeal_evenings:
        d.r.error(where, "the file holds no appeals evening for this row to belong to.")


def _read_tables(d: Restored, document: dict) -> None:
    problems = set()
    for where, row in d.r.items(document, "appeal_tables", ""):
        values = read_fields(d.r, row, where, table.APPEAL_TABLES.spec())
        number = values["problem"]
        _evening_ref(d, where)
        d.problem_ref(number, where)
        if number is not None and number in problems:
            d.r.error(where, f"the tables of problem {number} appear twice.")
        problems.add(number)
        check_row(d.r, where, table.APPEAL_TABLES, values, "evening", "problem")
        d.appeal_tables.append(values)


def _read_meetings(d: Restored, document: dict) -> None:
    """Meetings of a delegation of the file with a problem's group, once each."""
    codes = {values["code"] for values in d.delegations}
    meetings = set()
    for where, row in d.r.items(document, "appeal_meetings", ""):
        values = read_fields(d.r, row, where, table.APPEAL_MEETINGS.spec())
        code, number = values["delegation"], values["problem"]
        _evening_ref(d, where)
        d.problem_ref(number, where)
        if code is not None and code not in codes:
            d.r.error(where, f"the delegation “{code}” is not in the file's list of delegations.")
        if code is not None and (code, number) in meetings:
            d.r.error(where, f"the delegation “{code}” meets the group of problem {number} twice.")
        meetings.add((code, number))
        check_row(d.r, where, table.APPEAL_MEETINGS, values, "evening", "delegation", "problem")
        d.appeal_meetings.append(values)


def _read_session(d: Restored, live: set, where: str, row) -> None:
    r = d.r
    values = read_fields(r, row, where, table.DISCUSSION_SESSIONS.spec())
    number = values["problem"]
    d.problem_ref(number, where)
    d.user_ref(values["started_by"], where)
    # The cells are checked one by one below, against the file's papers and criteria.
    check_row(r, where, table.DISCUSSION_SESSIONS, values, "problem", "started_by", "cells")
    # The database's constraint, as a sentence: one session running per problem.
    if isinstance(row, dict) and row.get("ended_at", "") is None:
        if number in live:
            r.error(
                where,
                f"problem {number} has a second discussion session that has not ended; a "
                "problem has one running at a time.",
            )
        live.add(number)
    for index, cell in enumerate(values["cells"] or []):
        _read_cell(d, number, f"{where}.cells[{index}]", cell)
    members, users = [], set()
    for member_where, member_row in r.items(row, "members", where):
        member = read_fields(r, member_row, member_where, table.SESSION_MEMBERS.spec())
        d.user_ref(member["user"], member_where)
        if member["user"] is not None and member["user"] in users:
            r.error(member_where, f"the user “{member['user']}” is a member twice.")
        users.add(member["user"])
        check_row(r, member_where, table.SESSION_MEMBERS, member, "session", "user")
        members.append(member)
    outcomes = [
        _read_outcome(d, number, outcome_where, outcome_row)
        for outcome_where, outcome_row in r.items(row, "outcomes", where)
    ]
    d.discussion_sessions.append((values, members, outcomes))


def _read_cell(d: Restored, number, where: str, cell) -> None:
    """[paper identity, criterion code] of the session's problem; null for one deleted since."""
    if not isinstance(cell, list) or len(cell) != 2:
        d.r.error(where, f"expected [paper identity, criterion code]; got {json.dumps(cell)[:60]}.")
        return
    identity, code = cell
    if identity is not None and (not isinstance(identity, str) or identity not in d.papers):
        d.r.error(where, f"“{identity}” is not the identity of a paper in the file.")
    if code is not None and not isinstance(code, str):
        d.r.error(where, f"expected a criterion's code; got {json.dumps(code)[:60]}.")
    elif code is not None and number in d.problems:
        d.criterion_ref(number, code, where)


def _read_outcome(d: Restored, number, where: str, row) -> dict:
    """An outcome of a cell of the session's problem, and who was present: users of the file,
    once each."""
    r = d.r
    outcome = read_fields(r, row, where, table.SESSION_OUTCOMES.spec())
    d.paper_ref(outcome["paper"], where)
    if number in d.problems:
        d.criterion_ref(number, outcome["criterion"], where)
    d.user_ref(outcome["recorded_by"], where)
    present = set()
    for username in outcome["present"] or []:
        if username is None:
            r.error(f"{where}.present", "expected a username; got null.")
        elif isinstance(username, str) and username in present:
            r.error(f"{where}.present", f"the user “{username}” is named twice.")
        d.user_ref(username, f"{where}.present")
        if isinstance(username, str):
            present.add(username)
    relations = ("session", "paper", "criterion", "recorded_by")
    check_row(r, where, table.SESSION_OUTCOMES, outcome, *relations)
    return outcome
