"""Which assignments sit with a juror in conflict with their paper since a fact changed during
grading (a juror made a team leader, a juror's country corrected, a conflict declared), which of
those papers the juror had already graded (marks on a submitted sheet: held for the chair's
decision, `grading.assigning.conflict_rulings`) and which may move to a colleague
(`grading.assigning.conflict_moves`). The rule itself is `grading.rules.conflicts`'s; these read
it for a whole contest at once."""

from collections import defaultdict

from django.db.models import Q

from grading.models import (
    Assignment,
    ConflictRuling,
    DeclaredConflict,
    Delegation,
    JurorProfile,
    Mark,
    Paper,
    Sheet,
)
from grading.rules import conflicts
from rubrics.models import Contest


def conflicted_assignments(contest: Contest) -> dict[int, dict[tuple[int, int], str]]:
    """Juror id → (problem id, paper id) → why, for every assignment of the contest whose juror
    is conflicted with its paper. Five queries, whatever the number of papers and jurors."""
    delegations = {
        delegation.pk: delegation
        for delegation in Delegation.objects.filter(contest=contest).prefetch_related("leaders")
    }
    leaders = {pk: {user.pk for user in d.leaders.all()} for pk, d in delegations.items()}
    rows = list(
        Assignment.objects.filter(
            problem__contest=contest, paper__source=Paper.Source.HUMAN
        ).values_list("juror_id", "problem_id", "paper_id", "paper__delegation_id")
    )
    countries = dict(
        JurorProfile.objects.filter(user__in={row[0] for row in rows}).values_list(
            "user_id", "country"
        )
    )
    declared: dict[tuple[int, str, int], str] = {}
    for juror_id, delegation_id, paper_id, reason in DeclaredConflict.objects.filter(
        Q(delegation__contest=contest) | Q(paper__contest=contest)
    ).values_list("juror_id", "delegation_id", "paper_id", "reason"):
        if delegation_id is not None:
            declared[(juror_id, "delegation", delegation_id)] = reason
        else:
            declared[(juror_id, "paper", paper_id)] = reason
    found: dict[int, dict[tuple[int, int], str]] = defaultdict(dict)
    for juror_id, problem_id, paper_id, delegation_id in rows:
        reason = conflicts.contestant_conflict(
            leads=juror_id in leaders.get(delegation_id, ()),
            juror_country=countries.get(juror_id, ""),
            delegation=delegations.get(delegation_id),
            declared_reason=declared.get((juror_id, "delegation", delegation_id)),
            declared_on_paper=declared.get((juror_id, "paper", paper_id)),
        )
        if reason:
            found[juror_id][(problem_id, paper_id)] = reason
    return dict(found)


def given_in_conflict(contest: Contest) -> set[tuple[int, int, int]]:
    """(juror id, problem id, paper id) of every conflicted assignment of the contest whose
    juror gave the paper marks on a submitted sheet: what the chair rules on. Six queries."""
    found = conflicted_assignments(contest)
    if not found:
        return set()
    return graded_among(contest, found)


def graded_among(contest: Contest, found: dict) -> set[tuple[int, int, int]]:
    """Of the conflicted assignments `found` (as `conflicted_assignments` gives them), those
    whose juror gave the paper marks on a submitted sheet. One query."""
    return set(
        Mark.objects.filter(
            sheet__state=Sheet.State.SUBMITTED,
            sheet__problem__contest=contest,
            sheet__juror_id__in=found,
            points__isnull=False,
        )
        .values_list("sheet__juror_id", "sheet__problem_id", "paper_id")
        .distinct()
        .order_by()
    ) & {
        (juror_id, problem_id, paper_id)
        for juror_id, pairs in found.items()
        for problem_id, paper_id in pairs
    }


def rulings_of(contest: Contest) -> dict[tuple[int, int, int], ConflictRuling]:
    """(juror id, problem id, paper id) → the chair's decision, for every decision of the
    contest. One query."""
    return {
        (ruling.juror_id, ruling.problem_id, ruling.paper_id): ruling
        for ruling in ConflictRuling.objects.filter(problem__contest=contest).select_related(
            "decided_by"
        )
    }


def awaiting_ruling(contest: Contest) -> set[tuple[int, int, int]]:
    """The held marks the chair has not decided on yet, as `given_in_conflict` gives them.
    Seven queries."""
    given = given_in_conflict(contest)
    if not given:
        return set()
    return given - set(rulings_of(contest))


def movable(contest: Contest) -> dict[int, dict[tuple[int, int], str]]:
    """The conflicted assignments that move to a colleague, as `conflicted_assignments` gives
    them: those the juror had not graded, and those whose marks the chair discarded; never
    those whose marks the chair kept, nor those still waiting for the chair's decision.
    Eight queries."""
    found = conflicted_assignments(contest)
    if not found:
        return {}
    given = graded_among(contest, found)
    discarded = {key for key, ruling in rulings_of(contest).items() if not ruling.kept}
    moving: dict[int, dict[tuple[int, int], str]] = {}
    for juror_id, pairs in found.items():
        theirs = {
            pair: why
            for pair, why in pairs.items()
            if (juror_id, *pair) not in given or (juror_id, *pair) in discarded
        }
        if theirs:
            moving[juror_id] = theirs
    return moving
