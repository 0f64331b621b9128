"""What the assignment knows of a juror beyond their account: the languages they read, the
country they come from, how many papers of a problem they can take, and whether they are still
available; each move of a paper from one juror to another once grading has begun; and the
conflicts of interest the organizer declares."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from grading.models.delegations import Delegation
from grading.models.papers import Paper
from rubrics.models import Problem


def language_key(language: str) -> str:
    """A language as the assignment compares it: "Tagalog", " tagalog " and "TAGALOG" are one."""
    return " ".join(language.split()).casefold()


def language_name(language: str) -> str:
    """A language's name as it is kept and shown, from what was typed: spaces tidied, and a name
    typed all in lower case ("estonian", "north sami") capitalised as names are written; any
    other spelling ("isiZulu", "TAGALOG") is kept as typed."""
    tidy = " ".join(language.split())
    if tidy == tidy.lower():
        return " ".join(word[:1].upper() + word[1:] for word in tidy.split(" "))
    return tidy


class JurorProfile(models.Model):
    """One person's facts for the assignment (every field optional: a juror with no profile
    reads no language the assignment knows of, has no country and no capacity)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="juror_profile"
    )
    # Compared with a delegation's country (case and spaces aside): no juror grades their own
    # country's contestants.
    country = models.CharField(max_length=60, blank=True)
    # The most papers of one problem the juror takes; none: no limit.
    capacity = models.PositiveIntegerField(null=True, blank=True)
    # From this moment the juror takes no new paper and their ungraded papers move to others.
    unavailable_since = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"Facts of {self.user}"


class JurorLanguage(models.Model):
    """A language a juror reads, alone or with a colleague's or a specialist's help."""

    class Level(models.TextChoices):
        READS = "reads", "reads"
        WITH_HELP = "with_help", "reads with help"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reading_languages"
    )
    # As typed ("Tagalog"); compared through `language_key`.
    language = models.CharField(max_length=60)
    level = models.CharField(max_length=10, choices=Level.choices, default=Level.READS)

    class Meta:
        ordering = ["user_id", "language"]
        constraints = [
            models.UniqueConstraint(fields=["user", "language"], name="juror_language_unique"),
        ]

    def __str__(self):
        return f"{self.user}: {self.language} ({self.get_level_display()})"


class AssignmentMove(models.Model):
    """A paper of a problem taken from one juror (unavailable, or replaced) and given to
    another during grading, on record with who moved it and why. The first juror's marks stay
    on record; they no longer count once the assignment is gone."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="moves")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="moves")
    from_juror = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="moves_from"
    )
    to_juror = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="moves_to"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="moves_made"
    )
    reason = models.CharField(max_length=300)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["problem_id", "at", "id"]

    def __str__(self):
        return f"{self.problem.code}: paper moved from {self.from_juror} to {self.to_juror}"


BOTH_OR_NEITHER = (
    "Choose a delegation (a conflict with all its contestants) or one contestant, and leave the "
    "other empty."
)


class DeclaredConflict(models.Model):
    """A conflict of interest the organizer declares (as a conference declares one between a
    reviewer and an author): a juror × a delegation, which keeps all its contestants from the
    juror as leading it does, or a juror × one contestant (a human paper), which keeps that
    paper only; with the reason, who declared it and when. `grading.rules.conflicts` counts it
    with the other conflicts at every door, from the moment it is saved."""

    juror = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="declared_conflicts"
    )
    delegation = models.ForeignKey(
        Delegation,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="declared_conflicts",
    )
    paper = models.ForeignKey(
        Paper,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="declared_conflicts",
        verbose_name="contestant",
    )
    # As the organizer words it ("sister of the contestant"): shown after the rule's own words
    # wherever the conflict is named (a refusal, the conflict moves' preview).
    reason = models.CharField(max_length=300)
    declared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="conflicts_declared",
    )
    declared_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["juror_id", "declared_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(delegation__isnull=True) ^ Q(paper__isnull=True),
                name="declared_conflict_delegation_or_paper",
                violation_error_message=BOTH_OR_NEITHER,
            ),
            models.UniqueConstraint(
                fields=["juror", "delegation"],
                condition=Q(delegation__isnull=False),
                name="declared_conflict_unique_delegation",
                violation_error_message=(
                    "This juror has a conflict declared with this delegation already."
                ),
            ),
            models.UniqueConstraint(
                fields=["juror", "paper"],
                condition=Q(paper__isnull=False),
                name="declared_conflict_unique_paper",
                violation_error_message=(
                    "This juror has a conflict declared with this contestant already."
                ),
            ),
        ]

    def __str__(self):
        # Never the paper (its public code pairs it with its labels): the juror and the kind.
        what = f"delegation {self.delegation}" if self.delegation_id else "a contestant"
        return f"Conflict of {self.juror} with {what}"

    def clean(self):
        # Both or neither is the check constraint's to say (`validate_constraints`).
        if self.paper_id is not None and self.paper.source != Paper.Source.HUMAN:
            raise ValidationError(
                {"paper": "An AI system's paper has no contestant to be in conflict with."}
            )


class ConflictRuling(models.Model):
    """The chair's decision on the marks a juror gave a paper before a conflict with it came to
    light (a juror made a team leader, a country corrected, a conflict declared once the sheet
    was in): kept, they count as if the conflict had not been; discarded, they never count and
    the paper moves to a colleague (`grading.assigning.conflict_moves`). Until the chair
    decides, such marks are held: on record, counted for no cell (`grading.rules.conflicts`).
    One decision per juror, paper and problem; it stands."""

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="+")
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="conflict_rulings")
    juror = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conflict_rulings"
    )
    kept = models.BooleanField()
    # Why, in the chair's words: kept with the decision and shown on the page that lists it.
    reason = models.CharField(max_length=300)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="conflict_rulings_made",
    )
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["problem_id", "decided_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["problem", "paper", "juror"],
                name="conflict_ruling_unique",
                violation_error_message=(
                    "The chair has decided on this juror's marks on this paper already."
                ),
            )
        ]

    def __str__(self):
        # Never the paper (its public code pairs it with its labels).
        return f"{'Kept' if self.kept else 'Discarded'}: {self.juror}'s marks in conflict"
