"""Filters for the resolution and results pages."""

from django import template

from grading.rules.domain import points_text, points_with_word, points_word

register = template.Library()


# 12.50 → 12.5, 20.00 → 20, None → an empty string; 1 → "1 point", 12.50 → "12.5 points".
register.filter("pts", points_text)
register.filter("points", points_with_word)
register.filter("points_word", points_word)


@register.filter
def at(sequence, index):
    """sequence|at:index for lists indexed by a loop counter."""
    try:
        return sequence[index]
    except (IndexError, KeyError, TypeError):
        return None
