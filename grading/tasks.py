"""Tasks for the task worker (`django.tasks` on the database backend; `manage.py jobs_worker`).

One task runs every kind of `Job`: the row says what to do, `grading.services.jobs` does it, so
the pages, the worker and the tests share one path."""

from django.tasks import task

from grading.services import jobs


@task(takes_context=True)
def run_job(context, job_id: int) -> str:
    """Run the job `job_id` and return its final state."""
    worker_ids = context.task_result.worker_ids
    return jobs.job_run(job_id=job_id, worker_id=worker_ids[-1] if worker_ids else "")
