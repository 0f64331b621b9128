"""The chair's forms of a calibration round: its papers (graded in it or kept for seeding) and
seeded flag, the reference grid
(points and note per paper and criterion, read with the live sheet's points field) and the
closing, which names the jurors whose calibration sheet is not submitted."""

from dataclasses import dataclass

from django import forms
from django.core.exceptions import ValidationError

from grading.calibration.rounds import validate_reference_note
from grading.marking.forms import PointsField
from rubrics.models import Criterion
from rubrics.validators import validate_points


class RoundCreateForm(forms.Form):
    """The round's papers: those graded in it (`labels`) and those kept out of it for seeding
    (`kept`), both among the problem's labels; and whether it is seeded."""

    labels = forms.MultipleChoiceField(choices=(), required=False)
    kept = forms.MultipleChoiceField(choices=(), required=False)
    seeded = forms.BooleanField(required=False)

    def __init__(self, *args, labels: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("labels", "kept"):
            self.fields[name].choices = [(label, label) for label in labels]
            self.fields[name].error_messages["invalid_choice"] = (
                "%(value)s is not a label of this problem; pick among its labels."
            )


class _Usernames(forms.Field):
    widget = forms.MultipleHiddenInput

    def to_python(self, value) -> list[str]:
        return [str(name).strip() for name in value or [] if str(name).strip()]


class RoundCloseForm(forms.Form):
    """The closing: the jurors (by username) whose calibration sheet the page showed missing,
    and whether the chair ticked that the round closes without them."""

    without = _Usernames(required=False)
    confirm = forms.BooleanField(required=False)

    def confirmed_without(self) -> list[str]:
        """The jurors the chair agreed to close the round without; none unless ticked."""
        return self.cleaned_data["without"] if self.cleaned_data["confirm"] else []


def reference_field_names(paper_id: int, criterion_id: int) -> tuple[str, str]:
    return f"ref-{paper_id}-{criterion_id}", f"note-{paper_id}-{criterion_id}"


@dataclass(frozen=True)
class ReferenceCell:
    paper: object  # a CalibrationPaper
    criterion: Criterion
    points_name: str
    note_name: str
    where: str


class ReferenceGridForm(forms.Form):
    """One points field and one note field per calibration paper and criterion, each shown
    with what the chair typed. Points are checked against their criterion here, by the rule
    the service applies (`validate_points`), so that one wrong value is marked on its own
    field and the page keeps every other value typed, rather than refusing the grid as a whole
    after a redirect that empties it."""

    def __init__(self, *args, rows, **kwargs):
        super().__init__(*args, **kwargs)
        self.cells: list[ReferenceCell] = []
        for row in rows:
            for cell in row.cells:
                points_name, note_name = reference_field_names(row.paper.pk, cell.criterion.pk)
                where = f"Paper {row.label}"
                self.fields[points_name] = PointsField(
                    where=f"{where}, criterion {cell.criterion.code}",
                    initial=cell.reference_shown,
                )
                self.fields[note_name] = forms.CharField(
                    required=False,
                    strip=True,
                    initial=cell.reference.note if cell.reference else "",
                )
                self.cells.append(
                    ReferenceCell(row.paper, cell.criterion, points_name, note_name, where)
                )

    def clean(self):
        for cell in self.cells:
            points = self.cleaned_data.get(cell.points_name)
            try:
                validate_points(points, cell.criterion, where=cell.where)
            except ValidationError as error:
                self.add_error(cell.points_name, error)
            try:
                validate_reference_note(
                    self.cleaned_data.get(cell.note_name), cell.criterion, where=cell.where
                )
            except ValidationError as error:
                self.add_error(cell.note_name, error)
        return self.cleaned_data

    def entries(self) -> list[tuple]:
        """(calibration paper, criterion, points, note) of every cell, for `references_set`."""
        return [
            (
                cell.paper,
                cell.criterion,
                self.cleaned_data[cell.points_name],
                self.cleaned_data[cell.note_name],
            )
            for cell in self.cells
        ]

    def error_sentences(self) -> list[tuple[str, str]]:
        """Every wrong value's field name and sentence, in the grid's order (paper by paper),
        for the list above the grid that each marked field points to."""
        return [
            (name, message)
            for cell in self.cells
            for name in (cell.points_name, cell.note_name)
            for message in self.errors.get(name, [])
        ]

    def lines(self) -> list[tuple[Criterion, list[tuple[str, object, object]]]]:
        """The grid as the page lays it out: a line per criterion, and in it per paper its
        label and its points and note fields bound (what was typed, and its errors)."""
        lines: dict[int, tuple[Criterion, list]] = {}
        for cell in self.cells:
            line = lines.setdefault(cell.criterion.pk, (cell.criterion, []))
            line[1].append((cell.paper.label, self[cell.points_name], self[cell.note_name]))
        return list(lines.values())
