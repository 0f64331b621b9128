"""The inbox: notifications to jurors and the chair."""

from django.conf import settings
from django.db import models

from grading.models.papers import Paper
from grading.models.resolution import Comment
from rubrics.models import Contest, Criterion, Problem


class NotificationQuerySet(models.QuerySet):
    def unread(self):
        return self.filter(read_at__isnull=True)


class Notification(models.Model):
    """Something that needs one person: the resolution phase opened, a comment or a chair
    decision on one of their cells, a request to revise. Written only by
    `grading.resolution.inbox`, which words `sentence` for its reader: a cell is named by its
    problem, the paper's label in that problem and the criterion, never by a paper's id or
    identity."""

    class Kind(models.TextChoices):
        RESOLUTION_OPEN = "resolution_open", "Resolution phase opened"
        COMMENT = "comment", "Comment on your cell"
        DECISION = "decision", "Chair decision on your cell"
        REVISE_REQUEST = "revise_request", "Request to revise"
        # A team leader's appeal on a paper of the reader's problem, and the decision on a
        # leader's own appeal (about a paper and a problem; no criterion, no discussion link).
        APPEAL = "appeal", "Appeal to review"
        APPEAL_DECISION = "appeal_decision", "Decision on your appeal"
        APPEAL_QUESTION = "appeal_question", "The jury's question on your appeal"
        APPEAL_ANSWER = "appeal_answer", "A team leader's answer on an appeal"
        # Language help: a juror's question (to the organizer and the chair), a question given
        # to its helper, the helper's answer (to the juror who asked).
        HELP_ASKED = "help_asked", "Language help asked"
        HELP_ASSIGNED = "help_assigned", "Language help to give"
        HELP_ANSWERED = "help_answered", "Language help answered"
        # Papers moved during grading: to the juror who takes them, from the one who left.
        PAPERS_MOVED = "papers_moved", "Papers moved"
        # Grading the same way: the problem's scheme amended (wording or guidance; points
        # reopen marks, told by MARKS_REOPENED to each juror whose marks reopened), a
        # calibration round to grade, the problem's live grading opened after it.
        SCHEME_AMENDED = "scheme_amended", "Grading scheme amended"
        MARKS_REOPENED = "marks_reopened", "Marks to re-confirm"
        CALIBRATION_OPEN = "calibration_open", "Calibration round to grade"
        # The chair changed a reference a juror had compared their calibration marks with.
        REFERENCE_CHANGED = "reference_changed", "Calibration reference changed"
        GRADING_OPENED = "grading_opened", "Grading opened"
        # The appeals evening's timetable published: a leader's meetings, a juror's tables.
        APPEAL_MEETING = "appeal_meeting", "Appeals evening timetable"
        # A discussion session in the room started on a problem of the reader's group.
        SESSION_STARTED = "session_started", "Discussion session started"

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="notifications")
    # The cell it is about, if any (the resolution phase opening is about the whole contest).
    problem = models.ForeignKey(
        Problem, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    paper = models.ForeignKey(
        Paper, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    criterion = models.ForeignKey(
        Criterion, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    # A seed's question answered: its reader knows the paper only by the seed's label.
    seed = models.ForeignKey(
        "grading.Seed", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    # The comment it announces: a request to revise is a comment flagged by its notification.
    comment = models.ForeignKey(
        Comment, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    sentence = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["recipient_id", "-created_at", "-id"]
        indexes = [
            models.Index(fields=["recipient", "read_at"], name="notification_unread"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} for {self.recipient}"
