"""The comment bank's doors: from the sheet, a juror proposes the note they wrote for the
criterion's bank (theirs alone until the chair adopts it) and counts a use when they insert one
(JSON, for sheet_bank.js); the chair's curation page of a problem's bank, with its forms to
add, adopt, edit, remove and reorder notes.

Inserting a note's text in a mark's note is the sheet's own note autosave (`sheet_note_save`):
the text becomes the juror's, and nothing here writes a mark."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from grading.marking.bank_selectors import problem_banks
from grading.marking.comment_bank import (
    bank_note_add,
    bank_note_adopt,
    bank_note_edit,
    bank_note_move,
    bank_note_remove,
    bank_note_used,
)
from grading.marking.forms import BankMoveForm, BankNoteForm, form_error
from grading.models import BankNote
from grading.rules import bank_access
from grading.rules.domain import points_text
from grading.web.errors import on_refusal
from rubrics.models import Criterion, Problem


def _problem(request, contest: str, problem: int, *, may) -> Problem:
    """The problem, or 404 for whoever `may(user, problem)` refuses: the bank of a problem one
    does not grade is none of one's business, not a forbidden page."""
    found = get_object_or_404(
        Problem.objects.select_related("contest"), contest__slug=contest, number=problem
    )
    if not may(request.user, found):
        raise Http404("No comment bank of this problem is yours to see.")
    return found


def _note(problem: Problem, pk: int, *, reader=None) -> BankNote:
    """The problem's note, or 404; for a `reader`, only a note they may read (another juror's
    proposal is not there for them)."""
    notes = BankNote.objects.select_related("criterion")
    if reader is not None:
        notes = notes.filter(bank_access.bank_notes_readable(reader))
    note = get_object_or_404(notes, pk=pk, criterion__problem=problem)
    note.criterion.problem = problem
    return note


def _note_json(note: BankNote, **extra) -> dict:
    return {
        "id": note.pk,
        "text": note.text,
        "points": points_text(note.points),
        "uses": note.uses,
        **extra,
    }


def _json_refusal(request, sentences: list[str], status: int, **_) -> JsonResponse:
    """The sheet's script reads a refusal as the autosave's: its sentences under "error"."""
    return JsonResponse({"saved": False, "error": " ".join(sentences)}, status=status)


@login_required
@require_POST
@on_refusal(page=_json_refusal)
def sheet_bank_add(request, contest: str, problem: int, code: str):
    """Add the note the juror wrote to the criterion's bank. JSON: the new note, or the
    refusal's sentence."""
    found = _problem(request, contest, problem, may=bank_access.may_use_bank)
    criterion = get_object_or_404(Criterion, problem=found, code=code)
    criterion.problem = found
    note = bank_note_add(
        criterion=criterion, author=request.user, **_valid(BankNoteForm(request.POST))
    )
    return JsonResponse(_note_json(note, saved=True, proposal=not note.adopted))


@login_required
@require_POST
@on_refusal(page=_json_refusal)
def sheet_bank_use(request, contest: str, problem: int, note: int):
    """Count one use of the note the juror just inserted. JSON: its uses."""
    found = _problem(request, contest, problem, may=bank_access.may_use_bank)
    bank_note = _note(found, note, reader=request.user)
    uses = bank_note_used(note=bank_note, actor=request.user)
    return JsonResponse({"id": bank_note.pk, "uses": uses, "saved": True})


def _may_curate(user, problem) -> bool:
    return bank_access.may_curate_bank(user)


def _back(request, contest: str, problem: int, **_) -> str:
    return reverse("bank", args=[contest, problem])


@login_required
@require_GET
def bank_page(request, contest: str, problem: int):
    found = _problem(request, contest, problem, may=_may_curate)
    return render(
        request,
        "grading/bank.html",
        {
            "contest": found.contest,
            "problem": found,
            "problems": list(found.contest.problems.order_by("number")),
            "banks": problem_banks(problem=found),
            "final": found.contest.is_final,
        },
    )


def _valid(form) -> dict:
    if not form.is_valid():
        raise form_error(form)
    return form.cleaned_data


@login_required
@require_POST
@on_refusal(redirect=_back, one_message=True)
def bank_add(request, contest: str, problem: int):
    found = _problem(request, contest, problem, may=_may_curate)
    criterion = get_object_or_404(Criterion, problem=found, code=request.POST.get("criterion", ""))
    criterion.problem = found
    note = bank_note_add(
        criterion=criterion, author=request.user, **_valid(BankNoteForm(request.POST))
    )
    messages.success(request, f"Added to the bank of {criterion.code}: “{note.text}”.")
    return redirect(_back(request, contest, problem))


@login_required
@require_POST
@on_refusal(redirect=_back, one_message=True)
def bank_edit(request, contest: str, problem: int, note: int):
    found = _problem(request, contest, problem, may=_may_curate)
    edited = bank_note_edit(
        note=_note(found, note), actor=request.user, **_valid(BankNoteForm(request.POST))
    )
    messages.success(
        request, f"Saved the note of {edited.criterion.code}; the marks' notes stay as they are."
    )
    return redirect(_back(request, contest, problem))


@login_required
@require_POST
@on_refusal(redirect=_back, one_message=True)
def bank_adopt(request, contest: str, problem: int, note: int):
    found = _problem(request, contest, problem, may=_may_curate)
    adopted = bank_note_adopt(note=_note(found, note), actor=request.user)
    messages.success(
        request,
        f"Adopted “{adopted.text}” into the bank of {adopted.criterion.code}: every juror of "
        f"{found.code} reads it from now on.",
    )
    return redirect(f"{_back(request, contest, problem)}#note-{note}")


@login_required
@require_POST
@on_refusal(redirect=_back, one_message=True)
def bank_remove(request, contest: str, problem: int, note: int):
    found = _problem(request, contest, problem, may=_may_curate)
    removed = _note(found, note)
    bank_note_remove(note=removed, actor=request.user)
    messages.success(
        request,
        f"Removed “{removed.text}” from the bank of {removed.criterion.code}; the marks' notes "
        "stay as they are.",
    )
    return redirect(_back(request, contest, problem))


@login_required
@require_POST
@on_refusal(redirect=_back, one_message=True)
def bank_move(request, contest: str, problem: int, note: int):
    found = _problem(request, contest, problem, may=_may_curate)
    up = _valid(BankMoveForm(request.POST))["direction"] == "up"
    bank_note_move(note=_note(found, note), up=up, actor=request.user)
    return redirect(f"{_back(request, contest, problem)}#note-{note}")
