"""Contests and their grading schemes in the admin, under the same rules as the pages
(`grading.admin.mixins`): whatever a final contest owns is read-only, and a contest's state
changes only through the services of `grading.console.contest_life`, each on record."""

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet
from django.urls import reverse
from django.utils.html import format_html

from grading.admin.mixins import (
    GuardedAdmin,
    GuardedInline,
    OpenContestForm,
    RecordAdmin,
    RecordInline,
)
from grading.console.contest_life import contest_grading_open
from grading.models import ContestEvent
from grading.results.cutoffs import stored_cutoff_problems
from grading.rules.refusals import Refusal
from grading.rules.schemes import scheme_under_marks
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, SchemeVersion, Task


class CutoffRuleFormSet(BaseInlineFormSet):
    """The contest page's cut-offs, checked together against its (possibly new) maximum by the
    rule the console and `set_cutoffs` use (`grading.results.cutoffs`)."""

    def clean(self):
        super().clean()
        rows = [
            (form.cleaned_data["name"], form.cleaned_data["min_total"])
            for form in self.forms
            if form.cleaned_data.get("name")
            and form.cleaned_data.get("min_total") is not None
            and not form.cleaned_data.get("DELETE")
        ]
        errors = stored_cutoff_problems(rows, max_total=self.instance.max_total)
        if errors:
            raise ValidationError(errors)


class CutoffRuleForm(OpenContestForm):
    """One cut-off on its own admin page: the contest's other cut-offs as stored, this one as
    typed, under the same rule."""

    def clean(self):
        cleaned = super().clean()
        contest, name = cleaned.get("contest"), cleaned.get("name")
        if contest is not None and name and cleaned.get("min_total") is not None:
            others = contest.cutoffs.exclude(pk=self.instance.pk)
            rows = [(c.name, c.min_total) for c in others] + [(name, cleaned["min_total"])]
            errors = stored_cutoff_problems(rows, max_total=contest.max_total)
            if errors:
                raise ValidationError(errors)
        return cleaned


class MedalCutoffInline(GuardedInline):
    model = MedalCutoff
    formset = CutoffRuleFormSet
    extra = 0


class ProblemInline(GuardedInline):
    model = Problem
    extra = 0
    fields = ["number", "title", "language", "max_points"]


class ContestEventInline(RecordInline):
    model = ContestEvent
    verbose_name = "step in the contest's life"
    verbose_name_plural = "the contest's life"
    fields = readonly_fields = ["from_state", "to_state", "actor", "reason", "created_at"]


@admin.register(Contest)
class ContestAdmin(GuardedAdmin):
    list_display = ["name", "slug", "state", "working_language", "max_total", "created_at"]
    list_filter = ["state"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    # The state changes only through the contest's life services, which check each step's
    # preconditions and record it; "Open grading" below is the admin's way to the first one.
    # The appeals deadline likewise: publishing sets it, and extending it (later only, with a
    # reason) is on record as an `AppealDeadlineChange`; leaders read it as given.
    readonly_fields = ["state", "appeals_deadline"]
    inlines = [MedalCutoffInline, ProblemInline, ContestEventInline]
    actions = ["open_grading"]

    @admin.action(description="Open grading", permissions=["change"])
    def open_grading(self, request, queryset):
        for contest in queryset:
            try:
                contest_grading_open(contest=contest, actor=request.user)
            except Refusal as refusal:
                messages.error(request, refusal.messages[0])
            else:
                messages.success(request, f"{contest.name}: grading is open.")


class SchemeGuard:
    """Schemes change explicitly: once marks are given under a problem's scheme
    (`grading.rules.schemes`), every field of its criteria is read-only here, and the page says
    to amend the scheme from its own page (a new version, which lists and reopens the marks a
    change of points affects). Once the contest is final everything is read-only
    (`FinalGuard`)."""

    criterion_fields = ["order", "code", "kind", "title", "guidance", "points", "step"]
    criterion_fields += ["tolerance", "task"]

    def _under_marks(self, problem) -> bool:
        return problem is not None and scheme_under_marks(problem)

    def _say_amend(self, request, problem) -> None:
        url = reverse("scheme", args=[problem.contest.slug, problem.number])
        messages.info(
            request,
            format_html(
                "Marks are given under the scheme of {}: its criteria are read-only here; "
                '<a href="{}">amend the scheme from its page</a> (a new version, with a reason).',
                problem.code,
                url,
            ),
        )


class CriterionInline(SchemeGuard, GuardedInline):
    model = Criterion
    extra = 0
    fields = ["order", "code", "kind", "title", "points", "step", "tolerance", "task"]

    def get_readonly_fields(self, request, obj=None):
        # obj is the problem here: once marks are given under its scheme, nothing changes here.
        fields = list(super().get_readonly_fields(request, obj))
        if self._under_marks(obj):
            fields += [name for name in self.fields if name not in fields]
        return fields

    def has_add_permission(self, request, obj=None):
        return not self._under_marks(obj) and super().has_add_permission(request, obj)


@admin.register(Problem)
class ProblemAdmin(SchemeGuard, GuardedAdmin):
    list_display = ["__str__", "contest", "language", "max_points"]
    list_filter = ["contest"]
    search_fields = ["title", "language"]
    inlines = [CriterionInline]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        problem = self.get_object(request, object_id)
        if problem is not None and scheme_under_marks(problem) and request.method == "GET":
            self._say_amend(request, problem)
        return super().change_view(request, object_id, form_url, extra_context)


@admin.register(Task)
class TaskAdmin(GuardedAdmin):
    list_display = [
        "external_id",
        "problem",
        "number",
        "task_type",
        "item_count",
        "split",
        "weight",
    ]
    list_filter = ["problem__contest", "task_type", "split"]
    search_fields = ["external_id", "query"]
    list_select_related = ["problem"]


@admin.register(Criterion)
class CriterionAdmin(SchemeGuard, GuardedAdmin):
    list_display = ["code", "problem", "kind", "title", "points", "step", "tolerance"]
    list_filter = ["problem__contest", "kind"]
    search_fields = ["code", "title", "guidance"]
    list_select_related = ["problem"]

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and self._under_marks(obj.problem):
            fields += [name for name in self.criterion_fields if name not in fields]
        return fields

    def change_view(self, request, object_id, form_url="", extra_context=None):
        criterion = self.get_object(request, object_id)
        if (
            criterion is not None
            and request.method == "GET"
            and self._under_marks(criterion.problem)
        ):
            self._say_amend(request, criterion.problem)
        return super().change_view(request, object_id, form_url, extra_context)


@admin.register(MedalCutoff)
class MedalCutoffAdmin(GuardedAdmin):
    form = CutoffRuleForm
    list_display = ["name", "contest", "min_total", "order"]
    list_filter = ["contest"]


@admin.register(SchemeVersion)
class SchemeVersionAdmin(RecordAdmin):
    """A problem's scheme versions, read-only: they are made by amending the scheme from the
    problem's "Amend the scheme" page, which records the reason and reopens marks."""

    list_display = ["problem", "number", "reopens_marks", "created_by", "created_at"]
    list_filter = ["problem__contest", "reopens_marks"]
    list_select_related = ["problem", "created_by"]
    fields = readonly_fields = [
        "problem",
        "number",
        "reason",
        "changes",
        "reopens_marks",
        "created_by",
        "created_at",
    ]
