"""Calibration rounds in the admin, read-only: a round is created, filled, opened and closed on
the chair's calibration page (`grading.calibration`), whose services check its rules; here it
is read with its papers, each named by its calibration label and its label in the problem,
never by identity, and whether it is kept out of the round for seeding."""

from django.contrib import admin

from grading.admin.mixins import RecordAdmin, RecordInline
from grading.models import CalibrationPaper, CalibrationRound
from grading.models.papers import paper_named_in


class CalibrationPaperInline(RecordInline):
    model = CalibrationPaper
    fields = ["label", "position", "for_seeding", "labelled"]
    readonly_fields = ["label", "position", "for_seeding", "labelled"]

    @admin.display(description="paper in its problem")
    def labelled(self, calibration_paper) -> str:
        return paper_named_in(calibration_paper, calibration_paper.round.problem_id)


@admin.register(CalibrationRound)
class CalibrationRoundAdmin(RecordAdmin):
    list_display = ["problem", "state", "seeded", "created_by", "created_at", "grading_opened_at"]
    list_filter = ["problem__contest", "state"]
    list_select_related = ["problem__contest", "created_by"]
    fields = ["problem", "state", "seeded", "created_by", "created_at", "grading_opened_at"]
    readonly_fields = fields
    inlines = [CalibrationPaperInline]
    untraced_ordering = ("problem__contest_id", "problem__number")
