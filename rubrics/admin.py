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


class CriterionInline(admin.TabularInline):
    model = Criterion
    extra = 0
    fields = ["order", "code", "kind", "title", "points", "step", "tolerance", "task"]


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    list_display = ["__str__", "contest", "language", "max_points"]
    list_filter = ["contest"]
    search_fields = ["title", "language"]
    inlines = [CriterionInline]


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
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
class CriterionAdmin(admin.ModelAdmin):
    list_display = ["code", "problem", "kind", "title", "points", "step", "tolerance"]
    list_filter = ["problem__contest", "kind"]
    search_fields = ["code", "title", "guidance"]
    list_select_related = ["problem"]


@admin.register(MedalCutoff)
class MedalCutoffAdmin(admin.ModelAdmin):
    list_display = ["name", "contest", "min_total", "order"]
    list_filter = ["contest"]
