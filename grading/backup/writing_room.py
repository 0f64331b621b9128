"""Writing a restored contest's rows of the room (`grading.backup.writing`), after the problems,
criteria, papers, delegations and users: the appeals evening with its tables and meetings, then
the discussion sessions (their cells back to the restored rows' ids), their members and their
outcomes with who was present, in the file's order, so that rows restored into an empty
database draw back the ids they had."""

from django.contrib.auth.models import User

from grading.backup import table
from grading.backup.reader import Restored
from grading.models import (
    AppealEvening,
    AppealMeeting,
    AppealTables,
    DiscussionSession,
    SessionMember,
    SessionOutcome,
)


def write_room(d: Restored, users: dict[str, User]) -> None:
    if d.appeal_evenings:
        _write_evening(d)
    if d.discussion_sessions:
        _write_sessions(d, users)


def _write_evening(d: Restored) -> None:
    (values,) = d.appeal_evenings
    evening = AppealEvening.objects.create(contest=d.contest, **table.APPEAL_EVENINGS.own(values))
    AppealTables.objects.bulk_create(
        AppealTables(
            evening=evening, problem=d.problems[row["problem"]], **table.APPEAL_TABLES.own(row)
        )
        for row in d.appeal_tables
    )
    # Written before, by `write_delegations`; one query.
    delegations = {delegation.code: delegation for delegation in d.contest.delegations.all()}
    AppealMeeting.objects.bulk_create(
        AppealMeeting(
            evening=evening,
            delegation=delegations[row["delegation"]],
            problem=d.problems[row["problem"]],
            **table.APPEAL_MEETINGS.own(row),
        )
        for row in d.appeal_meetings
    )


def _write_sessions(d: Restored, users: dict[str, User]) -> None:
    rows = d.discussion_sessions
    sessions = [
        DiscussionSession(
            problem=d.problems[values["problem"]],
            started_by=users[values["started_by"]],
            cells=[_cell(d, values["problem"], cell) for cell in values["cells"]],
            **table.DISCUSSION_SESSIONS.own(values),
        )
        for values, _, _ in rows
    ]
    DiscussionSession.objects.bulk_create(sessions)
    table.DISCUSSION_SESSIONS.put_back_stamps(sessions, [values for values, _, _ in rows])
    members = [
        SessionMember(session=session, user=users[row["user"]], **table.SESSION_MEMBERS.own(row))
        for session, (_, session_members, _) in zip(sessions, rows, strict=True)
        for row in session_members
    ]
    SessionMember.objects.bulk_create(members)
    table.SESSION_MEMBERS.put_back_stamps(members, [row for _, many, _ in rows for row in many])
    outcome_rows = [
        (session, values["problem"], row)
        for session, (values, _, outcomes) in zip(sessions, rows, strict=True)
        for row in outcomes
    ]
    outcomes = [
        SessionOutcome(
            session=session,
            paper=d.papers[row["paper"]],
            criterion=d.criteria[(number, row["criterion"])],
            recorded_by=users[row["recorded_by"]],
            **table.SESSION_OUTCOMES.own(row),
        )
        for session, number, row in outcome_rows
    ]
    SessionOutcome.objects.bulk_create(outcomes)
    table.SESSION_OUTCOMES.put_back_stamps(outcomes, [row for _, _, row in outcome_rows])
    SessionOutcome.present.through.objects.bulk_create(
        SessionOutcome.present.through(sessionoutcome=outcome, user=users[username])
        for outcome, (_, _, row) in zip(outcomes, outcome_rows, strict=True)
        for username in row["present"]
    )


def _cell(d: Restored, number: int, cell: list) -> list:
    """A cell's [paper id, criterion id] in the restored rows (None for one deleted since)."""
    identity, code = cell
    return [
        None if identity is None else d.papers[identity].pk,
        None if code is None else d.criteria[(number, code)].pk,
    ]
