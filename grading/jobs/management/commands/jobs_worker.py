"""The task worker: django-tasks-db's `db_worker`, writing a heartbeat that /healthz and the job
pages read (`grading.models.WorkerHeartbeat`), and pruning finished jobs' files about once a
day (`jobs.jobs_prune`), so that a running site needs no cron for them.

Two changes to db_worker's own loop (`Worker`): a stop signal stops the worker at once with its
render processes (db_worker would first finish the job it is running, a whole contest's
printouts, while the supervisor waits), and a database locked for longer than its busy timeout
(SQLite under a long write) is waited out rather than ending the worker."""

import os
import signal
import sys
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.core.management.base import CommandError
from django.db import connection
from django.db.utils import OperationalError
from django.utils import timezone
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands import db_worker
from django_tasks_db.utils import is_locked_database_exception

from grading.jobs import processes, worker_liveness
from grading.jobs import running as jobs

# How long the worker waits on a locked database before it tries again: doubling up to a minute.
LOCKED_FIRST_WAIT = 1.0
LOCKED_LONGEST_WAIT = 60.0

PRUNE_EVERY_SECONDS = 24 * 3600


class HeartbeatThread:
    """Beats every `worker_liveness.HEARTBEAT_SECONDS` on a thread of its own (with its own database
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
        # The first beat before any job is taken, so a job's worker is never unknown; a locked
        # database delays it (and the first job) rather than ending the worker.
        wait_while_locked(
            lambda: worker_liveness.heartbeat_beat(
                worker_id=self.worker_id, started_at=self.started_at
            ),
            doing="write the worker's first heartbeat",
        )
        self.thread.start()

    def _run(self) -> None:
        while not self.stopped.wait(worker_liveness.HEARTBEAT_SECONDS):
            try:
                self.tick(time.monotonic())
            finally:
                connection.close()

    def tick(self, now: float) -> None:
        """One beat, and the prune when it is due (`now` is `time.monotonic()`)."""
        try:
            worker_liveness.heartbeat_beat(worker_id=self.worker_id, started_at=self.started_at)
        except OperationalError as error:
            if not is_locked_database_exception(error):
                raise
            # Beat again next time: six beats may be missed before the worker is taken for dead.
            db_worker.logger.warning("The database is locked: the heartbeat is written later")
        except Exception:  # a lost database: beat again next time
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
        self.thread.join(timeout=worker_liveness.HEARTBEAT_SECONDS + 1)
        try:
            worker_liveness.heartbeat_stop(worker_id=self.worker_id)
        except Exception:  # the database went away: the heartbeat simply ages out
            db_worker.logger.exception("The worker's heartbeat could not be marked stopped")


def wait_while_locked(action, *, doing: str, running=lambda: True):
    """Run `action` until it gets past a locked database, waiting LOCKED_FIRST_WAIT seconds,
    doubling to LOCKED_LONGEST_WAIT, between tries (while `running()`); other errors rise."""
    wait = LOCKED_FIRST_WAIT
    while True:
        began = time.monotonic()
        try:
            return action()
        except OperationalError as error:
            if not is_locked_database_exception(error) or not running():
                raise
        if time.monotonic() - began > LOCKED_LONGEST_WAIT:
            wait = LOCKED_FIRST_WAIT  # a new spell of locks, long after the last one
        connection.close()
        db_worker.logger.warning(
            "The database is locked: the worker tries to %s again in %.0f s", doing, wait
        )
        time.sleep(wait)
        wait = min(2 * wait, LOCKED_LONGEST_WAIT)


class Worker(db_worker.Worker):
    def shutdown(self, signum, frame) -> None:
        """Stop now, render processes first. The job being run is left as it is: it reads as
        interrupted once the heartbeat is gone, and its retry takes what was rendered from the
        cache."""
        db_worker.logger.warning(
            "Received %s: stopping the worker and its render processes", signal.strsignal(signum)
        )
        self.running = False
        self.reset_signals()
        processes.terminate_children()
        # Raised wherever the main thread is: out of a sleep or a claim, or into run_task, which
        # records the task as failed and returns to a loop that is no longer running.
        sys.exit(0)

    def run(self) -> None:
        # db_worker waits out a database locked while it claims a task, but not one locked as
        # its claiming transaction begins (SQLite's BEGIN EXCLUSIVE), nor while it records a
        # task's outcome: those end its loop, and are retried here.
        def once():
            super(Worker, self).run()
            self.startup_delay = False

        wait_while_locked(once, doing="take the next job", running=lambda: self.running)


class Command(db_worker.Command):
    help = (
        "Run the task worker: it runs background jobs (the whole contest's printouts) as pages "
        "queue them, writes a heartbeat every few seconds that /healthz checks, and once a day "
        "deletes the files of jobs finished JOBS_KEEP_DAYS ago (as prune_jobs does). "
        "make run and make serve start it; --batch runs what is queued and exits."
    )

    def handle(self, *args, **options):
        # db_worker's own handle, with this module's Worker and its heartbeat thread beside it.
        self.configure_logging(options["verbosity"])
        if options["exclude_queues"] and "*" not in options["queue_name"].split(","):
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        worker = Worker(
            queue_names=options["queue_name"].split(","),
            interval=options["interval"],
            batch=options["batch"],
            backend_name=options["backend_name"],
            startup_delay=options["startup_delay"],
            max_tasks=options["max_tasks"],
            worker_id=options["worker_id"],
            excluded_queue_names=[q for q in options["exclude_queues"].split(",") if q],
        )
        if options["reload"] and not options["batch"]:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) != "true":
                # The autoreloader's parent only restarts the child: the child beats.
                return run_with_reloader(worker.run)
            worker.configure_signals()
            return self._beating(worker, lambda: run_with_reloader(worker.run))
        worker.configure_signals()
        return self._beating(worker, worker.run)

    def _beating(self, worker: Worker, run) -> None:
        heartbeat = HeartbeatThread(worker.worker_id)
        heartbeat.start()
        try:
            run()
        finally:
            heartbeat.stop()
