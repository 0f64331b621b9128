"""Discussion comments and the cells' resolutions (consensus or the chair's decision), with their history."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from grading.models.papers import Paper, paper_named_in
from rubrics.models import Criterion


class Comment(models.Model):
    """A remark in the discussion of one (paper, criterion) by a juror of the group or the chair."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="comments")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["paper_id", "criterion_id", "created_at", "id"]

    def __str__(self):
        paper = paper_named_in(self, self.criterion.problem_id)
        return f"Comment by {self.author} on {self.criterion.problem.code} {paper} {self.criterion.code}"


class Resolution(models.Model):
    """How a discrepancy ended: the jurors' consensus, or the chair's decision with a reason.
    The jurors' original marks stay in their sheets and history; this holds the agreed value.
    Never deleted: a consensus that falls apart is withdrawn, so its events stay on record."""

    class Kind(models.TextChoices):
        CONSENSUS = "consensus", "Consensus"
        CHAIR = "chair", "Chair decision"
        # An appeal's decision that changed the cell's points (`Appeal`, named in the reason).
        APPEAL = "appeal", "Appeal decision"
        # A consensus whose marks no longer agree: kept, with its history, but it no longer counts.
        WITHDRAWN = "withdrawn", "Consensus withdrawn"

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="resolutions")
    criterion = models.ForeignKey(Criterion, on_delete=models.RESTRICT, related_name="resolutions")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    points = models.DecimalField(max_digits=6, decimal_places=2)
    reason = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["paper_id", "criterion_id"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "criterion"], name="resolution_unique_cell"),
            models.CheckConstraint(condition=Q(points__gte=0), name="resolution_points_nonneg"),
        ]

    def __str__(self):
        paper = paper_named_in(self, self.criterion.problem_id)
        where = f"{self.criterion.problem.code} {paper} {self.criterion.code}"
        return f"{self.get_kind_display()}: {where} = {self.points}"


class ResolutionEvent(models.Model):
    """Every change to a resolution, so that a chair's later change is on record."""

    resolution = models.ForeignKey(Resolution, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    old_points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    new_points = models.DecimalField(max_digits=6, decimal_places=2)
    old_kind = models.CharField(max_length=10, blank=True)
    new_kind = models.CharField(max_length=10)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["resolution_id", "created_at", "id"]

    def __str__(self):
        return f"{self.resolution}: {self.old_points} → {self.new_points} ({self.new_kind})"
