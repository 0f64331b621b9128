"""Background jobs' pages: a contest's jobs (start the whole contest's printouts, its results
exports or, for the organizer, its backup; imports start from their own pages), one job's
progress (refreshed by htmx every two seconds while it runs), retry, and the download of its
file through an access check (never a public media URL).

The organizer and the chair see a contest's jobs; a reader's bundle too large for a request
(`grading/printing/views.py`) is followed and downloaded by that reader alone. Anyone else gets the
404 of a page that does not exist."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from grading.jobs import downloads, worker_liveness
from grading.jobs import running as jobs
from grading.models import Job
from grading.rules import access
from grading.rules.refusals import NotAllowed
from grading.web.errors import on_refusal
from rubrics.models import Contest


def _contest_for_jobs(request, contest: str) -> Contest:
    if not access.may_run_jobs(request.user):
        raise Http404("No such page.")
    return get_object_or_404(Contest, slug=contest)


def _job(request, contest: str, pk: int) -> Job:
    # A reader's own bundle is theirs to follow whoever they are; every other job is the
    # organizer's and the chair's. Anyone else, and a job that is not there, get the same 404.
    contest_obj = get_object_or_404(Contest, slug=contest)
    try:
        return jobs.job_for_reader(user=request.user, contest=contest_obj, pk=pk)
    except NotAllowed:
        raise Http404("No such job.") from None


@login_required
def jobs_page(request, contest: str):
    contest_obj = _contest_for_jobs(request, contest)
    statuses = jobs.contest_jobs(contest_obj)
    return render(
        request,
        "grading/jobs.html",
        {
            "contest": contest_obj,
            "statuses": statuses,
            "may_back_up": access.may_run_contest(request.user),
            "downloadable": {
                status.job.pk
                for status in statuses
                if downloads.may_download(request.user, status.job)
            },
        },
    )


@login_required
@require_POST
def job_start_view(request, contest: str):
    """Start the job of the posted `kind` (the printouts when none is posted). Its one refusal,
    not allowed, is the site's 403 page with the sentence (`grading.web.errors`)."""
    contest_obj = _contest_for_jobs(request, contest)
    kind = request.POST.get("kind") or Job.Kind.PRINTOUTS
    if kind not in jobs.STARTED_FROM_PAGE:
        return HttpResponseBadRequest("There is no such job to start.")
    job = jobs.job_start(kind=kind, contest=contest_obj, user=request.user)
    return redirect("job", contest=contest_obj.slug, pk=job.pk)


def _status(job: Job) -> jobs.JobStatus:
    return jobs.job_status(job, alive=worker_liveness.alive_worker_ids())


@login_required
def job_page(request, contest: str, pk: int):
    job = _job(request, contest, pk)
    return render(
        request,
        "grading/job.html",
        {
            "contest": job.contest,
            "status": _status(job),
            "may_download": downloads.may_download(request.user, job),
        },
    )


@login_required
def job_progress(request, contest: str, pk: int):
    """The progress partial that the job page swaps in every two seconds while the job runs."""
    job = _job(request, contest, pk)
    response = render(
        request,
        "grading/_job_status.html",
        {
            "contest": job.contest,
            "status": _status(job),
            "may_download": downloads.may_download(request.user, job),
        },
    )
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
@on_refusal(redirect="job")
def job_retry_view(request, contest: str, pk: int):
    job = _job(request, contest, pk)
    retry = jobs.job_retry(job=job, user=request.user)
    messages.success(request, "The job was started again.")
    return redirect("job", contest=job.contest.slug, pk=retry.pk)


@login_required
def job_download(request, contest: str, pk: int):
    job = _job(request, contest, pk)
    if not downloads.may_download(request.user, job):
        raise PermissionDenied(downloads.download_refusal(job))
    path = jobs.job_file(job)
    if path is None:
        raise Http404("This job has no file to download.")
    response = FileResponse(path.open("rb"), as_attachment=True, filename=path.name)
    # The whole contest's papers: no shared cache may keep them.
    response["Cache-Control"] = "private, max-age=0"
    return response
