"""The "Amend the scheme" form: every criterion's title, guidance, points, step and tolerance,
and the amendment's reason. Values are read as typed; `grading.schemes.amend` checks them, with
sentences naming the criterion and the field."""

from django import forms

from grading.rules.domain import points_text
from grading.rules.schemes import AMENDABLE_FIELDS, MARKED_FIELDS


class SchemeAmendForm(forms.Form):
    reason = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args, criteria, **kwargs):
        super().__init__(*args, **kwargs)
        self.criteria = criteria
        for criterion in criteria:
            for name in AMENDABLE_FIELDS:
                initial = getattr(criterion, name)
                if name in MARKED_FIELDS:
                    initial = points_text(initial)
                widget = (
                    forms.Textarea(attrs={"rows": 2})
                    if name == "guidance"
                    else forms.TextInput(attrs={"size": 6 if name in MARKED_FIELDS else 40})
                )
                self.fields[self.key(criterion.code, name)] = forms.CharField(
                    required=False, initial=initial, strip=False, widget=widget
                )

    @staticmethod
    def key(code: str, name: str) -> str:
        return f"{code}-{name}"

    def rows(self):
        """Each criterion with its bound fields, in the scheme's order, for the template."""
        return [
            (criterion, [self[self.key(criterion.code, name)] for name in AMENDABLE_FIELDS])
            for criterion in self.criteria
        ]

    def changes(self) -> dict[str, dict]:
        """What the form asks for: criterion code → field → value as typed."""
        data = self.cleaned_data
        # A field the post leaves out stays as it is (the page sends every field).
        return {
            criterion.code: {
                name: data[self.key(criterion.code, name)]
                for name in AMENDABLE_FIELDS
                if self.key(criterion.code, name) in self.data
            }
            for criterion in self.criteria
        }
