"""Background jobs as the pages show them, and the task worker's heartbeat."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from rubrics.models import Contest


class Job(models.Model):
    """Work a person starts from a page and waits on (the whole contest's printouts, later
    imports and exports), run by the task worker (`django.tasks` with the database backend).
    Written only by `grading.jobs.running`. The result is a file under `settings.JOBS_DIR`,
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
        # The assignment under constraints, solved for every problem (its file: the plan the
        # preview shows and the confirmation saves).
        ASSIGNMENT = "assignment", "Assignment preview"
        # The confirmation of an assignment (a preview's plan, or the counts alone), saved by
        # the service that checks it again (its file: the sentence of what was saved).
        ASSIGNMENT_CONFIRM = "assignment_confirm", "Assignment confirmation"
        # The jury's evaluations, one row a mark (CSV, XLSX and the zip of both with their
        # README): at the real size the XLSX takes longer than a request should.
        JURY_EVALUATIONS = "jury_evaluations", "Jury evaluations export"
        # A backup checked by the restore's dry run (its file: what the restore would create),
        # then restored (its file: the sentence of what was restored). Neither has a contest
        # while it runs: the contest is what it restores (a restore done is then the contest's).
        RESTORE_PREVIEW = "restore_preview", "Restore preview"
        RESTORE = "restore", "Restore of a contest from a backup"

    class State(models.TextChoices):
        QUEUED = "queued", "Waiting for the worker"
        RUNNING = "running", "Running"
        DONE = "done", "Ready"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=20, choices=Kind.choices)
    # None only for a restore not done (`Kind.RESTORE_PREVIEW`, `Kind.RESTORE`).
    contest = models.ForeignKey(
        Contest, on_delete=models.CASCADE, null=True, blank=True, related_name="jobs"
    )
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
    # What the work was asked with, when a problem and a flag do not say it (an assignment's
    # jurors per paper by problem).
    params = models.JSONField(default=dict, blank=True)
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
        if self.contest is None:
            return f"{self.get_kind_display()} ({self.state})"
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
