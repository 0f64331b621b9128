"""Reading a backup's assignment facts, once its scheme, users and papers are read
(`grading.backup.restore`): the papers moved from one juror to another during grading, the
jurors' questions for language help, and the facts of the users the file names (country,
capacity, availability, the languages they read), each row checked against its section of
`grading.backup.table` and against what the file holds, a sentence for each problem; and the
conflicts of interest the organizer declared, once the delegations are read too. Backups
written before these existed have none of them."""

from grading.backup import table
from grading.backup.reader import Restored, check_row, read_fields
from grading.models import Paper


def read_assigning(d: Restored, document: dict) -> None:
    """Every section of the assignment's facts the document holds, in its order."""
    if "assignment_moves" in document:
        for where, row in d.r.items(document, "assignment_moves", ""):
            values = _read_paper_row(d, where, row, table.ASSIGNMENT_MOVES)
            for name in ("from_juror", "to_juror", "actor"):
                d.user_ref(values[name], where)
            d.moves.append(values)
    if "help_requests" in document:
        for where, row in d.r.items(document, "help_requests", ""):
            values = _read_paper_row(d, where, row, table.HELP_REQUESTS, "seed")
            for name in ("asked_by", "helper", "assigned_by"):
                d.user_ref(values[name], where)
            d.help_requests.append(values)
    if "conflict_rulings" in document:
        for where, row in d.r.items(document, "conflict_rulings", ""):
            values = _read_paper_row(d, where, row, table.CONFLICT_RULINGS)
            for name in ("juror", "decided_by"):
                d.user_ref(values[name], where)
            d.conflict_rulings.append(values)
    if "juror_profiles" in document:
        _read_profiles(d, document)
    if "juror_languages" in document:
        _read_languages(d, document)
    if "declared_conflicts" in document:
        _read_declared(d, document)


def _read_paper_row(d: Restored, where: str, row, section: table.Section, *more: str) -> dict:
    """A row about one paper of a problem (a move, a question), its people still to check
    (and its `more` relations, checked later)."""
    if isinstance(row, dict):
        row = section.defaults | row
    values = read_fields(d.r, row, where, section.spec())
    d.problem_ref(values["problem"], where)
    d.paper_ref(values["paper"], where)
    people = [c.name for c in section.columns if c.lookup and c.lookup.endswith("__username")]
    check_row(d.r, where, section, values, "paper", "problem", *people, *more)
    return values


def _read_profiles(d: Restored, document: dict) -> None:
    seen = set()
    for where, row in d.r.items(document, "juror_profiles", ""):
        values = read_fields(d.r, row, where, table.JUROR_PROFILES.spec())
        d.user_ref(values["user"], where)
        check_row(d.r, where, table.JUROR_PROFILES, values, "user")
        if values["user"] in seen:
            d.r.error(where, f"the facts of “{values['user']}” appear twice.")
        seen.add(values["user"])
        d.juror_profiles.append(values)


def _read_languages(d: Restored, document: dict) -> None:
    seen = set()
    for where, row in d.r.items(document, "juror_languages", ""):
        values = read_fields(d.r, row, where, table.JUROR_LANGUAGES.spec())
        d.user_ref(values["user"], where)
        check_row(d.r, where, table.JUROR_LANGUAGES, values, "user")
        # As the database's constraint has it: the language as typed, once per person.
        key = (values["user"], values["language"])
        if key in seen:
            d.r.error(where, f"“{key[1]}” appears twice among the languages of “{key[0]}”.")
        seen.add(key)
        d.juror_languages.append(values)


def _read_declared(d: Restored, document: dict) -> None:
    """Each declared conflict: a juror's with a delegation of the file or with one of its human
    papers (never both), once per juror and delegation or paper, as the database has it."""
    codes = {values["code"] for values in d.delegations}
    seen = set()
    for where, row in d.r.items(document, "declared_conflicts", ""):
        values = read_fields(d.r, row, where, table.DECLARED_CONFLICTS.spec())
        juror, code, identity = values["juror"], values["delegation"], values["paper"]
        for name in ("juror", "declared_by"):
            d.user_ref(values[name], where)
        check_row(
            d.r,
            where,
            table.DECLARED_CONFLICTS,
            values,
            "juror",
            "delegation",
            "paper",
            "declared_by",
        )
        if (code is None) == (identity is None):
            d.r.error(
                where,
                "a declared conflict names either a delegation or one contestant's paper; "
                "give one of “delegation” and “paper”, and null for the other.",
            )
            continue
        if code is not None and code not in codes:
            d.r.error(where, f"the delegation “{code}” is not in the file's list of delegations.")
        elif identity is not None and identity not in d.papers:
            d.paper_ref(identity, where)
        elif identity is not None and d.papers[identity].source != Paper.Source.HUMAN:
            d.r.error(
                where,
                f"“{identity}” is an AI system's paper; a conflict is declared with a contestant.",
            )
        key = (juror, "delegation", code) if code is not None else (juror, "paper", identity)
        if key in seen:
            with_whom = f"the delegation “{code}”" if code is not None else f"“{identity}”"
            d.r.error(where, f"the conflict of “{juror}” with {with_whom} appears twice.")
        seen.add(key)
        d.declared_conflicts.append(values)
