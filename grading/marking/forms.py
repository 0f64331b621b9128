"""Request input, read with Django forms: points as people type them ("2.5", "2,5", blank), the
version of a mark the writer last saw, notes, comments and the chair's reasons. A form that
does not validate gives sentences; views never parse `request.POST` by hand."""

from decimal import Decimal, InvalidOperation

from django import forms
from django.core.exceptions import ValidationError

from grading.models import Notification
from grading.rules.refusals import MalformedRequest
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


class ChangeKeyField(forms.RegexField):
    """The random id the sheet's page gave a change (grading.marking.change_keys); optional, so
    that a writer without one saves as before."""

    default_error_messages = {
        "invalid": "The save's change id is not one this page makes; reload the page and type "
        "the value again.",
    }

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(r"^[A-Za-z0-9_-]{8,40}$", **kwargs)

    def to_python(self, value):
        return super().to_python(value) or None


class CellPointsForm(forms.Form):
    points = PointsField()
    version = VersionField()
    change_key = ChangeKeyField()

    def __init__(self, *args, where: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["points"].where = where


class CellNoteForm(forms.Form):
    note = forms.CharField(required=False, strip=True)
    version = VersionField()
    change_key = ChangeKeyField()


class ReviseForm(CellPointsForm):
    version = VersionField(required=False)
    change_key = None  # a revision is a form the page posts once, not the sheet's autosave


# The reasons a chair gives most often, offered beside the free text so that a quick decision
# is one choice and a key press; the text typed beside one is added to it.
DECISION_REASONS = (
    "Agreed in discussion.",
    "The answer matches the official answer.",
    "Partial answer: the scheme gives half.",
    "The rule is stated but not applied.",
    "The scheme's wording decides it.",
    "A slip, not an error of method.",
)

# A quick decision takes one of the submitted marks: a juror's (by username), the lower or
# the higher. Which points that means is read from the marks by the decision service.
TAKE_LOWER, TAKE_HIGHER, TAKE_JUROR = "lower", "higher", "juror:"

# Where the chair goes after a decision: the next cell of the queue (as filtered), the queue,
# or this page (also when the field is missing).
AFTER_CHOICES = (
    ("cell", "the next cell of the queue"),
    ("queue", "the queue"),
    ("stay", "this page"),
)


class DecideForm(CellPointsForm):
    """The chair's decision: points typed, or a mark taken (`take`), with a reason chosen from
    DECISION_REASONS and/or written; `reason` in cleaned_data is the two joined."""

    version = None
    reason_choice = forms.ChoiceField(
        required=False, choices=[("", "(write the reason)")] + [(r, r) for r in DECISION_REASONS]
    )
    reason_text = forms.CharField(required=False, strip=True)
    # The reason as a single field, as the page sent it before the choice was offered (and as
    # scripts and tests may still send it).
    reason = forms.CharField(required=False, strip=True)
    take = forms.CharField(required=False, strip=True)
    next = forms.ChoiceField(required=False, choices=AFTER_CHOICES)

    def clean_take(self):
        """(which mark, the points the page showed for it), or None. The page sends
        "juror:alice=8", "lower=6": the service refuses if the mark is no longer what the chair
        saw."""
        take = self.cleaned_data["take"]
        if not take:
            return None
        which, _, seen = take.rpartition("=") if "=" in take else (take, "", "")
        offered = which in (TAKE_LOWER, TAKE_HIGHER) or which.startswith(TAKE_JUROR)
        try:
            seen = Decimal(seen) if seen else None
        except InvalidOperation:
            offered = False
        if not offered or (seen is not None and not seen.is_finite()):
            raise ValidationError("The decision asked to take a mark the page does not offer.")
        return which, seen

    def clean(self):
        data = super().clean()
        parts = [data.get("reason_choice"), data.get("reason_text"), data.get("reason")]
        data["reason"] = " ".join(part for part in parts if part)
        return data


class QueueFilterForm(forms.Form):
    """The chair's queue narrowed: a problem, a status, papers straddling a medal cut-off, a
    label. Read from the query string; an unknown value is ignored rather than refused, as a
    filter that cannot apply shows everything it can."""

    STATUSES = (
        ("open", "open"),
        ("pending", "waiting for a mark"),
        ("chair", "decided by the chair"),
        ("consensus", "agreed in discussion"),
        ("any", "any of these"),
    )
    problem = forms.IntegerField(required=False, min_value=1, max_value=32767)
    status = forms.ChoiceField(required=False, choices=STATUSES)
    straddle = forms.BooleanField(required=False)
    label = forms.CharField(required=False, strip=True, max_length=40)

    def filters(self) -> dict:
        """The valid filters, with the defaults for what is missing or not understood."""
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        return {
            "problem": data.get("problem") if "problem" not in self.errors else None,
            "status": data.get("status") or "open",
            "straddle": bool(data.get("straddle")),
            "label": (data.get("label") or "").upper() if "label" not in self.errors else "",
        }


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
    if set(form.errors) - {"points", "reason", "reason_choice", "reason_text", "text", "note"}:
        return MalformedRequest(messages)
    return ValidationError(messages)


class RevisionRequestForm(forms.Form):
    """The chair's request that one juror of a cell revise their mark (`revision_request`)."""

    juror = forms.CharField(max_length=150)
    text = forms.CharField(required=False, strip=True)


class InboxFilterForm(forms.Form):
    """The inbox narrowed to one kind of notice, from the query string; an unknown kind shows
    every kind, as a filter that cannot apply shows everything it can."""

    kind = forms.ChoiceField(
        required=False, choices=[("", "every kind"), *Notification.Kind.choices]
    )

    def kind_chosen(self) -> str:
        return self.cleaned_data["kind"] if self.is_valid() else ""


class InboxReadForm(forms.Form):
    """Which notices "mark as read" marks: one group's (its contest, problem and kind; no
    problem for a notice about the whole contest), or, without a group, all of them."""

    contest = forms.IntegerField(required=False, min_value=1)
    problem = forms.IntegerField(required=False, min_value=1)
    kind = forms.ChoiceField(required=False, choices=Notification.Kind.choices)

    def clean(self):
        data = super().clean()
        if bool(data.get("contest")) != bool(data.get("kind")):
            raise ValidationError("A group of notices is named by its contest and its kind.")
        return data


class BankNoteForm(forms.Form):
    """A comment bank's note: its text (checked, with its length, by the bank's services) and
    the points it suggests, blank for none."""

    text = forms.CharField(required=False, strip=True)
    points = PointsField(where="The suggested points")


class BankMoveForm(forms.Form):
    direction = forms.ChoiceField(choices=[("up", "up"), ("down", "down")])
