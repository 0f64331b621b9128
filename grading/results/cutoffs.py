"""A contest's own settings: creating one, its name, its maximum total and its medal cut-offs.

The organizer's console and `manage.py set_cutoffs` both write through here. Everything stays
editable until the contest is final (`refuse_if_final_now`); a medal is one of the four the
olympiad awards, any subset of them, each better medal needing a higher total than the ones
below it.

Cut-offs can also come from the distribution of the human contestants' totals (`propose_cutoffs`,
pure, and `cutoffs_apply_proposal`, which the chair confirms on the results' cut-offs page)."""

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction

from grading.results.selectors import cutoff_totals
from grading.rules import access
from grading.rules.domain import points_text
from grading.rules.phase import refuse_if_final_now
from grading.rules.refusals import Stale
from rubrics.models import Contest, MedalCutoff


@dataclass(frozen=True)
class Medal:
    key: str  # as typed on the command line: gold=70
    name: str  # as stored and shown: the demo's and the results page's names
    order: int  # 1 is the best medal


MEDALS = (
    Medal("gold", "gold", 1),
    Medal("silver", "silver", 2),
    Medal("bronze", "bronze", 3),
    Medal("hm", "honourable mention", 4),
)
MEDAL_BY_KEY = {medal.key: medal for medal in MEDALS}


def _require_organizer(actor, what: str) -> None:
    # actor None: a management command, run by whoever holds the server.
    access.require(actor is None or access.may_run_contest(actor), f"Only an organizer can {what}.")


def _check_settings(*, name: str, max_total: Decimal) -> list[str]:
    errors = []
    if not name.strip():
        errors.append("Give the contest a name; jurors and the chair see it on every page.")
    elif len(name.strip()) > Contest._meta.get_field("name").max_length:
        errors.append("The contest's name is longer than 200 characters; shorten it.")
    if max_total <= 0:
        errors.append(f"The maximum total must be more than 0, not {points_text(max_total)}.")
    elif max_total >= Decimal("100000"):
        errors.append(
            f"The maximum total {points_text(max_total)} is too large; give at most 99999.99."
        )
    elif max_total != max_total.quantize(Decimal("0.01")):
        errors.append(f"The maximum total {max_total} has more than two decimals.")
    return errors


def _check_working_language(language: str) -> list[str]:
    limit = Contest._meta.get_field("working_language").max_length
    if not language:
        return [
            "Give the contest's working language, the one AI systems answer in, such as English."
        ]
    if len(language) > limit:
        return [f"The working language “{language}” is longer than {limit} characters."]
    return []


def _check_cutoffs(cutoffs: dict[str, Decimal | None], *, max_total: Decimal) -> list[str]:
    """Sentences for everything wrong with the cut-offs against the maximum total."""
    errors = []
    for key in cutoffs:
        if key not in MEDAL_BY_KEY:
            known = ", ".join(medal.key for medal in MEDALS)
            errors.append(f"“{key}” is not a medal; the medals are {known}.")
    given = [(medal, cutoffs[medal.key]) for medal in MEDALS if cutoffs.get(medal.key) is not None]
    for medal, minimum in given:
        if minimum < 0:
            errors.append(
                f"The {medal.name} cut-off must be 0 or more, not {points_text(minimum)}."
            )
        elif minimum > max_total:
            errors.append(
                f"The {medal.name} cut-off {points_text(minimum)} is above the contest's maximum "
                f"total of {points_text(max_total)}."
            )
        elif minimum != minimum.quantize(Decimal("0.01")):
            errors.append(f"The {medal.name} cut-off {minimum} has more than two decimals.")
    for (better, high), (worse, low) in zip(given, given[1:], strict=False):
        if high <= low:
            errors.append(
                f"The {better.name} cut-off ({points_text(high)}) must be higher than the "
                f"{worse.name} cut-off ({points_text(low)})."
            )
    return errors


def stored_cutoff_problems(rows, *, max_total: Decimal) -> list[str]:
    """The cut-off rule for cut-offs written as the admin writes them, as (name, minimum) rows:
    each a medal by its stored name, given once, checked as `contest_update` checks them."""
    key_by_name = {medal.name: medal.key for medal in MEDALS}
    errors, cutoffs = [], {}
    for name, minimum in rows:
        key = key_by_name.get(name.strip().lower(), name)
        if key in cutoffs:
            errors.append(f"The {name.strip()} cut-off is given twice; give each medal once.")
        cutoffs[key] = minimum
    return errors + _check_cutoffs(cutoffs, max_total=max_total)


def current_cutoffs(contest: Contest) -> dict[str, Decimal | None]:
    """The contest's cut-offs by medal key (None where the medal is not awarded)."""
    by_name = {cutoff.name.lower(): cutoff.min_total for cutoff in contest.cutoffs.all()}
    return {medal.key: by_name.get(medal.name) for medal in MEDALS}


@transaction.atomic
def contest_create(*, slug: str, name: str, max_total: Decimal, actor) -> Contest:
    """Create a contest in set-up with its slug (its name in URLs and commands), name and
    maximum total. Raises ValidationError with a sentence for each problem, writing nothing."""
    _require_organizer(actor, "create a contest")
    slug = slug.strip()
    errors = []
    try:
        validate_slug(slug)
    except ValidationError:
        errors.append(
            f"The short name “{slug}” may hold only letters, digits, hyphens and underscores."
        )
    else:
        if len(slug) > Contest._meta.get_field("slug").max_length:
            errors.append("The short name is longer than 50 characters; shorten it.")
        elif Contest.objects.filter(slug=slug).exists():
            errors.append(f"A contest with the short name “{slug}” already exists; choose another.")
    errors += _check_settings(name=name, max_total=max_total)
    if errors:
        raise ValidationError(errors)
    return Contest.objects.create(slug=slug, name=name.strip(), max_total=max_total)


@transaction.atomic
def contest_update(
    *,
    contest: Contest,
    actor,
    name: str | None = None,
    max_total: Decimal | None = None,
    cutoffs: dict[str, Decimal | None] | None = None,
    working_language: str | None = None,
) -> Contest:
    """Change a contest's name, maximum total, working language (the one AI papers are read
    in) and medal cut-offs (each left as it is when not given). `cutoffs` maps each medal key (gold, silver, bronze, hm) to its minimum total, None
    for a medal not awarded; medals missing from the mapping keep their cut-off. Refused once
    the contest is final (`ContestFinal`); ValidationError with every problem as a sentence,
    writing nothing, when a value does not fit."""
    _require_organizer(actor, "change a contest's settings")
    contest = refuse_if_final_now(contest, what="its name, maximum and medal cut-offs")
    name = contest.name if name is None else name
    max_total = contest.max_total if max_total is None else max_total
    merged = current_cutoffs(contest)
    merged.update(cutoffs or {})
    language = " ".join(
        (contest.working_language if working_language is None else working_language).split()
    )
    errors = _check_settings(name=name, max_total=max_total)
    errors += _check_working_language(language)
    errors += _check_cutoffs(merged, max_total=max_total)
    if errors:
        raise ValidationError(errors)
    contest.name, contest.max_total = name.strip(), max_total
    contest.working_language = language
    contest.save(update_fields=["name", "max_total", "working_language"])
    _cutoffs_write(contest, merged)
    return contest


def _cutoffs_write(contest: Contest, merged: dict[str, Decimal | None]) -> None:
    # Rewritten whole: names and orders are the fixed medals' (unique per contest).
    contest.cutoffs.all().delete()
    MedalCutoff.objects.bulk_create(
        MedalCutoff(
            contest=contest, name=medal.name, min_total=merged[medal.key], order=medal.order
        )
        for medal in MEDALS
        if merged[medal.key] is not None
    )


def cutoffs_set(*, contest: Contest, cutoffs: dict[str, Decimal | None], actor) -> Contest:
    """Set some of the contest's medal cut-offs (None removes one); the others stay."""
    return contest_update(contest=contest, cutoffs=cutoffs, actor=actor)


def cutoffs_sentence(contest: Contest) -> str:
    """The contest's cut-offs in a line: "gold ≥ 70, silver ≥ 58.4" (or that there are none)."""
    current = current_cutoffs(contest)
    given = [
        f"{medal.name} ≥ {points_text(current[medal.key])}"
        for medal in MEDALS
        if current[medal.key] is not None
    ]
    return ", ".join(given) if given else "no medal cut-offs"


# Cut-offs from the distribution. Olympiads set their cut-offs after seeing the scores, by the
# rule of thumb that about half the contestants get a medal, gold : silver : bronze ≈ 1 : 2 : 3,
# and the next sixth an honourable mention: shares of the human contestants, medal by medal.
DEFAULT_SHARES = {
    "gold": Fraction(1, 12),
    "silver": Fraction(2, 12),
    "bronze": Fraction(3, 12),
    "hm": Fraction(1, 6),
}


@dataclass(frozen=True)
class ProposedCutoff:
    """One medal's proposed cut-off and its effect on the human contestants' totals."""

    medal: Medal
    share: Fraction  # of the contestants, for this medal alone
    target: Fraction  # contestants at or above the cut-off that the shares ask for
    # The total of the lowest contestant who gets the medal; None when every contestant has a
    # better medal already, so that none is left for this one.
    min_total: Decimal | None
    at_or_above: int
    below: int
    awarded: int  # at or above, without a better medal
    tied: int  # contestants whose total is the cut-off itself, all kept on the medal's side
    highest_below: Decimal | None  # the nearest total under the cut-off

    @property
    def wanted(self) -> int:
        """The contestants at or above that the share asks for, to the whole contestant."""
        return math.floor(self.target + Fraction(1, 2))

    @property
    def rounding(self) -> str:
        """Which way the ties at the cut-off moved the count from `wanted`: up, down or none."""
        if self.at_or_above == self.wanted:
            return "none"
        return "up" if self.at_or_above > self.wanted else "down"


def propose_cutoffs(
    totals: list[Decimal], shares: list[tuple[Medal, Fraction]]
) -> list[ProposedCutoff]:
    """Cut-offs for the medals in `shares` (best first, each with its share of the contestants)
    from the human contestants' `totals`.

    Each cut-off is a contestant's total, so that it never splits equal totals: the whole group
    tied at a cut-off is on the medal's side. It is the total whose count of contestants at or
    above comes nearest the medal's cumulative target (its share and the better medals', times
    the number of contestants); when two counts are equally near, the larger, so that a tie
    rounds up. Each cut-off is below the better medal's; a medal for which no contestant is
    left gets none (None)."""
    ordered = sorted(totals, reverse=True)
    # Each distinct total, best first, with how many contestants are at or above it.
    groups: list[tuple[Decimal, int]] = []
    for index, total in enumerate(ordered):
        if groups and groups[-1][0] == total:
            groups[-1] = (total, index + 1)
        else:
            groups.append((total, index + 1))
    proposal, cumulative, taken, previous_count = [], Fraction(0), -1, 0
    for medal, share in shares:
        cumulative += share
        target = cumulative * len(ordered)
        left = range(taken + 1, len(groups))
        if not left:
            proposal.append(
                ProposedCutoff(
                    medal=medal,
                    share=share,
                    target=target,
                    min_total=None,
                    at_or_above=previous_count,
                    below=len(ordered) - previous_count,
                    awarded=0,
                    tied=0,
                    highest_below=None,
                )
            )
            continue
        taken = min(left, key=lambda j: (abs(groups[j][1] - target), -groups[j][1]))
        value, count = groups[taken]
        proposal.append(
            ProposedCutoff(
                medal=medal,
                share=share,
                target=target,
                min_total=value,
                at_or_above=count,
                below=len(ordered) - count,
                awarded=count - previous_count,
                tied=count - (groups[taken - 1][1] if taken else 0),
                highest_below=groups[taken + 1][0] if taken + 1 < len(groups) else None,
            )
        )
        previous_count = count
    return proposal


def proposal_medals(contest: Contest) -> list[Medal]:
    """The medals a proposal covers: those the contest has cut-offs for, else all four."""
    names = {cutoff.name.lower() for cutoff in contest.cutoffs.all()}
    return [medal for medal in MEDALS if medal.name in names] or list(MEDALS)


@transaction.atomic
def cutoffs_apply_proposal(
    *,
    contest: Contest,
    shares: list[tuple[Medal, Fraction]],
    shown: dict[str, Decimal | None],
    actor,
) -> Contest:
    """Set the cut-offs proposed from the human contestants' totals for `shares`, once the
    chair (or an organizer) has confirmed `shown`, the proposal as the page showed it. Refused
    when final, and as stale when the proposal differs from `shown` (a total changed
    meanwhile): the chair confirms only what they saw."""
    access.require(
        access.may_set_cutoffs(actor), "Only the chair or an organizer can set medal cut-offs."
    )
    contest = refuse_if_final_now(contest, what="its medal cut-offs")
    totals = cutoff_totals(contest).humans
    proposed = {row.medal.key: row.min_total for row in propose_cutoffs(totals, shares)}
    if proposed != shown:
        raise Stale(
            "The contestants' totals changed since this proposal was shown; look at the new "
            "proposal and confirm it again."
        )
    merged = current_cutoffs(contest) | proposed
    errors = _check_cutoffs(merged, max_total=contest.max_total)
    if errors:
        raise ValidationError(errors)
    _cutoffs_write(contest, merged)
    return contest
