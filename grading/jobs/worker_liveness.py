"""Whether the task worker is alive: it beats every HEARTBEAT_SECONDS (`manage.py jobs_worker`'s
heartbeat thread), says when it stops, and the job pages and /healthz read the beats."""

from datetime import timedelta

from django.utils import timezone

from grading.models import WorkerHeartbeat

# One not seen for WORKER_GONE_AFTER is taken for dead (six missed beats: a busy database or a
# long pause of the process is not death).
HEARTBEAT_SECONDS = 5
WORKER_GONE_AFTER = timedelta(seconds=30)


def heartbeat_beat(*, worker_id: str, started_at) -> None:
    """Record that `worker_id` is alive now (called by the worker's heartbeat thread)."""
    now = timezone.now()
    WorkerHeartbeat.objects.update_or_create(
        worker_id=worker_id,
        defaults={"seen_at": now, "stopped_at": None},
        create_defaults={
            "seen_at": now,
            "started_at": started_at,
        },
    )
    # Workers that stopped long ago leave rows behind; a day is plenty to read them in the admin.
    WorkerHeartbeat.objects.filter(seen_at__lt=now - timedelta(days=1)).delete()


def heartbeat_stop(*, worker_id: str) -> None:
    """A worker shutting down cleanly says so, so that health checks fail at once and its
    running job reads as interrupted."""
    WorkerHeartbeat.objects.filter(worker_id=worker_id).update(stopped_at=timezone.now())


def alive_worker_ids(now=None) -> set[str]:
    now = now or timezone.now()
    return set(
        WorkerHeartbeat.objects.filter(
            seen_at__gte=now - WORKER_GONE_AFTER, stopped_at__isnull=True
        ).values_list("worker_id", flat=True)
    )


def worker_health(now=None) -> str:
    """ "ok" while a worker beats, else a sentence on the last one seen (/healthz). A running
    worker is preferred to a newer one that stopped: two may overlap during a restart."""
    now = now or timezone.now()
    beats = WorkerHeartbeat.objects.order_by("-seen_at")
    beat = beats.filter(stopped_at__isnull=True).first() or beats.first()
    if beat is None:
        return "never seen: start manage.py jobs_worker"
    if beat.stopped_at is not None:
        return f"stopped {(now - beat.stopped_at).total_seconds():.0f} s ago"
    age = (now - beat.seen_at).total_seconds()
    return "ok" if age <= WORKER_GONE_AFTER.total_seconds() else f"last seen {age:.0f} s ago"
