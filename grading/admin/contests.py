"""Contests and their grading schemes in the admin, under the same rules as the pages
(`grading.admin.mixins`): whatever a final contest owns is read-only, and a contest's state
changes only through the services of `grading.console.contest_life`, each on record."""

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet

from grading.admin.mixins import GuardedAdmin, GuardedInline, OpenContestForm, RecordInline
from grading.console.contest_life import contest_grading_open
from grading.models import ContestEvent
from grading.results.cutoffs import stored_cutoff_problems
from grading.rules.refusals import Refusal
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, Task


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
    readonly_fields = ["state"]
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
    """Schemes change explicitly: a criterion's points and step are read-only once marks with
    points exist for it (load a new scheme version with `load_schemes`, which lists the marks it
    would affect). Once the contest is final everything is read-only (`FinalGuard`)."""

    def _marked(self, criteria) -> bool:
        return criteria.filter(marks__points__isnull=False).exists()


class CriterionInline(SchemeGuard, GuardedInline):
    model = Criterion
    extra = 0
    fields = ["order", "code", "kind", "title", "points", "step", "tolerance", "task"]

    def get_readonly_fields(self, request, obj=None):
        # obj is the problem here: once any of its criteria has marks, points and step stay.
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and self._marked(obj.criteria):
            fields += ["points", "step"]
        return fields


@admin.register(Problem)
class ProblemAdmin(GuardedAdmin):
    list_display = ["__str__", "contest", "language", "max_points"]
    list_filter = ["contest"]
    search_fields = ["title", "language"]
    inlines = [CriterionInline]


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
        if obj is not None and self._marked(Criterion.objects.filter(pk=obj.pk)):
            fields += ["points", "step"]
        return fields


@admin.register(MedalCutoff)
class MedalCutoffAdmin(GuardedAdmin):
    form = CutoffRuleForm
    list_display = ["name", "contest", "min_total", "order"]
    list_filter = ["contest"]
