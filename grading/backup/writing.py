"""Writing a restored contest, once its backup is read and checked in full
(`grading.backup.restore`): every table in bulk, time stamps put back as exported, scanned pages'
images moved in from the restore's staging folder under fresh names."""

from django.contrib.auth.models import Group, User

from grading.backup.reader import ImportSummary, without
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
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, Task


def contest_write(
    *,
    staging,
    scan_pages,
    contest,
    created_at,
    cutoffs,
    problems,
    tasks,
    criteria,
    rates,
    jurors_of,
    users,
    papers,
    labels,
    solutions,
    assignments,
    sheets,
    marks,
    comments,
    resolutions,
    human_scores,
    contest_events,
    notifications,
) -> ImportSummary:
    contest.save()
    Contest.objects.filter(pk=contest.pk).update(created_at=created_at)
    for cutoff in cutoffs:
        cutoff.contest = contest
    MedalCutoff.objects.bulk_create(cutoffs)
    for problem in problems.values():
        problem.contest = contest
    Problem.objects.bulk_create(problems.values())
    for task in tasks.values():
        task.problem = problems[task._problem_number]
    Task.objects.bulk_create(tasks.values())
    for criterion in criteria.values():
        number, task_id = criterion._refs
        criterion.problem = problems[number]
        criterion.task = tasks[(number, task_id)] if task_id is not None else None
    Criterion.objects.bulk_create(criteria.values())
    HumanCriterionRate.objects.bulk_create(
        HumanCriterionRate(criterion=criteria[key], share_met=share) for key, share in rates.items()
    )

    # Users: reuse existing accounts untouched; create the others without a usable password.
    existing = {user.username: user for user in User.objects.filter(username__in=users)}
    created = []
    group_names = sorted({name for values in users.values() for name in values["groups"]})
    if set(group_names) & set(roles.ROLES):
        roles.ensure_role_groups()
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in group_names}
    for username, values in sorted(users.items()):
        if username in existing:
            continue
        user = User(**{k: v for k, v in values.items() if k != "groups"})
        user.set_unusable_password()
        user.save()
        user.groups.set([groups[name] for name in values["groups"]])
        existing[username] = user
        created.append(username)
    user_of = existing

    for paper in papers.values():
        paper.contest = contest
    Paper.objects.bulk_create(papers.values())
    for paper in papers.values():
        paper.created_at = paper._created_at
    Paper.objects.bulk_update(papers.values(), ["created_at"])
    new_pages = []
    for row in scan_pages:
        # A dry run moves no image: its pages name files that will never exist.
        name = images.random_name() if staging is None else staging.place(row["staged"])
        new_pages.append(
            ScanPage(
                paper=papers[row["paper"]],
                problem=problems[row["problem"]],
                position=row["position"],
                image=name,
                width=row["width"],
                height=row["height"],
            )
        )
    ScanPage.objects.bulk_create(new_pages)
    _restore_created_at(ScanPage, new_pages, scan_pages)
    PaperLabel.objects.bulk_create(
        PaperLabel(paper=papers[identity], problem=problems[number], label=label, blank=blank)
        for identity, number, label, blank in labels
    )
    new_solutions = [
        Solution(
            paper=papers[identity],
            task=tasks[(values["problem"], values["task"])],
            answers=values["answers"],
            explanation=values["explanation"],
            raw=values["raw"],
            parse_notes=values["parse_notes"],
            answers_given=values["answers_given"],
            items_expected=values["items_expected"],
        )
        for identity, values in solutions
    ]
    Solution.objects.bulk_create(new_solutions)
    for solution, (_, values) in zip(new_solutions, solutions, strict=True):
        solution.updated_at = values["updated_at"]
    Solution.objects.bulk_update(new_solutions, ["updated_at"])

    for number, jurors in jurors_of.items():
        if jurors is not None:
            group = GradingGroup.objects.create(problem=problems[number])
            group.jurors.set([user_of[username] for username in jurors])
    Assignment.objects.bulk_create(
        Assignment(
            paper=papers[row["paper"]],
            problem=problems[row["problem"]],
            juror=user_of[row["juror"]],
        )
        for row in assignments
    )
    new_sheets = {
        (row["problem"], row["juror"]): Sheet(
            problem=problems[row["problem"]],
            juror=user_of[row["juror"]],
            state=row["state"],
            submitted_at=row["submitted_at"],
        )
        for row in sheets
    }
    Sheet.objects.bulk_create(new_sheets.values())

    new_marks = [
        Mark(
            sheet=new_sheets[(values["problem"], values["juror"])],
            paper=papers[values["paper"]],
            criterion=criteria[(values["problem"], values["criterion"])],
            points=values["points"],
            note=values["note"],
            version=values["version"],
        )
        for values, _ in marks
    ]
    Mark.objects.bulk_create(new_marks)
    for mark, (values, _) in zip(new_marks, marks, strict=True):
        mark.updated_at = values["updated_at"]
    Mark.objects.bulk_update(new_marks, ["updated_at"], batch_size=500)
    new_events = [
        MarkEvent(mark=mark, actor=user_of.get(event["actor"]), **without(event, "actor"))
        for mark, (_, events) in zip(new_marks, marks, strict=True)
        for event in events
    ]
    MarkEvent.objects.bulk_create(new_events)
    _restore_created_at(MarkEvent, new_events, [e for _, events in marks for e in events])

    new_comments = [
        Comment(
            paper=papers[row["paper"]],
            criterion=criteria[(row["problem"], row["criterion"])],
            author=user_of[row["author"]],
            text=row["text"],
        )
        for row in comments
    ]
    Comment.objects.bulk_create(new_comments)
    _restore_created_at(Comment, new_comments, comments)

    new_resolutions = [
        Resolution(
            paper=papers[values["paper"]],
            criterion=criteria[(values["problem"], values["criterion"])],
            kind=values["kind"],
            points=values["points"],
            reason=values["reason"],
            decided_by=user_of.get(values["decided_by"]),
        )
        for values, _ in resolutions
    ]
    Resolution.objects.bulk_create(new_resolutions)
    for resolution, (values, _) in zip(new_resolutions, resolutions, strict=True):
        resolution.decided_at = values["decided_at"]
    Resolution.objects.bulk_update(new_resolutions, ["decided_at"], batch_size=500)
    new_resolution_events = [
        ResolutionEvent(
            resolution=resolution, actor=user_of.get(event["actor"]), **without(event, "actor")
        )
        for resolution, (_, events) in zip(new_resolutions, resolutions, strict=True)
        for event in events
    ]
    ResolutionEvent.objects.bulk_create(new_resolution_events)
    _restore_created_at(
        ResolutionEvent, new_resolution_events, [e for _, events in resolutions for e in events]
    )

    for score in human_scores:
        score.contest = contest
    HumanScore.objects.bulk_create(human_scores)
    new_contest_events = [
        ContestEvent(contest=contest, actor=user_of.get(row["actor"]), **without(row, "actor"))
        for row in contest_events
    ]
    ContestEvent.objects.bulk_create(new_contest_events)
    _restore_created_at(ContestEvent, new_contest_events, contest_events)
    new_notifications = [
        Notification(
            recipient=user_of[row["recipient"]],
            contest=contest,
            problem=problems.get(row["problem"]),
            paper=papers.get(row["paper"]),
            criterion=criteria.get((row["problem"], row["criterion"])),
            comment=None if row["comment"] is None else new_comments[row["comment"]],
            **without(row, "recipient", "problem", "paper", "criterion", "comment"),
        )
        for row in notifications
    ]
    Notification.objects.bulk_create(new_notifications)
    _restore_created_at(Notification, new_notifications, notifications)
    return ImportSummary(
        contest=contest,
        papers=len(papers),
        marks=len(new_marks),
        mark_events=len(new_events),
        users_created=created,
        scan_pages=len(new_pages),
    )


def _restore_created_at(model, objects: list, rows: list[dict]) -> None:
    # created_at is auto_now_add, which bulk_create overwrites with now; bulk_update does not.
    for obj, row in zip(objects, rows, strict=True):
        obj.created_at = row["created_at"]
    model.objects.bulk_update(objects, ["created_at"], batch_size=500)
