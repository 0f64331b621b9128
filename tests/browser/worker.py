"""The task worker's part in a browser test: a queued job run in the test's process."""

from django.utils import timezone

from grading.jobs import running as jobs
from grading.jobs import worker_liveness
from grading.models import Job


def run_as_the_worker(job: Job) -> None:
    """What the task worker does, beating as it does: a page polling meanwhile would otherwise
    read the job as interrupted (no live worker) and stop following it."""
    worker_liveness.heartbeat_beat(worker_id="test", started_at=timezone.now())
    jobs.job_run(job_id=job.pk, worker_id="test")
