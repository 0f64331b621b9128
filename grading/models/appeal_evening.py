"""The appeals evening: the time slots the organizer gives it, each group's tables, and the
timetable of meetings (a delegation's appeals on one problem, its team leaders at the problem's
group's table), proposed by `grading.appeals.evening_plan`'s solver and published to the leaders
and jurors it seats."""

from datetime import timedelta

from django.db import models

from grading.models.delegations import Delegation
from rubrics.models import Contest, Problem


class AppealEvening(models.Model):
    """A contest's appeals evening: its first slot's start, each slot's length and number of
    slots; published once its timetable is sent to the people it seats."""

    contest = models.OneToOneField(Contest, on_delete=models.CASCADE, related_name="appeal_evening")
    starts_at = models.DateTimeField()
    slot_minutes = models.PositiveSmallIntegerField(default=20)
    slots = models.PositiveSmallIntegerField(default=8)
    published_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"Appeals evening of {self.contest}"

    def slot_start(self, slot: int):
        return self.starts_at + timedelta(minutes=self.slot_minutes * slot)


class AppealTables(models.Model):
    """How many tables a problem's group holds at once on the evening (1 unless said)."""

    evening = models.ForeignKey(AppealEvening, on_delete=models.CASCADE, related_name="tables")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="+")
    tables = models.PositiveSmallIntegerField(default=1)

    class Meta:
        ordering = ["evening_id", "problem__number"]
        constraints = [
            models.UniqueConstraint(fields=["evening", "problem"], name="appeal_tables_unique"),
        ]

    def __str__(self):
        return f"{self.problem.code}: {self.tables} tables"


class AppealMeeting(models.Model):
    """One meeting of the timetable: a delegation's leaders and a problem's group, in one slot
    (0 first). Who sits at its table is worked out whenever it is read
    (`grading.appeals.evening.seating`), so that a conflict that comes to light after the
    timetable was made keeps that juror away at once."""

    evening = models.ForeignKey(AppealEvening, on_delete=models.CASCADE, related_name="meetings")
    delegation = models.ForeignKey(Delegation, on_delete=models.CASCADE, related_name="+")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="+")
    slot = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["evening_id", "slot", "problem__number", "delegation__code"]
        constraints = [
            models.UniqueConstraint(
                fields=["evening", "delegation", "problem"], name="appeal_meeting_unique"
            ),
        ]

    def __str__(self):
        return f"{self.delegation} at {self.problem.code}, slot {self.slot + 1}"

    @property
    def starts_at(self):
        return self.evening.slot_start(self.slot)
