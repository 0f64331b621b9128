"""Request input of the medal cut-off proposal, read with Django forms: each medal's share of
the human contestants as a percentage, and, to confirm, the proposal as it was shown. What a
proposal is and whether it may be applied are `grading.results.cutoffs`'s."""

from decimal import Decimal, InvalidOperation
from fractions import Fraction

from django import forms
from django.core.exceptions import ValidationError

from grading.results.cutoffs import DEFAULT_SHARES, Medal
from rubrics.forms import PointsDecimalField

HUNDRED = Decimal("100")


def default_percent(medal: Medal) -> Decimal:
    """A medal's default share as the form shows it, to the hundredth of a percent."""
    share = DEFAULT_SHARES[medal.key]
    return (Decimal(share.numerator) / Decimal(share.denominator) * HUNDRED).quantize(
        Decimal("0.01")
    )


class PercentField(forms.CharField):
    """A share as typed: "8.33", "8,33" or "8.33 %"."""

    def __init__(self, *, medal: Medal, **kwargs):
        self.medal = medal
        super().__init__(label=f"{medal.name.capitalize()} (% of the contestants)", **kwargs)

    def to_python(self, value) -> Decimal | None:
        text = super().to_python(value).replace(",", ".").rstrip("% ").strip()
        try:
            number = Decimal(text)
        except InvalidOperation:
            raise ValidationError(
                f"The {self.medal.name} share “{value}” is not a number."
            ) from None
        if not number.is_finite() or not 0 < number <= HUNDRED:
            raise ValidationError(
                f"The {self.medal.name} share must be more than 0% and at most 100%, not {value}."
            )
        return number


class CutoffSharesForm(forms.Form):
    """Each of the medals' share of the human contestants (`share_gold`...), in percent."""

    def __init__(self, *args, medals: list[Medal], **kwargs):
        super().__init__(*args, **kwargs)
        self.medals = medals
        for medal in medals:
            self.fields[f"share_{medal.key}"] = PercentField(
                medal=medal, initial=default_percent(medal)
            )

    @classmethod
    def defaults(cls, medals: list[Medal]) -> dict[str, str]:
        return {f"share_{medal.key}": str(default_percent(medal)) for medal in medals}

    def clean(self):
        cleaned = super().clean()
        given = [cleaned.get(f"share_{medal.key}") for medal in self.medals]
        if None not in given and sum(given) > HUNDRED:
            raise ValidationError(
                f"The shares add up to {sum(given).normalize():f}%, more than every contestant; "
                "make them add up to 100% at most."
            )
        return cleaned

    def shares(self) -> list[tuple[Medal, Fraction]]:
        """The medals, best first, each with its share as a fraction of the contestants."""
        return [
            (medal, Fraction(self.cleaned_data[f"share_{medal.key}"]) / 100)
            for medal in self.medals
        ]


class CutoffConfirmForm(CutoffSharesForm):
    """The shares, the cut-offs the page proposed for them (`cutoff_gold`..., blank for a medal
    no contestant was left for) and the chair's confirmation."""

    confirm = forms.BooleanField(
        error_messages={
            "required": "Tick the box to confirm that these cut-offs replace the current ones."
        }
    )

    def __init__(self, *args, medals: list[Medal], **kwargs):
        super().__init__(*args, medals=medals, **kwargs)
        for medal in medals:
            self.fields[f"cutoff_{medal.key}"] = PointsDecimalField(
                required=False, max_digits=7, decimal_places=2, widget=forms.HiddenInput
            )

    def shown(self) -> dict[str, Decimal | None]:
        return {medal.key: self.cleaned_data[f"cutoff_{medal.key}"] for medal in self.medals}
