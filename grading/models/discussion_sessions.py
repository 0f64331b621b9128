"""A group's discussion session in the room: the problem's open cells walked in an order the
group chose, the current cell followed on every member's screen, who is in the session, and each
cell's outcome with who was present (`grading.resolution.sessions`)."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from grading.models.papers import Paper
from rubrics.models import Criterion, Problem


class DiscussionSession(models.Model):
    class Order(models.TextChoices):
        PAPER = "paper", "By paper"
        CRITERION = "criterion", "By criterion"
        STRADDLE = "straddle", "Papers straddling a medal line first"

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="sessions")
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    order = models.CharField(max_length=10, choices=Order.choices, default=Order.PAPER)
    # The open cells when the session started, in its order: [[paper id, criterion id], ...].
    cells = models.JSONField(default=list)
    position = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            # Two sessions on one problem would walk the same cells at two tables.
            models.UniqueConstraint(
                fields=["problem"],
                condition=Q(ended_at__isnull=True),
                name="discussion_session_one_live_per_problem",
            ),
        ]

    def __str__(self):
        return f"Session on {self.problem.code} from {self.started_at:%Y-%m-%d %H:%M}"

    @property
    def current(self) -> tuple[int, int] | None:
        if 0 <= self.position < len(self.cells):
            paper_id, criterion_id = self.cells[self.position]
            return paper_id, criterion_id
        return None


class SessionMember(models.Model):
    """A person in a session: joined, and left (None while in it)."""

    session = models.ForeignKey(DiscussionSession, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    joined_at = models.DateTimeField(auto_now_add=True)
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["session_id", "joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["session", "user"], name="session_member_unique"),
        ]

    def __str__(self):
        return f"{self.user} in {self.session}"


class SessionOutcome(models.Model):
    """What the group did with one cell, and who was present."""

    class Kind(models.TextChoices):
        AGREED = "agreed", "Agreed: the marks agree"
        VALUE = "value", "An agreed value, with a reason"
        CHAIR = "chair", "Sent to the chair"
        DECIDED = "decided", "Decided by the chair meanwhile"
        LEFT_OPEN = "open", "Left open"

    session = models.ForeignKey(
        DiscussionSession, on_delete=models.CASCADE, related_name="outcomes"
    )
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="+")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    reason = models.TextField(blank=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    present = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["session_id", "created_at", "id"]

    def __str__(self):
        return f"{self.get_kind_display()} in {self.session}"
