"""Who grades which problem and paper: grading groups and assignments."""

from django.conf import settings
from django.db import models

from grading.models.papers import Paper, paper_named_in
from rubrics.models import Problem


class GradingGroup(models.Model):
    """The jurors who grade one problem."""

    problem = models.OneToOneField(Problem, on_delete=models.CASCADE, related_name="group")
    jurors = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="grading_groups")

    def __str__(self):
        return f"Group of {self.problem}"


class Assignment(models.Model):
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="assignments")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="assignments")
    juror = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )

    class Meta:
        ordering = ["problem_id", "juror_id", "paper_id"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "problem", "juror"], name="assignment_unique"),
        ]

    def __str__(self):
        return f"{self.problem.code}: {paper_named_in(self, self.problem_id)} → {self.juror}"
