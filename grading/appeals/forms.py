"""Request input of the appeals' pages, read with Django forms; the rules (who, until when,
which points) are the services' (`grading.appeals.appeals`)."""

from django import forms
from django.core.exceptions import ValidationError

from grading.models import Appeal
from rubrics.validators import parse_points


class AppealFileForm(forms.Form):
    """The criteria appealed (checkboxes, by code) and the leader's argument."""

    argument = forms.CharField(
        strip=True,
        widget=forms.Textarea(attrs={"rows": 6, "cols": 70}),
        error_messages={"required": "Write your argument; it is what the jury reads."},
    )

    def __init__(self, *args, codes=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["criteria"] = forms.MultipleChoiceField(
            choices=[(code, code) for code in codes],
            widget=forms.CheckboxSelectMultiple,
            error_messages={
                "required": "Tick at least one criterion you appeal.",
                "invalid_choice": "Tick only the criteria listed.",
            },
        )


class AppealCommentForm(forms.Form):
    text = forms.CharField(
        strip=True, error_messages={"required": "Write something before posting a comment."}
    )


class AppealDecideForm(forms.Form):
    """New points per criterion the appeal names (blank: unchanged), the outcome they make and
    the reason the leader reads."""

    outcome = forms.ChoiceField(
        choices=[("", "As the points say"), *Appeal.Outcome.choices], required=False
    )
    reason = forms.CharField(
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        error_messages={"required": "Give the reason for the decision; the leader reads it."},
    )

    def __init__(self, *args, codes=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.codes = list(codes)
        for code in self.codes:
            self.fields[f"points_{code}"] = forms.CharField(required=False, label=code)

    def points(self) -> dict:
        """The new points by criterion code, the blank ones left out."""
        values = {}
        errors = []
        for code in self.codes:
            try:
                value = parse_points(self.cleaned_data.get(f"points_{code}"), where=code)
            except ValidationError as error:
                errors.extend(error.messages)
                continue
            if value is not None:
                values[code] = value
        if errors:
            raise ValidationError(errors)
        return values
