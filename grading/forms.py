"""Request input, read with Django forms: points as people type them ("2.5", "2,5", blank), the
version of a mark the writer last saw, notes, comments and the chair's reasons. A form that
does not validate gives sentences; views never parse `request.POST` by hand."""

from django import forms
from django.core.exceptions import ValidationError

from grading.refusals import MalformedRequest
from rubrics.validators import parse_points


class PointsField(forms.CharField):
    """Points as typed: blank is None (not graded), a comma counts as a decimal point."""

    def __init__(self, *, where: str = "", **kwargs):
        self.where = where
        kwargs.setdefault("required", False)
        kwargs.setdefault("strip", True)
        super().__init__(**kwargs)

    def to_python(self, value):
        return parse_points(super().to_python(value), where=self.where)


class VersionField(forms.IntegerField):
    """The version of the mark the page showed; a stale one is refused by `mark_set`."""

    default_error_messages = {
        "required": "The save did not say which version of the mark it changes; reload the "
        "page and type the value again.",
        "invalid": "The version of the mark is not a whole number; reload the page and type "
        "the value again.",
    }
    default_error_messages["min_value"] = default_error_messages["invalid"]
    default_error_messages["max_value"] = default_error_messages["invalid"]

    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", 2**31 - 1)
        super().__init__(**kwargs)

    def to_python(self, value):
        # int() accepts digits of every script ("٣", and "²" fails only there): a version is
        # written by our own page in ASCII, so anything else is refused as invalid.
        if value not in self.empty_values and not str(value).strip().isascii():
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class CellPointsForm(forms.Form):
    points = PointsField()
    version = VersionField()

    def __init__(self, *args, where: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["points"].where = where


class CellNoteForm(forms.Form):
    note = forms.CharField(required=False, strip=True)
    version = VersionField()


class ReviseForm(CellPointsForm):
    version = VersionField(required=False)


class DecideForm(CellPointsForm):
    version = None
    reason = forms.CharField(required=False, strip=True)


class CommentForm(forms.Form):
    text = forms.CharField(required=False, strip=True)


class ReopenForm(forms.Form):
    reason = forms.CharField(
        strip=True,
        error_messages={
            "required": "Give the reason for reopening the contest; it stays on record."
        },
    )


def form_error(form: forms.Form) -> ValidationError:
    """A form's errors as one error of sentences, for the views' one refusal path: points that
    are not a number are bad input (422); a missing or garbled hidden field is a malformed
    request (400)."""
    messages = [message for errors in form.errors.values() for message in errors]
    if set(form.errors) - {"points", "reason", "text", "note"}:
        return MalformedRequest(messages)
    return ValidationError(messages)
