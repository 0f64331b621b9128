"""Form fields for points, shared by the doors that are Django forms (the admin, the cut-offs
page), so that each reads a number as the sheet does."""

from django import forms
from django.core.exceptions import ValidationError

from rubrics.validators import parse_points


class PointsDecimalField(forms.DecimalField):
    """A decimal read by `rubrics.validators.parse_points` (a comma counts as a decimal point),
    then held to the field's digits as Django's own: Django's field reads digits of every script
    ("٣" as 3), which no other door takes."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        try:
            return parse_points(value)
        except ValidationError:
            raise ValidationError(self.error_messages["invalid"], code="invalid") from None
