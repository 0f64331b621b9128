"""A contest's own settings: creating one, its name, its maximum total and its medal cut-offs.

The organizer's console and `manage.py set_cutoffs` both write through here. Everything stays
editable until the contest is final (`refuse_if_final_now`); a medal is one of the four the
olympiad awards, any subset of them, each better medal needing a higher total than the ones
below it."""

from dataclasses import dataclass
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction

from grading.rules import access
from grading.rules.domain import points_text
from grading.rules.phase import refuse_if_final_now
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
) -> Contest:
    """Change a contest's name, maximum total and medal cut-offs (each left as it is when not
    given). `cutoffs` maps each medal key (gold, silver, bronze, hm) to its minimum total, None
    for a medal not awarded; medals missing from the mapping keep their cut-off. Refused once
    the contest is final (`ContestFinal`); ValidationError with every problem as a sentence,
    writing nothing, when a value does not fit."""
    _require_organizer(actor, "change a contest's settings")
    contest = refuse_if_final_now(contest, what="its name, maximum and medal cut-offs")
    name = contest.name if name is None else name
    max_total = contest.max_total if max_total is None else max_total
    merged = current_cutoffs(contest)
    merged.update(cutoffs or {})
    errors = _check_settings(name=name, max_total=max_total)
    errors += _check_cutoffs(merged, max_total=max_total)
    if errors:
        raise ValidationError(errors)
    contest.name, contest.max_total = name.strip(), max_total
    contest.save(update_fields=["name", "max_total"])
    # Rewritten whole: names and orders are the fixed medals' (unique per contest).
    contest.cutoffs.all().delete()
    MedalCutoff.objects.bulk_create(
        MedalCutoff(
            contest=contest, name=medal.name, min_total=merged[medal.key], order=medal.order
        )
        for medal in MEDALS
        if merged[medal.key] is not None
    )
    return contest


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
