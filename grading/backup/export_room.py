"""The backup's rows of the room (`grading.backup.export` adds them to the document): the
appeals evening with its tables and meetings, and the discussion sessions with their members
and outcomes, each outcome with the usernames of who was present. Sections of
`grading.backup.table_room`; two queries for a contest with neither."""

from collections import defaultdict

from grading.backup import table
from grading.models import Paper, SessionOutcome
from rubrics.models import Contest, Criterion


def room_rows(contest: Contest) -> dict[str, list[dict]]:
    """The room's lists by their key in the document (empty ones are left out by the caller)."""
    evenings = [table.APPEAL_EVENINGS.document(row) for row in table.APPEAL_EVENINGS.rows(contest)]
    rows = {"appeal_evenings": evenings, "discussion_sessions": _sessions(contest)}
    if evenings:
        # The rest of the evening would read nothing without it.
        for section in (table.APPEAL_TABLES, table.APPEAL_MEETINGS):
            rows[section.key] = [section.document(row) for row in section.rows(contest)]
    return rows


def _sessions(contest: Contest) -> list[dict]:
    """The sessions, each with its cells by natural key, its members and its outcomes; one
    query for a contest without a session, six otherwise."""
    sessions = list(table.DISCUSSION_SESSIONS.rows(contest, "id", "cells"))
    if not sessions:
        return []
    members, outcomes = defaultdict(list), defaultdict(list)
    for row in table.SESSION_MEMBERS.rows(contest, "session_id"):
        members[row["session_id"]].append(table.SESSION_MEMBERS.document(row))
    present = defaultdict(list)
    for outcome_id, username in (
        SessionOutcome.present.through.objects.filter(
            sessionoutcome__session__problem__contest=contest
        )
        .order_by("user__username")
        .values_list("sessionoutcome_id", "user__username")
    ):
        present[outcome_id].append(username)
    for row in table.SESSION_OUTCOMES.rows(contest, "id", "session_id"):
        outcome = table.SESSION_OUTCOMES.document(row) | {"present": present[row["id"]]}
        outcomes[row["session_id"]].append(outcome)
    identities = dict(Paper.objects.filter(contest=contest).values_list("id", "identity"))
    codes = {
        pk: (number, code)
        for pk, number, code in Criterion.objects.filter(problem__contest=contest).values_list(
            "id", "problem__number", "code"
        )
    }
    return [
        table.DISCUSSION_SESSIONS.document(row)
        | {
            "cells": [
                _cell(cell, row["problem__number"], identities, codes) for cell in row["cells"]
            ],
            "members": members[row["id"]],
            "outcomes": outcomes[row["id"]],
        }
        for row in sessions
    ]


def _cell(cell, number: int, identities: dict, codes: dict) -> list:
    """[paper identity, criterion code] of a cell kept as ids; null for what is gone since (a
    paper deleted, or a cell not of the session's problem), as the session would not find it
    either."""
    paper_id, criterion_id = cell
    criterion = codes.get(criterion_id)
    return [
        identities.get(paper_id),
        criterion[1] if criterion is not None and criterion[0] == number else None,
    ]


def room_usernames(document: dict) -> set[str]:
    """Everyone the room's rows name: the sessions' starters, members, recorders and those
    present at an outcome."""
    names = set()
    for session in document.get("discussion_sessions", []):
        names.add(session["started_by"])
        names |= {member["user"] for member in session["members"]}
        for outcome in session["outcomes"]:
            names.add(outcome["recorded_by"])
            names |= set(outcome["present"])
    return names
