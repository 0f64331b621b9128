"""Downloads of the anonymized printouts: one paper, a problem's bundle, a zip of single papers.

Organizers and the chair get every paper the jury grades; a juror gets only the papers assigned
to them, and the same 404 for a paper outside their assignment as for one that does not exist.
File names and URLs carry the contest slug, problem number and label only. A bundle of more
than PRINT_BUNDLE_IN_REQUEST papers not yet rendered is made by a background job (at ~1.5 s a
paper, a juror's 60 would near the server's timeout)."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect

from grading.jobs import running as jobs
from grading.models import Job
from grading.printing import pdf
from grading.printing import selectors as pdf_selectors
from grading.rules import access
from grading.web.lookups import problem_for_reader


def _juror_scope(user):
    """None for readers of every paper, else the juror whose assignments limit what they see."""
    return None if access.reads_every_paper(user) else user


def _with_criteria(request) -> bool:
    return request.GET.get("criteria") == "1"


def _download(data: bytes, *, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    # A printout is the juror's: no shared cache may keep it.
    response["Cache-Control"] = "private, max-age=0"
    return response


def _printable(request, contest: str, problem: int, labels=None):
    problem_obj = problem_for_reader(request, contest, problem)
    data = pdf_selectors.problem_print(
        problem=problem_obj, juror=_juror_scope(request.user), labels=labels
    )
    if not data.papers:
        raise Http404("No paper to print here.")
    return data


@login_required
def paper_pdf(request, contest: str, problem: int, label: str):
    data = _printable(request, contest, problem, labels=[label])
    (paper,) = data.papers
    with_criteria = _with_criteria(request)
    html = pdf.paper_html(
        problem=data.problem, paper=paper, criteria=data.criteria if with_criteria else None
    )
    return _download(
        pdf.cached_pdf(html),
        filename=pdf.paper_filename(data.problem, paper.label, marking=with_criteria),
        content_type="application/pdf",
    )


@login_required
def problem_pdf_bundle(request, contest: str, problem: int):
    """The bundle, rendered here when small or already in the cache; otherwise made by a
    background job (the same reader's same bundle is one job), whose page this redirects to:
    it follows the job and offers the file, to this reader alone."""
    data = _printable(request, contest, problem)
    with_criteria = _with_criteria(request)
    htmls = [html for _, html in pdf.problem_htmls(data, with_criteria=with_criteria)]
    title = pdf.bundle_title(data.problem, count=len(htmls))
    cached = pdf.cache_path(pdf.bundle_key(htmls, title=title)).exists()
    if len(htmls) > settings.PRINT_BUNDLE_IN_REQUEST and not cached:
        job = jobs.job_start(
            kind=Job.Kind.BUNDLE,
            contest=data.problem.contest,
            user=request.user,
            problem=data.problem,
            with_criteria=with_criteria,
        )
        return redirect("job", contest=data.problem.contest.slug, pk=job.pk)
    body = pdf.cached_bundle(htmls, title=title)
    mine = _juror_scope(request.user) is not None
    return _download(
        body,
        filename=pdf.bundle_filename(data.problem, mine=mine, marking=with_criteria),
        content_type="application/pdf",
    )


@login_required
def problem_pdf_zip(request, contest: str, problem: int):
    data = _printable(request, contest, problem)
    marking = _with_criteria(request)
    files = [
        (pdf.paper_filename(data.problem, label, marking=marking), pdf.cached_pdf(html))
        for label, html in pdf.problem_htmls(data, with_criteria=marking)
    ]
    mine = _juror_scope(request.user) is not None
    return _download(
        pdf.zip_bytes(files),
        filename=pdf.bundle_filename(data.problem, mine=mine, extension="zip", marking=marking),
        content_type="application/zip",
    )
