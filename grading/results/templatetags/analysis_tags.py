"""Filters for the analysis page: figures with a fixed number of decimals, a dash when missing."""

from django import template

register = template.Library()

MISSING = "—"


@register.filter
def fig(value, places: int = 1) -> str:
    """12.3456|fig:1 → 12.3; None → a dash."""
    if value is None:
        return MISSING
    return f"{float(value):.{int(places)}f}"


@register.filter
def signed(value, places: int = 1) -> str:
    """A difference with its sign: +3.2, −4.0 (a true minus sign), 0.0; None → a dash."""
    if value is None:
        return MISSING
    text = f"{abs(float(value)):.{int(places)}f}"
    if float(text) == 0:
        return text
    return f"+{text}" if value > 0 else f"\u2212{text}"


@register.filter
def percent(value, places: int = 0) -> str:
    """A share 0–1 as a percentage: 0.456|percent → 46%; None → a dash."""
    if value is None:
        return MISSING
    return f"{100 * float(value):.{int(places)}f}%"
