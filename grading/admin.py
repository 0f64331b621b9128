"""The admin is the organizer's set-up tool. Identity fields (a paper's system name and metadata)
are shown only to those allowed to see them: organizers, and the chair once a contest is final."""

from django.contrib import admin

from grading import access
from grading.models import (
    Assignment,
    Comment,
    GradingGroup,
    HumanCriterionRate,
    HumanScore,
    Mark,
    MarkEvent,
    Paper,
    PaperLabel,
    Resolution,
    ResolutionEvent,
    Sheet,
    Solution,
)

IDENTITY_FIELDS = ("identity", "metadata")


class PaperLabelInline(admin.TabularInline):
    model = PaperLabel
    extra = 0


@admin.register(Paper)
class PaperAdmin(admin.ModelAdmin):
    list_display = ["__str__", "contest", "source", "created_at"]
    list_filter = ["contest", "source"]
    inlines = [PaperLabelInline]

    def _sees_identity(self, request, obj=None) -> bool:
        if obj is not None:
            return access.may_see_identities(request.user, obj.contest)
        return access.is_organizer(request.user)

    def get_list_display(self, request):
        if self._sees_identity(request):
            return ["__str__", "identity", "contest", "source", "created_at"]
        return self.list_display

    def get_search_fields(self, request):
        return ["identity", "labels__label"] if self._sees_identity(request) else ["labels__label"]

    def get_exclude(self, request, obj=None):
        return () if self._sees_identity(request, obj) else IDENTITY_FIELDS


@admin.register(PaperLabel)
class PaperLabelAdmin(admin.ModelAdmin):
    list_display = ["label", "problem", "paper"]
    list_filter = ["problem__contest", "problem"]
    search_fields = ["label"]
    list_select_related = ["problem", "paper"]


@admin.register(Solution)
class SolutionAdmin(admin.ModelAdmin):
    list_display = ["__str__", "task", "updated_at"]
    list_filter = ["task__problem__contest", "task__problem"]
    search_fields = ["task__external_id"]
    list_select_related = ["task", "paper"]


@admin.register(GradingGroup)
class GradingGroupAdmin(admin.ModelAdmin):
    list_display = ["problem"]
    list_filter = ["problem__contest"]
    filter_horizontal = ["jurors"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["problem", "juror", "paper"]
    list_filter = ["problem__contest", "problem", "juror"]
    list_select_related = ["problem", "juror", "paper"]


@admin.register(Sheet)
class SheetAdmin(admin.ModelAdmin):
    list_display = ["problem", "juror", "state", "submitted_at"]
    list_filter = ["problem__contest", "state", "problem"]
    list_select_related = ["problem", "juror"]


class MarkEventInline(admin.TabularInline):
    model = MarkEvent
    extra = 0
    can_delete = False
    readonly_fields = [f.name for f in MarkEvent._meta.fields]


@admin.register(Mark)
class MarkAdmin(admin.ModelAdmin):
    list_display = ["sheet", "paper", "criterion", "points", "version", "updated_at"]
    list_filter = ["sheet__problem__contest", "sheet__problem", "criterion__kind"]
    search_fields = ["note", "criterion__code"]
    list_select_related = ["sheet__juror", "sheet__problem", "criterion", "paper"]
    # Marks change only through the services so that every change is recorded.
    readonly_fields = ["sheet", "paper", "criterion", "points", "note", "version"]
    inlines = [MarkEventInline]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        # A mark a juror has touched is recorded work: neither it nor its sheet, paper or
        # contest (which would take it along) can be deleted here. Untouched blanks can.
        return obj is not None and obj.version == 0 and super().has_delete_permission(request, obj)


@admin.register(MarkEvent)
class MarkEventAdmin(admin.ModelAdmin):
    list_display = ["mark", "version", "channel", "actor", "old_points", "new_points", "created_at"]
    list_filter = ["channel"]
    list_select_related = ["mark", "actor"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    """The discussion is a record: after finalization it can no longer be edited."""

    list_display = ["paper", "criterion", "author", "created_at"]
    list_filter = ["criterion__problem__contest", "criterion__problem"]
    search_fields = ["text"]
    list_select_related = ["paper", "criterion", "author"]

    def has_change_permission(self, request, obj=None):
        final = obj is not None and obj.paper.contest.is_final
        return super().has_change_permission(request, obj) and not final

    def has_delete_permission(self, request, obj=None):
        final = obj is not None and obj.paper.contest.is_final
        return super().has_delete_permission(request, obj) and not final


class ResolutionEventInline(admin.TabularInline):
    model = ResolutionEvent
    extra = 0
    can_delete = False
    readonly_fields = [f.name for f in ResolutionEvent._meta.fields]


@admin.register(Resolution)
class ResolutionAdmin(admin.ModelAdmin):
    list_display = ["paper", "criterion", "kind", "points", "decided_by", "decided_at"]
    list_filter = ["criterion__problem__contest", "kind"]
    search_fields = ["reason", "criterion__code"]
    list_select_related = ["paper", "criterion", "decided_by"]
    # Resolutions change only through the chair's page so that every change is recorded.
    readonly_fields = ["paper", "criterion", "kind", "points", "reason", "decided_by"]
    inlines = [ResolutionEventInline]

    def has_add_permission(self, request):
        return False


@admin.register(HumanScore)
class HumanScoreAdmin(admin.ModelAdmin):
    list_display = ["contestant", "contest", "total"]
    list_filter = ["contest"]
    search_fields = ["contestant"]


@admin.register(HumanCriterionRate)
class HumanCriterionRateAdmin(admin.ModelAdmin):
    list_display = ["criterion", "share_met"]
    list_filter = ["criterion__problem__contest"]
    list_select_related = ["criterion__problem"]
