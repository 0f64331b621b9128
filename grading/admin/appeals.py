"""Delegations, provisional results and appeals in the admin, under the same rules as the pages
(`grading.admin.mixins`). The organizer sets delegations up (code, name, team leaders); the
provisional results, the appeals deadline's changes and the appeals are records, written by
their services alone (each step on record) and read here. To those who may not trace papers
(the chair before final) no appeal or result names its paper but by its label in the appeal's
problem, nor who filed it (a leader's name tells the contestant's country); whatever a final
contest owns is read-only."""

from django.contrib import admin
from django.db.models import Count

from grading.admin.mixins import LABEL, GuardedAdmin, NamedByLabel, RecordAdmin, RecordInline
from grading.console.leaders import delegation_leaders_given_the_role
from grading.models import (
    Appeal,
    AppealCriterion,
    AppealDeadlineChange,
    AppealEvening,
    AppealEvent,
    AppealMeeting,
    AppealTables,
    Delegation,
    ProvisionalResult,
)
from grading.models.papers import paper_named_in


@admin.register(Delegation)
class DelegationAdmin(GuardedAdmin):
    list_display = ["code", "name", "country", "contest", "contestants"]
    list_filter = ["contest"]
    search_fields = ["code", "name", "country"]
    list_select_related = ["contest"]
    # The country: no juror grades its contestants (blank: the code is the country).
    fields = ["contest", "code", "name", "country", "leaders"]
    filter_horizontal = ["leaders"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(contestant_count=Count("papers"))

    @admin.display(description="contestants", ordering="contestant_count")
    def contestants(self, delegation) -> int:
        return delegation.contestant_count

    def save_related(self, request, form, formsets, change):
        # A leader chosen here leads only with the role the leaders' pages ask for.
        super().save_related(request, form, formsets, change)
        delegation_leaders_given_the_role(form.instance)


@admin.register(ProvisionalResult)
class ProvisionalResultAdmin(RecordAdmin):
    """As published with the provisional results (`Paper.provisional`); the final results are
    compared with it."""

    list_display = ["paper", "total", "rank", "medal", "published_at"]
    list_filter = ["paper__contest", "medal"]
    list_select_related = ["paper"]
    # A result belongs to no problem, so no label names its paper: to those who may not trace
    # papers the rows are totals alone, best first (ties by the random public code, never by
    # id), with no page of their own.
    paper_path = "paper"
    str_traces_paper = True
    untraced_ordering = ("paper__contest_id", "-total", "paper__public_code")


@admin.register(AppealDeadlineChange)
class AppealDeadlineChangeAdmin(RecordAdmin):
    list_display = ["contest", "old_deadline", "new_deadline", "actor", "reason", "created_at"]
    list_filter = ["contest"]
    list_select_related = ["contest", "actor"]


class AppealCriterionInline(RecordInline):
    model = AppealCriterion
    fields = readonly_fields = ["criterion", "points_before", "points_after"]


class AppealEventInline(RecordInline):
    model = AppealEvent
    fields = readonly_fields = ["kind", "actor", "text", "created_at"]


@admin.register(Appeal)
class AppealAdmin(NamedByLabel, RecordAdmin):
    """Appeals are filed, withdrawn, discussed and decided on their pages (the appeals part),
    where each step is recorded: the admin lists them by contest, problem and state."""

    list_display = ["problem", "labelled", "paper", "state", "outcome", "filed_by", "filed_at"]
    list_filter = ["problem__contest", "problem", "state", "outcome"]
    search_fields = ["argument", "reason"]
    list_select_related = ["problem", "paper", "filed_by"]
    inlines = [AppealCriterionInline, AppealEventInline]
    # Its name shows the paper's public code; its leader tells the contestant's delegation.
    tracing_fields = ("paper", "filed_by")
    str_traces_paper = True
    label_problem = "problem"
    untraced_ordering = ("problem__contest_id", "problem_id", LABEL, "filed_at")

    @admin.display(description="paper in its problem")
    def labelled(self, appeal) -> str:
        return paper_named_in(appeal, appeal.problem_id)


class AppealTablesInline(RecordInline):
    model = AppealTables
    fields = readonly_fields = ["problem", "tables"]


@admin.register(AppealEvening)
class AppealEveningAdmin(RecordAdmin):
    """The appeals evening is set, proposed, moved and published on its console page, which
    checks every change against the evening's rules (`grading.appeals.evening`): read here."""

    list_display = ["contest", "starts_at", "slot_minutes", "slots", "published_at"]
    list_select_related = ["contest"]
    inlines = [AppealTablesInline]


@admin.register(AppealMeeting)
class AppealMeetingAdmin(RecordAdmin):
    """A meeting of the evening's timetable: moved on the console page only (see above)."""

    list_display = ["evening", "slot", "problem", "delegation"]
    list_filter = ["evening__contest", "problem"]
    list_select_related = ["evening__contest", "problem", "delegation"]
