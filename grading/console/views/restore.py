"""Restoring a contest from a backup in the browser: upload the file export_contest wrote →
its check, the restore's dry run, by a background job (what would be created, or every problem
as the command words it) → confirm, the restore by a second job (one transaction), or cancel.
Each request answers at once: the page follows the job by itself (htmx, every two seconds) and
shows its progress, then the preview, the refusal's sentences, or, once restored, the contest's
page with what was restored. The jobs read the file as the command does
(`grading.backup.restore_job`), so both doors accept, refuse and word everything alike.

The upload is at most BACKUP_MAX_MB, refused by its Content-Length before it is read; Django
keeps one larger than FILE_UPLOAD_MAX_MEMORY_SIZE in a temporary file, which is moved into the
job's private folder, so that a backup is never in memory whole. A confirmation names its
preview job, so a preview left open in another tab restores what it showed, never a later
upload."""

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from grading.backup import restore_job as restores
from grading.console import imports as staging
from grading.console.views.guards import organizer_required
from grading.jobs import running as jobs
from grading.jobs.worker_liveness import alive_worker_ids
from grading.models import Job
from grading.web.errors import on_refusal

# A multipart body holds the file and, around it, the CSRF token and the part headers.
_MULTIPART_OVERHEAD = 64 * 1024


def max_upload_bytes() -> int:
    return settings.BACKUP_MAX_MB * 1024 * 1024


def _bound() -> str:
    return f"{settings.BACKUP_MAX_MB:,} MB (BACKUP_MAX_MB)"


def _job_context(job: Job | None) -> dict:
    """The followed job: its status, then the preview it made or every sentence of its
    refusal."""
    if job is None:
        return {}
    status = jobs.job_status(job, alive=alive_worker_ids())
    return {
        "status": status,
        "preview": restores.preview_read(job) if job.kind == Job.Kind.RESTORE_PREVIEW else None,
        "refusal": restores.refusal_read(job) if status.state == Job.State.FAILED else [],
        "confirmed": job.kind == Job.Kind.RESTORE_PREVIEW
        and Job.objects.filter(kind=Job.Kind.RESTORE, params__preview=job.pk).exists(),
    }


def _page(request, *, errors=(), job=None, status=200):
    return render(
        request,
        "console/restore.html",
        {"errors": list(errors), "max_upload": _bound(), **_job_context(job)},
        status=status,
    )


def _refused(request, sentences, status, **kwargs):
    """A refused restore: the restore page with the sentences, at the refusal's status."""
    return _page(request, errors=sentences, status=status)


def _followed(pk) -> Job:
    job = restores.restore_job(pk) if str(pk).isdigit() else None
    if job is None:
        raise Http404("No such restore.")
    return job


def _following(job: Job):
    return redirect(f"{reverse('console:restore')}?job={job.pk}#restore-job")


# CSRF is checked inside, once the body's size is known: the middleware would read the whole
# body for the token first, however large, before any refusal.
@csrf_exempt
@organizer_required
@on_refusal(page=_refused)
def restore(request):
    """GET: the upload, and the job named by `?job=` (its progress, then its preview or its
    refusal). POST: the upload, checked by a job the page then follows."""
    if request.method != "POST":
        pk = request.GET.get("job")
        return _page(request, job=_followed(pk) if pk else None)
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = -1
    if length < 0 or length > max_upload_bytes() + _MULTIPART_OVERHEAD:
        shown = "of unknown size" if length < 0 else f"{length // 1024:,} KB"
        return _page(
            request,
            errors=[f"The upload is {shown}; a backup file is at most {_bound()}."],
            status=413,
        )
    return _upload(request)


@csrf_protect
def _upload(request):
    upload = request.FILES.get("file")
    if upload is None:
        return _page(request, errors=["Choose the backup file (.zip)."], status=422)
    if upload.size > max_upload_bytes():
        return _page(
            request,
            errors=[
                f"“{upload.name}” is {upload.size // 1024:,} KB; a backup file is at most "
                f"{_bound()}."
            ],
            status=413,
        )
    # Under its own name: the restore's sentences name it as the person knows it.
    job = restores.restore_preview_start(
        upload=upload, name=staging.safe_name(upload.name), user=request.user
    )
    return _following(job)


@organizer_required
@require_GET
def restore_job(request, pk: int):
    """The followed job's section, which the page swaps in every two seconds while it runs.
    Once restored, the contest's page is loaded (htmx's `HX-Redirect`) with what was restored
    as its message, as after a restore in the request."""
    job = _followed(pk)
    context = _job_context(job)
    state = context["status"].state
    if (
        job.kind == Job.Kind.RESTORE
        and state == Job.State.DONE
        and request.headers.get("HX-Request")
    ):
        messages.success(request, context["status"].sentence)
        response = HttpResponse(status=204)
        response["HX-Redirect"] = reverse("console:contest", args=[job.contest.slug])
    else:
        response = render(request, "console/_restore_job.html", context)
    response["Cache-Control"] = "no-store"
    return response


@organizer_required
@require_POST
@on_refusal(page=_refused)
def restore_confirm(request):
    """Restore what the preview job named by `job` checked (or cancel it), by a job the page
    then follows."""
    pk = request.POST.get("job", "")
    preview = restores.restore_job(pk) if pk.isdigit() else None
    if preview is None or preview.kind != Job.Kind.RESTORE_PREVIEW:
        messages.error(request, restores.NOT_CURRENT)
        return redirect("console:restore")
    if "cancel" in request.POST:
        restores.restore_cancel(preview=preview)
        messages.info(request, "Cancelled; nothing was restored.")
        return redirect("console:restore")
    return _following(restores.restore_start(preview=preview, user=request.user))


@organizer_required
@require_POST
@on_refusal(page=_refused)
def restore_retry(request, pk: int):
    """A failed or interrupted check or restore, started again on the same file."""
    job = _followed(pk)
    return _following(jobs.job_retry(job=job, user=request.user))
