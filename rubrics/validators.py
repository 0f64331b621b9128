"""Checks on points shared by forms, services and importers, each with a sentence to act on."""

from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError


def parse_points(raw, *, where: str = "") -> Decimal | None:
    """Read points typed by a person: blank → None (not graded), else a Decimal. Every door
    that takes points (the sheet, its upload, the bank, calibration, appeals, cut-offs, the
    human scores' import) reads them here."""
    prefix = f"{where}: " if where else ""
    if raw is None:
        return None
    if isinstance(raw, bool):
        raise ValidationError(f"{prefix}{raw!r} is not a number of points.")
    if isinstance(raw, (int, Decimal)):
        value = Decimal(raw)
    elif isinstance(raw, float):
        value = Decimal(str(raw))
    else:
        text = str(raw).strip().replace(",", ".")
        if text == "":
            return None
        # Decimal() also reads digits of every script ("٣" is 3) and Python's "1_0"; points
        # are ASCII digits. A file's "1e3" (as a spreadsheet may export it) is still read.
        if not text.isascii() or "_" in text:
            raise ValidationError(f"{prefix}“{raw}” is not a number of points.")
        try:
            value = Decimal(text)
        except InvalidOperation:
            raise ValidationError(f"{prefix}“{raw}” is not a number of points.") from None
    if not value.is_finite():
        raise ValidationError(f"{prefix}“{raw}” is not a number of points.")
    return value


def points_refusal(value: Decimal | None, criterion) -> str:
    """Why the criterion does not take these points, or "" when it does: below 0, above its
    maximum, or off its step. `validate_points` raises it; the amendment's preview and the
    sheet's reopened cells say it of a mark the amended criterion no longer takes."""
    if value is None:
        return ""
    if value < 0:
        return (
            f"{points_text(value)} is negative; points go from 0 to {points_text(criterion.points)}"
        )
    if value > criterion.points:
        return f"{points_text(value)} is more than the {points_text(criterion.points)} points this criterion allows"
    if value % criterion.step != 0:
        return f"{points_text(value)} is not a multiple of the step {points_text(criterion.step)}"
    return ""


def validate_points(value: Decimal | None, criterion, *, where: str = "") -> None:
    """Refuse points below 0, above the criterion's maximum, or off its step."""
    refusal = points_refusal(value, criterion)
    if refusal:
        prefix = (
            f"{where}, criterion {criterion.code}: " if where else f"Criterion {criterion.code}: "
        )
        raise ValidationError(f"{prefix}{refusal}.")


# Beyond this many digits a number is no number of points; written out in full, 1e999999999
# would be a billion characters, so it keeps its exponent.
_PLAIN_DIGITS = 24


def points_text(value) -> str:
    """2.00 → "2", 0.50 → "0.5", 1E+1 → "10", None → "": how people write points, in every
    page, sheet, export and message (a number of absurd size keeps its exponent, so that a
    message about it stays short). grading uses it as `grading.rules.domain.points_text`; it is
    written here because rubrics imports nothing from grading."""
    if value is None or value == "":
        return ""
    if not isinstance(value, Decimal):
        value = Decimal(value)
    if abs(value.adjusted()) > _PLAIN_DIGITS:
        return str(value)
    return format(value.normalize(), "f")


def tolerance_refusal(points, tolerance) -> str:
    """Why a criterion's tolerance does not fit its points, or "": at most the criterion's
    points, since a wider one would call any two marks of it agreed. The scheme file, the
    amendment and the admin each put it in their sentence."""
    if points is not None and tolerance is not None and tolerance > points:
        return (
            f"the tolerance {points_text(tolerance)} is more than the criterion's "
            f"{points_text(points)} points"
        )
    return ""
