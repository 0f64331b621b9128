"""The task worker: django-tasks-db's `db_worker`, beating a heart that /healthz and the job
pages read (`grading.models.WorkerHeartbeat`)."""

import os
import threading

from django.db import connection
from django.utils import timezone
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django_tasks_db.management.commands import db_worker

from grading.services import jobs


class Heart:
    """Beats every `jobs.HEARTBEAT_SECONDS` on a thread of its own (with its own database
    connection), so that a job rendering for minutes still shows a live worker."""

    def __init__(self, worker_id: str):
        self.worker_id = worker_id
        self.started_at = timezone.now()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="heartbeat", daemon=True)

    def start(self) -> None:
        # The first beat before any job is taken, so a job's worker is never unknown.
        jobs.heartbeat_beat(worker_id=self.worker_id, started_at=self.started_at)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopped.wait(jobs.HEARTBEAT_SECONDS):
            try:
                jobs.heartbeat_beat(worker_id=self.worker_id, started_at=self.started_at)
            except Exception:  # a locked or lost database: beat again next time
                db_worker.logger.exception("The worker's heartbeat could not be written")
            finally:
                connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=jobs.HEARTBEAT_SECONDS + 1)
        try:
            jobs.heartbeat_stop(worker_id=self.worker_id)
        except Exception:  # the database went away: the heartbeat simply ages out
            db_worker.logger.exception("The worker's heartbeat could not be removed")


class Command(db_worker.Command):
    help = (
        "Run the task worker: it runs background jobs (the whole contest's printouts) as pages "
        "queue them, and writes a heartbeat every few seconds that /healthz checks. "
        "make run and make serve start it; --batch runs what is queued and exits."
    )

    def handle(self, *args, **options):
        # Under the autoreloader the parent process only restarts the child: the child beats.
        reloading_parent = options["reload"] and os.environ.get(DJANGO_AUTORELOAD_ENV) != "true"
        if reloading_parent and not options["batch"]:
            return super().handle(*args, **options)
        heart = Heart(options["worker_id"])
        heart.start()
        try:
            return super().handle(*args, **options)
        finally:
            heart.stop()
