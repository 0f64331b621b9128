"""Language help: a juror's question about a paper written in a language they read only with
help, answered by a helper (another juror or a language specialist) with a translation note."""

from django.conf import settings
from django.db import models

from grading.models.papers import Paper
from rubrics.models import Problem


class HelpRequest(models.Model):
    """One juror's question on one paper of a problem. The organizer or the chair gives it a
    helper, who reads that paper's pages and the question only, and answers it; the juror, and
    later the discussion, read the answer."""

    class State(models.TextChoices):
        ASKED = "asked", "asked"
        ASSIGNED = "assigned", "helper assigned"
        ANSWERED = "answered", "answered"

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="help_requests")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="help_requests")
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="help_asked"
    )
    # Asked on a seed's row (the calibration paper back in the asker's live sheet under a fresh
    # label): the question is about `paper`, but the asker knows it only by the seed's label,
    # and their sheet shows it on that row alone.
    seed = models.ForeignKey(
        "grading.Seed", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    question = models.TextField()
    asked_at = models.DateTimeField(auto_now_add=True)
    helper = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="help_given",
    )
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    assigned_at = models.DateTimeField(null=True, blank=True)
    # The helper's translation note: what the juror (and the discussion) reads.
    answer = models.TextField(blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["problem_id", "asked_at", "id"]

    def __str__(self):
        return f"Help on {self.problem.code} asked by {self.asked_by}"

    @property
    def state(self) -> str:
        if self.answered_at:
            return self.State.ANSWERED
        if self.helper_id:
            return self.State.ASSIGNED
        return self.State.ASKED
