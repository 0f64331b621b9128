from django.contrib import admin

from rubrics.models import Contest, Criterion, MedalCutoff, Problem, Task


class MedalCutoffInline(admin.TabularInline):
    model = MedalCutoff
    extra = 0


class ProblemInline(admin.TabularInline):
    model = Problem
    extra = 0
    fields = ["number", "title", "language", "max_points"]


@admin.register(Contest)
class ContestAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "state", "max_total", "created_at"]
    list_filter = ["state"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MedalCutoffInline, ProblemInline]


class SchemeGuard:
    """Schemes change explicitly: a criterion's points and step are read-only once marks with
    points exist for it (load a new scheme version with `load_schemes`, which lists the marks it
    would affect), and everything is read-only once the contest is final."""

    def _final(self, obj) -> bool:
        contest = getattr(obj, "contest", None) or getattr(
            getattr(obj, "problem", None), "contest", None
        )
        return bool(contest and contest.is_final)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and not self._final(obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and not self._final(obj)


class CriterionInline(SchemeGuard, admin.TabularInline):
    model = Criterion
    extra = 0
    fields = ["order", "code", "kind", "title", "points", "step", "tolerance", "task"]

    def get_readonly_fields(self, request, obj=None):
        # obj is the problem here: once any of its criteria has marks, points and step stay.
        if obj is not None and obj.criteria.filter(marks__points__isnull=False).exists():
            return ["points", "step"]
        return []


@admin.register(Problem)
class ProblemAdmin(SchemeGuard, admin.ModelAdmin):
    list_display = ["__str__", "contest", "language", "max_points"]
    list_filter = ["contest"]
    search_fields = ["title", "language"]
    inlines = [CriterionInline]


@admin.register(Task)
class TaskAdmin(SchemeGuard, admin.ModelAdmin):
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
class CriterionAdmin(SchemeGuard, admin.ModelAdmin):
    list_display = ["code", "problem", "kind", "title", "points", "step", "tolerance"]
    list_filter = ["problem__contest", "kind"]
    search_fields = ["code", "title", "guidance"]
    list_select_related = ["problem"]

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.marks.filter(points__isnull=False).exists():
            return ["points", "step"]
        return []


@admin.register(MedalCutoff)
class MedalCutoffAdmin(admin.ModelAdmin):
    list_display = ["name", "contest", "min_total", "order"]
    list_filter = ["contest"]
