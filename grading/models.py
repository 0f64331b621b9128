"""Who grades and the outcome: papers and their anonymous labels, solutions, grading groups,
assignments, sheets, marks and the history of every mark."""

import re
import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q

from rubrics.models import Contest, Criterion, Problem, Task

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
    # The IOL-AI organizers sent only the strongest systems to the jury; once any paper of a
    # contest is selected, only selected papers are assigned to jurors.
    selected_for_jury = models.BooleanField(default=False)
    # Random, unique in the contest, drawn when the paper is first saved (see PUBLIC_CODE_ALPHABET).
    public_code = models.CharField(
        max_length=PUBLIC_CODE_LENGTH, editable=False, validators=[validate_public_code]
    )
    created_at = models.DateTimeField(auto_now_add=True)

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


def _paper_in(row, problem_id: int) -> str:
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
        return f"Solution of {_paper_in(self, self.task.problem_id)} to {self.task}"


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
        return f"{self.problem.code}: {_paper_in(self, self.problem_id)} → {self.juror}"


class SheetQuerySet(models.QuerySet):
    def submitted(self):
        return self.filter(state=Sheet.State.SUBMITTED)


class Sheet(models.Model):
    """One juror's marks for one problem."""

    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        SUBMITTED = "submitted", "Submitted"

    juror = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sheets"
    )
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="sheets")
    state = models.CharField(max_length=10, choices=State.choices, default=State.DRAFT)
    submitted_at = models.DateTimeField(null=True, blank=True)

    objects = SheetQuerySet.as_manager()

    class Meta:
        ordering = ["problem_id", "juror_id"]
        constraints = [
            models.UniqueConstraint(fields=["juror", "problem"], name="sheet_unique_juror_problem"),
        ]

    def __str__(self):
        return f"Sheet of {self.juror} for {self.problem.code}"

    @property
    def is_submitted(self) -> bool:
        return self.state == self.State.SUBMITTED


class Mark(models.Model):
    """Points one juror gives one paper for one criterion. NULL points mean "not graded yet",
    never zero. `version` grows with every change so that a stale save can be refused."""

    sheet = models.ForeignKey(Sheet, on_delete=models.CASCADE, related_name="marks")
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="marks")
    # RESTRICT, not PROTECT: a criterion with marks cannot be deleted alone, but a whole contest can.
    criterion = models.ForeignKey(Criterion, on_delete=models.RESTRICT, related_name="marks")
    points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    note = models.CharField(max_length=500, blank=True)
    version = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["sheet_id", "paper_id", "criterion_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["sheet", "paper", "criterion"], name="mark_unique_cell"
            ),
            models.CheckConstraint(
                condition=Q(points__isnull=True) | Q(points__gte=0), name="mark_points_nonneg"
            ),
        ]

    def __str__(self):
        paper = _paper_in(self, self.criterion.problem_id)
        return f"{self.sheet} · {paper} · {self.criterion.code} = {self.points}"


class MarkEvent(models.Model):
    """One change to a mark: who, when, old and new value and note, and through which channel."""

    class Channel(models.TextChoices):
        BROWSER = "browser", "Browser"
        XLSX = "xlsx", "XLSX upload"
        CHAIR = "chair", "Chair"
        IMPORT = "import", "Import"

    mark = models.ForeignKey(Mark, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    channel = models.CharField(max_length=10, choices=Channel.choices)
    old_points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    new_points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    old_note = models.CharField(max_length=500, blank=True)
    new_note = models.CharField(max_length=500, blank=True)
    version = models.PositiveIntegerField(help_text="The mark's version after this change.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["mark_id", "version"]
        constraints = [
            models.UniqueConstraint(fields=["mark", "version"], name="mark_event_unique_version"),
        ]

    def __str__(self):
        # The mark, not its id: marks are made in paper order, so ids pair papers across sheets.
        return (
            f"{self.mark} v{self.version}: {self.old_points} → {self.new_points} ({self.channel})"
        )


class Comment(models.Model):
    """A remark in the discussion of one (paper, criterion) by a juror of the group or the chair."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="comments")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["paper_id", "criterion_id", "created_at", "id"]

    def __str__(self):
        paper = _paper_in(self, self.criterion.problem_id)
        return f"Comment by {self.author} on {self.criterion.problem.code} {paper} {self.criterion.code}"


class Resolution(models.Model):
    """How a discrepancy ended: the jurors' consensus, or the chair's decision with a reason.
    The jurors' original marks stay in their sheets and history; this holds the agreed value.
    Never deleted: a consensus that falls apart is withdrawn, so its events stay on record."""

    class Kind(models.TextChoices):
        CONSENSUS = "consensus", "Consensus"
        CHAIR = "chair", "Chair decision"
        # A consensus whose marks no longer agree: kept, with its history, but it no longer counts.
        WITHDRAWN = "withdrawn", "Consensus withdrawn"

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="resolutions")
    criterion = models.ForeignKey(Criterion, on_delete=models.RESTRICT, related_name="resolutions")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    points = models.DecimalField(max_digits=6, decimal_places=2)
    reason = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["paper_id", "criterion_id"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "criterion"], name="resolution_unique_cell"),
            models.CheckConstraint(condition=Q(points__gte=0), name="resolution_points_nonneg"),
        ]

    def __str__(self):
        paper = _paper_in(self, self.criterion.problem_id)
        where = f"{self.criterion.problem.code} {paper} {self.criterion.code}"
        return f"{self.get_kind_display()}: {where} = {self.points}"


class ResolutionEvent(models.Model):
    """Every change to a resolution, so that a chair's later change is on record."""

    resolution = models.ForeignKey(Resolution, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    old_points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    new_points = models.DecimalField(max_digits=6, decimal_places=2)
    old_kind = models.CharField(max_length=10, blank=True)
    new_kind = models.CharField(max_length=10)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["resolution_id", "created_at", "id"]

    def __str__(self):
        return f"{self.resolution}: {self.old_points} → {self.new_points} ({self.new_kind})"


class HumanScore(models.Model):
    """One human contestant's points, for the equivalent rank of an AI paper."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="human_scores")
    contestant = models.CharField(max_length=100)
    problem_points = models.JSONField(default=dict, help_text='{"1": "12.5", "2": "20", ...}')
    total = models.DecimalField(max_digits=7, decimal_places=2)

    class Meta:
        ordering = ["contest_id", "-total", "contestant"]
        constraints = [
            models.UniqueConstraint(fields=["contest", "contestant"], name="human_score_unique"),
        ]

    def __str__(self):
        return f"{self.contestant}: {self.total}"


class HumanCriterionRate(models.Model):
    """The share of human contestants who met a criterion in full (criterion difficulty)."""

    criterion = models.OneToOneField(Criterion, on_delete=models.CASCADE, related_name="human_rate")
    share_met = models.DecimalField(max_digits=5, decimal_places=4)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(share_met__gte=0) & Q(share_met__lte=1), name="human_rate_share"
            ),
        ]

    def __str__(self):
        return f"{self.criterion.code}: {self.share_met}"


class ContestEvent(models.Model):
    """One step in a contest's life (set-up → grading → resolution → final, and a reopening),
    with who took it and why. Written only by `grading.services.contest_life`."""

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


class NotificationQuerySet(models.QuerySet):
    def unread(self):
        return self.filter(read_at__isnull=True)


class Notification(models.Model):
    """Something that needs one person: the resolution phase opened, a comment or a chair
    decision on one of their cells, a request to revise. Written only by
    `grading.services.inbox`, which words `sentence` for its reader: a cell is named by its
    problem, the paper's label in that problem and the criterion, never by a paper's id or
    identity."""

    class Kind(models.TextChoices):
        RESOLUTION_OPEN = "resolution_open", "Resolution phase opened"
        COMMENT = "comment", "Comment on your cell"
        DECISION = "decision", "Chair decision on your cell"
        REVISE_REQUEST = "revise_request", "Request to revise"

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


class Job(models.Model):
    """Work a person starts from a page and waits on (the whole contest's printouts, later
    imports and exports), run by the task worker (`django.tasks` with the database backend).
    Written only by `grading.services.jobs`. The result is a file under `settings.JOBS_DIR`,
    served by an access-checked view, never by a public URL."""

    class Kind(models.TextChoices):
        PRINTOUTS = "printouts", "Printouts of the whole contest"
        IMPORT_OUTPUTS = "import_outputs", "Import of AI outputs"
        BACKUP = "backup", "Backup of the whole contest"
        RESULTS = "results", "Results exports (CSV and XLSX)"
        IMPORT_SCANS = "import_scans", "Import of scanned papers"
        # One reader's bundle of a problem's papers (a juror's share, or every paper), too many
        # papers to render within a request; its file is the requester's alone.
        BUNDLE = "bundle", "Printouts of a problem's papers"

    class State(models.TextChoices):
        QUEUED = "queued", "Waiting for the worker"
        RUNNING = "running", "Running"
        DONE = "done", "Ready"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=20, choices=Kind.choices)
    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="jobs")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    # What went wrong, as a sentence for the person who asked.
    error = models.TextField(blank=True)
    # The finished file, relative to settings.JOBS_DIR.
    result_path = models.CharField(max_length=300, blank=True)
    # Whether the file names the AI systems (a results export made while the contest was
    # final): its download then obeys the identities rule as it stands at download time.
    names_identities = models.BooleanField(default=False)
    # The task worker running it: a running job whose worker has stopped beating was
    # interrupted (see WorkerHeartbeat).
    worker_id = models.CharField(max_length=64, blank=True)
    # What a bundle prints: the problem, and whether each paper gets its marking page.
    problem = models.ForeignKey(
        "rubrics.Problem", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    with_criteria = models.BooleanField(default=False)
    # The job this one retries, if any.
    retry_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(done__lte=F("total")), name="job_done_le_total"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} of {self.contest} ({self.state})"


class WorkerHeartbeat(models.Model):
    """The task worker's sign of life, written every few seconds by a thread of
    `manage.py jobs_worker`: /healthz and the job pages read it to tell a job that waits for a
    worker, or was cut off by a worker's death, from one that is merely slow."""

    worker_id = models.CharField(max_length=64, unique=True)
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField()
    # Set by a worker that stopped cleanly (a restart under make serve, a deploy): /healthz then
    # says it stopped rather than that no worker was ever seen; the row goes a day later.
    stopped_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"worker {self.worker_id} seen {self.seen_at:%Y-%m-%d %H:%M:%S}"


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
        return f"page {self.position} of {_paper_in(self, self.problem_id)}"
