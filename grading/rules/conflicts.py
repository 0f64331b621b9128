"""Conflicts of interest: which contestants' papers a person may not grade, and why. The one
home of the rule; the assignment's solver, the admin's form and every door a juror grades or
reads through ask it, so that a fact that changes during grading (a juror made a team leader,
a juror's country corrected) acts at every door at once.

A juror is conflicted with a delegation's contestants when they lead that delegation (one
person can be juror and leader at once) or come from its country (case and spaces aside). AI
papers belong to no delegation, so nobody is conflicted with them.

Conflicts are facts of the delegation, so a door asks for the conflicted delegations once (one
query) and filters papers by their delegation: the answer stays one query whatever the number
of papers."""

from django.db.models import Exists, OuterRef, Q, Subquery

from grading.models import Delegation, JurorProfile, language_key

LEADS = "leads the paper's delegation"


def from_country(country: str) -> str:
    return f"comes from {country}, the paper's country"


def delegation_conflict(*, leads: bool, juror_country: str, delegation) -> str | None:
    """Why a juror may not grade the contestants of `delegation`, or None: the rule itself, on
    facts already read (the solver reads them for a whole contest at once)."""
    if leads:
        return LEADS
    if juror_country and language_key(juror_country) == language_key(delegation.country_or_code):
        return from_country(juror_country)
    return None


def conflicted_delegations(juror, *, contest=None) -> dict[int, str]:
    """Delegation id → why `juror` (a user, or a user's id) may not grade its contestants, for
    every delegation (of `contest`, or of every contest) they are conflicted with. One query."""
    juror_id = _user_id(juror)
    if juror_id is None:
        return {}
    delegations = Delegation.objects.annotate(
        led=Exists(
            Delegation.leaders.through.objects.filter(delegation=OuterRef("pk"), user=juror_id)
        ),
        # The same on every row; read here, it costs no query of its own.
        juror_country=Subquery(JurorProfile.objects.filter(user=juror_id).values("country")[:1]),
    )
    if contest is not None:
        delegations = delegations.filter(contest=contest)
    conflicts = {}
    for delegation in delegations.only("pk", "code", "country"):
        reason = delegation_conflict(
            leads=delegation.led,
            juror_country=delegation.juror_country or "",
            delegation=delegation,
        )
        if reason:
            conflicts[delegation.pk] = reason
    return conflicts


def jurors_conflicted_with(paper, juror_ids) -> set[int]:
    """Which of `juror_ids` are conflicted with `paper` (a Paper): for a door that writes to a
    cell's jurors (a notice, a request to revise), who must hear nothing of it. None for an AI
    paper; else two queries."""
    if paper.delegation_id is None or not juror_ids:
        return set()
    delegation = Delegation.objects.get(pk=paper.delegation_id)
    leaders = set(delegation.leaders.filter(pk__in=juror_ids).values_list("pk", flat=True))
    countries = JurorProfile.objects.filter(user__in=juror_ids).exclude(country="")
    return leaders | {
        user_id
        for user_id, country in countries.values_list("user_id", "country")
        if delegation_conflict(leads=False, juror_country=country, delegation=delegation)
    }


def conflicted(juror, *, contest=None, paper: str = "paper") -> Q:
    """The rows (reached from the queried model by `paper`, a path to a Paper; "" on Paper
    itself) whose paper is a contestant's the juror (a user, or a user's id) is conflicted
    with. One query to build (the conflicts), none added to the query it filters."""
    delegations = conflicted_delegations(juror, contest=contest)
    if not delegations:
        return Q(pk__in=[])
    field = f"{paper}__delegation_id__in" if paper else "delegation_id__in"
    return Q(**{field: sorted(delegations)})


def _user_id(juror) -> int | None:
    if isinstance(juror, int):
        return juror
    if not getattr(juror, "is_authenticated", False):
        return None
    return juror.pk
