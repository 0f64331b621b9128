"""How the calibration pages write a deviation: signed, as people write points."""

from django import template

from grading.rules.domain import points_text

register = template.Library()


@register.filter
def deviation(value) -> str:
    """+0.5 (generous), −1 (severe), 0, and a dash for no figure."""
    if value is None:
        return "—"
    if value > 0:
        return f"+{points_text(value)}"
    if value < 0:
        return f"−{points_text(-value)}"
    return "0"
