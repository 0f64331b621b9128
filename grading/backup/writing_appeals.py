"""Writing a restored contest's delegations and appeals (`grading.backup.writing`): the
delegations before the papers, which are created with theirs; the provisional results, the
deadline's changes and the appeals with their criteria and events after everything else, in the
file's order, so that rows restored into an empty database draw back the ids they had."""

from django.contrib.auth.models import User

from grading.backup import table
from grading.backup.reader import Restored
from grading.models import (
    Appeal,
    AppealCriterion,
    AppealDeadlineChange,
    AppealEvent,
    Delegation,
    ProvisionalResult,
)


def write_delegations(d: Restored, users: dict[str, User]) -> None:
    """The delegations with their leaders; each contestant's paper, not written yet, is given
    its delegation."""
    delegations = [
        Delegation(contest=d.contest, **table.DELEGATIONS.own(values)) for values in d.delegations
    ]
    Delegation.objects.bulk_create(delegations)
    Delegation.leaders.through.objects.bulk_create(
        Delegation.leaders.through(delegation=delegation, user=users[username])
        for delegation, values in zip(delegations, d.delegations, strict=True)
        for username in values["leaders"]
    )
    for delegation, values in zip(delegations, d.delegations, strict=True):
        for identity in values["papers"]:
            d.papers[identity].delegation = delegation


def write_appeals(d: Restored, users: dict[str, User]) -> None:
    ProvisionalResult.objects.bulk_create(
        ProvisionalResult(paper=d.papers[values["paper"]], **table.PROVISIONAL_RESULTS.own(values))
        for values in d.provisional_results
    )
    changes = [
        AppealDeadlineChange(
            contest=d.contest,
            actor=users.get(values["actor"]),
            **table.APPEAL_DEADLINE_CHANGES.own(values),
        )
        for values in d.deadline_changes
    ]
    AppealDeadlineChange.objects.bulk_create(changes)
    table.APPEAL_DEADLINE_CHANGES.put_back_stamps(changes, d.deadline_changes)
    appeals = [
        Appeal(
            paper=d.papers[values["paper"]],
            problem=d.problems[values["problem"]],
            filed_by=users[values["filed_by"]],
            decided_by=users.get(values["decided_by"]),
            **table.APPEALS.own(values),
        )
        for values, _, _ in d.appeals
    ]
    Appeal.objects.bulk_create(appeals)
    table.APPEALS.put_back_stamps(appeals, [values for values, _, _ in d.appeals])
    AppealCriterion.objects.bulk_create(
        AppealCriterion(
            appeal=appeal,
            criterion=d.criteria[(values["problem"], row["criterion"])],
            **table.APPEAL_CRITERIA.own(row),
        )
        for appeal, (values, criteria, _) in zip(appeals, d.appeals, strict=True)
        for row in criteria
    )
    events = [
        AppealEvent(appeal=appeal, actor=users.get(row["actor"]), **table.APPEAL_EVENTS.own(row))
        for appeal, (_, _, rows) in zip(appeals, d.appeals, strict=True)
        for row in rows
    ]
    AppealEvent.objects.bulk_create(events)
    table.APPEAL_EVENTS.put_back_stamps(events, [row for _, _, rows in d.appeals for row in rows])
