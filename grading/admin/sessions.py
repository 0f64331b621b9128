"""The groups' discussion sessions in the admin, read-only: a session is started, walked and
ended on its page (`grading.resolution.sessions`), whose services check who may do what; here
the organizer and the chair read what it left on record: who was in it and when, and each
cell's outcome with who was present. A cell's paper is named by its label in the session's
problem, as the group knew it, never by id: the session's list of cells (paper and criterion
ids, in the walk's order) is not shown, only how far the walk came."""

from django.contrib import admin

from grading.admin.mixins import RecordAdmin, RecordInline
from grading.models import DiscussionSession, SessionMember, SessionOutcome
from grading.models.papers import paper_named_in


class SessionMemberInline(RecordInline):
    model = SessionMember
    fields = readonly_fields = ["user", "joined_at", "left_at"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("user")


class SessionOutcomeInline(RecordInline):
    model = SessionOutcome
    fields = readonly_fields = [
        "cell",
        "kind",
        "points",
        "reason",
        "recorded_by",
        "present_people",
        "created_at",
    ]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("session__problem", "criterion__problem", "recorded_by")
            .prefetch_related("paper__labels", "present")
        )

    @admin.display(description="cell")
    def cell(self, outcome) -> str:
        problem = outcome.criterion.problem
        return f"{problem.code} {outcome.criterion.code}, {paper_named_in(outcome, problem.pk)}"

    @admin.display(description="present")
    def present_people(self, outcome) -> str:
        return ", ".join(sorted(user.username for user in outcome.present.all())) or "no one"


@admin.register(DiscussionSession)
class DiscussionSessionAdmin(RecordAdmin):
    list_display = ["problem", "order", "started_by", "started_at", "ended_at", "walked"]
    list_filter = ["problem__contest", "order"]
    list_select_related = ["problem__contest", "started_by"]
    fields = readonly_fields = [
        "problem",
        "order",
        "started_by",
        "started_at",
        "ended_at",
        "walked",
    ]
    inlines = [SessionMemberInline, SessionOutcomeInline]

    @admin.display(description="walked")
    def walked(self, session) -> str:
        """How far the walk came: "at cell 3 of 12" while it runs, "12 cells" once ended."""
        total = len(session.cells)
        if session.ended_at is not None or session.current is None:
            return f"{total} cell{'' if total == 1 else 's'}"
        return f"at cell {session.position + 1} of {total}"
