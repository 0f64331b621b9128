"""Reading a backup's grading, once its scheme, users and papers are read
(`grading.backup.restore`): assignments, sheets, marks and their history, comments, resolutions
and theirs, human scores, the contest's events and the notifications, each row checked against
its section of `grading.backup.table` and against what the file holds, a sentence for each
problem."""

from collections.abc import Iterator

from grading.backup import table
from grading.backup.reader import Restored, check_clean, read_fields
from grading.models import (
    ContestEvent,
    HumanScore,
    Mark,
    MarkEvent,
    Notification,
    Resolution,
    ResolutionEvent,
    Sheet,
)


def read_grading(d: Restored, document: dict) -> None:
    """Every section after the papers, in the document's order of problems reported."""
    _read_assignments(d, document)
    _read_sheets(d, document)
    _read_marks(d, document)
    _read_comments(d, document)
    _read_resolutions(d, document)
    for where, row in d.r.items(document, "human_scores", ""):
        d.human_scores.append(HumanScore(**read_fields(d.r, row, where, table.HUMAN_SCORES.spec())))
        check_clean(d.r, where, d.human_scores[-1], exclude=("contest",))
    # Backups written before contests kept their history have none.
    if "contest_events" in document:
        _read_contest_events(d, document)
    # Backups written before notifications were backed up have none.
    if "notifications" in document:
        for where, row in d.r.items(document, "notifications", ""):
            _read_notification(d, where, row)


def _read_assignments(d: Restored, document: dict) -> None:
    for where, row in d.r.items(document, "assignments", ""):
        values = read_fields(d.r, row, where, table.ASSIGNMENTS.spec())
        d.problem_ref(values["problem"], where)
        d.paper_ref(values["paper"], where)
        d.user_ref(values["juror"], where)
        d.assignments.append(values)


def _read_sheets(d: Restored, document: dict) -> None:
    keys = set()
    for where, row in d.r.items(document, "sheets", ""):
        values = read_fields(d.r, row, where, table.SHEETS.spec())
        d.problem_ref(values["problem"], where)
        d.user_ref(values["juror"], where)
        check_clean(d.r, where, Sheet(state=values["state"] or ""), exclude=("juror", "problem"))
        if (values["problem"], values["juror"]) in keys:
            d.r.error(where, "this juror's sheet for the problem appears twice.")
        keys.add((values["problem"], values["juror"]))
        d.sheets.append(values)


def _read_marks(d: Restored, document: dict) -> None:
    """Each mark checked as it is read, none kept: `mark_rows` reads them again to write."""
    for _ in mark_rows(d):
        d.steps.step()


def mark_rows(d: Restored) -> Iterator[tuple[dict, list[dict]]]:
    """The document's marks, each with its history, read and checked as they come (a sentence
    for each problem, through the reader), once the sheets and the schemes' versions are read."""
    sheet_keys = {(sheet["problem"], sheet["juror"]) for sheet in d.sheets}
    for where, row in d.r.items(d.document, "marks", ""):
        yield _read_mark(d, sheet_keys, where, row)


def _read_mark(d: Restored, sheet_keys: set, where: str, row) -> tuple[dict, list[dict]]:
    r = d.r
    if isinstance(row, dict):
        row = table.MARKS.defaults | row
    values = read_fields(r, row, where, table.MARKS.spec())
    if (values["problem"], values["juror"]) not in sheet_keys:
        r.error(where, "the mark's sheet is not in the file's list of sheets.")
    d.paper_ref(values["paper"], where)
    reopened = values["reopened_by"]
    if reopened is not None and (values["problem"], reopened) not in d.scheme_versions:
        r.error(
            where,
            f"the mark was reopened by scheme version {reopened}, which is not among the "
            f"versions of problem {values['problem']}.",
        )
    # A reopened mark keeps the points its juror gave under the older version, which the
    # amended criterion may no longer allow: its juror re-marks it.
    points = values["points"] if reopened is None else None
    d.criterion_ref(values["problem"], values["criterion"], where, points)
    check_clean(
        r,
        where,
        Mark(**table.MARKS.own(values, "updated_at")),
        exclude=("sheet", "paper", "criterion"),
    )
    events = []
    for event_where, event_row in r.items(row, "events", where):
        event = read_fields(r, event_row, event_where, table.MARK_EVENTS.spec())
        d.user_ref(event["actor"], event_where)
        check_clean(
            r,
            event_where,
            MarkEvent(**table.MARK_EVENTS.own(event)),
            exclude=("mark", "actor"),
        )
        events.append(event)
    return values, events


def _read_comments(d: Restored, document: dict) -> None:
    for where, row in d.r.items(document, "comments", ""):
        values = read_fields(d.r, row, where, table.COMMENTS.spec())
        d.paper_ref(values["paper"], where)
        d.criterion_ref(values["problem"], values["criterion"], where)
        d.user_ref(values["author"], where)
        d.comments.append(values)


def _read_resolutions(d: Restored, document: dict) -> None:
    r = d.r
    for where, row in r.items(document, "resolutions", ""):
        values = read_fields(r, row, where, table.RESOLUTIONS.spec())
        d.paper_ref(values["paper"], where)
        d.criterion_ref(values["problem"], values["criterion"], where, values["points"])
        d.user_ref(values["decided_by"], where)
        check_clean(
            r,
            where,
            Resolution(kind=values["kind"] or "", points=values["points"]),
            exclude=("paper", "criterion", "decided_by", "reason"),
        )
        events = []
        for event_where, event_row in r.items(row, "events", where):
            event = read_fields(r, event_row, event_where, table.RESOLUTION_EVENTS.spec())
            d.user_ref(event["actor"], event_where)
            check_clean(
                r,
                event_where,
                ResolutionEvent(**table.RESOLUTION_EVENTS.own(event)),
                exclude=("resolution", "actor", "reason", "old_kind"),
            )
            events.append(event)
        d.resolutions.append((values, events))


def _read_contest_events(d: Restored, document: dict) -> None:
    for where, row in d.r.items(document, "contest_events", ""):
        values = read_fields(d.r, row, where, table.CONTEST_EVENTS.spec())
        d.user_ref(values["actor"], where)
        check_clean(
            d.r,
            where,
            ContestEvent(**table.CONTEST_EVENTS.own(values)),
            exclude=("contest", "actor", "reason"),
        )
        d.contest_events.append(values)


def _read_notification(d: Restored, where: str, row) -> None:
    r = d.r
    if isinstance(row, dict):
        row = table.NOTIFICATIONS.defaults | row
    values = read_fields(r, row, where, table.NOTIFICATIONS.spec())
    d.user_ref(values["recipient"], where)
    # A field of the wrong type is reported already; it is not checked again here.
    own = {k: values[k] for k in ("kind", "sentence", "read_at") if values[k] is not None}
    check_clean(
        r,
        where,
        Notification(**own),
        exclude=("recipient", "contest", "problem", "paper", "criterion", "comment", "seed")
        + tuple(k for k in ("kind", "sentence", "read_at") if k not in own),
    )
    number, identity, code = values["problem"], values["paper"], values["criterion"]
    if number is not None:
        d.problem_ref(number, where)
    if identity is not None:
        d.paper_ref(identity, where)
    if code is not None and number is None:
        r.error(where, f"criterion {code} is named without its problem.")
    elif code is not None and number in d.problems:
        d.criterion_ref(number, code, where)
    _comment_ref(d, where, values["comment"], (identity, number, code))
    d.notifications.append(values)


def _comment_ref(d: Restored, where: str, index, cell: tuple) -> None:
    """A notification's comment is named by its index in the file's list of comments (see
    `grading.backup.export._notifications`); that comment must be on the notification's cell."""
    if index is None:
        return
    if index >= len(d.comments):
        d.r.error(
            where,
            f"there is no comments[{index}]: the file's list of comments has {len(d.comments)}.",
        )
        return
    comment = d.comments[index]
    if (comment["paper"], comment["problem"], comment["criterion"]) != cell:
        d.r.error(where, f"the comment it announces, comments[{index}], is on another cell.")
