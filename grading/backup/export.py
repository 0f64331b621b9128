"""Backup and restore of one contest: the JSON document of its rows.

The document refers to everything by natural keys (contest slug, problem number, task external
id, criterion code, paper identity, username), never by primary key, so it restores into any
database. It holds the scheme, tasks, cut-offs, papers with identities, labels and solutions,
the users it mentions (username, names, e-mail, staff flag and group names: never passwords,
which stay out of backups; restored accounts get an unusable password and must have one set),
grading groups, assignments, sheets, marks with their full history, comments, resolutions with
their history, human scores, the inbox's notifications (read or not; a chair's request to
revise is a comment flagged only by its notification, so without them a restored request would
read as a plain comment), the delegations with their leaders and contestants, the provisional
results, the appeals deadline's changes, the appeals with their criteria and events, each
problem's comment bank (its criteria's notes, their authors and uses), the papers moved from
one juror to another during grading, the jurors' questions for language help with their
answers, the conflicts of interest the organizer declared, the assignment's facts of the users
it names (country, capacity, availability, languages read), the appeals evening with its tables
and meetings, and the discussion sessions with their members and outcomes, each outcome with
who was present (`grading.backup.export_room`) (each of these lists only when it holds
something, and the contest's appeals deadline, working language, a paper's answer language and
a delegation's country only when they are not the default, so that a contest without them
exports as it did before they existed), and human papers' scanned pages (each
naming the archive member that holds its PNG, not its stored file name, which a restore draws
afresh). `grading.backup.archive` writes it with the images into one file;
`grading.backup.restore` reads it back.

Lists are sorted by natural key and the JSON is written with sorted keys, so exporting a
restored contest gives the same bytes as the export it was restored from. Each section's rows
come through its entry in `grading.backup.table`, one query each."""

from collections import defaultdict
from pathlib import Path

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import Q

from grading.backup import table
from grading.backup.export_room import room_rows, room_usernames
from grading.backup.sections import plain
from grading.backup.table import FORMAT, VERSION
from grading.models import Delegation, GradingGroup, HumanCriterionRate, Paper, PaperLabel
from grading.papers import images
from rubrics.models import Contest


def contest_export(*, contest: Contest) -> dict:
    """The whole contest as a JSON-ready dict, in canonical order, its pages' images named by
    their archive members (`contest_document` gives the stored files too)."""
    return contest_document(contest=contest)[0]


def contest_document(*, contest: Contest) -> tuple[dict, list[Path]]:
    """The contest's document and its scanned pages' stored files, in the order of the
    document's "scan_pages". A fixed number of queries whatever the size of the contest."""
    comments, comment_ids = _comments(contest)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "contest": _contest(contest),
        "cutoffs": [table.CUTOFFS.document(row) for row in table.CUTOFFS.rows(contest)],
        "problems": _problems(contest),
        "papers": _papers(contest),
        "assignments": _plain_rows(table.ASSIGNMENTS, contest),
        "sheets": _plain_rows(table.SHEETS, contest),
        "marks": _with_events(table.MARKS, table.MARK_EVENTS, "mark_id", contest),
        "comments": comments,
        "resolutions": _with_events(
            table.RESOLUTIONS, table.RESOLUTION_EVENTS, "resolution_id", contest
        ),
        "human_scores": _plain_rows(table.HUMAN_SCORES, contest),
        "contest_events": _plain_rows(table.CONTEST_EVENTS, contest),
        "notifications": _notifications(contest, comment_ids),
    }
    for key, rows in (
        _appeals(contest)
        | _moves_and_help(contest)
        | _calibration(contest)
        | _seeds(contest)
        | room_rows(contest)
    ).items():
        if rows:
            document[key] = rows
    document["scan_pages"], sources = _scan_pages(contest)
    usernames = _usernames(document)
    document["users"] = _users(usernames)
    for key, rows in _juror_facts(usernames).items():
        if rows:
            document[key] = rows
    return document, sources


def _plain_rows(section: table.Section, contest: Contest) -> list[dict]:
    return [section.document(row) for row in section.rows(contest)]


def _contest(contest: Contest) -> dict:
    return table.CONTEST.written(
        {column.name: plain(getattr(contest, column.name)) for column in table.CONTEST.columns}
    )


def _problems(contest: Contest) -> list[dict]:
    """Problems with their tasks, criteria and grading group's jurors (null without a group)."""
    tasks, criteria = defaultdict(list), defaultdict(list)
    for row in table.TASKS.rows(contest, "problem_id"):
        tasks[row["problem_id"]].append(table.TASKS.document(row))
    versions = defaultdict(list)
    for row in table.SCHEME_VERSIONS.rows(contest, "problem_id"):
        versions[row["problem_id"]].append(table.SCHEME_VERSIONS.document(row))
    rates = dict(
        HumanCriterionRate.objects.filter(criterion__problem__contest=contest).values_list(
            "criterion_id", "share_met"
        )
    )
    for row in table.CRITERIA.rows(contest, "id", "problem_id"):
        criterion = table.CRITERIA.document(row)
        criterion["human_share_met"] = plain(rates.get(row["id"]))
        criteria[row["problem_id"]].append(criterion)
    jurors = _group_jurors(contest)
    bank = defaultdict(list)
    for row in table.BANK.rows(contest, "criterion__problem_id"):
        bank[row["criterion__problem_id"]].append(table.BANK.document(row))
    return [
        table.PROBLEMS.document(row)
        | {
            "tasks": tasks[row["id"]],
            "criteria": criteria[row["id"]],
            "jurors": jurors.get(row["number"]),
        }
        # Left out while the problem has none (`sparse_list`).
        | ({"scheme_versions": versions[row["id"]]} if versions[row["id"]] else {})
        # Only when it holds notes, as every list added after backups were first written.
        | ({"bank": bank[row["id"]]} if bank[row["id"]] else {})
        for row in table.PROBLEMS.rows(contest, "id")
    ]


def _group_jurors(contest: Contest) -> dict[int, list[str]]:
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
    return group_jurors


def _papers(contest: Contest) -> list[dict]:
    """Papers with their labels by problem number, the problems left blank ("no answer") and
    their solutions."""
    labels, blank = defaultdict(dict), defaultdict(list)
    for identity, number, label, is_blank in PaperLabel.objects.filter(
        paper__contest=contest
    ).values_list("paper__identity", "problem__number", "label", "blank"):
        labels[identity][str(number)] = label
        if is_blank:
            blank[identity].append(number)
    solutions = defaultdict(list)
    for row in table.SOLUTIONS.rows(contest, "paper__identity"):
        solutions[row["paper__identity"]].append(table.SOLUTIONS.document(row))
    return [
        table.PAPERS.document(row)
        | {
            "labels": labels[row["identity"]],
            "blank_problems": sorted(blank[row["identity"]]),
            "solutions": solutions[row["identity"]],
        }
        for row in table.PAPERS.rows(contest)
    ]


def _with_events(
    section: table.Section, events: table.Section, owner: str, contest: Contest
) -> list[dict]:
    """Marks or resolutions, each with its history ("events") in the history's order."""
    history = defaultdict(list)
    for row in events.rows(contest, owner):
        history[row[owner]].append(events.document(row))
    return [
        section.document(row) | {"events": history[row["id"]]}
        for row in section.rows(contest, "id")
    ]


def _appeals(contest: Contest) -> dict[str, list[dict]]:
    """The delegations (each with its leaders' usernames and its contestants' identities), the
    provisional results, the deadline's changes and the appeals (each with its criteria and
    events), by their key in the document."""
    leaders, papers = defaultdict(list), defaultdict(list)
    for delegation_id, username in (
        Delegation.leaders.through.objects.filter(delegation__contest=contest)
        .order_by("user__username")
        .values_list("delegation_id", "user__username")
    ):
        leaders[delegation_id].append(username)
    for delegation_id, identity in (
        Paper.objects.filter(contest=contest, delegation__isnull=False)
        .order_by("identity")
        .values_list("delegation_id", "identity")
    ):
        papers[delegation_id].append(identity)
    criteria = defaultdict(list)
    for row in table.APPEAL_CRITERIA.rows(contest, "appeal_id"):
        criteria[row["appeal_id"]].append(table.APPEAL_CRITERIA.document(row))
    events = defaultdict(list)
    for row in table.APPEAL_EVENTS.rows(contest, "appeal_id"):
        events[row["appeal_id"]].append(table.APPEAL_EVENTS.document(row))
    return {
        "delegations": [
            table.DELEGATIONS.document(row)
            | {"leaders": leaders[row["id"]], "papers": papers[row["id"]]}
            for row in table.DELEGATIONS.rows(contest, "id")
        ],
        "provisional_results": _plain_rows(table.PROVISIONAL_RESULTS, contest),
        "appeal_deadline_changes": _plain_rows(table.APPEAL_DEADLINE_CHANGES, contest),
        "appeals": [
            table.APPEALS.document(row)
            | {"criteria": criteria[row["id"]], "events": events[row["id"]]}
            for row in table.APPEALS.rows(contest, "id")
        ],
    }


def _moves_and_help(contest: Contest) -> dict[str, list[dict]]:
    """Papers moved from one juror to another during grading, the jurors' questions for
    language help with their helpers and answers, and the conflicts the organizer declared, by
    their key in the document."""
    return {
        "assignment_moves": _plain_rows(table.ASSIGNMENT_MOVES, contest),
        "help_requests": _plain_rows(table.HELP_REQUESTS, contest),
        "declared_conflicts": _declared(contest),
        "conflict_rulings": _plain_rows(table.CONFLICT_RULINGS, contest),
    }


def _declared(contest: Contest) -> list[dict]:
    """The declared conflicts with the contest's delegations and contestants; one query."""
    section = table.DECLARED_CONFLICTS
    rows = section.rows_where({}).filter(Q(delegation__contest=contest) | Q(paper__contest=contest))
    return [section.document(row) for row in rows]


def _calibration(contest: Contest) -> dict[str, list[dict]]:
    """The problems' calibration rounds, each with its papers (and their references) and its
    jurors' calibration sheets (and their marks with their events); seven queries, one for a
    contest without a round."""

    def grouped(section: table.Section, owner: str, *extra: str) -> dict:
        rows = defaultdict(list)
        for row in section.rows(contest, owner, *extra):
            rows[row[owner]].append(row)
        return rows

    rounds = list(table.CALIBRATION_ROUNDS.rows(contest, "id"))
    if not rounds:
        # The rest would read nothing: a contest without a round costs one query.
        return {"calibration_rounds": []}
    references = grouped(table.REFERENCE_MARKS, "calibration_paper_id", "id")
    history = grouped(table.REFERENCE_MARK_EVENTS, "reference_id")
    events = grouped(table.CALIBRATION_MARK_EVENTS, "mark_id")
    marks = grouped(table.CALIBRATION_MARKS, "sheet_id", "id")
    papers = grouped(table.CALIBRATION_PAPERS, "round_id", "id")
    sheets = grouped(table.CALIBRATION_SHEETS, "round_id", "id")

    def with_nested(section, row, key, nested_section, nested):
        return section.document(row) | {
            key: [nested_section.document(item) for item in nested[row["id"]]]
        }

    def reference(row):
        # Its history is left out while it has none, as a reference made before the history.
        changes = [table.REFERENCE_MARK_EVENTS.document(item) for item in history[row["id"]]]
        return table.REFERENCE_MARKS.document(row) | ({"history": changes} if changes else {})

    return {
        "calibration_rounds": [
            table.CALIBRATION_ROUNDS.document(row)
            | {
                "papers": [
                    table.CALIBRATION_PAPERS.document(paper)
                    | {"references": [reference(item) for item in references[paper["id"]]]}
                    for paper in papers[row["id"]]
                ],
                "sheets": [
                    table.CALIBRATION_SHEETS.document(sheet)
                    | {
                        "marks": [
                            with_nested(
                                table.CALIBRATION_MARKS,
                                mark,
                                "events",
                                table.CALIBRATION_MARK_EVENTS,
                                events,
                            )
                            for mark in marks[sheet["id"]]
                        ]
                    }
                    for sheet in sheets[row["id"]]
                ],
            }
            for row in rounds
        ]
    }


def _seeds(contest: Contest) -> dict[str, list[dict]]:
    """The seeds of the contest's seeded problems and their marks, each with its history."""
    return {
        "seeds": _plain_rows(table.SEEDS, contest),
        "seed_marks": _with_events(table.SEED_MARKS, table.SEED_MARK_EVENTS, "mark_id", contest),
    }


def _juror_facts(usernames: set[str]) -> dict[str, list[dict]]:
    """The assignment's facts of the users the document names (country, capacity, availability,
    the languages they read), by their key in the document; two queries."""
    where = {"user__username__in": usernames}
    return {
        section.key: [section.document(row) for row in section.rows_where(where)]
        for section in (table.JUROR_PROFILES, table.JUROR_LANGUAGES)
    }


def _comments(contest: Contest) -> tuple[list[dict], dict[int, int]]:
    """The comments, and each comment's index in their list by its id."""
    rows = list(table.COMMENTS.rows(contest, "id"))
    return [table.COMMENTS.document(row) for row in rows], {
        row["id"]: index for index, row in enumerate(rows)
    }


def _notifications(contest: Contest, comment_index: dict[int, int]) -> list[dict]:
    """The contest's notifications, each person's together, oldest first; one query.

    A notification names the comment it announces by the comment's index in the document's
    "comments" list: comments have no natural key of their own (two alike may be written in
    the same instant), and that list's order is the same in every export of the same contest,
    so the index is too. Ties on a recipient's time stamp fall back on the id, which a restore
    draws in this same order, so a restored contest lists them alike."""
    return [
        table.NOTIFICATIONS.document(row) | {"comment": comment_index.get(row["comment_id"])}
        for row in table.NOTIFICATIONS.rows(contest, "comment_id")
    ]


def _scan_pages(contest: Contest) -> tuple[list[dict], list[Path]]:
    """Human papers' scanned pages, each naming its image's member of the archive by a neutral
    index (never the stored file name, nor anything of the paper), and the stored files in the
    same order; one query. A page whose image is missing from SCANS_DIR is refused with a
    sentence: a backup without it would lose it."""
    rows, sources = [], []
    for index, row in enumerate(table.SCAN_PAGES.rows(contest, "image"), start=1):
        source = images.scans_dir() / row["image"]
        if not source.is_file():
            raise ValidationError(
                f"The image of page {row['position']} of {row['paper__identity']}'s answer to "
                f"problem {row['problem__number']} is missing from SCANS_DIR ({row['image']}); "
                "put the file back or import the scans again before backing up."
            )
        rows.append(table.SCAN_PAGES.document(row) | {"image": page_member(index)})
        sources.append(source)
    return rows, sources


def _usernames(document: dict) -> set[str]:
    """Everyone the document names: jurors, leaders, authors, deciders, actors and recipients."""
    names = {name for problem in document["problems"] for name in problem["jurors"] or []}
    names |= {
        version["created_by"]
        for problem in document["problems"]
        for version in problem.get("scheme_versions", [])
    }
    names |= {row["author"] for problem in document["problems"] for row in problem.get("bank", [])}
    names |= {name for row in document.get("delegations", []) for name in row["leaders"]}
    appeals = document.get("appeals", [])
    names |= {event["actor"] for row in appeals for event in row["events"]}
    names |= {row["actor"] for row in document.get("appeal_deadline_changes", [])}
    names |= {row[field] for row in appeals for field in ("filed_by", "decided_by")}
    for row in document.get("calibration_rounds", []):
        names.add(row["created_by"])
        for sheet in row["sheets"]:
            names.add(sheet["juror"])
            names |= {event["actor"] for mark in sheet["marks"] for event in mark["events"]}
    for key, fields in (
        ("assignment_moves", ("from_juror", "to_juror", "actor")),
        ("help_requests", ("asked_by", "helper", "assigned_by")),
        ("declared_conflicts", ("juror", "declared_by")),
        ("conflict_rulings", ("juror", "decided_by")),
        ("seeds", ("juror",)),
    ):
        names |= {row[field] for row in document.get(key, []) for field in fields}
    for key, field in (
        ("assignments", "juror"),
        ("sheets", "juror"),
        ("comments", "author"),
        ("resolutions", "decided_by"),
        ("contest_events", "actor"),
        ("notifications", "recipient"),
    ):
        names |= {row[field] for row in document[key]}
    for key in ("marks", "resolutions"):
        names |= {event["actor"] for row in document[key] for event in row["events"]}
    names |= {e["actor"] for row in document.get("seed_marks", []) for e in row["events"]}
    names |= room_usernames(document)
    names.discard(None)
    return names


def _users(usernames: set[str]) -> list[dict]:
    """The users the document names, with their groups' names; never a password."""
    groups = defaultdict(list)
    for username, group in (
        User.groups.through.objects.filter(user__username__in=usernames)
        .order_by("user__username", "group__name")
        .values_list("user__username", "group__name")
    ):
        groups[username].append(group)
    users = User.objects.filter(username__in=usernames).order_by(*table.USERS.order)
    return [
        table.USERS.document(row) | {"groups": groups[row["username"]]}
        for row in users.values(*(c.name for c in table.USERS.columns if c.lookup))
    ]


def page_member(index: int) -> str:
    """The archive's member holding the index-th page image (from 1), in the document's order."""
    return f"pages/{index:06d}.png"
