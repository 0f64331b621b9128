"""The chair's forms of a calibration round: its papers and seeded flag, and the reference
grid (points and note per paper and criterion, read with the live sheet's points field)."""

from django import forms

from grading.marking.forms import PointsField


class RoundCreateForm(forms.Form):
    labels = forms.MultipleChoiceField(choices=(), required=False)
    seeded = forms.BooleanField(required=False)

    def __init__(self, *args, labels: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["labels"].choices = [(label, label) for label in labels]
        self.fields["labels"].error_messages["invalid_choice"] = (
            "%(value)s is not a label of this problem; pick among its labels."
        )


def reference_field_names(paper_id: int, criterion_id: int) -> tuple[str, str]:
    return f"ref-{paper_id}-{criterion_id}", f"note-{paper_id}-{criterion_id}"


class ReferenceGridForm(forms.Form):
    """One points field and one note field per calibration paper and criterion."""

    def __init__(self, *args, rows, **kwargs):
        super().__init__(*args, **kwargs)
        self.cells = []
        for row in rows:
            for cell in row.cells:
                points_name, note_name = reference_field_names(row.paper.pk, cell.criterion.pk)
                self.fields[points_name] = PointsField(
                    where=f"Paper {row.label}, criterion {cell.criterion.code}"
                )
                self.fields[note_name] = forms.CharField(required=False, strip=True)
                self.cells.append((row.paper, cell.criterion, points_name, note_name))
