"""The console's doors to scanned human papers: printing the answer-sheet covers for a list of
contestant codes, and importing the scanned PDFs (upload → preview → confirm or cancel), through
the same services as `print_covers` and `import_scans`. The console is the organizer's, so the
preview names contestants by their codes; jurors never see them."""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST

from grading.console import imports as service
from grading.console.views.guards import contest_for_organizer, organizer_required
from grading.console.views.imports import (
    _MULTIPART_OVERHEAD,
    _content_length,
    _mb,
    staged_to_confirm,
)
from grading.printing.covers import covers_pdf
from grading.web.errors import on_refusal, upload_refusal

SESSION_KEY = "console-scans-import"
HELP = (
    "Scanned PDFs, as many as the batch holds, or one zip of them, each named by a contestant's "
    "code or a neutral scan number (scan-001.pdf), never by a name. Pages are sorted by the answer-sheet covers on top of "
    "each answer; for scans without covers, add a page map (a CSV of file, problem, "
    "first_page, last_page, and optionally language, the contestant's answer language). A "
    "contestant imported before keeps their paper."
)


def _page(request, contest, *, errors=(), preview=None, staged=None, status=200):
    return render(
        request,
        "console/scans_import.html",
        {
            "contest": contest,
            "help": HELP,
            "errors": list(errors),
            "preview": preview,
            "staged": staged,
            "max_upload": _mb(settings.SCAN_UPLOAD_MAX_BYTES),
            "max_files": settings.DATA_UPLOAD_MAX_NUMBER_FILES,
            "confirm_url": reverse("console:import_scans_confirm", args=[contest.slug]),
        },
        status=status,
    )


def _refused(request, sentences, status, contest):
    """A refused upload or import: the import page with the sentences, at the refusal's
    status."""
    return _page(request, contest_for_organizer(contest), errors=sentences, status=status)


def _staged(request) -> service.Staged | None:
    return service.Staged.from_session(request.session.get(SESSION_KEY))


def _drop(request) -> None:
    service.discard(_staged(request))
    request.session.pop(SESSION_KEY, None)


# CSRF is checked inside, once the body's size is known (as on the other import pages).
@csrf_exempt
@organizer_required
@on_refusal(page=_refused)
def import_scans(request, contest: str):
    """GET the form; POST the scanned PDFs (and a page map) and get the preview."""
    contest_obj = contest_for_organizer(contest)
    if request.method != "POST":
        return _page(request, contest_obj)
    length = _content_length(request)
    bound = settings.SCAN_UPLOAD_MAX_BYTES
    if length is None or length > bound + _MULTIPART_OVERHEAD:
        shown = "of unknown size" if length is None else f"{length / (1024 * 1024):,.1f} MB"
        return _page(
            request,
            contest_obj,
            errors=[
                f"The upload is {shown}; the scans uploaded at once come to at most "
                f"{_mb(bound)} (SCAN_UPLOAD_MAX_BYTES). Upload the files in a few parts."
            ],
            status=413,
        )
    # A batch of scans runs to gigabytes: every file goes to a temporary file as it arrives,
    # whatever its size, never to memory (set before the body is read, as Django requires).
    request.upload_handlers = [TemporaryFileUploadHandler(request)]
    refused = upload_refusal(request)
    if refused is not None:
        sentence, status = refused
        return _page(request, contest_obj, errors=[sentence], status=status)
    return _upload(request, contest_obj)


@csrf_protect
def _upload(request, contest):
    _drop(request)  # an earlier preview not confirmed
    pdfs = request.FILES.getlist("files")
    page_map = request.FILES.get("page_map")
    if not pdfs:
        return _page(request, contest, errors=["Choose one or more scanned PDF files."], status=422)
    uploads = [service.Upload(name=upload.name, chunks=upload.chunks()) for upload in pdfs]
    if page_map is not None:
        uploads.append(service.Upload(name=page_map.name, chunks=page_map.chunks()))
    staged = service.stage(kind=service.SCANS, contest=contest, uploads=uploads)
    staged.page_map = page_map is not None
    try:
        preview = service.preview(staged, contest, user=request.user)
    except ValidationError:
        service.discard(staged)  # nothing waits for a refused preview; the refusal rises
        raise
    request.session[SESSION_KEY] = staged.to_session()
    return _page(request, contest, preview=preview, staged=staged)


@organizer_required
@require_POST
@on_refusal(page=_refused)
def import_scans_confirm(request, contest: str):
    """Import what the preview showed (or cancel it): the task worker imports it, in one
    transaction, and the confirmation leads to the job's page, which follows its progress. The posted
    token must be the session's, so that a preview left open in another tab cannot confirm a
    later upload."""
    contest_obj = contest_for_organizer(contest)
    staged = staged_to_confirm(request, SESSION_KEY, contest_obj, kind=service.SCANS)
    if staged is None:
        messages.error(request, "This preview is no longer current; upload the scans again.")
        return redirect("console:import_scans", contest=contest_obj.slug)
    if "cancel" in request.POST:
        service.discard(staged)
        messages.info(request, "Cancelled; nothing was imported.")
        return redirect("console:import_scans", contest=contest_obj.slug)
    try:
        result = service.confirm(staged, contest_obj, user=request.user)
    except ValidationError:
        service.discard(staged)  # a refused import keeps nothing; the refusal rises
        raise
    messages.success(request, "The import has started; this page follows it to the end.")
    return redirect("job", contest=contest_obj.slug, pk=result.pk)


class CoversForm(forms.Form):
    codes = forms.CharField(
        label="Contestant codes, one a line",
        widget=forms.Textarea(attrs={"rows": 10, "cols": 30, "spellcheck": "false"}),
        help_text="Codes only, never names: each code gets one cover per problem.",
    )

    def clean_codes(self) -> list[str]:
        return [line.strip() for line in self.cleaned_data["codes"].splitlines() if line.strip()]


def _covers_page(request, contest_obj, form, *, errors=(), status=200):
    return render(
        request,
        "console/scans_covers.html",
        {"contest": contest_obj, "form": form, "errors": list(errors)},
        status=status,
    )


def _covers_refused(request, sentences, status, contest):
    """Covers refused (a contest without problems): the form again, as posted, with the
    sentences instead of a download."""
    form = CoversForm(request.POST)
    return _covers_page(
        request, contest_for_organizer(contest), form, errors=sentences, status=status
    )


@organizer_required
@on_refusal(page=_covers_refused)
def print_covers(request, contest: str):
    """GET the form; POST codes and download every contestant's covers as one PDF."""
    contest_obj = contest_for_organizer(contest)
    form = CoversForm(request.POST or None)
    if request.method != "POST":
        return _covers_page(request, contest_obj, form)
    if not form.is_valid():
        return _covers_page(request, contest_obj, form, status=422)
    data = covers_pdf(contest=contest_obj, codes=form.cleaned_data["codes"])
    response = HttpResponse(data, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{contest_obj.slug}-covers.pdf"'
    response["Cache-Control"] = "private, no-store"  # it lists the codes
    return response
