"""The jury evaluations' download (`grading.results.jury_evaluations`): the results page's
readers', the chair and the organizer, as the results exports are; the systems named as those
name them (`access.may_export_identities`). The CSV and the zip answer at once; the XLSX takes
tens of seconds at a real contest's size and is made as a job (`export_jobs.jury_evaluations_build`,
started from the results page)."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse

from grading.results import jury_evaluation_files as files
from grading.results.jury_evaluations import jury_evaluations
from grading.rules import access
from grading.web.lookups import contest_for_chair


@login_required
def jury_evaluations_export_view(request, contest: str, fmt: str):
    contest_obj = contest_for_chair(request, contest, organizer_too=True)
    if fmt == "xlsx":
        raise Http404(
            "The jury evaluations' XLSX is made in the background: start it from the results "
            "page, then download it from its job's page."
        )
    if fmt not in files.FORMATS:
        raise Http404("The jury evaluations are exported as CSV, XLSX or a zip.")
    data = jury_evaluations(
        contest_obj, identities=access.may_export_identities(request.user, contest_obj)
    )
    response = HttpResponse(
        files.jury_evaluations_export(data, fmt=fmt), content_type=files.FORMATS[fmt]
    )
    name = files.file_name(contest_obj, fmt=fmt)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
