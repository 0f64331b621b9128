"""Jurors' sheets, their marks and the history of every mark."""

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q

from grading.models.jury import Assignment
from grading.models.papers import Paper, paper_named_in
from rubrics.models import Criterion, Problem, SchemeVersion


class SheetQuerySet(models.QuerySet):
    def submitted(self):
        return self.filter(state=Sheet.State.SUBMITTED)


class Sheet(models.Model):
    """One juror's marks for one problem."""

    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        SUBMITTED = "submitted", "Submitted"

    juror = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sheets"
    )
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="sheets")
    state = models.CharField(max_length=10, choices=State.choices, default=State.DRAFT)
    submitted_at = models.DateTimeField(null=True, blank=True)

    objects = SheetQuerySet.as_manager()

    class Meta:
        ordering = ["problem_id", "juror_id"]
        constraints = [
            models.UniqueConstraint(fields=["juror", "problem"], name="sheet_unique_juror_problem"),
        ]

    def __str__(self):
        return f"Sheet of {self.juror} for {self.problem.code}"

    @property
    def is_submitted(self) -> bool:
        return self.state == self.State.SUBMITTED


class MarkQuerySet(models.QuerySet):
    def submitted(self):
        """The marks on a submitted sheet, of a paper still assigned to the sheet's juror in its
        problem. A paper moved from a juror during grading keeps their marks on record (and
        their history), but they count for no cell, whatever the sheet does later. Reads that
        settle cells ask `grading.rules.counting.counted_marks`, which also leaves out marks
        given before a conflict with the paper came to light, until the chair keeps them."""
        still_assigned = Assignment.objects.filter(
            paper=OuterRef("paper_id"),
            problem=OuterRef("sheet__problem_id"),
            juror=OuterRef("sheet__juror_id"),
        )
        # A mark reopened by a change of its criterion's points, step or tolerance waits for
        # its juror to re-confirm or re-mark it: until then it counts for no cell.
        return self.filter(
            Exists(still_assigned),
            sheet__state=Sheet.State.SUBMITTED,
            reopened_by__isnull=True,
        )


class Mark(models.Model):
    """Points one juror gives one paper for one criterion. NULL points mean "not graded yet",
    never zero. `version` grows with every change so that a stale save can be refused."""

    sheet = models.ForeignKey(Sheet, on_delete=models.CASCADE, related_name="marks")
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="marks")
    # RESTRICT, not PROTECT: a criterion with marks cannot be deleted alone, but a whole contest can.
    criterion = models.ForeignKey(Criterion, on_delete=models.RESTRICT, related_name="marks")
    points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    note = models.CharField(max_length=500, blank=True)
    version = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)
    # The problem's scheme version (`Problem.scheme_version`) when the points were last set or
    # re-confirmed; the comparison and the results say when marks of different versions meet.
    scheme_version = models.PositiveSmallIntegerField(default=1, db_default=1)
    # The amendment that reopened the mark (its reason is shown in the juror's sheet); cleared
    # when the juror re-confirms or re-marks it. Never rescaled by the amendment itself.
    reopened_by = models.ForeignKey(
        SchemeVersion, on_delete=models.RESTRICT, null=True, blank=True, related_name="reopened"
    )

    objects = MarkQuerySet.as_manager()

    class Meta:
        ordering = ["sheet_id", "paper_id", "criterion_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["sheet", "paper", "criterion"], name="mark_unique_cell"
            ),
            models.CheckConstraint(
                condition=Q(points__isnull=True) | Q(points__gte=0), name="mark_points_nonneg"
            ),
        ]

    def __str__(self):
        paper = paper_named_in(self, self.criterion.problem_id)
        return f"{self.sheet} · {paper} · {self.criterion.code} = {self.points}"


class MarkEvent(models.Model):
    """One change to a mark: who, when, old and new value and note, and through which channel."""

    class Channel(models.TextChoices):
        BROWSER = "browser", "Browser"
        XLSX = "xlsx", "XLSX upload"
        CHAIR = "chair", "Chair"
        IMPORT = "import", "Import"
        # An amendment of the scheme reopened the mark (its points unchanged, never rescaled).
        SCHEME = "scheme", "Scheme amendment"

    mark = models.ForeignKey(Mark, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    channel = models.CharField(max_length=10, choices=Channel.choices)
    old_points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    new_points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    old_note = models.CharField(max_length=500, blank=True)
    new_note = models.CharField(max_length=500, blank=True)
    version = models.PositiveIntegerField(help_text="The mark's version after this change.")
    created_at = models.DateTimeField(auto_now_add=True)
    # The id the sheet's page gave the change it sent (grading.marking.change_keys): a retry of a
    # save whose answer was lost is recognised by it and answered again, never applied twice.
    change_key = models.CharField(max_length=40, null=True, blank=True)

    class Meta:
        ordering = ["mark_id", "version"]
        constraints = [
            models.UniqueConstraint(fields=["mark", "version"], name="mark_event_unique_version"),
            models.UniqueConstraint(
                fields=["mark", "change_key"],
                condition=models.Q(change_key__isnull=False),
                name="mark_event_unique_change_key",
            ),
        ]

    def __str__(self):
        # The mark, not its id: marks are made in paper order, so ids pair papers across sheets.
        return (
            f"{self.mark} v{self.version}: {self.old_points} → {self.new_points} ({self.channel})"
        )
