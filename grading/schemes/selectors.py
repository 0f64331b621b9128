"""Reads for the "Amend the scheme" page: the problem with its contest, and its versions."""

from django.shortcuts import get_object_or_404

from rubrics.models import Problem, SchemeVersion


def scheme_problem(*, contest_slug: str, number: int) -> Problem:
    """The problem with its contest, or 404. One query."""
    return get_object_or_404(
        Problem.objects.select_related("contest"), contest__slug=contest_slug, number=number
    )


def scheme_versions(problem: Problem) -> list[SchemeVersion]:
    """The problem's versions after the first, newest first, with who made each. One query."""
    return list(
        SchemeVersion.objects.filter(problem=problem)
        .select_related("created_by")
        .order_by("-number")
    )
