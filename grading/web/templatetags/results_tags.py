"""Filters for the resolution and results pages."""

from decimal import Decimal

from django import template

from grading.rules.domain import points_word

register = template.Library()


@register.filter
def pts(value) -> str:
    """12.50 → 12.5, 20.00 → 20, None → an empty string: how people write points."""
    if value is None or value == "":
        return ""
    return format(Decimal(value).normalize(), "f")


@register.filter
def points(value) -> str:
    """1 → "1 point", 12.50 → "12.5 points": points with their word, pluralised."""
    return f"{pts(value)} {points_word(value)}"


register.filter("points_word", points_word)


@register.filter
def at(sequence, index):
    """sequence|at:index for lists indexed by a loop counter."""
    try:
        return sequence[index]
    except (IndexError, KeyError, TypeError):
        return None
