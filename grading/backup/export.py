"""Backup and restore of one contest: the JSON document of its rows.

The document refers to everything by natural keys (contest slug, problem number, task external
id, criterion code, paper identity, username), never by primary key, so it restores into any
database. It holds the scheme, tasks, cut-offs, papers with identities, labels and solutions,
the users it mentions (username, names, e-mail, staff flag and group names: never passwords,
which stay out of backups; restored accounts get an unusable password and must have one set),
grading groups, assignments, sheets, marks with their full history, comments, resolutions with
their history, human scores, the inbox's notifications (read or not; a chair's request to
revise is a comment flagged only by its notification, so without them a restored request would
read as a plain comment), and human papers' scanned pages (each naming the archive member that
holds its PNG, not its stored file name, which a restore draws afresh). `grading.backup.archive`
writes it with the images into one file; `grading.backup.restore` reads it back.

Lists are sorted by natural key and the JSON is written with sorted keys, so exporting a
restored contest gives the same bytes as the export it was restored from."""

from collections import defaultdict
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from grading.models import (
    Assignment,
    Comment,
    GradingGroup,
    HumanCriterionRate,
    Mark,
    MarkEvent,
    Notification,
    PaperLabel,
    Resolution,
    ResolutionEvent,
    ScanPage,
    Sheet,
    Solution,
)
from grading.papers import images
from rubrics.models import Contest, Criterion, Task

FORMAT = "jury-contest-backup"
# Version 2 is a zip archive: this document (without images) as backup.json, each scanned
# page's PNG as its own member (grading.backup.archive). Version 1 was this document alone,
# each page's PNG as base64 inside it (grading.backup.legacy reads it).
VERSION = 2
LEGACY_VERSION = 1


def _dec(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def _when(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def _events_by(owner: str, events, fields: tuple[str, ...]) -> dict[int, list[dict]]:
    """History rows (mark or resolution events) grouped by the id of what they belong to, in the
    queryset's order: each its actor's username and `fields`, decimals and times as text."""
    grouped = defaultdict(list)
    for row in events.values(owner, "actor__username", *fields):
        grouped[row[owner]].append(
            {"actor": row["actor__username"], **{name: _plain(row[name]) for name in fields}}
        )
    return grouped


def _plain(value):
    if isinstance(value, Decimal):
        return _dec(value)
    if isinstance(value, datetime):
        return _when(value)
    return value


def contest_export(*, contest: Contest) -> dict:
    """The whole contest as a JSON-ready dict, in canonical order, its pages' images named by
    their archive members (`contest_document` gives the stored files too)."""
    return contest_document(contest=contest)[0]


def contest_document(*, contest: Contest) -> tuple[dict, list[Path]]:
    """The contest's document and its scanned pages' stored files, in the order of the
    document's "scan_pages". A fixed number of queries whatever the size of the contest."""
    problems = list(contest.problems.order_by("number"))
    tasks = defaultdict(list)
    for task in Task.objects.filter(problem__contest=contest).order_by("problem__number", "number"):
        tasks[task.problem_id].append(
            {
                "number": task.number,
                "external_id": task.external_id,
                "label": task.label,
                "task_type": task.task_type,
                "eval_type": task.eval_type,
                "work_lang": task.work_lang,
                "task_lang": task.task_lang,
                "context": task.context,
                "query": task.query,
                "item_count": task.item_count,
                "answers": task.answers,
                "split": task.split,
                "weight": _dec(task.weight),
                "reference_explanation": task.reference_explanation,
            }
        )
    rates = dict(
        HumanCriterionRate.objects.filter(criterion__problem__contest=contest).values_list(
            "criterion_id", "share_met"
        )
    )
    criteria = defaultdict(list)
    for row in (
        Criterion.objects.filter(problem__contest=contest)
        .order_by("problem__number", "order", "code")
        .values(
            "id",
            "problem_id",
            "code",
            "kind",
            "title",
            "guidance",
            "points",
            "step",
            "tolerance",
            "task__external_id",
            "order",
        )
    ):
        criteria[row["problem_id"]].append(
            {
                "code": row["code"],
                "kind": row["kind"],
                "title": row["title"],
                "guidance": row["guidance"],
                "points": _dec(row["points"]),
                "step": _dec(row["step"]),
                "tolerance": _dec(row["tolerance"]),
                "task": row["task__external_id"],
                "order": row["order"],
                "human_share_met": _dec(rates.get(row["id"])),
            }
        )

    labels = defaultdict(dict)
    # Problems each contestant left blank ("no answer"), by number (blank problems).
    blank = defaultdict(list)
    for identity, number, label, is_blank in PaperLabel.objects.filter(
        paper__contest=contest
    ).values_list("paper__identity", "problem__number", "label", "blank"):
        labels[identity][str(number)] = label
        if is_blank:
            blank[identity].append(number)
    solutions = defaultdict(list)
    for row in (
        Solution.objects.filter(paper__contest=contest)
        .order_by("paper__identity", "task__problem__number", "task__number")
        .values(
            "paper__identity",
            "task__problem__number",
            "task__external_id",
            "answers",
            "explanation",
            "raw",
            "parse_notes",
            "answers_given",
            "items_expected",
            "updated_at",
        )
    ):
        solutions[row["paper__identity"]].append(
            {
                "problem": row["task__problem__number"],
                "task": row["task__external_id"],
                "answers": row["answers"],
                "explanation": row["explanation"],
                "raw": row["raw"],
                "parse_notes": row["parse_notes"],
                "answers_given": row["answers_given"],
                "items_expected": row["items_expected"],
                "updated_at": _when(row["updated_at"]),
            }
        )
    papers = [
        {
            "identity": paper.identity,
            "public_code": paper.public_code,
            "source": paper.source,
            "metadata": paper.metadata,
            "selected_for_jury": paper.selected_for_jury,
            "created_at": _when(paper.created_at),
            "labels": labels[paper.identity],
            "blank_problems": sorted(blank[paper.identity]),
            "solutions": solutions[paper.identity],
        }
        # Creation order, not identity: restored in this order into an empty database, the
        # papers get back the ids they had (pages and exports show the public code instead).
        for paper in contest.papers.order_by("created_at", "identity")
    ]

    group_jurors: dict[int, list[str]] = {}
    for number, username in (
        GradingGroup.objects.filter(problem__contest=contest)
        .order_by("problem__number", "jurors__username")
        .values_list("problem__number", "jurors__username")
    ):
        # A group without jurors is still a group: it comes back as an empty list.
        names = group_jurors.setdefault(number, [])
        if username is not None:
            names.append(username)
    assignments = [
        {"problem": number, "paper": identity, "juror": username}
        for number, identity, username in Assignment.objects.filter(problem__contest=contest)
        .order_by("problem__number", "paper__identity", "juror__username")
        .values_list("problem__number", "paper__identity", "juror__username")
    ]
    sheets = [
        {"problem": number, "juror": username, "state": state, "submitted_at": _when(at)}
        for number, username, state, at in Sheet.objects.filter(problem__contest=contest)
        .order_by("problem__number", "juror__username")
        .values_list("problem__number", "juror__username", "state", "submitted_at")
    ]
    mark_events = _events_by(
        "mark_id",
        MarkEvent.objects.filter(mark__sheet__problem__contest=contest).order_by(
            "mark_id", "version"
        ),
        ("channel", "old_points", "new_points", "old_note", "new_note", "version", "created_at"),
    )
    marks = [
        {
            "problem": row["sheet__problem__number"],
            "juror": row["sheet__juror__username"],
            "paper": row["paper__identity"],
            "criterion": row["criterion__code"],
            "points": _dec(row["points"]),
            "note": row["note"],
            "version": row["version"],
            "updated_at": _when(row["updated_at"]),
            "events": mark_events[row["id"]],
        }
        for row in Mark.objects.filter(sheet__problem__contest=contest)
        .order_by(
            "sheet__problem__number", "sheet__juror__username", "paper__identity", "criterion__code"
        )
        .values(
            "id",
            "sheet__problem__number",
            "sheet__juror__username",
            "paper__identity",
            "criterion__code",
            "points",
            "note",
            "version",
            "updated_at",
        )
    ]
    comment_rows = list(
        Comment.objects.filter(paper__contest=contest)
        .order_by(
            "paper__identity", "criterion__problem__number", "criterion__code", "created_at", "id"
        )
        .values(
            "id",
            "paper__identity",
            "criterion__problem__number",
            "criterion__code",
            "author__username",
            "text",
            "created_at",
        )
    )
    comments = [
        {
            "paper": row["paper__identity"],
            "problem": row["criterion__problem__number"],
            "criterion": row["criterion__code"],
            "author": row["author__username"],
            "text": row["text"],
            "created_at": _when(row["created_at"]),
        }
        for row in comment_rows
    ]
    notifications = _notifications(contest, {row["id"]: i for i, row in enumerate(comment_rows)})
    resolution_events = _events_by(
        "resolution_id",
        ResolutionEvent.objects.filter(resolution__paper__contest=contest).order_by(
            "resolution_id", "created_at", "id"
        ),
        ("old_points", "new_points", "old_kind", "new_kind", "reason", "created_at"),
    )
    resolutions = [
        {
            "paper": row["paper__identity"],
            "problem": row["criterion__problem__number"],
            "criterion": row["criterion__code"],
            "kind": row["kind"],
            "points": _dec(row["points"]),
            "reason": row["reason"],
            "decided_by": row["decided_by__username"],
            "decided_at": _when(row["decided_at"]),
            "events": resolution_events[row["id"]],
        }
        for row in Resolution.objects.filter(paper__contest=contest)
        .order_by("paper__identity", "criterion__problem__number", "criterion__code")
        .values(
            "id",
            "paper__identity",
            "criterion__problem__number",
            "criterion__code",
            "kind",
            "points",
            "reason",
            "decided_by__username",
            "decided_at",
        )
    ]
    contest_events = [
        {"actor": row.pop("actor__username"), **{k: _plain(v) for k, v in row.items()}}
        for row in contest.events.order_by("created_at", "id").values(
            "actor__username", "from_state", "to_state", "reason", "created_at"
        )
    ]
    human_scores = [
        {"contestant": contestant, "problem_points": points, "total": _dec(total)}
        for contestant, points, total in contest.human_scores.order_by("contestant").values_list(
            "contestant", "problem_points", "total"
        )
    ]

    scan_pages, sources = _scan_pages(contest)

    usernames = {name for jurors in group_jurors.values() for name in jurors}
    usernames |= {row["juror"] for row in assignments} | {row["juror"] for row in sheets}
    usernames |= {event["actor"] for events in mark_events.values() for event in events}
    usernames |= {row["author"] for row in comments} | {row["decided_by"] for row in resolutions}
    usernames |= {event["actor"] for events in resolution_events.values() for event in events}
    usernames |= {event["actor"] for event in contest_events}
    usernames |= {row["recipient"] for row in notifications}
    usernames.discard(None)
    user_groups = defaultdict(list)
    for username, group in (
        User.groups.through.objects.filter(user__username__in=usernames)
        .order_by("user__username", "group__name")
        .values_list("user__username", "group__name")
    ):
        user_groups[username].append(group)
    users = [
        {
            "username": user.username,
            "first_name": user.first_name,
            "last_name": user.last_name,
            "email": user.email,
            "is_staff": user.is_staff,
            "is_active": user.is_active,
            "groups": user_groups[user.username],
        }
        for user in User.objects.filter(username__in=usernames).order_by("username")
    ]

    return {
        "format": FORMAT,
        "version": VERSION,
        "contest": {
            "slug": contest.slug,
            "name": contest.name,
            "state": contest.state,
            "max_total": _dec(contest.max_total),
            "created_at": _when(contest.created_at),
        },
        "cutoffs": [
            {"name": cutoff.name, "min_total": _dec(cutoff.min_total), "order": cutoff.order}
            for cutoff in contest.cutoffs.order_by("order")
        ],
        "problems": [
            {
                "number": problem.number,
                "title": problem.title,
                "language": problem.language,
                "max_points": _dec(problem.max_points),
                "tasks": tasks[problem.pk],
                "criteria": criteria[problem.pk],
                "jurors": group_jurors.get(problem.number),
            }
            for problem in problems
        ],
        "users": users,
        "papers": papers,
        "assignments": assignments,
        "sheets": sheets,
        "marks": marks,
        "comments": comments,
        "resolutions": resolutions,
        "human_scores": human_scores,
        "contest_events": contest_events,
        "notifications": notifications,
        "scan_pages": scan_pages,
    }, sources


def _notifications(contest: Contest, comment_index: dict[int, int]) -> list[dict]:
    """The contest's notifications, each person's together, oldest first; one query.

    A notification names the comment it announces by the comment's index in the document's
    "comments" list: comments have no natural key of their own (two alike may be written in
    the same instant), and that list's order is the same in every export of the same contest,
    so the index is too. Ties on a recipient's time stamp fall back on the id, which a restore
    draws in this same order, so a restored contest lists them alike."""
    return [
        {
            "recipient": row["recipient__username"],
            "kind": row["kind"],
            "problem": row["problem__number"],
            "paper": row["paper__identity"],
            "criterion": row["criterion__code"],
            "comment": comment_index.get(row["comment_id"]),
            "sentence": row["sentence"],
            "created_at": _when(row["created_at"]),
            "read_at": _when(row["read_at"]),
        }
        for row in Notification.objects.filter(contest=contest)
        .order_by("recipient__username", "created_at", "id")
        .values(
            "recipient__username",
            "kind",
            "problem__number",
            "paper__identity",
            "criterion__code",
            "comment_id",
            "sentence",
            "created_at",
            "read_at",
        )
    ]


def _scan_pages(contest: Contest) -> tuple[list[dict], list[Path]]:
    """Human papers' scanned pages, each naming its image's member of the archive by a neutral
    index (never the stored file name, nor anything of the paper), and the stored files in the
    same order; one query. A page whose image is missing from SCANS_DIR is refused with a
    sentence: a backup without it would lose it."""
    rows, sources = [], []
    for index, row in enumerate(
        ScanPage.objects.filter(paper__contest=contest)
        .order_by("paper__identity", "problem__number", "position")
        .values(
            "paper__identity",
            "problem__number",
            "position",
            "image",
            "width",
            "height",
            "created_at",
        ),
        start=1,
    ):
        source = images.scans_dir() / row["image"]
        if not source.is_file():
            raise ValidationError(
                f"The image of page {row['position']} of {row['paper__identity']}'s answer to "
                f"problem {row['problem__number']} is missing from SCANS_DIR ({row['image']}); "
                "put the file back or import the scans again before backing up."
            )
        rows.append(
            {
                "paper": row["paper__identity"],
                "problem": row["problem__number"],
                "position": row["position"],
                "width": row["width"],
                "height": row["height"],
                "created_at": _when(row["created_at"]),
                "image": page_member(index),
            }
        )
        sources.append(source)
    return rows, sources


def page_member(index: int) -> str:
    """The archive's member holding the index-th page image (from 1), in the document's order."""
    return f"pages/{index:06d}.png"
