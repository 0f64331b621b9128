"""A juror's own grading sheet: the grid page, saving a cell's points or note, a cell's history,
the selected paper's solution, submitting, and the XLSX download, upload, preview and confirm.

Every view starts from `_juror_sheet`, which finds the requesting juror's own sheet and nothing
else: another juror's marks are never loaded here, which is what keeps these pages independent."""

import hashlib
import secrets
from datetime import datetime

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import ngettext
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from grading.marking.bank_selectors import sheet_banks
from grading.marking.change_keys import applied_change
from grading.marking.forms import CellNoteForm, CellPointsForm, form_error
from grading.marking.seed_cells import (
    cell_sheet,
    cell_write,
    is_seed_mark,
    own_seed_cell,
    seed_cell_history,
)
from grading.marking.selectors import (
    cell_history,
    own_cell,
    own_sheet,
    sheet_chair_decisions,
    sheet_grid,
    sheet_help_requests,
    sheet_label_assigned,
    sheet_lock_reason,
)
from grading.marking.sheets import (
    SheetChange,
    sheet_cell_note_set,
    sheet_cell_set,
    sheet_get_or_create,
    sheet_submit,
    sheet_xlsx_apply,
)
from grading.models import Sheet
from grading.papers.page_views import scan_viewer_context
from grading.papers.seed_labels import juror_seed
from grading.papers.selectors import paper_problem_detail, paper_problem_tasks
from grading.rules import access
from grading.rules.domain import points_text
from grading.web.errors import on_refusal, refusal_json
from rubrics.models import Contest, Problem

MAX_UPLOAD_BYTES = settings.SHEET_UPLOAD_MAX_BYTES
# A multipart body holds the file and, around it, the CSRF token and the part headers.
_MULTIPART_OVERHEAD = 64 * 1024
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _juror_sheet(request, contest: str, problem: int, *, create: bool = False) -> Sheet:
    """The requesting juror's sheet for the problem, or 404: for a problem they grade no paper
    of, for organizers and the chair (who have no sheet), for anyone not a juror. With `create`,
    the sheet and its blank marks are made on first use."""
    user = request.user
    if not access.is_juror(user):
        raise Http404("You have no sheet for this problem.")
    if create:
        problem_obj = get_object_or_404(
            # With its calibration round, which `sheet_lock_reason` asks about.
            Problem.objects.select_related("contest", "calibration"),
            contest__slug=contest,
            number=problem,
        )
        if not access.may_grade(user, problem_obj):
            raise Http404("You have no sheet for this problem.")
        sheet = sheet_get_or_create(juror=user, problem=problem_obj)
        sheet.problem = problem_obj
        return sheet
    sheet = own_sheet(juror=user, contest_slug=contest, problem_number=problem)
    if sheet is None:
        raise Http404("You have no sheet for this problem.")
    return sheet


def _sheet_url(sheet: Sheet) -> str:
    return reverse("sheet", args=[sheet.problem.contest.slug, sheet.problem.number])


def _solution_context(sheet: Sheet, label: str) -> dict:
    if sheet_label_assigned(sheet=sheet, label=label):
        paper, tasks = paper_problem_detail(problem=sheet.problem, label=label)
        # The juror's own questions on the paper and their answers (grading.assigning asks
        # and answers them; the sheet only reads them).
        help_requests = sheet_help_requests(sheet=sheet, paper=paper)
        may_ask_help = access.may_ask_help(sheet.juror, problem=sheet.problem, paper=paper)
    else:
        # A seed's label shows its calibration paper, to its juror only, with the questions
        # asked on this row; those on that paper under another label are not this row's
        # (they would link the two).
        seed = juror_seed(user=sheet.juror, problem=sheet.problem, label=label)
        if seed is None:
            raise Http404("No paper has this label on your sheet.")
        paper = seed.calibration_paper.paper
        tasks = paper_problem_tasks(problem=sheet.problem, paper=paper)
        help_requests = sheet_help_requests(sheet=sheet, paper=paper, seed=seed)
        may_ask_help = access.may_ask_help_on_seed(sheet.juror, problem=sheet.problem, seed=seed)
    return {
        "solution_label": label,
        "tasks": tasks,
        "problem": sheet.problem,
        "help_requests": help_requests,
        "may_ask_help": may_ask_help,
        **scan_viewer_context(problem=sheet.problem, paper=paper, label=label),
    }


@login_required
@require_GET
def sheet_page(request, contest: str, problem: int):
    sheet = _juror_sheet(request, contest, problem, create=True)
    grid = sheet_grid(sheet=sheet)
    only_ungraded = request.GET.get("ungraded") == "1"
    rows = [row for row in grid.rows if not row.complete] if only_ungraded else grid.rows
    selected = request.GET.get("row") or (rows[0].label if rows else "")
    context = {
        "sheet": sheet,
        "problem": sheet.problem,
        "contest": sheet.problem.contest,
        "grid": grid,
        "rows": rows,
        "only_ungraded": only_ungraded,
        "columns": [
            {
                "criterion": criterion,
                "points": points_text(criterion.points),
                "step": points_text(criterion.step),
            }
            for criterion in grid.criteria
        ],
        "locked": grid.lock_reason is not None,
        "revising": sheet.is_submitted
        and sheet.problem.contest.state == Contest.State.RESOLUTION
        and grid.lock_reason is None,
        "selected": selected,
        # The criteria's comment banks, to insert from (`c` on a cell): one query.
        "banks": []
        if grid.lock_reason
        else sheet_banks(criteria=grid.criteria, reader=request.user),
    }
    if selected:
        context.update(_solution_context(sheet, selected))
    return render(request, "grading/sheet.html", context)


@login_required
@require_GET
def sheet_solution(request, contest: str, problem: int, label: str):
    sheet = _juror_sheet(request, contest, problem)
    return render(request, "grading/_sheet_solution.html", _solution_context(sheet, label))


def _cell_json(mark, **extra) -> dict:
    return {
        "points": points_text(mark.points),
        "note": mark.note,
        "version": mark.version,
        **extra,
    }


def _own_cell(request, contest: str, problem: int, label: str, code: str):
    """The requesting juror's own mark, or 404 (for anyone else, as `_juror_sheet`: the lookup
    checks the juror role itself)."""
    mark = own_cell(
        juror=request.user, contest_slug=contest, problem_number=problem, label=label, code=code
    )
    if mark is None:
        # A seed's label names its cell, for its juror only (seed_cells).
        mark = own_seed_cell(
            juror=request.user, contest_slug=contest, problem_number=problem, label=label, code=code
        )
    if mark is None:
        raise Http404("No such cell on your sheet.")
    return mark


def _save_cell(request, contest, problem, label, code, *, form, write):
    """Validate the form, then look the juror's own cell up and write it; JSON either way:
    saved, points, note, version, and the refusal's sentence with its status."""
    valid = form.is_valid()
    mark = _own_cell(request, contest, problem, label, code)
    try:
        if not valid:
            raise form_error(form)
        # The write reads the sheet's and contest's state again in its transaction, so that a
        # save cannot slip past a submission or finalization committing meanwhile: SQLite takes
        # its write lock before the read, PostgreSQL holds the rows (`own_cell_hold`).
        mark = cell_write(mark, write)(
            sheet=cell_sheet(mark),
            mark=mark,
            expected_version=form.cleaned_data["version"],
            actor=request.user,
            **{k: v for k, v in form.cleaned_data.items() if k != "version"},
        )
    except ValidationError as error:
        # A retry of a change already applied (its answer lost) is answered as it was then.
        replayed = applied_change(mark, valid and form.cleaned_data["change_key"])
        if replayed is not None:
            return JsonResponse(replayed)
        # Caught, not left to the middleware: the autosave's JSON carries the cell as stored
        # (points, note, version) beside the refusal, so that the grid shows it again.
        mark.refresh_from_db(fields=["points", "note", "version"])
        return refusal_json(error, **_cell_json(mark, saved=False))
    return JsonResponse(_cell_json(mark, saved=True))


@login_required
@require_POST
def sheet_cell_save(request, contest: str, problem: int, label: str, code: str):
    """Save a cell's points (blank clears it). JSON: saved, points, note, version, or error."""
    form = CellPointsForm(request.POST, where=f"Criterion {code}")
    return _save_cell(request, contest, problem, label, code, form=form, write=sheet_cell_set)


@login_required
@require_POST
def sheet_note_save(request, contest: str, problem: int, label: str, code: str):
    """Save a cell's note. JSON as for the points."""
    form = CellNoteForm(request.POST)
    return _save_cell(request, contest, problem, label, code, form=form, write=sheet_cell_note_set)


@login_required
@require_GET
def sheet_cell_history(request, contest: str, problem: int, label: str, code: str):
    mark = _own_cell(request, contest, problem, label, code)
    sheet = cell_sheet(mark)
    context = {
        "sheet": sheet,
        "problem": sheet.problem,
        "contest": sheet.problem.contest,
        "label": label,
        "mark": mark,
        "events": seed_cell_history(mark=mark) if is_seed_mark(mark) else cell_history(mark=mark),
    }
    template = "_sheet_history.html" if request.GET.get("partial") == "1" else "sheet_history.html"
    return render(request, f"grading/{template}", context)


@login_required
@require_POST
@on_refusal(redirect="sheet", one_message=True)
def sheet_submit_view(request, contest: str, problem: int):
    sheet = _juror_sheet(request, contest, problem)
    sheet_submit(sheet=sheet, actor=request.user)
    messages.success(
        request,
        f"Your sheet for {sheet.problem.code} is submitted; it is read-only until the "
        "resolution phase.",
    )
    return redirect(_sheet_url(sheet))


@login_required
@require_GET
def sheet_xlsx_download(request, contest: str, problem: int):
    sheet = _juror_sheet(request, contest, problem, create=True)
    grid = sheet_grid(sheet=sheet)
    # openpyxl loads with the first workbook, not with the URL conf (every command's start).
    from grading.marking.xlsx import sheet_workbook

    data = sheet_workbook(grid=grid, juror=request.user, exported_at=timezone.now())
    response = HttpResponse(data, content_type=XLSX_TYPE)
    filename = f"{sheet.problem.contest.slug}-{sheet.problem.code}-{request.user.username}.xlsx"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _upload_key(sheet: Sheet) -> str:
    return f"sheet-upload:{sheet.pk}"


def _content_length(request) -> int | None:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None
    return length if length >= 0 else None


# CSRF is checked inside, once the body's size is known: the middleware would read the whole
# body for the token first, however large, before any refusal.
@csrf_exempt
@login_required
@require_POST
def sheet_xlsx_upload(request, contest: str, problem: int):
    """Read an uploaded workbook and keep what it would change in the session for the preview;
    nothing is written until the juror confirms. A body larger than any sheet is refused by its
    Content-Length, unread, whatever the sheet's state."""
    length = _content_length(request)
    if length is None or length > MAX_UPLOAD_BYTES + _MULTIPART_OVERHEAD:
        # Nothing is looked up or written before the CSRF check: only the message is kept.
        shown = "of unknown size" if length is None else f"{length // 1024:,} KB"
        messages.error(
            request,
            f"The upload is {shown}; a sheet's XLSX file is at most "
            f"{MAX_UPLOAD_BYTES // (1024 * 1024)} MB, and far smaller in practice. Upload the "
            "file downloaded from this sheet.",
        )
        return redirect(reverse("sheet", args=[contest, problem]))
    return _sheet_xlsx_upload(request, contest, problem)


@csrf_protect
def _sheet_xlsx_upload(request, contest: str, problem: int):
    sheet = _juror_sheet(request, contest, problem, create=True)
    reason = sheet_lock_reason(sheet)
    # A locked sheet still takes a file that re-confirms or re-marks its reopened marks.
    if reason and sheet_grid(sheet=sheet).reopened_open:
        reason = None
    if reason:
        messages.error(request, reason)
        return redirect(_sheet_url(sheet))
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, "Choose the XLSX file of your sheet to upload.")
        return redirect(_sheet_url(sheet))
    if upload.size > MAX_UPLOAD_BYTES:
        messages.error(
            request,
            f"“{upload.name}” is {upload.size // 1024:,} KB; a sheet's XLSX file is at most "
            f"{MAX_UPLOAD_BYTES // (1024 * 1024)} MB, and far smaller in practice. Upload the "
            "file downloaded from this sheet.",
        )
        return redirect(_sheet_url(sheet))
    data = upload.read()
    from grading.marking.xlsx_upload import read_sheet_upload  # openpyxl, as above

    reading = read_sheet_upload(
        data=data,
        grid=sheet_grid(sheet=sheet),
        juror=request.user,
        decided=sheet_chair_decisions(sheet=sheet),
    )
    request.session[_upload_key(sheet)] = {
        "token": secrets.token_urlsafe(16),
        "sha256": hashlib.sha256(data).hexdigest(),
        "name": upload.name,
        "changes": [change.to_session() for change in reading.changes],
        "errors": [
            {"row": error.row, "column": error.column, "message": error.message}
            for error in reading.errors
        ],
        "held": [cell.to_session() for cell in reading.held],
        "already": reading.already,
        "kept": reading.kept,
        "cells_read": reading.cells_read,
        "exported_at": reading.exported_at.isoformat() if reading.exported_at else None,
    }
    return redirect(reverse("sheet_xlsx_preview", args=[contest, problem]))


@login_required
@require_GET
def sheet_xlsx_preview(request, contest: str, problem: int):
    sheet = _juror_sheet(request, contest, problem)
    pending = request.session.get(_upload_key(sheet))
    if pending is None:
        messages.error(request, "No upload is waiting for confirmation; choose a file first.")
        return redirect(_sheet_url(sheet))
    return render(
        request,
        "grading/sheet_upload_preview.html",
        {
            "sheet": sheet,
            "problem": sheet.problem,
            "contest": sheet.problem.contest,
            "pending": pending,
            "changes": [SheetChange.from_session(change) for change in pending["changes"]],
            "exported_at": datetime.fromisoformat(pending["exported_at"])
            if pending["exported_at"]
            else None,
        },
    )


@login_required
@require_POST
@on_refusal(redirect="sheet", one_message=True)
def sheet_xlsx_confirm(request, contest: str, problem: int):
    sheet = _juror_sheet(request, contest, problem)
    pending = request.session.pop(_upload_key(sheet), None)
    if request.POST.get("action") == "cancel":
        messages.info(request, "The upload was cancelled; nothing was written.")
        return redirect(_sheet_url(sheet))
    if pending is None or not secrets.compare_digest(
        pending["token"], request.POST.get("token", "")
    ):
        messages.error(
            request, "This upload is no longer waiting for confirmation; upload the file again."
        )
        return redirect(_sheet_url(sheet))
    if pending["errors"]:
        messages.error(request, "The file has errors; fix them and upload it again.")
        return redirect(_sheet_url(sheet))
    changes = [SheetChange.from_session(change) for change in pending["changes"]]
    written = sheet_xlsx_apply(sheet=sheet, changes=changes, actor=request.user)
    messages.success(
        request,
        ngettext(
            "%(count)d mark changed from “%(name)s”.",
            "%(count)d marks changed from “%(name)s”.",
            written,
        )
        % {"count": written, "name": pending["name"]},
    )
    return redirect(_sheet_url(sheet))
