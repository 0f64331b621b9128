"""The comment bank: a grading group's shared, reusable notes per criterion."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from rubrics.models import Criterion


class BankNote(models.Model):
    """One reusable note on a criterion ("vowel harmony rule missed") with the points it
    usually goes with, written by a juror of the group and curated by the chair. It holds text
    and suggested points only, never a juror's mark of a paper; once inserted in a mark's note
    the text is the juror's own, and later edits of the bank leave it as it is."""

    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="bank_notes")
    text = models.CharField(max_length=500)
    # The points that usually go with the note, offered (never set) when it is inserted.
    points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # In the group's bank, read by every juror of the problem. A note a juror adds from their
    # sheet is a proposal, theirs alone, until the chair adopts it: otherwise a note written on
    # one paper's mark would reach a co-grader before either submits. What the chair adds (or
    # a backup made before proposals existed held) is in the bank already.
    adopted = models.BooleanField("adopted into the group's bank", default=True)
    # How many times a juror inserted it in a note.
    uses = models.PositiveIntegerField(default=0)
    order = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["criterion_id", "order", "id"]
        constraints = [
            # A text once in a criterion's bank, and once among each juror's proposals: two
            # jurors may propose the same words without either learning of the other's.
            models.UniqueConstraint(
                fields=["criterion", "text"],
                condition=Q(adopted=True),
                name="bank_note_unique_text",
            ),
            models.UniqueConstraint(
                fields=["criterion", "author", "text"],
                condition=Q(adopted=False),
                name="bank_note_unique_proposal",
            ),
            models.CheckConstraint(
                condition=Q(points__isnull=True) | Q(points__gte=0),
                name="bank_note_points_nonneg",
            ),
        ]

    def __str__(self):
        return f"{self.criterion.code}: {self.text[:60]}"
