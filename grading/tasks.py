"""Where earlier releases defined the task worker's one task. Tasks they queued name it
`grading.tasks.run_job`; the worker finds it here, so that an upgrade loses no queued job.
New tasks are queued under `grading.jobs.running.run_job`."""

from grading.jobs.running import run_job  # noqa: F401 - named by queued rows of earlier releases
