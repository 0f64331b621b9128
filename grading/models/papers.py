"""Papers, their public codes and anonymous labels per problem, AI systems' solutions and scanned pages."""

import re
import secrets

from django.core.exceptions import ValidationError
from django.db import models

from rubrics.models import Contest, Problem, Task

# A paper's public code: what the chair's pages and the exports call a paper instead of its
# database id, which counts papers in import order and so hints at the system. The alphabet drops
# 0/O, 1/I/L, 2/Z, 5/S, 8/B (codes are read aloud and copied by hand); five characters, not the
# four of a per-problem label, so that a code is never mistaken for a label. It starts with a
# letter so that no spreadsheet reads it as a number ("34679", "7E346").
PUBLIC_CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"


PUBLIC_CODE_LENGTH = 5


_CODE_LETTERS = PUBLIC_CODE_ALPHABET.rstrip("0123456789")


_CODE_SHAPE = re.compile(
    f"[{_CODE_LETTERS}][{PUBLIC_CODE_ALPHABET}]{{{PUBLIC_CODE_LENGTH - 1}}}", re.ASCII
)


def validate_public_code(value: str) -> None:
    """What a restored backup may name a paper: a code as draw_public_code makes them."""
    if not _CODE_SHAPE.fullmatch(value):
        raise ValidationError(
            f"“{value}” is not a paper's public code: {PUBLIC_CODE_LENGTH} capitals and digits "
            f"from {PUBLIC_CODE_ALPHABET}, starting with a capital.",
            code="public_code",
        )


def draw_public_code(taken: set[str]) -> str:
    """A fresh random code not in `taken` (which it joins)."""
    while True:
        code = secrets.choice(_CODE_LETTERS) + "".join(
            secrets.choice(PUBLIC_CODE_ALPHABET) for _ in range(PUBLIC_CODE_LENGTH - 1)
        )
        if code not in taken:
            taken.add(code)
            return code


class PaperQuerySet(models.QuerySet):
    def for_jury(self):
        """The papers jurors grade: every human contestant's, and of the AI systems those
        selected for the jury once any is (the automatic ranking selects among AI papers only,
        so a selection never leaves a contestant ungraded)."""
        selection = Paper.objects.filter(
            contest=models.OuterRef("contest"), source=Paper.Source.AI, selected_for_jury=True
        )
        return self.filter(
            models.Q(source=Paper.Source.HUMAN)
            | models.Q(selected_for_jury=True)
            | ~models.Exists(selection)
        )


class Paper(models.Model):
    """One system's (or contestant's) solutions to a contest. `identity` and `metadata` are
    private: only organizers (and the chair after finalization) may see them."""

    class Source(models.TextChoices):
        AI = "ai", "AI system"
        HUMAN = "human", "Human contestant"

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="papers")
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.AI)
    identity = models.CharField(max_length=200)
    metadata = models.JSONField(default=dict, blank=True)
    # The IOL-AI organizers sent only the strongest systems to the jury; once any AI paper of a
    # contest is selected, only selected AI papers (and every human paper) go to jurors.
    selected_for_jury = models.BooleanField(default=False)
    # A human contestant's delegation (a country's team); AI papers belong to none.
    # RESTRICT, not PROTECT: a contest is deleted with its delegations and papers together,
    # while a delegation alone is not deleted from under its contestants.
    delegation = models.ForeignKey(
        "grading.Delegation",
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="papers",
    )
    # The language the contestant answered in (their translation of the problems; for AI
    # papers the contest's working language is used), compared through `language_key`.
    # The default is the database's too: rows written by earlier migrations' models go in.
    answer_language = models.CharField(max_length=60, blank=True, db_default="")
    # Random, unique in the contest, drawn when the paper is first saved (see PUBLIC_CODE_ALPHABET).
    public_code = models.CharField(
        max_length=PUBLIC_CODE_LENGTH, editable=False, validators=[validate_public_code]
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = PaperQuerySet.as_manager()

    class Meta:
        ordering = ["contest_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["contest", "identity"], name="paper_unique_identity"),
            models.UniqueConstraint(
                fields=["contest", "public_code"], name="paper_unique_public_code"
            ),
        ]

    def __str__(self):
        # Never the identity nor the database id (it counts papers in import order): papers end
        # up in forms, logs and error pages jurors may read.
        return f"paper {self.public_code}"

    def save(self, *args, **kwargs):
        if not self.public_code:
            taken = set(
                Paper.objects.filter(contest_id=self.contest_id).values_list(
                    "public_code", flat=True
                )
            )
            self.public_code = draw_public_code(taken)
        super().save(*args, **kwargs)

    def clean(self):
        # The admin's form asks this; the delegations' import and a restore check it themselves.
        super().clean()
        if self.delegation_id is None:
            return
        if self.source != Paper.Source.HUMAN:
            raise ValidationError({"delegation": "An AI system's paper belongs to no delegation."})
        if self.delegation.contest_id != self.contest_id:
            raise ValidationError(
                {"delegation": f"Delegation {self.delegation.code} is of another contest."}
            )


def paper_named_in(row, problem_id: int) -> str:
    """How a row that belongs to one problem names its paper in `__str__`: by the paper's label
    in that problem, as its jurors know it. Neither the database id (it counts papers in import
    order) nor the public code (the same in every problem) may show, since tracebacks and logs
    can reach a juror, who must not pair one paper's labels across problems.

    A list of rows (the admin's) prefetches `paper__labels` so that naming each row costs no
    query; a row on its own asks for its one label."""
    paper = row._state.fields_cache.get("paper")
    labels = getattr(paper, "_prefetched_objects_cache", {}).get("labels")
    if labels is not None:
        label = next((link.label for link in labels if link.problem_id == problem_id), None)
    else:
        label = (
            PaperLabel.objects.filter(paper_id=row.paper_id, problem_id=problem_id)
            .values_list("label", flat=True)
            .first()
        )
    return f"paper {label}" if label else "an unlabelled paper"


class PaperLabel(models.Model):
    """The anonymous name of a paper within one problem; drawn afresh for every problem so that
    a juror cannot follow one system across problems."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="labels")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="paper_labels")
    label = models.CharField(max_length=12)
    # The contestant left this problem blank (the scan import found no pages for it): the
    # paper's answer to the problem is "no answer", 0 points without a juror. Kept here, on
    # the one row each (paper, problem) has, so that every read of the labels knows it too.
    blank = models.BooleanField(default=False)

    class Meta:
        ordering = ["problem_id", "label"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "problem"], name="label_one_per_problem"),
            models.UniqueConstraint(fields=["problem", "label"], name="label_unique_in_problem"),
        ]

    def __str__(self):
        return f"{self.problem.code} {self.label}"


class Solution(models.Model):
    """A paper's answers (one per item) and explanation for one task, with the raw output they
    were parsed from and notes on any repair the parser made."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="solutions")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="solutions")
    answers = models.JSONField(default=list, blank=True)
    explanation = models.TextField(blank=True)
    raw = models.TextField(blank=True)
    parse_notes = models.JSONField(default=list, blank=True)
    # How many answers the output gave and how many items the task had when it was read, kept as
    # data for the format figure (the competition's share of tasks with as many answers as
    # items); null where a row predates them and its notes could not tell.
    answers_given = models.PositiveIntegerField(null=True, blank=True)
    items_expected = models.PositiveIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["paper_id", "task_id"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "task"], name="solution_unique_task"),
        ]

    def __str__(self):
        return f"Solution of {paper_named_in(self, self.task.problem_id)} to {self.task}"


class ScanPage(models.Model):
    """One scanned page of a human contestant's answer to a problem, in its order within that
    answer. `image` is a path relative to settings.SCANS_DIR with a random name (never the
    contestant's code); the stored PNG is upright, its top band masked and its metadata gone,
    so whatever serves it reveals nothing a juror may not see."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="scan_pages")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="scan_pages")
    position = models.PositiveIntegerField()
    image = models.CharField(max_length=200)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["paper", "problem", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["paper", "problem", "position"], name="scan_page_unique_position"
            ),
        ]

    def __str__(self):
        return f"page {self.position} of {paper_named_in(self, self.problem_id)}"
