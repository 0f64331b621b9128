"""The task worker: django-tasks-db's `db_worker`, beating a heart that /healthz and the job
pages read (`grading.models.WorkerHeartbeat`), and pruning finished jobs' files about once a
day (`jobs.jobs_prune`), so that a running site needs no cron for them."""

import os
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django_tasks_db.management.commands import db_worker

from grading.services import jobs

PRUNE_EVERY_SECONDS = 24 * 3600


class Heart:
    """Beats every `jobs.HEARTBEAT_SECONDS` on a thread of its own (with its own database
    connection), so that a job rendering for minutes still shows a live worker. The same thread
    prunes finished jobs' files at its first beat (a few seconds after start) and then once a
    day: it is the worker's only clock, and removing a few folders takes far less than the six
    beats a worker may miss before it is taken for dead."""

    def __init__(self, worker_id: str):
        self.worker_id = worker_id
        self.started_at = timezone.now()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="heartbeat", daemon=True)
        self.prune_due = 0.0  # the time.monotonic() of the next prune: at once

    def start(self) -> None:
        # The first beat before any job is taken, so a job's worker is never unknown.
        jobs.heartbeat_beat(worker_id=self.worker_id, started_at=self.started_at)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopped.wait(jobs.HEARTBEAT_SECONDS):
            try:
                self.tick(time.monotonic())
            finally:
                connection.close()

    def tick(self, now: float) -> None:
        """One beat, and the prune when it is due (`now` is `time.monotonic()`)."""
        try:
            jobs.heartbeat_beat(worker_id=self.worker_id, started_at=self.started_at)
        except Exception:  # a locked or lost database: beat again next time
            db_worker.logger.exception("The worker's heartbeat could not be written")
        if now >= self.prune_due:
            # Due again in a day whatever happens: a prune that fails is not tried at every
            # beat, and its error is in the log.
            self.prune_due = now + PRUNE_EVERY_SECONDS
            self.prune()

    def prune(self) -> None:
        try:
            stats = jobs.jobs_prune(older_than=timedelta(days=settings.JOBS_KEEP_DAYS))
        except Exception:  # a folder it may not remove, a lost database: again tomorrow
            db_worker.logger.exception("Finished jobs' files could not be pruned")
            return
        if stats.jobs or stats.orphans:
            db_worker.logger.info(
                "Deleted the files of %s finished jobs and %s folders of deleted jobs (%.1f MB)",
                stats.jobs,
                stats.orphans,
                stats.bytes / 1_000_000,
            )

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
        "queue them, writes a heartbeat every few seconds that /healthz checks, and once a day "
        "deletes the files of jobs finished JOBS_KEEP_DAYS ago (as prune_jobs does). "
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
