"""Reading a backup's delegations and appeals, once its scheme, users and papers are read
(`grading.backup.restore`): the delegations with their leaders and contestants, the provisional
results, the appeals deadline's changes, and the appeals with their criteria and events, each
row checked against its section of `grading.backup.table` and against what the file holds, a
sentence for each problem. Backups written before these existed have none of them."""

from grading.backup import table
from grading.backup.reader import Restored, check_row, read_fields
from grading.models import (
    Appeal,
    Paper,
)


def read_appeals(d: Restored, document: dict) -> None:
    """Every section of delegations and appeals the document holds, in its order."""
    if "delegations" in document:
        _read_delegations(d, document)
    if "provisional_results" in document:
        _read_provisional_results(d, document)
    if "appeal_deadline_changes" in document:
        for where, row in d.r.items(document, "appeal_deadline_changes", ""):
            values = read_fields(d.r, row, where, table.APPEAL_DEADLINE_CHANGES.spec())
            d.user_ref(values["actor"], where)
            _check(d, where, table.APPEAL_DEADLINE_CHANGES, values, "contest", "actor")
            d.deadline_changes.append(values)
    if "appeals" in document:
        live = set()
        for where, row in d.r.items(document, "appeals", ""):
            _read_appeal(d, live, where, row)


def _check(d: Restored, where: str, section: table.Section, values: dict, *relations: str):
    check_row(d.r, where, section, values, *relations)


def _read_delegations(d: Restored, document: dict) -> None:
    r = d.r
    codes, delegation_of = set(), {}
    for where, row in r.items(document, "delegations", ""):
        # Delegations backed up before they had a country lack it.
        if isinstance(row, dict):
            row = table.DELEGATIONS.defaults | row
        values = read_fields(r, row, where, table.DELEGATIONS.spec())
        _check(d, where, table.DELEGATIONS, values, "contest")
        if values["code"] in codes:
            r.error(where, f"the delegation “{values['code']}” appears twice.")
        codes.add(values["code"])
        for username in values["leaders"] or []:
            if username is None:
                r.error(f"{where}.leaders", "expected a username; got null.")
            d.user_ref(username, f"{where}.leaders")
        for identity in values["papers"] or []:
            _read_member(d, delegation_of, values["code"], f"{where}.papers", identity)
        d.delegations.append(values)


def _read_member(d: Restored, delegation_of: dict, code, where: str, identity) -> None:
    """A delegation's contestant: a human paper of the file, in no other delegation."""
    if not isinstance(identity, str) or identity not in d.papers:
        d.r.error(where, f"“{identity}” is not the identity of a paper in the file.")
        return
    if identity in delegation_of:
        d.r.error(
            where,
            f"“{identity}” is a contestant of the delegation “{delegation_of[identity]}” already;"
            " a paper belongs to one delegation at most.",
        )
    elif d.papers[identity].source != Paper.Source.HUMAN:
        d.r.error(
            where, f"“{identity}” is an AI system's paper; AI papers belong to no delegation."
        )
    delegation_of[identity] = code


def _read_provisional_results(d: Restored, document: dict) -> None:
    papers = set()
    for where, row in d.r.items(document, "provisional_results", ""):
        values = read_fields(d.r, row, where, table.PROVISIONAL_RESULTS.spec())
        d.paper_ref(values["paper"], where)
        if values["paper"] in papers:
            d.r.error(where, "the paper's provisional result appears twice.")
        papers.add(values["paper"])
        _check(d, where, table.PROVISIONAL_RESULTS, values, "paper")
        d.provisional_results.append(values)


def _read_appeal(d: Restored, live: set, where: str, row) -> None:
    r = d.r
    values = read_fields(r, row, where, table.APPEALS.spec())
    number, identity = values["problem"], values["paper"]
    d.paper_ref(identity, where)
    d.problem_ref(number, where)
    d.user_ref(values["filed_by"], where)
    d.user_ref(values["decided_by"], where)
    errors_before = len(r.errors)
    _check(d, where, table.APPEALS, values, "paper", "problem", "filed_by", "decided_by")
    state, outcome = values["state"], values["outcome"]
    # The database's two constraints, as sentences: an outcome exactly when decided, and one
    # appeal per paper and problem that is not withdrawn (a withdrawn one may be filed again).
    well_typed = isinstance(state, str) and isinstance(outcome, str)
    if well_typed and len(r.errors) == errors_before and (state == "decided") != bool(outcome):
        r.error(
            where,
            "an appeal has an outcome exactly when it is decided; "
            f"this one is “{state}” with the outcome “{outcome}”.",
        )
    if state in (Appeal.State.OPEN, Appeal.State.DECIDED):
        if (identity, number) in live:
            r.error(where, f"the paper has a second appeal on problem {number} not withdrawn.")
        live.add((identity, number))
    criteria = _read_appeal_criteria(d, number, where, row)
    events = []
    for event_where, event_row in r.items(row, "events", where):
        event = read_fields(r, event_row, event_where, table.APPEAL_EVENTS.spec())
        d.user_ref(event["actor"], event_where)
        _check(d, event_where, table.APPEAL_EVENTS, event, "appeal", "actor")
        events.append(event)
    d.appeals.append((values, criteria, events))


def _read_appeal_criteria(d: Restored, number, where: str, row) -> list[dict]:
    """The criteria an appeal names: criteria of its problem, once each, their points within
    the criterion's range and on its step."""
    criteria, codes = [], set()
    for crit_where, crit_row in d.r.items(row, "criteria", where):
        criterion = read_fields(d.r, crit_row, crit_where, table.APPEAL_CRITERIA.spec())
        code, after = criterion["criterion"], criterion["points_after"]
        if number in d.problems:
            d.criterion_ref(number, code, crit_where, criterion["points_before"])
            if after is not None and (number, code) in d.criteria:
                d.criterion_ref(number, code, crit_where, after)
        if code in codes:
            d.r.error(crit_where, f"criterion {code} appears twice in the appeal.")
        codes.add(code)
        _check(d, crit_where, table.APPEAL_CRITERIA, criterion, "appeal", "criterion")
        criteria.append(criterion)
    return criteria
