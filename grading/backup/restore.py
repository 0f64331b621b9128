"""Restore of a contest from a backup made by `grading.backup.export` (`import_contest`).

Everything in the file is read and checked first, collecting a sentence for every problem;
only a file that is understood in full is written, in one transaction. Rows are linked by the
file's natural keys and get fresh primary keys; time stamps, versions, labels and papers' public
codes are kept; notifications find the comment they announce by its place in the file's list of
comments. Scanned pages' images are checked and staged one by one (grading.backup.pages), then
moved into SCANS_DIR under fresh random names; on any refusal the files moved are removed."""

import json

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from grading.backup.export import FORMAT, LEGACY_VERSION, VERSION
from grading.backup.pages import Staging, read_scan_pages
from grading.backup.reader import (
    COMMENT,
    CONTEST,
    CONTEST_EVENT,
    CRITERION,
    HUMAN,
    MARK,
    MARK_EVENT,
    NOTIFICATION,
    PAPER,
    PAPER_DEFAULTS,
    PROBLEM,
    RESOLUTION,
    RESOLUTION_EVENT,
    SHEET,
    SOLUTION,
    SOLUTION_DEFAULTS,
    TASK,
    TASK_DEFAULTS,
    USER,
    ImportSummary,
    Reader,
    check_clean,
    read_fields,
    without,
)
from grading.backup.writing import contest_write
from grading.intake.importers.files import NUL_SENTENCE, holds_nan, holds_nul
from grading.models import (
    ContestEvent,
    HumanScore,
    Mark,
    MarkEvent,
    Notification,
    Paper,
    Resolution,
    ResolutionEvent,
    Sheet,
    draw_public_code,
)
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, Task
from rubrics.validators import validate_points

__all__ = ["ImportSummary", "contest_import"]


@transaction.atomic
def contest_import(
    *, document, pages=None, source: str = "The backup", dry_run: bool = False
) -> ImportSummary:
    """Restore a contest from a document made by `contest_export`, all or nothing; `pages`, the
    archive's page images (`grading.backup.archive.backup_open`), for a version 2 document.

    Refuses when the contest's slug exists in this database, and refuses a malformed document
    with every sentence found (nothing is written). Users that do not exist are created with an
    unusable password and the groups the file names; existing users are left as they are.
    Time stamps, versions and labels are kept as exported. `dry_run`: the caller rolls the
    transaction back, so no scanned page's image is written to SCANS_DIR either."""
    staging = Staging(pages)
    try:
        return _import(document=document, staging=staging, source=source, dry_run=dry_run)
    finally:
        staging.close()


def _import(*, document, staging: Staging, source: str, dry_run: bool) -> ImportSummary:
    r = Reader(source)
    if not isinstance(document, dict):
        raise ValidationError(f"{source} is not a contest backup: expected a JSON object.")
    if document.get("format") != FORMAT:
        raise ValidationError(
            f"{source} is not a contest backup made by export_contest "
            f"(its “format” is {json.dumps(document.get('format'))[:60]})."
        )
    if document.get("version") not in (LEGACY_VERSION, VERSION):
        raise ValidationError(
            f"{source} is a version {document.get('version')!r} backup; this application "
            f"reads versions {LEGACY_VERSION} and {VERSION}."
        )
    # What PostgreSQL refuses to store, although Python's json reads it (SQLite takes both).
    if holds_nul(document):
        raise ValidationError(f"{source}: {NUL_SENTENCE}")
    if holds_nan(document):
        raise ValidationError(
            f"{source}: a value is NaN or Infinity, which JSON columns cannot store; write null."
        )
    head = read_fields(r, document.get("contest"), "contest", CONTEST)
    if head["slug"] and Contest.objects.filter(slug=head["slug"]).exists():
        raise ValidationError(
            f"A contest with the slug “{head['slug']}” already exists in this database; "
            "import_contest restores only into a database without it. Delete it first or "
            "restore into another database."
        )

    # 1. Read and check everything; nothing is written until the whole file is understood.
    contest = Contest(**{k: v for k, v in head.items() if k != "created_at"})
    check_clean(r, "contest", contest)
    cutoffs = []
    for where, row in r.items(document, "cutoffs", ""):
        values = read_fields(
            r, row, where, {"name": "text", "min_total": "decimal", "order": "int"}
        )
        cutoffs.append(MedalCutoff(**values))
        check_clean(r, where, cutoffs[-1], exclude=("contest",))

    problems, tasks, criteria, rates, jurors_of = {}, {}, {}, {}, {}
    for where, row in r.items(document, "problems", ""):
        values = read_fields(r, row, where, PROBLEM)
        number = values["number"]
        if number in problems:
            r.error(where, f"problem {number} appears twice.")
        problem = problems[number] = Problem(**values)
        check_clean(r, where, problem, exclude=("contest",))
        for task_where, task_row in r.items(row, "tasks", where):
            if isinstance(task_row, dict):
                task_row = TASK_DEFAULTS | task_row
            task = Task(**read_fields(r, task_row, task_where, TASK))
            task._problem_number = number
            check_clean(r, task_where, task, exclude=("problem",))
            if (number, task.external_id) in tasks:
                r.error(task_where, f"task {task.external_id} appears twice in problem {number}.")
            tasks[(number, task.external_id)] = task
        for crit_where, crit_row in r.items(row, "criteria", where):
            values = read_fields(r, crit_row, crit_where, CRITERION)
            task_id, share = values.pop("task"), values.pop("human_share_met")
            criterion = Criterion(**values)
            errors_before = len(r.errors)
            check_clean(r, crit_where, criterion, exclude=("problem", "task"))
            # Marks are checked against the criterion's points and step only when these are
            # sound: a step of 0 or 1e-30 makes the remainder in validate_points raise.
            criterion._checkable = (
                len(r.errors) == errors_before
                and None not in (criterion.points, criterion.step)
                and criterion.points > 0
                and criterion.step > 0
            )
            if task_id is not None and (number, task_id) not in tasks:
                r.error(crit_where, f"task {task_id} is not a task of problem {number}.")
            criterion._refs = (number, task_id)
            if (number, criterion.code) in criteria:
                r.error(
                    crit_where, f"criterion {criterion.code} appears twice in problem {number}."
                )
            criteria[(number, criterion.code)] = criterion
            if share is not None:
                rates[(number, criterion.code)] = share
        jurors_of[number] = r.get(row, "jurors", where, "list", optional=True)

    users = {}
    for where, row in r.items(document, "users", ""):
        values = read_fields(r, row, where, USER)
        if any(not isinstance(group, str) for group in values["groups"] or []):
            r.error(where, "groups must be a list of group names.")
        account = User(**{k: v for k, v in values.items() if k != "groups"})
        check_clean(r, where, account, exclude=("password",))
        if values["username"] in users:
            r.error(where, f"the user “{values['username']}” appears twice.")
        users[values["username"]] = values

    def user_ref(username, where):
        if username is None:
            return
        if not isinstance(username, str):
            r.error(where, f"expected a username; got {json.dumps(username)[:60]}.")
        elif username not in users:
            r.error(where, f"the user “{username}” is not in the file's list of users.")

    def criterion_ref(number, code, where, points=None):
        criterion = criteria.get((number, code))
        if criterion is None:
            r.error(where, f"criterion {code} of problem {number} is not in the file.")
        elif points is not None and criterion._checkable:
            # Out-of-range points are refused here as in every other way marks come in.
            try:
                validate_points(points, criterion)
            except ValidationError as error:
                r.error(where, error.messages[0])

    papers, labels, solutions, codes = {}, [], [], set()
    for where, row in r.items(document, "papers", ""):
        if isinstance(row, dict):
            row = PAPER_DEFAULTS | row
        values = read_fields(r, row, where, PAPER)
        paper_labels = values.pop("labels") or {}
        blank_problems = values.pop("blank_problems") or []
        code = values.pop("public_code")
        paper = Paper(**{k: v for k, v in values.items() if k != "created_at"})
        paper._created_at = values["created_at"]
        # A paper without a code gets one after the loop, once every code in the file is known.
        paper.public_code = code or ""
        check_clean(
            r,
            where,
            paper,
            exclude=("contest",) if code is not None else ("contest", "public_code"),
        )
        if paper.identity in papers:
            r.error(where, f"the identity “{paper.identity}” appears twice.")
        if code is not None:
            if code in codes:
                r.error(where, f"the public code “{code}” appears twice.")
            codes.add(code)
        papers[paper.identity] = paper
        for number, label in paper_labels.items():
            if not number.isdigit() or int(number) not in problems or not isinstance(label, str):
                r.error(f"{where}.labels", f"“{number}”: “{label}” is not a label of a problem.")
                continue
            labels.append((paper.identity, int(number), label, int(number) in blank_problems))
        for number in blank_problems:
            if not isinstance(number, int) or str(number) not in paper_labels:
                r.error(
                    f"{where}.blank_problems",
                    f"“{number}” is not the number of a problem the paper has a label in.",
                )
        for sol_where, sol_row in r.items(row, "solutions", where):
            if isinstance(sol_row, dict):
                sol_row = SOLUTION_DEFAULTS | sol_row
            values = read_fields(r, sol_row, sol_where, SOLUTION)
            if (values["problem"], values["task"]) not in tasks:
                r.error(
                    sol_where,
                    f"task {values['task']} of problem {values['problem']} is not in the file.",
                )
            solutions.append((paper.identity, values))
    for paper in papers.values():
        if not paper.public_code:
            paper.public_code = draw_public_code(codes)
    for number, jurors in jurors_of.items():
        for username in jurors or []:
            if username is None:
                r.error(f"problem {number}.jurors", "expected a username; got null.")
            user_ref(username, f"problem {number}.jurors")

    def paper_ref(identity, where):
        if identity not in papers:
            r.error(where, "the paper is not in the file's list of papers.")

    def problem_ref(number, where):
        if number not in problems:
            r.error(where, f"problem {number} is not in the file.")

    assignments = []
    for where, row in r.items(document, "assignments", ""):
        values = read_fields(r, row, where, {"problem": "int", "paper": "text", "juror": "text"})
        problem_ref(values["problem"], where)
        paper_ref(values["paper"], where)
        user_ref(values["juror"], where)
        assignments.append(values)
    sheets = []
    for where, row in r.items(document, "sheets", ""):
        values = read_fields(r, row, where, SHEET)
        problem_ref(values["problem"], where)
        user_ref(values["juror"], where)
        check_clean(r, where, Sheet(state=values["state"] or ""), exclude=("juror", "problem"))
        if (values["problem"], values["juror"]) in {(s["problem"], s["juror"]) for s in sheets}:
            r.error(where, "this juror's sheet for the problem appears twice.")
        sheets.append(values)
    sheet_keys = {(s["problem"], s["juror"]) for s in sheets}
    marks = []
    for where, row in r.items(document, "marks", ""):
        values = read_fields(r, row, where, MARK)
        if (values["problem"], values["juror"]) not in sheet_keys:
            r.error(where, "the mark's sheet is not in the file's list of sheets.")
        paper_ref(values["paper"], where)
        criterion_ref(values["problem"], values["criterion"], where, values["points"])
        check_clean(
            r,
            where,
            Mark(points=values["points"], note=values["note"], version=values["version"]),
            exclude=("sheet", "paper", "criterion"),
        )
        events = []
        for event_where, event_row in r.items(row, "events", where):
            event = read_fields(r, event_row, event_where, MARK_EVENT)
            user_ref(event["actor"], event_where)
            check_clean(
                r, event_where, MarkEvent(**without(event, "actor")), exclude=("mark", "actor")
            )
            events.append(event)
        marks.append((values, events))
    comments = []
    for where, row in r.items(document, "comments", ""):
        values = read_fields(r, row, where, COMMENT)
        paper_ref(values["paper"], where)
        criterion_ref(values["problem"], values["criterion"], where)
        user_ref(values["author"], where)
        comments.append(values)
    resolutions = []
    for where, row in r.items(document, "resolutions", ""):
        values = read_fields(r, row, where, RESOLUTION)
        paper_ref(values["paper"], where)
        criterion_ref(values["problem"], values["criterion"], where, values["points"])
        user_ref(values["decided_by"], where)
        check_clean(
            r,
            where,
            Resolution(kind=values["kind"] or "", points=values["points"]),
            exclude=("paper", "criterion", "decided_by", "reason"),
        )
        events = []
        for event_where, event_row in r.items(row, "events", where):
            event = read_fields(r, event_row, event_where, RESOLUTION_EVENT)
            user_ref(event["actor"], event_where)
            check_clean(
                r,
                event_where,
                ResolutionEvent(**without(event, "actor")),
                exclude=("resolution", "actor", "reason", "old_kind"),
            )
            events.append(event)
        resolutions.append((values, events))
    human_scores = []
    for where, row in r.items(document, "human_scores", ""):
        human_scores.append(HumanScore(**read_fields(r, row, where, HUMAN)))
        check_clean(r, where, human_scores[-1], exclude=("contest",))
    # Backups written before contests kept their history have none.
    contest_events = []
    if "contest_events" in document:
        for where, row in r.items(document, "contest_events", ""):
            values = read_fields(r, row, where, CONTEST_EVENT)
            user_ref(values["actor"], where)
            check_clean(
                r,
                where,
                ContestEvent(**without(values, "actor")),
                exclude=("contest", "actor", "reason"),
            )
            contest_events.append(values)
    # Backups written before notifications were backed up have none.
    notifications = []
    if "notifications" in document:
        for where, row in r.items(document, "notifications", ""):
            values = read_fields(r, row, where, NOTIFICATION)
            user_ref(values["recipient"], where)
            # A field of the wrong type is reported already; it is not checked again here.
            own = {k: values[k] for k in ("kind", "sentence", "read_at") if values[k] is not None}
            check_clean(
                r,
                where,
                Notification(**own),
                exclude=("recipient", "contest", "problem", "paper", "criterion", "comment")
                + tuple(k for k in ("kind", "sentence", "read_at") if k not in own),
            )
            number, identity, code = values["problem"], values["paper"], values["criterion"]
            if number is not None:
                problem_ref(number, where)
            if identity is not None:
                paper_ref(identity, where)
            if code is not None and number is None:
                r.error(where, f"criterion {code} is named without its problem.")
            elif code is not None and number in problems:
                criterion_ref(number, code, where)
            _comment_ref(r, where, values["comment"], comments, (identity, number, code))
            notifications.append(values)
    # Backups written before scanned pages were backed up have none.
    scan_pages = (
        read_scan_pages(r, document, staging, papers, paper_ref, problem_ref)
        if "scan_pages" in document
        else []
    )
    if r.errors:
        raise ValidationError(r.errors)

    # 2. Write, in one transaction (this function is atomic); a database constraint that still
    # fails (a label used twice in a problem, say) undoes everything.
    try:
        return contest_write(
            staging=None if dry_run else staging,
            scan_pages=scan_pages,
            contest=contest,
            created_at=head["created_at"],
            cutoffs=cutoffs,
            problems=problems,
            tasks=tasks,
            criteria=criteria,
            rates=rates,
            jurors_of=jurors_of,
            users=users,
            papers=papers,
            labels=labels,
            solutions=solutions,
            assignments=assignments,
            sheets=sheets,
            marks=marks,
            comments=comments,
            resolutions=resolutions,
            human_scores=human_scores,
            contest_events=contest_events,
            notifications=notifications,
        )
    except IntegrityError as error:
        staging.undo()
        raise ValidationError(
            f"{source} contradicts itself and was not imported: the database refused it ({error})."
        ) from None
    except BaseException:
        staging.undo()
        raise


def _comment_ref(r: Reader, where: str, index, comments: list[dict], cell: tuple) -> None:
    """A notification's comment is named by its index in the file's list of comments (see
    `grading.backup.export._notifications`); that comment must be on the notification's cell."""
    if index is None:
        return
    if index >= len(comments):
        r.error(
            where,
            f"there is no comments[{index}]: the file's list of comments has {len(comments)}.",
        )
        return
    comment = comments[index]
    if (comment["paper"], comment["problem"], comment["criterion"]) != cell:
        r.error(where, f"the comment it announces, comments[{index}], is on another cell.")
