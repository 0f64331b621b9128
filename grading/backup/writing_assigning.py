"""Writing a restored contest's assignment facts (`grading.backup.writing`): the facts of the
accounts the restore created, right after them; the moves and the questions for language help
after everything else, in the file's order, so that rows restored into an empty database draw
back the ids they had; and the conflicts the organizer declared, once the delegations and the
papers are written."""

from django.contrib.auth.models import User

from grading.backup import table
from grading.backup.reader import Restored
from grading.models import (
    AssignmentMove,
    ConflictRuling,
    DeclaredConflict,
    HelpRequest,
    JurorLanguage,
    JurorProfile,
)


def write_juror_facts(d: Restored, users: dict[str, User], created: list[str]) -> None:
    """The facts of the users created; an existing account's are left as they are, as the
    account itself is (a person's facts belong to the person, not to one contest)."""
    new = set(created)
    JurorProfile.objects.bulk_create(
        JurorProfile(user=users[values["user"]], **table.JUROR_PROFILES.own(values))
        for values in d.juror_profiles
        if values["user"] in new
    )
    JurorLanguage.objects.bulk_create(
        JurorLanguage(user=users[values["user"]], **table.JUROR_LANGUAGES.own(values))
        for values in d.juror_languages
        if values["user"] in new
    )


def write_moves_and_help(d: Restored, users: dict[str, User]) -> None:
    moves = [
        AssignmentMove(
            paper=d.papers[values["paper"]],
            problem=d.problems[values["problem"]],
            from_juror=users[values["from_juror"]],
            to_juror=users[values["to_juror"]],
            actor=users[values["actor"]],
            **table.ASSIGNMENT_MOVES.own(values),
        )
        for values in d.moves
    ]
    AssignmentMove.objects.bulk_create(moves)
    table.ASSIGNMENT_MOVES.put_back_stamps(moves, d.moves)
    requests = [
        HelpRequest(
            paper=d.papers[values["paper"]],
            problem=d.problems[values["problem"]],
            asked_by=users[values["asked_by"]],
            helper=users.get(values["helper"]),
            assigned_by=users.get(values["assigned_by"]),
            **table.HELP_REQUESTS.own(values),
        )
        for values in d.help_requests
    ]
    HelpRequest.objects.bulk_create(requests)
    table.HELP_REQUESTS.put_back_stamps(requests, d.help_requests)
    d.seed_refs += [
        (request, values["problem"], values["seed"])
        for request, values in zip(requests, d.help_requests, strict=True)
        if values.get("seed") is not None
    ]
    rulings = [
        ConflictRuling(
            paper=d.papers[values["paper"]],
            problem=d.problems[values["problem"]],
            juror=users[values["juror"]],
            decided_by=users.get(values["decided_by"]),
            **table.CONFLICT_RULINGS.own(values),
        )
        for values in d.conflict_rulings
    ]
    ConflictRuling.objects.bulk_create(rulings)
    table.CONFLICT_RULINGS.put_back_stamps(rulings, d.conflict_rulings)


def write_declared_conflicts(d: Restored, users: dict[str, User]) -> None:
    """Each declared conflict, with its delegation (by code) or its paper (by identity)."""
    if not d.declared_conflicts:
        return
    delegations = {delegation.code: delegation for delegation in d.contest.delegations.all()}
    conflicts = [
        DeclaredConflict(
            juror=users[values["juror"]],
            delegation=delegations.get(values["delegation"]),
            paper=d.papers.get(values["paper"]),
            declared_by=users.get(values["declared_by"]),
            **table.DECLARED_CONFLICTS.own(values),
        )
        for values in d.declared_conflicts
    ]
    DeclaredConflict.objects.bulk_create(conflicts)
    table.DECLARED_CONFLICTS.put_back_stamps(conflicts, d.declared_conflicts)
