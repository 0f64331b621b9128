"""The record of a contest's life: every change of phase, by whom and why."""

from django.conf import settings
from django.db import models

from rubrics.models import Contest


class ContestEvent(models.Model):
    """One step in a contest's life (set-up → grading → resolution → final, and a reopening),
    with who took it and why. Written only by `grading.console.contest_life`."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    from_state = models.CharField(max_length=12, choices=Contest.State.choices)
    to_state = models.CharField(max_length=12, choices=Contest.State.choices)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["contest_id", "created_at", "id"]

    def __str__(self):
        return f"{self.contest}: {self.from_state} → {self.to_state}"
