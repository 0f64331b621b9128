"""Writing a restored contest, once its backup is read and checked in full
(`grading.backup.restore`): every table in bulk, in the order of `contest_write`, so that rows
restored into an empty database draw back the ids they had; time stamps put back as exported
(each section's `stamps` in `grading.backup.table`), scanned pages' images moved in from the
restore's staging folder under fresh names."""

from itertools import batched

from django.contrib.auth.models import Group, User

from grading.backup import table
from grading.backup.reader import ImportSummary, Restored
from grading.backup.restore_rows import mark_rows
from grading.backup.writing_appeals import write_appeals, write_delegations
from grading.backup.writing_assigning import (
    write_declared_conflicts,
    write_juror_facts,
    write_moves_and_help,
)
from grading.backup.writing_bank import write_bank
from grading.backup.writing_calibration import write_calibration
from grading.backup.writing_room import write_room
from grading.backup.writing_seeds import write_seeds
from grading.models import (
    Assignment,
    Comment,
    ContestEvent,
    GradingGroup,
    HumanCriterionRate,
    HumanScore,
    Mark,
    MarkEvent,
    Notification,
    Paper,
    PaperLabel,
    Resolution,
    ResolutionEvent,
    ScanPage,
    Sheet,
    Solution,
)
from grading.papers import images
from grading.rules import roles
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, SchemeVersion, Task

# Marks written at a time: a few MB of rows and objects, whatever the contest's size.
MARKS_AT_ONCE = 2000


def contest_write(d: Restored, *, staging) -> ImportSummary:
    """Write everything `d` holds; `staging` moves the pages' images in (None: a dry run,
    which moves none)."""
    _write_scheme(d)
    users, created = _write_users(d)
    write_juror_facts(d, users, created)
    write_delegations(d, users)
    _write_papers(d)
    pages = _write_scan_pages(d, staging)
    sheets = _write_assignments_and_sheets(d, users)
    marks, events = _write_marks(d, users, sheets)
    comments = _write_comments(d, users)
    _write_resolutions(d, users)
    _write_contest_rows(d, users, comments)
    write_appeals(d, users)
    write_moves_and_help(d, users)
    write_declared_conflicts(d, users)
    write_calibration(d, users)
    write_seeds(d, users)
    write_bank(d, users)
    write_room(d, users)
    return ImportSummary(
        contest=d.contest,
        papers=len(d.papers),
        marks=marks,
        mark_events=events,
        users_created=created,
        scan_pages=pages,
    )


def _write_scheme(d: Restored) -> None:
    contest = d.contest
    contest.save()
    Contest.objects.filter(pk=contest.pk).update(created_at=d.head["created_at"])
    for cutoff in d.cutoffs:
        cutoff.contest = contest
    MedalCutoff.objects.bulk_create(d.cutoffs)
    for problem in d.problems.values():
        problem.contest = contest
    Problem.objects.bulk_create(d.problems.values())
    for task in d.tasks.values():
        task.problem = d.problems[task._problem_number]
    Task.objects.bulk_create(d.tasks.values())
    for criterion in d.criteria.values():
        number, task_id = criterion._refs
        criterion.problem = d.problems[number]
        criterion.task = d.tasks[(number, task_id)] if task_id is not None else None
    Criterion.objects.bulk_create(d.criteria.values())
    HumanCriterionRate.objects.bulk_create(
        HumanCriterionRate(criterion=d.criteria[key], share_met=share)
        for key, share in d.rates.items()
    )


def _write_users(d: Restored) -> tuple[dict[str, User], list[str]]:
    """Reuse existing accounts untouched; create the others without a usable password. The
    accounts by username, and the usernames created."""
    existing = {user.username: user for user in User.objects.filter(username__in=d.users)}
    created = []
    group_names = sorted({name for values in d.users.values() for name in values["groups"]})
    if set(group_names) & set(roles.ROLES):
        roles.ensure_role_groups()
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in group_names}
    for username, values in sorted(d.users.items()):
        if username in existing:
            continue
        user = User(**table.USERS.own(values))
        user.set_unusable_password()
        user.save()
        user.groups.set([groups[name] for name in values["groups"]])
        existing[username] = user
        created.append(username)
    return existing, created


def _write_papers(d: Restored) -> None:
    """Papers (in the file's order), their labels and their solutions."""
    papers = list(d.papers.values())
    for paper in papers:
        paper.contest = d.contest
    Paper.objects.bulk_create(papers)
    table.PAPERS.put_back_stamps(papers, [{"created_at": paper._created_at} for paper in papers])
    PaperLabel.objects.bulk_create(
        PaperLabel(paper=d.papers[identity], problem=d.problems[number], label=label, blank=blank)
        for identity, number, label, blank in d.labels
    )
    new_solutions = [
        Solution(
            paper=d.papers[identity],
            task=d.tasks[(values["problem"], values["task"])],
            **table.SOLUTIONS.own(values, "updated_at"),
        )
        for identity, values in d.solutions
    ]
    Solution.objects.bulk_create(new_solutions)
    table.SOLUTIONS.put_back_stamps(new_solutions, [values for _, values in d.solutions])


def _write_scan_pages(d: Restored, staging) -> int:
    new_pages = []
    for row in d.scan_pages:
        # A dry run moves no image: its pages name files that will never exist.
        name = images.random_name() if staging is None else staging.place(row["staged"])
        new_pages.append(
            ScanPage(
                paper=d.papers[row["paper"]],
                problem=d.problems[row["problem"]],
                image=name,
                **table.SCAN_PAGES.own(row, "created_at"),
            )
        )
    ScanPage.objects.bulk_create(new_pages)
    table.SCAN_PAGES.put_back_stamps(new_pages, d.scan_pages)
    return len(new_pages)


def _write_assignments_and_sheets(d: Restored, users: dict) -> dict[tuple, Sheet]:
    """Grading groups with their jurors, assignments and sheets; the sheets by problem number
    and juror."""
    for number, jurors in d.jurors_of.items():
        if jurors is not None:
            group = GradingGroup.objects.create(problem=d.problems[number])
            group.jurors.set([users[username] for username in jurors])
    Assignment.objects.bulk_create(
        Assignment(
            paper=d.papers[row["paper"]],
            problem=d.problems[row["problem"]],
            juror=users[row["juror"]],
        )
        for row in d.assignments
    )
    sheets = {
        (row["problem"], row["juror"]): Sheet(
            problem=d.problems[row["problem"]],
            juror=users[row["juror"]],
            **table.SHEETS.own(row),
        )
        for row in d.sheets
    }
    Sheet.objects.bulk_create(sheets.values())
    return sheets


def _write_scheme_versions(d: Restored, users: dict) -> dict:
    """The problems' scheme versions, by (problem number, version number)."""
    versions = {
        key: SchemeVersion(
            problem=d.problems[key[0]],
            created_by=users.get(values["created_by"]),
            **table.SCHEME_VERSIONS.own(values, "created_at"),
        )
        for key, (values, _) in d.scheme_versions.items()
    }
    SchemeVersion.objects.bulk_create(versions.values())
    table.SCHEME_VERSIONS.put_back_stamps(
        list(versions.values()), [values for values, _ in d.scheme_versions.values()]
    )
    return versions


def _write_marks(d: Restored, users: dict, sheets: dict) -> tuple[int, int]:
    """Marks (each reopened one with its scheme version) and their history, read again from
    the document MARKS_AT_ONCE at a time so that memory does not grow with them; how many of
    each. Written in the file's order, so that ids come back as they were."""
    versions = _write_scheme_versions(d, users)
    marks = events = 0
    for batch in batched(mark_rows(d), MARKS_AT_ONCE):
        new_marks = [
            Mark(
                sheet=sheets[(values["problem"], values["juror"])],
                paper=d.papers[values["paper"]],
                criterion=d.criteria[(values["problem"], values["criterion"])],
                reopened_by=versions.get((values["problem"], values["reopened_by"])),
                **table.MARKS.own(values, "updated_at"),
            )
            for values, _ in batch
        ]
        Mark.objects.bulk_create(new_marks)
        table.MARKS.put_back_stamps(new_marks, [values for values, _ in batch])
        new_events = [
            MarkEvent(mark=mark, actor=users.get(event["actor"]), **table.MARK_EVENTS.own(event))
            for mark, (_, history) in zip(new_marks, batch, strict=True)
            for event in history
        ]
        MarkEvent.objects.bulk_create(new_events)
        table.MARK_EVENTS.put_back_stamps(new_events, [e for _, history in batch for e in history])
        marks, events = marks + len(new_marks), events + len(new_events)
        d.steps.step(len(batch))
    return marks, events


def _write_comments(d: Restored, users: dict) -> list[Comment]:
    new_comments = [
        Comment(
            paper=d.papers[row["paper"]],
            criterion=d.criteria[(row["problem"], row["criterion"])],
            author=users[row["author"]],
            **table.COMMENTS.own(row, "created_at"),
        )
        for row in d.comments
    ]
    Comment.objects.bulk_create(new_comments)
    table.COMMENTS.put_back_stamps(new_comments, d.comments)
    return new_comments


def _write_resolutions(d: Restored, users: dict) -> None:
    new_resolutions = [
        Resolution(
            paper=d.papers[values["paper"]],
            criterion=d.criteria[(values["problem"], values["criterion"])],
            decided_by=users.get(values["decided_by"]),
            **table.RESOLUTIONS.own(values, "decided_at"),
        )
        for values, _ in d.resolutions
    ]
    Resolution.objects.bulk_create(new_resolutions)
    table.RESOLUTIONS.put_back_stamps(new_resolutions, [values for values, _ in d.resolutions])
    new_events = [
        ResolutionEvent(
            resolution=resolution,
            actor=users.get(event["actor"]),
            **table.RESOLUTION_EVENTS.own(event),
        )
        for resolution, (_, events) in zip(new_resolutions, d.resolutions, strict=True)
        for event in events
    ]
    ResolutionEvent.objects.bulk_create(new_events)
    table.RESOLUTION_EVENTS.put_back_stamps(
        new_events, [e for _, events in d.resolutions for e in events]
    )


def _write_contest_rows(d: Restored, users: dict, comments: list[Comment]) -> None:
    """Human scores, the contest's events and the notifications (each naming its comment by
    its index in the file's list of comments)."""
    for score in d.human_scores:
        score.contest = d.contest
    HumanScore.objects.bulk_create(d.human_scores)
    new_events = [
        ContestEvent(
            contest=d.contest, actor=users.get(row["actor"]), **table.CONTEST_EVENTS.own(row)
        )
        for row in d.contest_events
    ]
    ContestEvent.objects.bulk_create(new_events)
    table.CONTEST_EVENTS.put_back_stamps(new_events, d.contest_events)
    new_notifications = [
        Notification(
            recipient=users[row["recipient"]],
            contest=d.contest,
            problem=d.problems.get(row["problem"]),
            paper=d.papers.get(row["paper"]),
            criterion=d.criteria.get((row["problem"], row["criterion"])),
            comment=None if row["comment"] is None else comments[row["comment"]],
            **table.NOTIFICATIONS.own(row),
        )
        for row in d.notifications
    ]
    Notification.objects.bulk_create(new_notifications)
    table.NOTIFICATIONS.put_back_stamps(new_notifications, d.notifications)
    d.seed_refs += [
        (notice, row["problem"], row["seed"])
        for notice, row in zip(new_notifications, d.notifications, strict=True)
        if row.get("seed") is not None
    ]
