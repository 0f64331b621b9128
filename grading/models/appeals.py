"""Provisional results and team leaders' appeals: the published snapshot, the appeals deadline's
changes, the appeals with their criteria, and every step of an appeal on record."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from grading.models.papers import Paper
from rubrics.models import Contest, Criterion, Problem


class ProvisionalResult(models.Model):
    """A paper's total, rank and medal as published with the provisional results: what the
    final results are compared with ("provisional vs final, and which appeals changed them")."""

    paper = models.OneToOneField(Paper, on_delete=models.CASCADE, related_name="provisional")
    total = models.DecimalField(max_digits=7, decimal_places=2)
    # Among the human contestants (AI papers: the rank they would hold among them).
    rank = models.PositiveIntegerField(null=True, blank=True)
    medal = models.CharField(max_length=60, blank=True)
    published_at = models.DateTimeField()

    class Meta:
        ordering = ["paper_id"]

    def __str__(self):
        return f"{self.paper}: {self.total} provisional"


class AppealDeadlineChange(models.Model):
    """The appeals deadline as set when provisional results are published, and every extension,
    with who changed it and why."""

    contest = models.ForeignKey(
        Contest, on_delete=models.CASCADE, related_name="appeal_deadline_changes"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    old_deadline = models.DateTimeField(null=True, blank=True)
    new_deadline = models.DateTimeField()
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["contest_id", "created_at", "id"]

    def __str__(self):
        return f"{self.contest}: appeals until {self.new_deadline}"


class Appeal(models.Model):
    """A team leader's request, per paper and problem, naming one or more criteria, with an
    argument; decided by a juror of the group who did not mark the paper, or by the chair."""

    class State(models.TextChoices):
        OPEN = "open", "Open"
        WITHDRAWN = "withdrawn", "Withdrawn"
        DECIDED = "decided", "Decided"

    class Outcome(models.TextChoices):
        UPHELD = "upheld", "Upheld"
        PARTLY = "partly", "Partly upheld"
        REJECTED = "rejected", "Rejected"

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="appeals")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="appeals")
    filed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="appeals_filed"
    )
    argument = models.TextField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    outcome = models.CharField(max_length=10, choices=Outcome.choices, blank=True)
    # What the leader reads with the decision.
    reason = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    filed_at = models.DateTimeField(auto_now_add=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["problem_id", "filed_at", "id"]
        constraints = [
            # One appeal per paper and problem at a time: a withdrawn one may be filed again.
            models.UniqueConstraint(
                fields=["paper", "problem"],
                condition=~Q(state="withdrawn"),
                name="appeal_one_live_per_paper_problem",
            ),
            models.CheckConstraint(
                condition=Q(state="decided", outcome__gt="")
                | (~Q(state="decided") & Q(outcome="")),
                name="appeal_outcome_iff_decided",
            ),
        ]

    def __str__(self):
        # Never the paper's identity: appeals are read by jurors.
        return f"Appeal on {self.problem.code} {self.paper} ({self.get_state_display()})"


class AppealCriterion(models.Model):
    """One criterion an appeal names: the agreed points when it was filed, and the points the
    decision gave it (None until decided; equal to the old ones when that criterion was
    rejected)."""

    appeal = models.ForeignKey(Appeal, on_delete=models.CASCADE, related_name="criteria")
    criterion = models.ForeignKey(Criterion, on_delete=models.RESTRICT, related_name="+")
    points_before = models.DecimalField(max_digits=6, decimal_places=2)
    points_after = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)

    class Meta:
        ordering = ["appeal_id", "criterion__order", "criterion__code"]
        constraints = [
            models.UniqueConstraint(fields=["appeal", "criterion"], name="appeal_criterion_unique"),
        ]

    def __str__(self):
        return f"{self.appeal}: {self.criterion.code}"


class AppealEvent(models.Model):
    """Every step of an appeal, on record: filed, commented on (by a juror of the group or the
    chair, for the jury alone), a question from the jury to the team leader and the leader's
    answer (the leader reads the questions as the jury's, never a juror's name), withdrawn,
    decided."""

    class Kind(models.TextChoices):
        FILED = "filed", "Filed"
        COMMENT = "comment", "Comment"
        QUESTION = "question", "Question to the team leader"
        ANSWER = "answer", "The team leader's answer"
        WITHDRAWN = "withdrawn", "Withdrawn"
        DECIDED = "decided", "Decided"
        # At the appeals evening's table, the leader acknowledges the decision on their device
        # (grading/appeals/meetings.py), as they would sign a printed form.
        ACKNOWLEDGED = "acknowledged", "Acknowledged by the team leader"

    appeal = models.ForeignKey(Appeal, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    text = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["appeal_id", "created_at", "id"]

    def __str__(self):
        return f"{self.appeal}: {self.get_kind_display()}"
