"""The admin is the organizer's set-up tool, and a door like the pages: it obeys the same rules
(`grading.admin.mixins`). Identities, and whatever links a paper across problems, are shown only
to those allowed to see them: organizers, and the chair once a contest is final. Whatever a
final contest owns is read-only. Marks, resolutions, sheets' states and the contest's life
change only through their services, so that every change is recorded."""

from django.contrib import admin
from django.core.exceptions import ValidationError

from grading.admin.mixins import (
    LABEL,
    GuardedAdmin,
    GuardedInline,
    NamedByLabel,
    OpenContestForm,
    RecordAdmin,
    RecordInline,
)
from grading.assigning.assignments import refuse_new_assignment
from grading.models import (
    Assignment,
    Comment,
    ContestEvent,
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
from grading.rules.refusals import Refusal


class PaperLabelInline(GuardedInline):
    model = PaperLabel
    extra = 0


@admin.register(Paper)
class PaperAdmin(GuardedAdmin):
    list_display = ["__str__", "identity", "contest", "source", "answer_language", "created_at"]
    list_filter = ["contest", "source"]
    inlines = [PaperLabelInline]
    tracing_fields = ("identity", "metadata", "delegation")
    # Its id follows import order: those who may not trace papers see none in the admin, nor
    # its kind or import time, and its rows come in the order of their random public codes.
    str_traces_paper = True
    paper_path = ""
    untraced_ordering = ("contest_id", "public_code")
    untraced_columns = ("source", "created_at")

    def get_list_filter(self, request):
        return ["contest"] if not self.may_trace(request) else self.list_filter

    def get_search_fields(self, request):
        # A label found in one problem and another found in the next naming the same paper
        # would link them: labels are searched only by those who may trace papers.
        return ["identity", "labels__label"] if self.may_trace(request) else []

    def get_inlines(self, request, obj):
        # The paper's labels in every problem link one system's work across problems.
        return self.inlines if self.may_trace(request, obj) else []


@admin.register(PaperLabel)
class PaperLabelAdmin(GuardedAdmin):
    list_display = ["label", "problem", "paper"]
    list_filter = ["problem__contest", "problem"]
    search_fields = ["label"]
    list_select_related = ["problem", "paper"]
    paper_path = "paper"
    untraced_ordering = ("problem_id", "label")


@admin.register(Solution)
class SolutionAdmin(NamedByLabel, GuardedAdmin):
    list_display = ["__str__", "task", "updated_at"]
    list_filter = ["task__problem__contest", "task__problem"]
    search_fields = ["task__external_id"]
    list_select_related = ["task__problem", "paper"]
    str_traces_paper = True
    label_problem = "task__problem"
    untraced_ordering = ("task_id", LABEL)
    # Written when the paper was imported, so in import order.
    untraced_columns = ("updated_at",)


@admin.register(GradingGroup)
class GradingGroupAdmin(GuardedAdmin):
    list_display = ["problem"]
    list_filter = ["problem__contest"]
    filter_horizontal = ["jurors"]


class AssignmentForm(OpenContestForm):
    """An assignment added here follows the same rules as `assign_jurors`
    (`refuse_new_assignment`): no paper for a juror who has submitted the problem, is
    unavailable, is conflicted with the paper or helped with it."""

    def clean(self):
        cleaned = super().clean()
        problem, juror = cleaned.get("problem"), cleaned.get("juror")
        paper = cleaned.get("paper")
        if problem is not None and juror is not None and paper is not None:
            try:
                refuse_new_assignment(problem=problem, juror=juror, paper=paper)
            except Refusal as refusal:
                raise ValidationError(refusal.messages) from None
        return cleaned


@admin.register(Assignment)
class AssignmentAdmin(NamedByLabel, GuardedAdmin):
    form = AssignmentForm
    list_display = ["problem", "juror", "paper"]
    list_filter = ["problem__contest", "problem", "juror"]
    list_select_related = ["problem", "juror", "paper"]
    str_traces_paper = True
    label_problem = "problem"
    untraced_ordering = ("problem_id", "juror_id", LABEL)


@admin.register(Sheet)
class SheetAdmin(GuardedAdmin):
    list_display = ["problem", "juror", "state", "submitted_at"]
    list_filter = ["problem__contest", "state", "problem"]
    list_select_related = ["problem", "juror"]
    # Submitting and reopening go through the juror's sheet and the resolution phase, which
    # keep independence and the cell ranges right.
    readonly_fields = ["state", "submitted_at"]


class MarkEventInline(RecordInline):
    model = MarkEvent
    fields = readonly_fields = [
        "version",
        "channel",
        "actor",
        "old_points",
        "new_points",
        "old_note",
        "new_note",
        "created_at",
    ]


@admin.register(Mark)
class MarkAdmin(NamedByLabel, GuardedAdmin):
    list_display = ["sheet", "paper", "criterion", "points", "version", "updated_at"]
    list_filter = ["sheet__problem__contest", "sheet__problem", "criterion__kind"]
    search_fields = ["note", "criterion__code"]
    list_select_related = ["sheet__juror", "sheet__problem", "criterion__problem", "paper"]
    # Marks change only through the services so that every change is recorded.
    readonly_fields = ["sheet", "paper", "criterion", "points", "note", "version"]
    inlines = [MarkEventInline]
    str_traces_paper = True
    label_problem = "sheet__problem"
    untraced_ordering = ("sheet_id", LABEL, "criterion_id")
    # A blank mark's time is its assignment's, made in paper order.
    untraced_columns = ("updated_at",)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        # A mark a juror has touched is recorded work: neither it nor its sheet, paper or
        # contest (which would take it along) can be deleted here. Untouched blanks can.
        return obj is not None and obj.version == 0 and super().has_delete_permission(request, obj)


@admin.register(MarkEvent)
class MarkEventAdmin(NamedByLabel, RecordAdmin):
    paper_path = "mark__paper"
    list_display = ["mark", "version", "channel", "actor", "old_points", "new_points", "created_at"]
    list_filter = ["channel"]
    list_select_related = [
        "mark__sheet__juror",
        "mark__sheet__problem",
        "mark__criterion",
        "mark__paper",
        "actor",
    ]
    # A mark's name tells its paper's id.
    tracing_fields = ("paper", "mark")
    label_problem = "mark__sheet__problem"
    untraced_ordering = ("mark__sheet_id", LABEL, "mark__criterion_id", "version")


@admin.register(Comment)
class CommentAdmin(NamedByLabel, RecordAdmin):
    """Comments are written on the discussion page (`comment_add`, which checks who takes part)
    and are part of the record: the admin reads them."""

    list_display = ["paper", "criterion", "author", "created_at"]
    list_filter = ["criterion__problem__contest", "criterion__problem"]
    search_fields = ["text"]
    list_select_related = ["paper", "criterion", "author"]
    str_traces_paper = True
    label_problem = "criterion__problem"
    untraced_ordering = ("criterion__problem_id", LABEL, "criterion_id", "created_at")


class ResolutionEventInline(RecordInline):
    model = ResolutionEvent
    fields = readonly_fields = [
        "old_kind",
        "new_kind",
        "old_points",
        "new_points",
        "reason",
        "actor",
        "created_at",
    ]


@admin.register(Resolution)
class ResolutionAdmin(NamedByLabel, RecordAdmin):
    """Resolutions change only through the chair's page, so that every change is recorded; a
    consensus that falls apart is withdrawn there, never deleted."""

    list_display = ["paper", "criterion", "kind", "points", "decided_by", "decided_at"]
    list_filter = ["criterion__problem__contest", "kind"]
    search_fields = ["reason", "criterion__code"]
    list_select_related = ["paper", "criterion", "decided_by"]
    readonly_fields = ["paper", "criterion", "kind", "points", "reason", "decided_by"]
    inlines = [ResolutionEventInline]
    str_traces_paper = True
    label_problem = "criterion__problem"
    untraced_ordering = ("criterion__problem_id", LABEL, "criterion_id")


@admin.register(ContestEvent)
class ContestEventAdmin(RecordAdmin):
    list_display = ["contest", "from_state", "to_state", "actor", "reason", "created_at"]
    list_filter = ["contest", "to_state"]
    list_select_related = ["contest", "actor"]


@admin.register(HumanScore)
class HumanScoreAdmin(GuardedAdmin):
    list_display = ["contestant", "contest", "total"]
    list_filter = ["contest"]
    search_fields = ["contestant"]


@admin.register(HumanCriterionRate)
class HumanCriterionRateAdmin(GuardedAdmin):
    list_display = ["criterion", "share_met"]
    list_filter = ["criterion__problem__contest"]
    list_select_related = ["criterion__problem"]
