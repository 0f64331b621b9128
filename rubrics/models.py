"""What is graded: contests, their problems and tasks, grading-scheme criteria and medal cut-offs."""

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from rubrics.validators import tolerance_refusal

# The band of a scanned answer page that the scan import paints over, as the answer sheet
# the contest prints asks for (grading/printing/covers.py tells contestants where the code goes;
# the demo's answer sheets, templates/grading/demo/pdf/answer_sheets.html, draw its box): the
# code box at the top of an answer's first page ends about 10.4 % down an A4 page, and the
# band leaves some room for a sheet fed a little askew or low. Continuation pages carry no code.
SCAN_MASK_PERCENT = Decimal("12.0")
SCAN_MASK_PERCENT_MAX = Decimal("50")


class Contest(models.Model):
    class MaskPages(models.TextChoices):
        """Which scanned answer pages carry the contestant's code, and so are masked."""

        FIRST = "first", "The first page of each answer"
        EVERY = "every", "Every answer page"

    class State(models.TextChoices):
        SETUP = "setup", "Set-up"
        GRADING = "grading", "Grading"
        RESOLUTION = "resolution", "Resolution"
        # Results published to the delegations' team leaders, who may appeal until the deadline.
        PROVISIONAL = "provisional", "Provisional results"
        FINAL = "final", "Final"

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=200)
    state = models.CharField(max_length=12, choices=State.choices, default=State.SETUP)
    max_total = models.DecimalField(
        "maximum total", max_digits=7, decimal_places=2, default=Decimal("100")
    )
    # Until when team leaders may appeal the provisional results (set when they are published,
    # extended with a reason; every change is an `AppealDeadlineChange`).
    appeals_deadline = models.DateTimeField(null=True, blank=True)
    # The language the problems were written in, which AI systems answer in: the answer
    # language of every AI paper, for the assignment.
    # The default is the database's too: rows written by earlier migrations' models go in.
    working_language = models.CharField(max_length=60, default="English", db_default="English")
    # Where contestants write their code on the answer sheet (the covers say so): the top
    # band of that height, on those pages, is painted over when scans are imported.
    scan_mask_percent = models.DecimalField(
        "scan mask (% of the page's height)",
        max_digits=4,
        decimal_places=1,
        default=SCAN_MASK_PERCENT,
        db_default=SCAN_MASK_PERCENT,
        validators=[MinValueValidator(0), MaxValueValidator(SCAN_MASK_PERCENT_MAX)],
        help_text=(
            "The top band of a scanned answer page painted over at import, where the "
            "contestant writes their code: 12 % holds the code box of the answer sheet the "
            "covers describe. Applies to scans imported from now on."
        ),
    )
    scan_mask_pages = models.CharField(
        "scan mask on",
        max_length=5,
        choices=MaskPages.choices,
        default=MaskPages.FIRST,
        db_default=MaskPages.FIRST,
        help_text=(
            "The pages that carry the code box: the covers tell contestants to write their "
            "code there. Applies to covers printed and scans imported from now on."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "slug"]
        constraints = [
            models.CheckConstraint(condition=Q(max_total__gt=0), name="contest_max_total_positive"),
            models.CheckConstraint(
                condition=Q(scan_mask_percent__gte=0, scan_mask_percent__lte=SCAN_MASK_PERCENT_MAX),
                name="contest_scan_mask_percent_range",
            ),
        ]

    def __str__(self):
        return self.name

    def masks_scan_page(self, position: int) -> bool:
        """Whether the `position`-th page (from 1) of a scanned answer carries the code box."""
        return self.scan_mask_pages == self.MaskPages.EVERY or position == 1

    @property
    def is_final(self) -> bool:
        return self.state == self.State.FINAL


class MedalCutoff(models.Model):
    """A medal and the lowest total that earns it; `order` 1 is the best medal."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="cutoffs")
    name = models.CharField(max_length=60)
    min_total = models.DecimalField("minimum total", max_digits=7, decimal_places=2)
    order = models.PositiveSmallIntegerField(default=1)

    class Meta:
        ordering = ["contest_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["contest", "name"], name="cutoff_unique_name"),
            models.UniqueConstraint(fields=["contest", "order"], name="cutoff_unique_order"),
            models.CheckConstraint(condition=Q(min_total__gte=0), name="cutoff_min_total_nonneg"),
        ]

    def __str__(self):
        return f"{self.name} ≥ {self.min_total}"


class Problem(models.Model):
    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="problems")
    number = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=200, blank=True)
    language = models.CharField(max_length=100, blank=True)
    max_points = models.DecimalField(
        "maximum points", max_digits=6, decimal_places=2, default=Decimal("20")
    )
    # The number of the scheme's version now in force: 1 as loaded, one more with every
    # amendment after marks exist (a `SchemeVersion` row each). Every mark records the
    # version it was given under.
    scheme_version = models.PositiveSmallIntegerField(default=1, db_default=1)

    class Meta:
        ordering = ["contest_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["contest", "number"], name="problem_unique_number"),
            models.CheckConstraint(
                condition=Q(max_points__gt=0), name="problem_max_points_positive"
            ),
        ]

    def __str__(self):
        title = f": {self.title}" if self.title else ""
        return f"P{self.number}{title}"

    @property
    def code(self) -> str:
        return f"P{self.number}"


class Task(models.Model):
    """One assignment of a problem with its numbered items and the accepted answers per item."""

    class Type(models.TextChoices):
        TRANSLATION = "translation", "Translation"
        FILL_BLANKS = "fill_blanks", "Fill in the blanks"
        MATCH_LETTERS = "match_letters", "Match letters"
        TEXT_TO_NUM = "text_to_num", "Text to number"
        NUM_TO_TEXT = "num_to_text", "Number to text"
        EXPLANATION = "explanation", "Explanation only"

    class Split(models.TextChoices):
        PUBLIC = "public", "Public"
        PRIVATE = "private", "Private"

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="tasks")
    number = models.PositiveSmallIntegerField()
    external_id = models.CharField(
        max_length=40, help_text="The problem set's id, e.g. 12026030200."
    )
    label = models.CharField(max_length=40, blank=True)
    task_type = models.CharField(max_length=20, choices=Type.choices)
    eval_type = models.CharField(max_length=20, blank=True)
    work_lang = models.CharField(max_length=100, blank=True)
    task_lang = models.JSONField(default=list, blank=True)
    context = models.TextField(blank=True)
    query = models.TextField(blank=True)
    item_count = models.PositiveSmallIntegerField(default=0)
    # One list of accepted alternatives per item: [["qayaq"], ["the English language", "English"]].
    answers = models.JSONField(default=list, blank=True)
    reference_explanation = models.TextField(
        blank=True,
        help_text="The official solution's explanation (markdown), where the problem set gives one.",
    )
    split = models.CharField(max_length=10, choices=Split.choices, default=Split.PUBLIC)
    weight = models.DecimalField(max_digits=6, decimal_places=2, default=Decimal("0"))

    class Meta:
        ordering = ["problem_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["problem", "number"], name="task_unique_number"),
            models.UniqueConstraint(
                fields=["problem", "external_id"], name="task_unique_external_id"
            ),
            models.CheckConstraint(condition=Q(weight__gte=0), name="task_weight_nonneg"),
        ]

    def __str__(self):
        return f"{self.problem.code}.{self.number} ({self.external_id})"

    @property
    def code(self) -> str:
        return f"{self.problem.code}.{self.number}"

    def clean(self):
        if len(self.answers) != self.item_count:
            raise ValidationError(
                f"Task {self.external_id} has {self.item_count} items but "
                f"{len(self.answers)} reference answers."
            )


class CriterionQuerySet(models.QuerySet):
    def for_problem(self, problem):
        return self.filter(problem=problem).order_by("order", "code")


class Criterion(models.Model):
    """One line of a problem's grading scheme."""

    class Kind(models.TextChoices):
        ASSIGNMENT = "assignment", "Assignment"
        THEORY = "theory", "Theory"

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="criteria")
    code = models.CharField(max_length=20)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    title = models.CharField(max_length=300)
    guidance = models.TextField(blank=True)
    points = models.DecimalField(max_digits=6, decimal_places=2)
    step = models.DecimalField(max_digits=5, decimal_places=2, default=Decimal("0.5"))
    tolerance = models.DecimalField(max_digits=5, decimal_places=2, default=Decimal("0"))
    task = models.ForeignKey(
        Task, on_delete=models.SET_NULL, null=True, blank=True, related_name="criteria"
    )
    order = models.PositiveSmallIntegerField(default=0)

    objects = CriterionQuerySet.as_manager()

    class Meta:
        ordering = ["problem_id", "order", "code"]
        verbose_name_plural = "criteria"
        constraints = [
            models.UniqueConstraint(fields=["problem", "code"], name="criterion_unique_code"),
            models.CheckConstraint(condition=Q(points__gt=0), name="criterion_points_positive"),
            models.CheckConstraint(condition=Q(step__gt=0), name="criterion_step_positive"),
            models.CheckConstraint(
                condition=Q(tolerance__gte=0), name="criterion_tolerance_nonneg"
            ),
        ]

    def __str__(self):
        return f"{self.problem.code} {self.code} ({self.points})"

    def clean(self):
        # The admin's door (its forms call this); the scheme file and the amendment say the
        # same through the same rule.
        refusal = tolerance_refusal(self.points, self.tolerance)
        if refusal:
            raise ValidationError({"tolerance": f"{refusal[0].upper()}{refusal[1:]}."})


class SchemeVersion(models.Model):
    """One amendment of a problem's scheme after marks exist, and the version it makes. Version
    1, the scheme as loaded, has no row. `changes` lists what changed, one entry per criterion
    and field: {"criterion": "A1", "field": "points", "old": "4", "new": "3"} (values as text,
    points as Decimal strings). A change of points, step or tolerance reopens the marks it
    affects (`reopens_marks`); a change of wording or guidance applies at once."""

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="scheme_versions")
    number = models.PositiveSmallIntegerField()
    reason = models.TextField()
    changes = models.JSONField(default=list)
    reopens_marks = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["problem_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["problem", "number"], name="scheme_version_unique_number"
            ),
            models.CheckConstraint(
                condition=Q(number__gte=2), name="scheme_version_after_the_first"
            ),
        ]

    def __str__(self):
        return f"{self.problem.code} scheme v{self.number}"
