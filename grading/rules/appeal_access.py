"""Who may do what as a team leader, and who handles appeals: a leader reads their own
delegation's contestants' results once they are published and appeals them; the problem's group
and the chair handle an appeal, never a leader of the paper's own delegation nor a juror
conflicted with the paper (`grading.rules.conflicts`). Split from `access` by what it is for;
it asks `access` for the roles and the grading rules."""

from django.db.models import Q

from grading.models import Assignment, GradingGroup, Sheet
from grading.rules import access, conflicts, roles


def is_leader(user) -> bool:
    return access.has_role(user, roles.LEADER)


def leads_paper_delegation(user, paper) -> bool:
    """Whether the user is a team leader of the paper's delegation (`paper` a Paper; AI papers
    belong to none). One query."""
    return (
        user.is_authenticated
        and paper.delegation_id is not None
        and user.delegations_led.filter(pk=paper.delegation_id).exists()
    )


def results_published(contest) -> bool:
    """Whether the contest's results are published to its team leaders: provisional or final."""
    return contest.state in (contest.State.PROVISIONAL, contest.State.FINAL)


def may_read_as_leader(user, paper) -> bool:
    """A leader reads a contestant's marked papers, agreed points, total, rank and medal: their
    own delegation's, once the results are published (provisional or final)."""
    return (
        results_published(paper.contest) and is_leader(user) and leads_paper_delegation(user, paper)
    )


def may_appeal(user, paper) -> bool:
    """A leader files (and withdraws) appeals on their own delegation's contestants while the
    results are provisional; the deadline is the appeal service's to check (a sentence)."""
    contest = paper.contest
    return (
        contest.state == contest.State.PROVISIONAL
        and is_leader(user)
        and leads_paper_delegation(user, paper)
    )


def may_handle_appeal(user, *, problem, paper) -> bool:
    """The problem's jurors and the chair read an appeal and comment on it; never a leader of
    the paper's delegation (a juror may be a leader too), nor a juror conflicted with the paper
    otherwise (its country). A juror of the group reads it as they read the comparison, once
    their own sheet for the problem is in (independence); a juror added to the group later,
    who grades none of its papers, has no sheet to keep independent and reads it at once."""
    if not user.is_authenticated or leads_paper_delegation(user, paper):
        return False
    if access.is_chair(user):
        return True
    if not access.is_juror(user) or access.conflicted_with(user, paper):
        return False
    if access.is_assigned(user, problem):
        return access.comparison_access(user, problem) == access.ComparisonAccess.READ
    return access.in_group(user, problem)


def appeals_handled_by(user):
    """The appeals (a queryset's filter) the user may read and comment on, as
    `may_handle_appeal` judges one: the chair's every appeal, a juror's those of the problems
    they grade whose sheet is in; never one of a delegation the user leads, nor, for a juror, one
    they are conflicted with otherwise."""
    if not user.is_authenticated:
        return Q(pk__in=[])
    led = Q(paper__delegation__leaders=user)
    if access.is_chair(user):
        return ~led
    if not access.is_juror(user):
        return Q(pk__in=[])
    grading = Assignment.objects.filter(juror=user).values("problem_id")
    submitted = Sheet.objects.submitted().filter(juror=user).values("problem_id")
    named = GradingGroup.objects.filter(jurors=user).values("problem_id")
    # A juror who grades the problem reads once their sheet is in; one of its group who grades
    # none of its papers (added later) has nothing to keep independent.
    readable = (Q(problem__in=submitted) & Q(problem__in=grading)) | (
        Q(problem__in=named) & ~Q(problem__in=grading)
    )
    return readable & ~led & ~conflicts.conflicted(user)


def may_decide_appeal(user, *, problem, paper) -> bool:
    """An appeal is decided by the chair or by a juror of the group who did not mark that paper
    for the problem (a juror who did may comment, not decide alone), and never by a leader of
    the paper's delegation."""
    if not may_handle_appeal(user, problem=problem, paper=paper):
        return False
    return access.is_chair(user) or not access.is_assigned_paper(user, problem=problem, paper=paper)
