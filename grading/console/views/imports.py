"""The console's imports: one page per kind (the problem set, grading schemes, AI outputs, human
scores). Upload → preview (the importer's dry run: what would be created or changed, or every
problem as the command words it) → confirm (one transaction) or cancel. The files wait in a
private folder whose token is in the session (grading/console/imports.py); a zip of
record folders is imported by the task worker, and the confirmation leads to its job's page."""

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST

from grading.console import imports as service
from grading.console.views.guards import contest_for_organizer, organizer_required
from grading.models import Job
from grading.rules.refusals import http_status
from grading.web.errors import on_refusal

MAX_UPLOAD_BYTES = settings.IMPORT_UPLOAD_MAX_BYTES
# A multipart body holds the files and, around them, the CSRF token and the part headers.
_MULTIPART_OVERHEAD = 64 * 1024
SESSION_KEY = "console-import"

# kind: its title, its name inside a sentence (an acronym keeps its capitals), its URL name and
# what to upload
KINDS = {
    service.PROBLEMSET: {
        "title": "Problem set",
        "in_sentence": "problem set",
        "url": "console:import_problemset",
        "help": "The competition's test.csv and solution.csv, or one Linguini-style JSONL file. "
        "Problems and tasks are created or updated; tasks the files do not mention are kept.",
    },
    service.SCHEMES: {
        "title": "Grading schemes",
        "in_sentence": "grading schemes",
        "url": "console:import_schemes",
        "help": "One TOML file per problem, named p1.toml, p2.toml, … A criterion missing "
        "from its file is removed; points under marks already given cannot change.",
    },
    service.OUTPUTS: {
        "title": "AI outputs",
        "in_sentence": "AI outputs",
        "url": "console:import_outputs",
        "help": "A zip of competition record folders (each with predictions.json and "
        "metadata.json), a submission CSV (id, pred, explanation) with its system's name, or a "
        "JSONL file of raw outputs. A system imported before keeps its paper.",
    },
    service.HUMAN_SCORES: {
        "title": "Human scores",
        "in_sentence": "human scores",
        "url": "console:import_human_scores",
        "help": "A CSV of human contestants' points per problem (contestant, p1, p2, …); it "
        "replaces the contest's earlier human scores.",
    },
    service.DELEGATIONS: {
        "title": "Delegations",
        "in_sentence": "delegations",
        "url": "console:import_delegations",
        "help": "A CSV of “delegation, contestant code” rows (a header row first), one row per "
        "human contestant, with the delegation's country as an optional third column. Missing delegations are created; a contestant listed moves to the "
        "delegation the file names; the others keep theirs.",
    },
}


def _content_length(request) -> int | None:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None
    return length if length >= 0 else None


def _mb(size: int) -> str:
    return f"{size // (1024 * 1024)} MB"


def _page(request, contest, kind, *, errors=(), preview=None, status=200, staged=None):
    return render(
        request,
        "console/imports_kind.html",
        {
            "contest": contest,
            "kind": kind,
            "info": KINDS[kind],
            "confirm_url": reverse("console:import_confirm", args=[contest.slug]),
            "errors": list(errors),
            "preview": preview,
            "staged": staged,
            "max_upload": _mb(MAX_UPLOAD_BYTES),
        },
        status=status,
    )


def _uploads(request, kind) -> tuple[list[service.Upload], list[str]]:
    """The uploaded files in the order the importer takes them, and what is missing or too big."""
    files = request.FILES
    if kind == service.PROBLEMSET:
        if files.get("jsonl") and not (files.get("test") or files.get("solution")):
            chosen = [files["jsonl"]]
        elif files.get("test") and files.get("solution") and not files.get("jsonl"):
            chosen = [files["test"], files["solution"]]
        else:
            return [], ["Choose either test.csv and solution.csv, or one JSONL file."]
    elif kind == service.SCHEMES:
        chosen = files.getlist("files")
        if not any(upload.name.lower().endswith(".toml") for upload in chosen):
            return [], ["Choose one or more scheme files, p1.toml, p2.toml, …"]
    else:
        chosen = [files["file"]] if files.get("file") else []
        if not chosen:
            return [], ["Choose the file to import."]
    too_big = [
        f"“{upload.name}” is {upload.size // 1024:,} KB; an import's file is at most "
        f"{_mb(MAX_UPLOAD_BYTES)}."
        for upload in chosen
        if upload.size > MAX_UPLOAD_BYTES
    ]
    if too_big:
        return [], too_big
    return [service.Upload(name=upload.name, chunks=upload.chunks()) for upload in chosen], []


def _staged(request) -> service.Staged | None:
    return service.Staged.from_session(request.session.get(SESSION_KEY))


def _drop(request) -> None:
    service.discard(_staged(request))
    request.session.pop(SESSION_KEY, None)


def staged_to_confirm(request, session_key: str, contest, *, kind: str | None = None):
    """The upload a confirmation (or cancellation) posts about, taken out of the session; None
    when it is not the current preview: gone, another contest's or kind's, or a token from a
    preview left open in another tab, which must not confirm a later upload."""
    staged = service.Staged.from_session(request.session.get(session_key))
    if (
        staged is None
        or (kind is not None and staged.kind != kind)
        or staged.contest != contest.slug
        or request.POST.get("token") != staged.token
        or not staged.folder.is_dir()
    ):
        return None
    request.session.pop(session_key, None)
    return staged


def imports_view(kind):
    """The page of one kind: GET the form; POST an upload and get its preview."""

    def refused(request, sentences, status, contest):
        # A refused upload or preview: this kind's page with the sentences.
        return _page(request, contest_for_organizer(contest), kind, errors=sentences, status=status)

    # CSRF is checked inside, once the body's size is known: the middleware would read the whole
    # body for the token first, however large, before any refusal.
    @csrf_exempt
    @organizer_required
    @on_refusal(page=refused)
    def view(request, contest: str):
        contest_obj = contest_for_organizer(contest)
        if request.method != "POST":
            return _page(request, contest_obj, kind)
        length = _content_length(request)
        if length is None or length > MAX_UPLOAD_BYTES + _MULTIPART_OVERHEAD:
            shown = "of unknown size" if length is None else f"{length // 1024:,} KB"
            return _page(
                request,
                contest_obj,
                kind,
                errors=[
                    f"The upload is {shown}; an import's file is at most {_mb(MAX_UPLOAD_BYTES)}."
                ],
                status=413,
            )
        return _upload(request, contest_obj, kind)

    view.__name__ = f"import_{kind.replace('-', '_')}"
    return view


@csrf_protect
def _upload(request, contest, kind):
    _drop(request)  # an earlier preview not confirmed
    uploads, missing = _uploads(request, kind)
    if missing:
        return _page(request, contest, kind, errors=missing, status=422)
    staged = service.stage(
        kind=kind, contest=contest, uploads=uploads, system=request.POST.get("system", "")
    )
    try:
        preview = service.preview(staged, contest, user=request.user)
    except ValidationError:
        service.discard(staged)  # nothing waits for a refused preview; the refusal rises
        raise
    request.session[SESSION_KEY] = staged.to_session()
    return _page(request, contest, kind, preview=preview, staged=staged)


@organizer_required
def imports_index(request, contest: str):
    contest_obj = contest_for_organizer(contest)
    return render(
        request,
        "console/imports.html",
        {"contest": contest_obj, "kinds": KINDS.values(), "max_upload": _mb(MAX_UPLOAD_BYTES)},
    )


@organizer_required
@require_POST
def import_confirm(request, contest: str):
    """Import what the preview showed (or cancel it). The posted token must be the session's,
    so that a preview left open in another tab cannot confirm a later upload."""
    contest_obj = contest_for_organizer(contest)
    staged = staged_to_confirm(request, SESSION_KEY, contest_obj)
    if staged is None:
        messages.error(request, "This preview is no longer current; upload the files again.")
        return redirect("console:imports", contest=contest_obj.slug)
    url = KINDS[staged.kind]["url"]
    if "cancel" in request.POST:
        service.discard(staged)
        messages.info(request, "Cancelled; nothing was imported.")
        return redirect(url, contest=contest_obj.slug)
    try:
        result = service.confirm(staged, contest_obj, user=request.user)
    except ValidationError as error:
        service.discard(staged)
        # Shown on the page of the kind that was staged, which only this view knows (the
        # confirmation's URL names no kind).
        return _page(
            request, contest_obj, staged.kind, errors=error.messages, status=http_status(error)
        )
    if isinstance(result, Job):
        messages.success(request, "The import has started; this page follows it to the end.")
        return redirect("job", contest=contest_obj.slug, pk=result.pk)
    messages.success(request, result.line)
    return redirect(url, contest=contest_obj.slug)


import_problemset = imports_view(service.PROBLEMSET)
import_schemes = imports_view(service.SCHEMES)
import_outputs = imports_view(service.OUTPUTS)
import_human_scores = imports_view(service.HUMAN_SCORES)
import_delegations = imports_view(service.DELEGATIONS)
