"""Restoring a contest from a backup in the browser: upload the file export_contest wrote →
preview (import_contest's dry run: what would be created, or every problem as the command words
it) → confirm (one transaction) or cancel. The same functions as the command read and restore
the file (`backup_open`, with its bounds, and `contest_import`), so both doors accept, refuse and
word everything alike. The upload is at most BACKUP_MAX_MB, refused by its Content-Length before
it is read; Django keeps one larger than FILE_UPLOAD_MAX_MEMORY_SIZE in a temporary file, which is
copied to the private folder in chunks, so that a backup is never in memory whole.

The upload waits in a private folder whose token is in the session, as the console's imports do
(grading/console/imports.py). The restore runs in the request, never as a background
job: a Job belongs to a contest, and this contest does not exist until the restore is done."""

import secrets
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST

from grading.backup.archive import backup_open
from grading.backup.restore import ImportSummary, contest_import
from grading.console import imports as staging
from grading.console.views.guards import organizer_required
from grading.web.errors import on_refusal

# A multipart body holds the file and, around it, the CSRF token and the part headers.
_MULTIPART_OVERHEAD = 64 * 1024
SESSION_KEY = "console-restore"
KIND = "backup"


class _DryRun(Exception):
    pass


def max_upload_bytes() -> int:
    return settings.BACKUP_MAX_MB * 1024 * 1024


def _bound() -> str:
    return f"{settings.BACKUP_MAX_MB:,} MB (BACKUP_MAX_MB)"


def _page(request, *, errors=(), preview=None, staged=None, status=200):
    return render(
        request,
        "console/restore.html",
        {
            "errors": list(errors),
            "preview": preview,
            "staged": staged,
            "max_upload": _bound(),
        },
        status=status,
    )


def _refused(request, sentences, status):
    """A refused restore: the restore page with the sentences, at the refusal's status."""
    return _page(request, errors=sentences, status=status)


def _staged(request) -> staging.Staged | None:
    staged = staging.Staged.from_session(request.session.get(SESSION_KEY))
    return staged if staged is not None and staged.kind == KIND else None


def _drop(request) -> None:
    staging.discard(_staged(request))
    request.session.pop(SESSION_KEY, None)


def _stage(upload) -> staging.Staged:
    """Keep the uploaded file in a new private folder, under its own name (the restore's
    sentences name it as the person knows it)."""
    staging.sweep_stale()
    staged = staging.Staged(token=secrets.token_urlsafe(24), kind=KIND, contest="")
    staged.folder.mkdir(parents=True, mode=0o700)
    target = staged.folder / "1" / staging.safe_name(upload.name)
    target.parent.mkdir()
    with target.open("wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    staged.paths.append(str(target.relative_to(staged.folder)))
    return staged


def _preview(path: Path) -> dict:
    """The dry run: the restore done and rolled back; what it would create."""
    try:
        with backup_open(path) as backup, transaction.atomic():
            summary: ImportSummary = contest_import(
                document=backup.document, pages=backup.pages, source=path.name, dry_run=True
            )
            preview = {
                "contest": summary.contest,
                "problems": summary.contest.problems.count(),
                "papers": summary.papers,
                "marks": summary.marks,
                "mark_events": summary.mark_events,
                "scan_pages": summary.scan_pages,
                "users_created": summary.users_created,
            }
            raise _DryRun
    except _DryRun:
        return preview


# CSRF is checked inside, once the body's size is known: the middleware would read the whole
# body for the token first, however large, before any refusal.
@csrf_exempt
@organizer_required
@on_refusal(page=_refused)
def restore(request):
    if request.method != "POST":
        return _page(request)
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
    _drop(request)  # an earlier preview not confirmed
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
    staged = _stage(upload)
    try:
        preview = _preview(staged.files()[0])
    except ValidationError:
        staging.discard(staged)  # nothing waits for a refused preview; the refusal rises
        raise
    request.session[SESSION_KEY] = staged.to_session()
    return _page(request, preview=preview, staged=staged)


@organizer_required
@require_POST
@on_refusal(page=_refused)
def restore_confirm(request):
    """Restore what the preview showed (or cancel it). The posted token must be the session's,
    so that a preview left open in another tab cannot confirm a later upload."""
    staged = _staged(request)
    if staged is None or request.POST.get("token") != staged.token or not staged.folder.is_dir():
        messages.error(request, "This preview is no longer current; upload the backup again.")
        return redirect("console:restore")
    request.session.pop(SESSION_KEY, None)
    if "cancel" in request.POST:
        staging.discard(staged)
        messages.info(request, "Cancelled; nothing was restored.")
        return redirect("console:restore")
    path = staged.files()[0]
    try:
        with backup_open(path) as backup:
            summary = contest_import(document=backup.document, pages=backup.pages, source=path.name)
    finally:
        staging.discard(staged)
    messages.success(request, str(summary))
    return redirect("console:contest", contest=summary.contest.slug)
