"""Filters for the grading sheet's pages."""

from decimal import Decimal

from django import template

from grading.rules.domain import points_text

register = template.Library()


@register.filter
def points_or_blank(value) -> str:
    """2.50 → 2.5, None → "blank": a mark's value in history and previews."""
    if value is None or value == "":
        return "blank"
    return points_text(Decimal(value))
