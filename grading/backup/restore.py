"""Restore of a contest from a backup made by `grading.backup.export` (`import_contest`).

Everything in the file is read and checked first, collecting a sentence for every problem;
only a file that is understood in full is written, in one transaction. Rows are linked by the
file's natural keys and get fresh primary keys; time stamps, versions, labels and papers' public
codes are kept; notifications find the comment they announce by its place in the file's list of
comments; delegations, provisional results and appeals (`grading.backup.restore_appeals`),
papers moved during grading, questions for language help, the conflicts the organizer declared
the facts of the users the file names (`grading.backup.restore_assigning`), the problems'
comment banks (`grading.backup.restore_bank`), and the appeals evening and the
discussion sessions with who was present at each outcome (`grading.backup.restore_room`) come
back only when the file holds them. Scanned pages' images are checked and staged one by one
(grading.backup.pages), then moved into SCANS_DIR under fresh random names; on any refusal the
files moved are removed."""

import json
from collections.abc import Callable

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from grading.backup import table
from grading.backup.pages import Staging, read_scan_pages
from grading.backup.reader import (
    ImportSummary,
    Reader,
    Restored,
    Steps,
    check_clean,
    read_fields,
)
from grading.backup.restore_appeals import read_appeals
from grading.backup.restore_assigning import read_assigning
from grading.backup.restore_bank import read_bank
from grading.backup.restore_calibration import read_calibration
from grading.backup.restore_room import read_room
from grading.backup.restore_rows import read_grading
from grading.backup.restore_seeds import read_seeds
from grading.backup.stream import StreamedRows, streamed
from grading.backup.table import FORMAT, LEGACY_VERSION, VERSION
from grading.backup.writing import contest_write
from grading.intake.importers.files import NUL_SENTENCE, holds_nan, holds_nul
from grading.models import Paper, draw_public_code
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, SchemeVersion, Task

__all__ = ["ImportSummary", "contest_import"]


@transaction.atomic
def contest_import(
    *,
    document,
    pages=None,
    source: str = "The backup",
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ImportSummary:
    """Restore a contest from a document made by `contest_export`, all or nothing; `pages`, the
    archive's page images (`grading.backup.archive.backup_open`), for a version 2 document.

    Refuses when the contest's slug exists in this database, and refuses a malformed document
    with every sentence found (nothing is written). Users that do not exist are created with an
    unusable password and the groups and facts (country, capacity, availability, languages)
    the file names; existing users are left as they are, facts included. Time stamps, versions
    and labels are kept as exported. `dry_run`: the caller rolls the transaction back, so no
    scanned page's image is written to SCANS_DIR either. `progress(done, total)`: the file
    read, each scanned page and each mark checked, each mark written, the rest written (a
    job's page shows it)."""
    staging = Staging(pages)
    try:
        return _import(
            document=document,
            staging=staging,
            source=source,
            dry_run=dry_run,
            steps=Steps(report=progress),
        )
    finally:
        staging.close()


def _import(*, document, staging: Staging, source: str, dry_run: bool, steps) -> ImportSummary:
    _refuse_unreadable(document, source)
    d = Restored(Reader(source), document=document, steps=steps)
    steps.total = 2 + 2 * _count(document, "marks") + _count(document, "scan_pages")
    steps.step()
    head = document.get("contest")
    if isinstance(head, dict):
        head = table.CONTEST.defaults | head
    d.head = read_fields(d.r, head, "contest", table.CONTEST.spec())
    if d.head["slug"] and Contest.objects.filter(slug=d.head["slug"]).exists():
        raise ValidationError(
            f"A contest with the slug “{d.head['slug']}” already exists in this database; "
            "import_contest restores only into a database without it. Delete it first or "
            "restore into another database."
        )

    # 1. Read and check everything; nothing is written until the whole file is understood.
    _read_scheme(d, document)
    _read_users(d, document)
    for values, where in d.scheme_versions.values():
        d.user_ref(values["created_by"], where)
    _read_papers(d, document)
    read_grading(d, document)
    read_appeals(d, document)
    read_room(d, document)
    read_assigning(d, document)
    read_calibration(d, document)
    read_seeds(d, document)
    read_bank(d, document)
    # Backups written before scanned pages were backed up have none.
    if "scan_pages" in document:
        d.scan_pages = read_scan_pages(
            d.r, document, staging, d.papers, d.paper_ref, d.problem_ref, step=steps.step
        )
    if d.r.errors:
        raise ValidationError(d.r.errors)

    # 2. Write, in one transaction (this function is atomic); a database constraint that still
    # fails (a label used twice in a problem, say) undoes everything.
    try:
        summary = contest_write(d, staging=None if dry_run else staging)
        if d.r.errors:  # the marks read again to be written are not those checked
            raise ValidationError(d.r.errors)
        steps.step()
        return summary
    except IntegrityError as error:
        staging.undo()
        raise ValidationError(
            f"{source} contradicts itself and was not imported: the database refused it ({error})."
        ) from None
    except BaseException:
        staging.undo()
        raise


def _count(document: dict, key: str) -> int:
    """How many rows a section of the document has (0 when it is no list: reported later)."""
    rows = document.get(key)
    return len(rows) if isinstance(rows, list | StreamedRows) else 0


def _refuse_unreadable(document, source: str) -> None:
    """Refuse, with one sentence, what is no backup this application reads."""
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
    # What PostgreSQL refuses to store, although Python's json reads it (SQLite takes both);
    # the sections read row by row noted it on their first reading.
    rows = streamed(document)
    if holds_nul(document) or any(section.holds_nul for section in rows):
        raise ValidationError(f"{source}: {NUL_SENTENCE}")
    if holds_nan(document) or any(section.holds_nan for section in rows):
        raise ValidationError(
            f"{source}: a value is NaN or Infinity, which JSON columns cannot store; write null."
        )


def _read_scheme(d: Restored, document: dict) -> None:
    """The contest, its medal cut-offs and its problems with their tasks and criteria."""
    r = d.r
    d.contest = Contest(**table.CONTEST.own(d.head, "created_at"))
    check_clean(r, "contest", d.contest)
    for where, row in r.items(document, "cutoffs", ""):
        d.cutoffs.append(MedalCutoff(**read_fields(r, row, where, table.CUTOFFS.spec())))
        check_clean(r, where, d.cutoffs[-1], exclude=("contest",))
    for where, row in r.items(document, "problems", ""):
        if isinstance(row, dict):
            row = table.PROBLEMS.defaults | row
        values = read_fields(r, row, where, table.PROBLEMS.spec())
        number = values["number"]
        if number in d.problems:
            r.error(where, f"problem {number} appears twice.")
        d.problems[number] = Problem(**values)
        check_clean(r, where, d.problems[number], exclude=("contest",))
        for task_where, task_row in r.items(row, "tasks", where):
            _read_task(d, number, task_where, task_row)
        for crit_where, crit_row in r.items(row, "criteria", where):
            _read_criterion(d, number, crit_where, crit_row)
        d.jurors_of[number] = r.get(row, "jurors", where, "list", optional=True)
        # Backups written before schemes had versions have none (`sparse_list`).
        if isinstance(row, dict) and "scheme_versions" in row:
            for version_where, version_row in r.items(row, "scheme_versions", where):
                _read_scheme_version(d, d.problems[number], version_where, version_row)


def _read_scheme_version(d: Restored, problem, where: str, row) -> None:
    """One amendment of a problem's scheme; its author is checked once the users are read. A
    problem's version in force is the last of its versions (1 without any)."""
    values = read_fields(d.r, row, where, table.SCHEME_VERSIONS.spec())
    number = values["number"]
    check_clean(
        d.r,
        where,
        SchemeVersion(**table.SCHEME_VERSIONS.own(values, "created_at")),
        exclude=("problem",),
    )
    if number is not None and number < 2:
        d.r.error(where, f"scheme version {number}: versions made by amendments start at 2.")
    elif number is not None and number > (problem.scheme_version or 1):
        d.r.error(
            where,
            f"scheme version {number} is later than the version in force in problem "
            f"{problem.number} ({problem.scheme_version}).",
        )
    if (problem.number, number) in d.scheme_versions:
        d.r.error(where, f"scheme version {number} appears twice in problem {problem.number}.")
    d.scheme_versions[(problem.number, number)] = (values, where)


def _read_task(d: Restored, number, where: str, row) -> None:
    if isinstance(row, dict):
        row = table.TASKS.defaults | row
    task = Task(**read_fields(d.r, row, where, table.TASKS.spec()))
    task._problem_number = number
    check_clean(d.r, where, task, exclude=("problem",))
    if (number, task.external_id) in d.tasks:
        d.r.error(where, f"task {task.external_id} appears twice in problem {number}.")
    d.tasks[(number, task.external_id)] = task


def _read_criterion(d: Restored, number, where: str, row) -> None:
    r = d.r
    values = read_fields(r, row, where, table.CRITERIA.spec())
    task_id, share = values["task"], values["human_share_met"]
    criterion = Criterion(**table.CRITERIA.own(values))
    errors_before = len(r.errors)
    check_clean(r, where, criterion, exclude=("problem", "task"))
    # Marks are checked against the criterion's points and step only when these are sound: a
    # step of 0 or 1e-30 makes the remainder in validate_points raise.
    criterion._checkable = (
        len(r.errors) == errors_before
        and None not in (criterion.points, criterion.step)
        and criterion.points > 0
        and criterion.step > 0
    )
    if task_id is not None and (number, task_id) not in d.tasks:
        r.error(where, f"task {task_id} is not a task of problem {number}.")
    criterion._refs = (number, task_id)
    if (number, criterion.code) in d.criteria:
        r.error(where, f"criterion {criterion.code} appears twice in problem {number}.")
    d.criteria[(number, criterion.code)] = criterion
    if share is not None:
        d.rates[(number, criterion.code)] = share


def _read_users(d: Restored, document: dict) -> None:
    """The users the file names: their accounts are checked, never a password read."""
    r = d.r
    for where, row in r.items(document, "users", ""):
        values = read_fields(r, row, where, table.USERS.spec())
        if any(not isinstance(group, str) for group in values["groups"] or []):
            r.error(where, "groups must be a list of group names.")
        check_clean(r, where, table.USERS.model(**table.USERS.own(values)), exclude=("password",))
        if values["username"] in d.users:
            r.error(where, f"the user “{values['username']}” appears twice.")
        d.users[values["username"]] = values


def _read_papers(d: Restored, document: dict) -> None:
    """Papers with their labels, blank problems and solutions; then the grading groups'
    jurors, once every user is known."""
    codes = set()
    for where, row in d.r.items(document, "papers", ""):
        _read_paper(d, codes, where, row)
    for paper in d.papers.values():
        # A paper without a code gets one now that every code in the file is known.
        if not paper.public_code:
            paper.public_code = draw_public_code(codes)
    for number, jurors in d.jurors_of.items():
        for username in jurors or []:
            if username is None:
                d.r.error(f"problem {number}.jurors", "expected a username; got null.")
            d.user_ref(username, f"problem {number}.jurors")


def _read_paper(d: Restored, codes: set, where: str, row) -> None:
    r = d.r
    if isinstance(row, dict):
        row = table.PAPERS.defaults | row
    values = read_fields(r, row, where, table.PAPERS.spec())
    paper_labels, blank_problems = values["labels"] or {}, values["blank_problems"] or []
    code = values["public_code"]
    paper = Paper(**table.PAPERS.own(values, "public_code", "created_at"))
    paper._created_at = values["created_at"]
    paper.public_code = code or ""
    check_clean(
        r, where, paper, exclude=("contest",) if code is not None else ("contest", "public_code")
    )
    if paper.identity in d.papers:
        r.error(where, f"the identity “{paper.identity}” appears twice.")
    if code is not None:
        if code in codes:
            r.error(where, f"the public code “{code}” appears twice.")
        codes.add(code)
    d.papers[paper.identity] = paper
    for number, label in paper_labels.items():
        if not number.isdigit() or int(number) not in d.problems or not isinstance(label, str):
            r.error(f"{where}.labels", f"“{number}”: “{label}” is not a label of a problem.")
            continue
        d.labels.append((paper.identity, int(number), label, int(number) in blank_problems))
    for number in blank_problems:
        if not isinstance(number, int) or str(number) not in paper_labels:
            r.error(
                f"{where}.blank_problems",
                f"“{number}” is not the number of a problem the paper has a label in.",
            )
    for sol_where, sol_row in r.items(row, "solutions", where):
        if isinstance(sol_row, dict):
            sol_row = table.SOLUTIONS.defaults | sol_row
        values = read_fields(r, sol_row, sol_where, table.SOLUTIONS.spec())
        if (values["problem"], values["task"]) not in d.tasks:
            r.error(
                sol_where,
                f"task {values['task']} of problem {values['problem']} is not in the file.",
            )
        d.solutions.append((paper.identity, values))
