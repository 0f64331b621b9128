"""/healthz for a monitor or a load balancer: 200 when the database answers and a task worker
beat within `worker_liveness.WORKER_GONE_AFTER`, else 503; a short JSON either way, no log-in. A worker
that stopped cleanly reads "stopped N s ago" (under make serve it is being started again), one
that died "last seen N s ago".

The worker is judged by its heartbeat (a thread of `manage.py jobs_worker` writes one every
few seconds) rather than by a probe task it must run: with one worker, a probe would wait
behind a long printout job and report a healthy worker as dead."""

from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from grading.jobs import worker_liveness


@never_cache
@require_GET
def healthz(request):
    checks = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any failure to reach the database is the answer itself
        checks["database"] = f"unreachable ({type(error).__name__})"
        checks["worker"] = "unknown (the database is unreachable)"
    else:
        checks["database"] = "ok"
        checks["worker"] = worker_liveness.worker_health()
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "failing", **checks}, status=200 if healthy else 503
    )
