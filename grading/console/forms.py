"""Request input of the organizer's console, read with Django forms. The forms read and shape
what was typed; the rules (what a cut-off may be, which lines make jurors) are the services'
(`grading.results.cutoffs`, `grading.console.people`), which every door calls."""

from decimal import Decimal

from django import forms
from django.core.exceptions import ValidationError

from grading.results.cutoffs import MEDALS
from grading.rules import roles
from rubrics.validators import parse_points

# What a browser's datetime-local field sends, and what a person types.
DEADLINE_FORMATS = ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"]

# A pasted or uploaded list of jurors: a thousand lines are far below this.
MAX_UPLOAD_BYTES = 1_000_000


class NumberField(forms.CharField):
    """A total as typed: "58.4" or "58,4"; blank is None."""

    def __init__(self, *, where: str, **kwargs):
        self.where = where
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_python(self, value) -> Decimal | None:
        return parse_points(super().to_python(value), where=self.where)


class ContestCreateForm(forms.Form):
    slug = forms.CharField(
        label="Short name",
        max_length=50,
        help_text="Letters, digits, hyphens: used in addresses and commands (iol2026).",
        error_messages={"required": "Give the contest a short name, such as iol2026."},
    )
    name = forms.CharField(
        max_length=200,
        error_messages={"required": "Give the contest a name; jurors and the chair see it."},
    )
    max_total = NumberField(where="The maximum total", initial="100", label="Maximum total")

    def clean_max_total(self):
        value = self.cleaned_data["max_total"]
        if value is None:
            raise ValidationError("Give the maximum total, such as 100.")
        return value


class ContestSettingsForm(ContestCreateForm):
    """Name, maximum, working language and the four medals' cut-offs (blank: the medal is not
    awarded)."""

    slug = None
    working_language = forms.CharField(
        max_length=60,
        help_text="The language AI systems answer in; the assignment gives their papers to "
        "jurors who read it.",
        error_messages={"required": "Give the contest's working language, such as English."},
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for medal in MEDALS:
            self.fields[medal.key] = NumberField(
                where=f"The {medal.name} cut-off", label=medal.name.capitalize()
            )

    def cutoffs(self) -> dict[str, Decimal | None]:
        return {medal.key: self.cleaned_data.get(medal.key) for medal in MEDALS}


class JurorsForm(forms.Form):
    """Jurors pasted as lines or uploaded as a CSV file: `name, username, email, problems`."""

    people = "jurors"
    columns = "name, username, email, problems"
    text = forms.CharField(required=False, strip=False, widget=forms.Textarea, label="Lines")
    file = forms.FileField(required=False, label="or a CSV file")

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        if upload:
            if upload.size > MAX_UPLOAD_BYTES:
                raise ValidationError(
                    f"{upload.name} is larger than {MAX_UPLOAD_BYTES // 1_000_000} MB; a list of "
                    f"{self.people} is far smaller. Check that this is the right file."
                )
            try:
                data["text"] = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                raise ValidationError(
                    f"{upload.name} is not UTF-8 text; save it as “CSV UTF-8” and upload it again."
                ) from None
        if not (data.get("text") or "").strip():
            raise ValidationError(
                f"Paste the {self.people}' lines or choose a CSV file: {self.columns}."
            )
        return data


class LeadersForm(JurorsForm):
    """Team leaders pasted as lines or uploaded as a CSV file: `name, username, email,
    delegation`."""

    people = "leaders"
    columns = "name, username, email, delegation"


class JurorFactsForm(JurorsForm):
    """Jurors' facts pasted as lines or uploaded as a CSV file: `username, country, capacity,
    languages` (`grading.console.juror_facts`)."""

    columns = "username, country, capacity, languages"


class AnswerLanguagesForm(JurorsForm):
    """Papers' answer languages pasted as lines or uploaded: `code, language`."""

    people = "papers"
    columns = "code, language"


class SpecialistsForm(JurorsForm):
    """Language specialists pasted as lines or uploaded as a CSV file: `name, username, email,
    languages`."""

    people = "language specialists"
    columns = "name, username, email, languages"


class JurorsConfirmForm(forms.Form):
    text = forms.CharField(strip=False, widget=forms.HiddenInput)


class PersonForm(forms.Form):
    """A person's name and e-mail, and their problems in each contest still open to changes."""

    first_name = forms.CharField(required=False, max_length=150)
    last_name = forms.CharField(required=False, max_length=150)
    email = forms.EmailField(
        required=False, error_messages={"invalid": "This is not an e-mail address."}
    )
    # A juror's facts for the assignment, in the bulk lines' notation (grading.console.juror_facts),
    # checked there.
    country = forms.CharField(
        required=False,
        help_text="Where the juror comes from: they grade no contestant of a delegation of "
        "this country.",
    )
    capacity = forms.CharField(
        required=False,
        help_text="The most papers of one problem the juror takes; empty for no limit.",
    )
    languages = forms.CharField(
        required=False,
        help_text="The languages the juror reads, separated by semicolons, such as "
        "“Estonian; Finnish (with help); English”.",
    )

    def __init__(self, *args, contests=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.contests = list(contests)
        for contest in self.contests:
            self.fields[f"problems_{contest.slug}"] = forms.CharField(
                required=False,
                label=f"Problems in {contest.name}",
                help_text="Problem numbers, such as “1 3” or “P1;P3”; empty for none.",
            )


class RolesForm(forms.Form):
    """The roles a person holds: any of juror, chair, organizer, team leader (a leader's
    delegations are set on the contest's delegations page) and language specialist (their
    languages are set when they are added)."""

    roles = forms.MultipleChoiceField(
        choices=[
            (roles.JUROR, "Juror"),
            (roles.CHAIR, "Chair"),
            (roles.ORGANIZER, "Organizer"),
            (roles.LEADER, "Team leader"),
            (roles.SPECIALIST, "Language specialist"),
        ],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"invalid_choice": "“%(value)s” is not a role."},
    )


class TransitionForm(forms.Form):
    """The explicit confirmation of a step in the contest's life (and, to reopen, its reason)."""

    confirm = forms.BooleanField(
        error_messages={"required": "Tick the box to confirm that you understand what happens."}
    )
    reason = forms.CharField(required=False, strip=True, widget=forms.Textarea(attrs={"rows": 3}))
    # Publishing provisional results sets the appeals deadline, typed in the reader's time zone
    # (the one the request activates), which the service checks.
    deadline = forms.DateTimeField(
        required=False,
        input_formats=DEADLINE_FORMATS,
        error_messages={"invalid": "Write the deadline as 2026-07-25 18:00."},
    )


class DeadlineExtendForm(forms.Form):
    """A later appeals deadline and the reason that stays on record."""

    deadline = forms.DateTimeField(
        input_formats=DEADLINE_FORMATS,
        error_messages={
            "required": "Give the new deadline, such as 2026-07-25 18:00.",
            "invalid": "Write the deadline as 2026-07-25 18:00.",
        },
    )
    reason = forms.CharField(
        strip=True,
        error_messages={"required": "Give the reason for extending the deadline."},
    )


class AssignmentsForm(forms.Form):
    """How many jurors grade each paper, problem by problem (3 for a hard problem)."""

    def __init__(self, *args, numbers=(), **kwargs):
        super().__init__(*args, **kwargs)
        for number in numbers:
            self.fields[f"p{number}"] = forms.IntegerField(
                label=f"P{number}: jurors per paper",
                min_value=1,
                max_value=20,
                initial=2,
                error_messages={
                    "required": f"P{number}: give the number of jurors per paper.",
                    "invalid": f"P{number}: the number of jurors per paper is a whole number.",
                    "min_value": f"P{number}: at least 1 juror grades each paper.",
                    "max_value": f"P{number}: at most 20 jurors grade each paper.",
                },
            )
        self.fields["load_slack"] = forms.IntegerField(
            label="Load slack",
            help_text=(
                "Jurors may take up to this many papers more than an even share, so that papers "
                "reach readers of their language."
            ),
            min_value=0,
            max_value=50,
            initial=0,
            required=False,
            error_messages={
                "invalid": "The load slack is a whole number of papers.",
                "min_value": "The load slack is 0 or more papers.",
                "max_value": "The load slack is at most 50 papers.",
            },
        )

    def counts(self) -> dict[int, int]:
        return {
            int(name[1:]): value
            for name, value in self.cleaned_data.items()
            if name.startswith("p") and name[1:].isdigit()
        }

    def load_slack(self) -> int:
        return self.cleaned_data.get("load_slack") or 0


class GroupsForm(forms.Form):
    """Who grades which problem: for each juror, the problems whose grading group they are in."""

    def __init__(self, *args, jurors=(), numbers=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.jurors = list(jurors)
        for juror in self.jurors:
            self.fields[f"j{juror.pk}"] = forms.TypedMultipleChoiceField(
                choices=[(number, f"P{number}") for number in numbers],
                coerce=int,
                required=False,
                error_messages={"invalid_choice": f"{juror.username}: there is no such problem."},
            )

    def problems(self) -> list[tuple[object, list[int]]]:
        return [(juror, self.cleaned_data[f"j{juror.pk}"]) for juror in self.jurors]


class JurorBackForm(forms.Form):
    """A juror marked unavailable who comes back."""

    juror = forms.ModelChoiceField(
        queryset=None,
        to_field_name="username",
        label="Juror",
        error_messages={
            "required": "Choose the juror who comes back.",
            "invalid_choice": "Choose one of the contest's jurors marked unavailable.",
        },
    )

    def __init__(self, *args, jurors=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["juror"].queryset = jurors


class JurorLeavingForm(forms.Form):
    """A juror who can no longer grade, and why (kept with each move of their papers)."""

    juror = forms.ModelChoiceField(
        queryset=None,
        to_field_name="username",
        label="Juror",
        error_messages={
            "required": "Choose the juror who leaves.",
            "invalid_choice": "Choose one of the contest's jurors.",
        },
    )
    reason = forms.CharField(
        max_length=300,
        label="Reason",
        help_text="Kept with each move, e.g. “ill from Tuesday”.",
        error_messages={
            "required": "Give the reason the juror leaves; it is kept with each move.",
            "max_length": "The reason is at most 300 characters.",
        },
    )

    def __init__(self, *args, jurors=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["juror"].queryset = jurors


class EveningForm(forms.Form):
    """The appeals evening's slots and, per problem, how many tables its group holds at once
    (`tables_<problem number>`, one field each, added for the contest's problems)."""

    starts_at = forms.DateTimeField(
        label="First slot starts",
        input_formats=DEADLINE_FORMATS,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        error_messages={
            "required": "Give the time the first meeting starts, such as 2026-07-25 19:00.",
            "invalid": "Write the start as 2026-07-25 19:00.",
        },
    )
    slot_minutes = forms.IntegerField(
        label="Minutes a slot", min_value=5, max_value=180, initial=20
    )
    slots = forms.IntegerField(label="Slots", min_value=1, max_value=40, initial=8)

    def __init__(self, *args, problems=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.problems = list(problems)
        for problem in self.problems:
            self.fields[f"tables_{problem.number}"] = forms.IntegerField(
                label=f"Tables of {problem.code}'s group", min_value=1, max_value=20, initial=1
            )

    def tables(self) -> dict[int, int]:
        """Problem id → tables, from the cleaned data."""
        return {
            problem.pk: self.cleaned_data[f"tables_{problem.number}"] for problem in self.problems
        }


class MeetingMoveForm(forms.Form):
    """A meeting to another slot (as the page numbers slots: 1 first)."""

    slot = forms.IntegerField(min_value=1, error_messages={"required": "Choose a slot."})
