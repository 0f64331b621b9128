"""What the assignment knows, in the admin, under the same rules as the pages
(`grading.admin.mixins`). A person's facts (country, capacity, the languages they read) are set
up here: on the facts' own page, with the languages beside them, and on the person's page of
the user admin. The papers moved during grading and the questions for language help are
records, written by their services alone (the moves with their notices, the help with its
helper and answer) and read here: to those who may not trace papers (the chair before final)
they name no paper but by its label in their problem. The conflicts of interest the organizer
declares (a juror × a delegation or one contestant) are declared and removed here, and count at
every door from the moment they are saved (`grading.rules.conflicts`)."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet

from grading.admin.mixins import LABEL, GuardedAdmin, GuardedInline, NamedByLabel, RecordAdmin
from grading.models import (
    AssignmentMove,
    ConflictRuling,
    DeclaredConflict,
    HelpRequest,
    JurorLanguage,
    JurorProfile,
    Paper,
    language_key,
)
from grading.models.papers import paper_named_in
from grading.rules import roles


class LanguagesFormSet(BaseInlineFormSet):
    """A person's languages, compared as the assignment compares them (`language_key`):
    "Tagalog" and "tagalog " are one language, listed once."""

    def clean(self):
        super().clean()
        seen = {}
        for form in self.forms:
            language = form.cleaned_data.get("language")
            if not language or form.cleaned_data.get("DELETE"):
                continue
            key = language_key(language)
            if key in seen:
                raise ValidationError(
                    f"“{language}” and “{seen[key]}” are one language to the assignment; "
                    "list it once."
                )
            seen[key] = language


class JurorLanguageInline(GuardedInline):
    model = JurorLanguage
    formset = LanguagesFormSet
    fields = ["language", "level"]
    extra = 1
    verbose_name = "language read"
    verbose_name_plural = "languages read"

    def __init__(self, parent_model, admin_site):
        # A language belongs to the person (its key is the user), also on the page of their
        # facts, whose admin gives this formset the profile's user (`JurorProfileAdmin`).
        super().__init__(User, admin_site)


class JurorProfileInline(GuardedInline):
    model = JurorProfile
    fields = ["country", "capacity", "unavailable_since"]
    readonly_fields = ["unavailable_since"]
    verbose_name = verbose_name_plural = "facts for the assignment"
    max_num = 1
    can_delete = False


@admin.register(JurorProfile)
class JurorProfileAdmin(GuardedAdmin):
    """A person's facts for the assignment, and the languages they read."""

    list_display = ["user", "full_name", "country", "capacity", "languages", "unavailable_since"]
    list_filter = ["country", ("unavailable_since", admin.EmptyFieldListFilter)]
    search_fields = ["user__username", "user__first_name", "user__last_name", "country"]
    list_select_related = ["user"]
    fields = ["user", "country", "capacity", "unavailable_since"]
    # Marking a juror unavailable moves their ungraded papers to others and tells those
    # concerned: the assignment's service does it, never a field typed here.
    readonly_fields = ["unavailable_since"]
    inlines = [JurorLanguageInline]
    tracing_fields = ()

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("user__reading_languages")

    def get_readonly_fields(self, request, obj=None):
        # The person whose facts these are stays theirs once saved.
        fields = list(super().get_readonly_fields(request, obj))
        return fields + ["user"] if obj is not None else fields

    def get_inlines(self, request, obj):
        # Languages hang on the person: an add page has no person saved yet to hang them on.
        return self.inlines if obj is not None else []

    def get_formset_kwargs(self, request, obj, inline, prefix):
        kwargs = super().get_formset_kwargs(request, obj, inline, prefix)
        if isinstance(inline, JurorLanguageInline):
            kwargs["instance"] = obj.user
        return kwargs

    @admin.display(description="name", ordering="user__last_name")
    def full_name(self, profile) -> str:
        return profile.user.get_full_name()

    @admin.display(description="languages read")
    def languages(self, profile) -> str:
        return ", ".join(
            language.language
            if language.level == JurorLanguage.Level.READS
            else f"{language.language} (with help)"
            for language in profile.user.reading_languages.all()
        )


# The person's page (for those with the user admin, the superusers) carries their facts too.
admin.site.unregister(User)


@admin.register(User)
class PersonAdmin(UserAdmin):
    inlines = [*UserAdmin.inlines, JurorProfileInline, JurorLanguageInline]


@admin.register(AssignmentMove)
class AssignmentMoveAdmin(NamedByLabel, RecordAdmin):
    """A paper moved from one juror to another during grading (`grading.assigning`), each on
    record with who moved it and why."""

    list_display = [
        "problem",
        "labelled",
        "paper",
        "from_juror",
        "to_juror",
        "actor",
        "reason",
        "at",
    ]
    list_filter = ["problem__contest", "problem"]
    list_select_related = ["problem", "paper", "from_juror", "to_juror", "actor"]
    readonly_fields = ["at"]
    label_problem = "problem"
    untraced_ordering = ("problem__contest_id", "problem_id", "at", LABEL)

    @admin.display(description="paper in its problem")
    def labelled(self, move) -> str:
        return paper_named_in(move, move.problem_id)


@admin.register(ConflictRuling)
class ConflictRulingAdmin(NamedByLabel, RecordAdmin):
    """The chair's decision on a juror's marks given before their conflict with the paper came
    to light (`grading.assigning.conflict_rulings`, on the chair's page): kept or discarded,
    with who decided, when and why. It stands: read here, never changed."""

    list_display = ["problem", "labelled", "paper", "juror", "kept", "decided_by", "decided_at"]
    list_filter = ["problem__contest", "problem", "kept"]
    search_fields = ["reason"]
    list_select_related = ["problem", "paper", "juror", "decided_by"]
    readonly_fields = ["decided_at"]
    label_problem = "problem"
    untraced_ordering = ("problem__contest_id", "problem_id", "decided_at", LABEL)

    @admin.display(description="paper in its problem")
    def labelled(self, ruling) -> str:
        return paper_named_in(ruling, ruling.problem_id)


@admin.register(HelpRequest)
class HelpRequestAdmin(NamedByLabel, RecordAdmin):
    """A juror's question on a paper, its helper and the helper's answer (asked on the sheet,
    given a helper and answered on their pages, each step told in the inbox)."""

    list_display = [
        "problem",
        "labelled",
        "paper",
        "asked_by",
        "state",
        "helper",
        "asked_at",
        "answered_at",
    ]
    list_filter = ["problem__contest", "problem"]
    search_fields = ["question", "answer"]
    list_select_related = ["problem", "paper", "asked_by", "helper"]
    readonly_fields = ["asked_at"]
    label_problem = "problem"
    untraced_ordering = ("problem__contest_id", "problem_id", "asked_at", LABEL)

    @admin.display(description="paper in its problem")
    def labelled(self, help_request) -> str:
        return paper_named_in(help_request, help_request.problem_id)

    @admin.display(description="state")
    def state(self, help_request) -> str:
        return HelpRequest.State(help_request.state).label


@admin.register(DeclaredConflict)
class DeclaredConflictAdmin(GuardedAdmin):
    """A conflict of interest the organizer declares: a juror × a delegation (all its
    contestants) or × one contestant, with the reason. From the moment it is saved, the papers
    leave the juror's sheet and pages, the solver and this admin's assignment form keep them
    from the juror, and the console's conflict moves propose where their cells go. A contestant
    is a paper: to those who may not trace papers the column and the field are left out."""

    list_display = ["juror", "delegation", "paper", "reason", "declared_by", "declared_at"]
    # Not by the paper's contest: a filter through a paper is refused to the chair.
    list_filter = ["delegation__contest"]
    search_fields = ["juror__username", "juror__first_name", "juror__last_name", "reason"]
    list_select_related = ["juror", "delegation", "paper", "declared_by"]
    fields = ["juror", "delegation", "paper", "reason", "declared_by", "declared_at"]
    readonly_fields = ["declared_by", "declared_at"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        # A juror is in conflict with a contestant: a human paper, never an AI system's.
        if db_field.name == "paper":
            kwargs["queryset"] = (
                Paper.objects.filter(source=Paper.Source.HUMAN)
                .select_related("contest")
                .order_by("contest_id", "identity")
            )
            field = super().formfield_for_foreignkey(db_field, request, **kwargs)
            # Only those who may trace papers get the field: the contestant by name.
            field.label_from_instance = lambda paper: f"{paper.identity} ({paper.contest.slug})"
            return field
        if db_field.name == "juror":
            kwargs["queryset"] = User.objects.filter(groups__name=roles.JUROR).order_by("username")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        if not change:
            obj.declared_by = request.user
        super().save_model(request, obj, form, change)
