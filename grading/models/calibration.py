"""Grading the same way: a problem's calibration round (papers graded by every juror of the
group against the chair's reference marks before live grading), the seeds that bring a
calibration paper back into a juror's live sheet, and their marks.

Calibration marks live in their own tables, never in `Mark`: no reader of results, exports,
the comparison or the analysis can count them by mistake."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from grading.models.marks import MarkEvent
from grading.models.papers import Paper
from rubrics.models import Criterion, Problem, SchemeVersion


class CalibrationRound(models.Model):
    """A problem's calibration round. While it is open the problem's live grading waits: the
    jurors of the group grade the calibration papers in their calibration sheets; the chair
    closes it (after amending the guidance, if need be) and grading opens."""

    class State(models.TextChoices):
        OPEN = "open", "Calibrating"
        CLOSED = "closed", "Grading open"

    problem = models.OneToOneField(Problem, on_delete=models.CASCADE, related_name="calibration")
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    # Seeded checks: during live grading, each paper kept out of the round for seeding
    # (`CalibrationPaper.for_seeding`) appears in the live sheet of each juror of the group
    # under a fresh label (a `Seed`).
    seeded = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    grading_opened_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["problem_id"]

    def __str__(self):
        return f"Calibration of {self.problem.code}"

    @property
    def is_open(self) -> bool:
        return self.state == self.State.OPEN


class CalibrationPaperQuerySet(models.QuerySet):
    def graded_in_round(self):
        """The papers the jurors of the group grade in the round."""
        return self.filter(for_seeding=False)

    def kept_for_seeding(self):
        """The papers the chair keeps out of the round: never shown to a juror in it, they are
        what a seeded round's seeds are drawn from."""
        return self.filter(for_seeding=True)


class CalibrationPaper(models.Model):
    """One paper of a calibration round (2 to 5 graded in it per round), shown to the jurors
    under its calibration label ("K1", "K2", …), with the chair's reference marks; or one the
    chair keeps out of the round for seeding (`for_seeding`), numbered after them, with its
    reference marks too, that no juror sees before it comes back as a seed: a seed drawn from
    a paper its juror graded in the round would be told by its answers."""

    round = models.ForeignKey(CalibrationRound, on_delete=models.CASCADE, related_name="papers")
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="calibrations")
    label = models.CharField(max_length=12)
    position = models.PositiveSmallIntegerField(default=1)
    for_seeding = models.BooleanField(default=False)

    objects = CalibrationPaperQuerySet.as_manager()

    class Meta:
        ordering = ["round_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["round", "paper"], name="calibration_paper_once"),
            models.UniqueConstraint(fields=["round", "label"], name="calibration_label_unique"),
        ]

    def __str__(self):
        return f"{self.round.problem.code} calibration paper {self.label}"


class ReferenceMark(models.Model):
    """The chair's reference points (and note) for one criterion of a calibration paper."""

    calibration_paper = models.ForeignKey(
        CalibrationPaper, on_delete=models.CASCADE, related_name="references"
    )
    criterion = models.ForeignKey(Criterion, on_delete=models.RESTRICT, related_name="+")
    points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    note = models.CharField(max_length=500, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["calibration_paper_id", "criterion_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["calibration_paper", "criterion"], name="reference_mark_unique"
            ),
        ]

    def __str__(self):
        return f"{self.calibration_paper} · {self.criterion.code} reference = {self.points}"


class ReferenceMarkEvent(models.Model):
    """One change to a chair's reference mark: who, when, the old and the new points and note.
    A juror who submitted their calibration sheet before the change sees the reference as it
    was beside the reference as it is."""

    reference = models.ForeignKey(ReferenceMark, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    old_points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    new_points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    old_note = models.CharField(max_length=500, blank=True)
    new_note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["reference_id", "created_at", "id"]

    def __str__(self):
        return f"{self.reference} changed: {self.old_points} → {self.new_points}"


class CalibrationSheet(models.Model):
    """One juror's calibration sheet for a round; the juror sees the reference beside their
    marks only once it is submitted."""

    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        SUBMITTED = "submitted", "Submitted"

    round = models.ForeignKey(CalibrationRound, on_delete=models.CASCADE, related_name="sheets")
    juror = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calibration_sheets"
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.DRAFT)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round_id", "juror_id"]
        constraints = [
            models.UniqueConstraint(fields=["round", "juror"], name="calibration_sheet_once"),
        ]

    def __str__(self):
        return f"Calibration sheet of {self.juror} for {self.round.problem.code}"

    @property
    def is_submitted(self) -> bool:
        return self.state == self.State.SUBMITTED


class Seed(models.Model):
    """A calibration paper kept out of the round for seeding, in one juror's live sheet under a fresh label, drawn like the
    problem's labels and unique among them: a cell like any other to the juror, whose marks
    are `CalibrationMark`s (seed set) and never count. They are "submitted" with the juror's
    live sheet."""

    calibration_paper = models.ForeignKey(
        CalibrationPaper, on_delete=models.CASCADE, related_name="seeds"
    )
    juror = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    label = models.CharField(max_length=12)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["calibration_paper_id", "juror_id"]
        constraints = [
            models.UniqueConstraint(fields=["calibration_paper", "juror"], name="seed_once"),
        ]

    def __str__(self):
        return f"Seed {self.label} of {self.calibration_paper}"


class CalibrationMark(models.Model):
    """A juror's points for one criterion of a calibration paper: in their calibration sheet
    (`sheet`) or on a seed in their live sheet (`seed`), exactly one of the two. NULL points
    mean "not graded yet". `version` grows with every change, as a live mark's does."""

    calibration_paper = models.ForeignKey(
        CalibrationPaper, on_delete=models.CASCADE, related_name="marks"
    )
    sheet = models.ForeignKey(
        CalibrationSheet, on_delete=models.CASCADE, null=True, blank=True, related_name="marks"
    )
    seed = models.ForeignKey(
        Seed, on_delete=models.CASCADE, null=True, blank=True, related_name="marks"
    )
    criterion = models.ForeignKey(Criterion, on_delete=models.RESTRICT, related_name="+")
    points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    note = models.CharField(max_length=500, blank=True)
    version = models.PositiveIntegerField(default=0)
    scheme_version = models.PositiveSmallIntegerField(default=1)
    # The amendment that reopened the mark, as `Mark.reopened_by`: a change of its criterion's
    # points, step or tolerance during the round (or on a seed); cleared when its juror
    # re-confirms or re-marks it.
    reopened_by = models.ForeignKey(
        SchemeVersion,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="reopened_calibration",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["calibration_paper_id", "criterion_id", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(sheet__isnull=True) ^ Q(seed__isnull=True),
                name="calibration_mark_sheet_or_seed",
            ),
            models.UniqueConstraint(
                fields=["sheet", "calibration_paper", "criterion"],
                condition=Q(seed__isnull=True),
                name="calibration_mark_unique_cell",
            ),
            models.UniqueConstraint(
                fields=["seed", "criterion"],
                condition=Q(sheet__isnull=True),
                name="seed_mark_unique_cell",
            ),
            models.CheckConstraint(
                condition=Q(points__isnull=True) | Q(points__gte=0),
                name="calibration_mark_points_nonneg",
            ),
        ]

    def __str__(self):
        return f"{self.calibration_paper} · {self.criterion.code} = {self.points}"


class CalibrationMarkEvent(models.Model):
    """One change to a calibration mark: who, when, old and new points and note, and through
    which channel (a seed's cells are saved from the live sheet's page or its XLSX upload)."""

    mark = models.ForeignKey(CalibrationMark, on_delete=models.CASCADE, related_name="events")
    channel = models.CharField(
        max_length=10, choices=MarkEvent.Channel.choices, default=MarkEvent.Channel.BROWSER
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    old_points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    new_points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    old_note = models.CharField(max_length=500, blank=True)
    new_note = models.CharField(max_length=500, blank=True)
    version = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    # As a mark's event's: the id of the change the sheet's page sent, so a retry is not applied twice.
    change_key = models.CharField(max_length=40, null=True, blank=True)

    class Meta:
        ordering = ["mark_id", "version"]
        constraints = [
            models.UniqueConstraint(
                fields=["mark", "version"], name="calibration_event_unique_version"
            ),
            models.UniqueConstraint(
                fields=["mark", "change_key"],
                condition=models.Q(change_key__isnull=False),
                name="calibration_event_unique_change_key",
            ),
        ]

    def __str__(self):
        return f"{self.mark} v{self.version}: {self.old_points} → {self.new_points}"
