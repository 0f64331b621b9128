"""Conflicts of interest: which contestants' papers a person may not grade, and why. The one
home of the rule; the assignment's solver, the admin's form and every door a juror grades or
reads through ask it, so that a fact that changes during grading (a juror made a team leader,
a juror's country corrected, a conflict declared) acts at every door at once.

A juror is conflicted with a delegation's contestants when they lead that delegation (one
person can be juror and leader at once), come from its country (case and spaces aside) or the
organizer declared a conflict between them and the delegation (`DeclaredConflict`); and with
one contestant's paper when the organizer declared a conflict between them and that
contestant. AI papers belong to no delegation and no contestant, so nobody is conflicted with
them.

Most conflicts are facts of the delegation, so a door asks for the conflicted delegations once
(one query) and filters papers by their delegation; the conflicts declared with one contestant
join the filter as a subquery of the query it filters. The answer stays one query whatever the
number of papers."""

from typing import NamedTuple

from django.db.models import (
    BigIntegerField,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    Q,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.db.models.lookups import In

from grading.models import (
    ConflictRuling,
    DeclaredConflict,
    Delegation,
    JurorProfile,
    Paper,
    language_key,
)
from grading.rules import compiled_sql

LEADS = "leads the paper's delegation"
# Followed by the organizer's reason (`declared`).
DECLARED_WITH_DELEGATION = "has a declared conflict with the paper's delegation"
DECLARED_WITH_CONTESTANT = "has a declared conflict with the paper's contestant"


def from_country(country: str) -> str:
    return f"comes from {country}, the paper's country"


def declared(with_whom: str, reason: str) -> str:
    """A declared conflict in words: the rule's (`DECLARED_WITH_*`), then the organizer's
    reason, without a full stop of its own (the sentence that names it goes on)."""
    reason = reason.strip().rstrip(".").strip()
    return f"{with_whom}: {reason}" if reason else with_whom


def same_country(juror_country: str, delegation_country: str) -> bool:
    """Whether a juror's country is a delegation's, case and spaces aside; a juror with no
    country comes from none."""
    return bool(juror_country) and language_key(juror_country) == language_key(delegation_country)


def delegation_conflict(
    *, leads: bool, juror_country: str, delegation, declared_reason: str | None = None
) -> str | None:
    """Why a juror may not grade the contestants of `delegation`, or None: the rule itself, on
    facts already read (the solver reads them for a whole contest at once).
    `declared_reason`: the reason of a conflict declared between the juror and the delegation,
    None if there is none."""
    if leads:
        return LEADS
    if same_country(juror_country, delegation.country_or_code):
        return from_country(juror_country)
    if declared_reason is not None:
        return declared(DECLARED_WITH_DELEGATION, declared_reason)
    return None


def contestant_conflict(
    *,
    leads: bool,
    juror_country: str,
    delegation,
    declared_reason: str | None = None,
    declared_on_paper: str | None = None,
) -> str | None:
    """Why a juror may not grade one contestant's paper, or None: its delegation's conflict
    (`delegation_conflict`; `delegation` None for a paper of none), else a conflict declared
    between the juror and that contestant (`declared_on_paper`, its reason)."""
    if delegation is not None:
        reason = delegation_conflict(
            leads=leads,
            juror_country=juror_country,
            delegation=delegation,
            declared_reason=declared_reason,
        )
        if reason:
            return reason
    if declared_on_paper is not None:
        return declared(DECLARED_WITH_CONTESTANT, declared_on_paper)
    return None


def _facts_of(juror_id: int, delegation) -> dict:
    """What the rule asks of a juror and a delegation (`delegation`: an expression for its id),
    as annotations of the row that reaches the delegation: no query of their own."""
    return {
        "led": Exists(
            Delegation.leaders.through.objects.filter(delegation=delegation, user=juror_id)
        ),
        # The same on every row.
        "juror_country": Subquery(JurorProfile.objects.filter(user=juror_id).values("country")[:1]),
        "declared_reason": Subquery(
            DeclaredConflict.objects.filter(juror=juror_id, delegation=delegation).values("reason")[
                :1
            ]
        ),
    }


class _DelegationRead(NamedTuple):
    """A delegation as `delegation_conflict` reads it (its country, or its code standing for
    one), without a model instance: every save asks the rule of every delegation, and making
    46 instances cost more than the query that reads them."""

    code: str
    country: str

    country_or_code = property(Delegation.country_or_code.fget)


def _delegation_facts(in_contest: bool, *, juror: int, contest: int = 0):
    """Each delegation's (id, code, country) and the facts the rule asks of it and the juror
    (`_facts_of`), of one contest or of every contest."""
    delegations = Delegation.objects.annotate(**_facts_of(juror, OuterRef("pk")))
    if in_contest:
        delegations = delegations.filter(contest=contest)
    return delegations.values_list(
        "pk", "code", "country", "led", "juror_country", "declared_reason"
    )


def conflicted_delegations(juror, *, contest=None) -> dict[int, str]:
    """Delegation id → why `juror` (a user, or a user's id) may not grade its contestants, for
    every delegation (of `contest`, a Contest or its id, or of every contest) they are
    conflicted with. One query, its SQL built once per process (every save asks it)."""
    juror_id = _user_id(juror)
    if juror_id is None:
        return {}
    contest_id = getattr(contest, "pk", contest)
    in_contest = {"contest": contest_id} if contest_id is not None else {}
    conflicts = {}
    for pk, code, country, led, juror_country, declared_reason in compiled_sql.rows(
        _delegation_facts, bool(in_contest), juror=juror_id, **in_contest
    ):
        reason = delegation_conflict(
            # Read as the database gives it: SQLite answers EXISTS with 0 or 1.
            leads=bool(led),
            juror_country=juror_country or "",
            delegation=_DelegationRead(code, country),
            declared_reason=declared_reason,
        )
        if reason:
            conflicts[pk] = reason
    return conflicts


def paper_conflict(juror, paper) -> str | None:
    """Why `juror` (a user, or a user's id) may not grade `paper` (a Paper), or None. No query
    for an AI paper; else one."""
    juror_id = _user_id(juror)
    if juror_id is None or (paper.delegation_id is None and paper.source != Paper.Source.HUMAN):
        return None
    row = (
        Paper.objects.filter(pk=paper.pk)
        .select_related("delegation")
        .only("pk", "delegation__code", "delegation__country")
        .annotate(
            **_facts_of(juror_id, OuterRef("delegation_id")),
            declared_on_paper=Subquery(
                DeclaredConflict.objects.filter(juror=juror_id, paper=OuterRef("pk")).values(
                    "reason"
                )[:1]
            ),
        )
        .first()
    )
    if row is None:
        return None
    return contestant_conflict(
        leads=row.led,
        juror_country=row.juror_country or "",
        delegation=row.delegation,
        declared_reason=row.declared_reason,
        declared_on_paper=row.declared_on_paper,
    )


def jurors_conflicted_with(paper, juror_ids) -> set[int]:
    """Which of `juror_ids` are conflicted with `paper` (a Paper): for a door that writes to a
    cell's jurors (a notice, a request to revise), who must hear nothing of it. None for an AI
    paper; else at most four queries."""
    if not juror_ids or (paper.delegation_id is None and paper.source != Paper.Source.HUMAN):
        return set()
    on_paper = Q(paper=paper.pk)
    if paper.delegation_id is not None:
        on_paper |= Q(delegation=paper.delegation_id)
    found = set(
        DeclaredConflict.objects.filter(on_paper, juror__in=juror_ids).values_list(
            "juror_id", flat=True
        )
    )
    if paper.delegation_id is None:
        return found
    delegation = Delegation.objects.get(pk=paper.delegation_id)
    leaders = set(delegation.leaders.filter(pk__in=juror_ids).values_list("pk", flat=True))
    countries = JurorProfile.objects.filter(user__in=juror_ids).exclude(country="")
    return (
        found
        | leaders
        | {
            user_id
            for user_id, country in countries.values_list("user_id", "country")
            if delegation_conflict(leads=False, juror_country=country, delegation=delegation)
        }
    )


def conflicted(juror, *, contest=None, paper: str = "paper", delegations=None) -> Q:
    """The rows (reached from the queried model by `paper`, a path to a Paper; "" on Paper
    itself) whose paper is a contestant's the juror (a user, or a user's id) is conflicted
    with: of a delegation they are conflicted with, or a contestant they have a declared
    conflict with. One query to build (the conflicted delegations, none when the caller has
    them: `delegations`, their ids), none added to the query it filters (the declared conflicts
    with contestants are a subquery of it)."""
    juror_id = _user_id(juror)
    if juror_id is None:
        return Q(pk__in=[])
    prefix = f"{paper}__" if paper else ""
    with_contestants = Q(
        **{
            f"{prefix}pk__in": DeclaredConflict.objects.filter(
                juror=juror_id, paper__isnull=False
            ).values("paper_id")
        }
    )
    if delegations is None:
        delegations = conflicted_delegations(juror_id, contest=contest)
    if not delegations:
        return with_contestants
    return Q(**{f"{prefix}delegation_id__in": sorted(delegations)}) | with_contestants


# A (juror, delegation) or (juror, paper) pair as one integer. `held_marks` looks each mark's
# pairs up in sets the database builds once per query (an IN of a subquery that refers to no
# row of the query), where an EXISTS asked once a mark cost SQLite 3 µs a mark: 135 ms of the
# results page's 490 at the real size, 41,000 marks (issue 32).
PAIR = 2**32


def _pair(first, second) -> ExpressionWrapper:
    return ExpressionWrapper(first * PAIR + second, output_field=BigIntegerField())


def held_marks() -> Q:
    """The marks (rows of `Mark`) whose juror is conflicted with the mark's paper and that the
    chair has not kept (`ConflictRuling`): given before the conflict came to light, they stay
    on record and count for no cell until the chair keeps them, and never once discarded.
    The leaders and the declared conflicts are subqueries of the query it filters; the
    countries are compared here, as the rule compares them, in two queries (one when no juror
    has a country)."""
    juror = F("sheet__juror_id")
    # A paper of no delegation (an AI system's) pairs with no delegation: ids start at 1.
    with_delegation = _pair(juror, Coalesce(F("paper__delegation_id"), 0))
    with_paper = _pair(juror, F("paper_id"))
    leaders = Delegation.leaders.through.objects.annotate(
        pair=_pair(F("user_id"), F("delegation_id"))
    ).values("pair")
    declared_with_delegation = (
        DeclaredConflict.objects.filter(delegation__isnull=False)
        .annotate(pair=_pair(F("juror_id"), F("delegation_id")))
        .values("pair")
    )
    declared_with_paper = (
        DeclaredConflict.objects.filter(paper__isnull=False)
        .annotate(pair=_pair(F("juror_id"), F("paper_id")))
        .values("pair")
    )
    conflicted = (
        Q(In(with_delegation, leaders))
        | Q(In(with_delegation, declared_with_delegation))
        | Q(In(with_paper, declared_with_paper))
    )
    same_country = sorted(
        {juror_id * PAIR + delegation for juror_id, delegation in _same_country_pairs()}
    )
    if same_country:
        conflicted |= Q(In(with_delegation, same_country))
    # Asked only of a conflicted mark (the database stops at the first false term of an AND).
    kept = ConflictRuling.objects.filter(
        problem=OuterRef("sheet__problem_id"),
        paper=OuterRef("paper_id"),
        juror=OuterRef("sheet__juror_id"),
        kept=True,
    )
    return conflicted & ~Q(Exists(kept))


def _same_country_pairs() -> list[tuple[int, int]]:
    """(juror id, delegation id) for every juror who comes from a delegation's country."""
    jurors_of: dict[str, list[int]] = {}
    for user_id, country in JurorProfile.objects.exclude(country="").values_list(
        "user_id", "country"
    ):
        jurors_of.setdefault(language_key(country), []).append(user_id)
    if not jurors_of:
        return []
    return [
        (user_id, pk)
        for pk, code, country in Delegation.objects.values_list("pk", "code", "country")
        for user_id in jurors_of.get(language_key(country or code), ())
    ]


def _user_id(juror) -> int | None:
    if isinstance(juror, int):
        return juror
    if not getattr(juror, "is_authenticated", False):
        return None
    return juror.pk
