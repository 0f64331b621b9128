"""The human jury's scores imported for comparison with the automatic metrics."""

from django.db import models
from django.db.models import Q

from rubrics.models import Contest, Criterion


class HumanScore(models.Model):
    """One human contestant's points, for the equivalent rank of an AI paper."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="human_scores")
    contestant = models.CharField(max_length=100)
    problem_points = models.JSONField(default=dict, help_text='{"1": "12.5", "2": "20", ...}')
    total = models.DecimalField(max_digits=7, decimal_places=2)

    class Meta:
        ordering = ["contest_id", "-total", "contestant"]
        constraints = [
            models.UniqueConstraint(fields=["contest", "contestant"], name="human_score_unique"),
        ]

    def __str__(self):
        return f"{self.contestant}: {self.total}"


class HumanCriterionRate(models.Model):
    """The share of human contestants who met a criterion in full (criterion difficulty)."""

    criterion = models.OneToOneField(Criterion, on_delete=models.CASCADE, related_name="human_rate")
    share_met = models.DecimalField(max_digits=5, decimal_places=4)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(share_met__gte=0) & Q(share_met__lte=1), name="human_rate_share"
            ),
        ]

    def __str__(self):
        return f"{self.criterion.code}: {self.share_met}"
