"""Reads about people for the organizer's console: each juror's problems in a contest, each
leader's delegations, each language specialist's languages."""

from django.contrib.auth import get_user_model

from grading.models import Delegation, GradingGroup, JurorLanguage
from grading.rules import roles
from rubrics.models import Contest

User = get_user_model()


def group_problem_numbers(*, contest: Contest) -> dict[int, list[int]]:
    """Each juror's problems in the contest's grading groups, by user id, in one query: one row
    per (group, juror) membership, read from the membership table itself so that no second join
    multiplies the rows or brings in another contest's groups."""
    numbers: dict[int, list[int]] = {}
    memberships = (
        GradingGroup.jurors.through.objects.filter(gradinggroup__problem__contest=contest)
        .order_by("gradinggroup__problem__number")
        .values_list("user_id", "gradinggroup__problem__number")
    )
    for user_id, number in memberships:
        numbers.setdefault(user_id, []).append(number)
    return numbers


def led_delegation_codes(*, contest: Contest) -> dict[int, list[str]]:
    """The codes of the contest's delegations each leader leads, by user id, in one query."""
    codes: dict[int, list[str]] = {}
    memberships = (
        Delegation.leaders.through.objects.filter(delegation__contest=contest)
        .order_by("delegation__code")
        .values_list("user_id", "delegation__code")
    )
    for user_id, code in memberships:
        codes.setdefault(user_id, []).append(code)
    return codes


def specialist_languages(person=None) -> dict[int, str]:
    """The languages each language specialist reads, as a line of text ("no language
    recorded" for none), by user id (of `person` alone, when given), in two queries."""
    specialists = User.objects.filter(groups__name=roles.SPECIALIST)
    if person is not None:
        specialists = specialists.filter(pk=person.pk)
    languages: dict[int, list[str]] = {pk: [] for pk in specialists.values_list("pk", flat=True)}
    rows = JurorLanguage.objects.filter(user_id__in=list(languages)).order_by("language")
    for user_id, language in rows.values_list("user_id", "language"):
        languages[user_id].append(language)
    return {
        user_id: ", ".join(names) or "no language recorded" for user_id, names in languages.items()
    }
