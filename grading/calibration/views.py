"""The calibration round's pages: the chair's (create the round, the reference grid, open it,
who submitted, the spread, close it) and a juror's calibration sheet (the live sheet's grid and
keyboard, `static/grading/sheet.js`, on these endpoints; the papers under their calibration
labels; after submitting, the reference and the group's spread).

Refusals rise to `grading.web.errors.RefusalMiddleware`; the autosave catches them to answer
its JSON with the cell as stored, as the live sheet's does."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from grading.calibration import rounds
from grading.calibration.calibration_marks import (
    calibration_lock_reason,
    calibration_mark_set,
    calibration_sheet_submit,
    reopened_lock_reason,
)
from grading.calibration.forms import ReferenceGridForm, RoundCloseForm, RoundCreateForm
from grading.calibration.selectors import (
    calibration_grid,
    calibration_paper,
    own_calibration_cell,
    own_calibration_sheet,
    pickable_labels,
    problem_round,
    round_picks,
    round_view,
)
from grading.marking.change_keys import applied_change
from grading.marking.forms import CellNoteForm, CellPointsForm, form_error
from grading.models import ScanPage
from grading.papers.page_views import CACHE_CONTROL
from grading.papers.scan_pages import paper_scan_pages, scan_file
from grading.papers.selectors import paper_problem_detail
from grading.rules import access
from grading.rules.domain import points_text
from grading.web.errors import on_refusal, refusal_json
from rubrics.models import Contest


def _led_problem(request, contest: str, problem: int):
    """The problem and its round (or None) for the chair or the organizer; 404 otherwise."""
    if not access.may_lead_calibration(request.user):
        raise Http404("No such page.")
    problem_obj, round_ = problem_round(contest_slug=contest, problem_number=problem)
    if problem_obj is None:
        raise Http404("No such problem.")
    return problem_obj, round_


def _led_round(request, contest: str, problem: int):
    problem_obj, round_ = _led_problem(request, contest, problem)
    if round_ is None:
        raise Http404(f"{problem_obj.code} has no calibration round.")
    round_.problem = problem_obj
    return round_


def _chair_url(request, contest: str, problem: int) -> str:
    return reverse("calibration", args=[contest, problem])


@login_required
@require_GET
def calibration_page(request, contest: str, problem: int):
    problem_obj, round_ = _led_problem(request, contest, problem)
    return _round_page(request, problem_obj, round_)


def _round_page(request, problem_obj, round_, *, reference_form=None, status: int = 200):
    """The chair's page of the problem's round; `reference_form` is the reference grid as the
    chair posted it, when a value in it is wrong (shown with what they typed)."""
    context = {
        "problem": problem_obj,
        "contest": problem_obj.contest,
        "problems": list(problem_obj.contest.problems.order_by("number")),
        "round": round_,
    }
    if round_ is None:
        context["labels"] = pickable_labels(problem_obj)
        context["may_create"] = problem_obj.contest.state in (
            Contest.State.SETUP,
            Contest.State.GRADING,
        )
    else:
        round_.problem = problem_obj
        view = round_view(round_)
        context["view"] = view
        context["reference_form"] = reference_form or ReferenceGridForm(rows=view.rows)
        if round_.is_open:
            # The papers may be picked again (once the round is open to the jurors, only those
            # kept for seeding): the form shows them by their live labels.
            labels, graded, kept = round_picks(round_)
            context.update(labels=labels, picked_labels=graded, kept_labels=kept)
    return render(request, "grading/calibration/round.html", context, status=status)


@login_required
@require_POST
@on_refusal(redirect=_chair_url, one_message=True)
def calibration_create(request, contest: str, problem: int):
    problem_obj, _ = _led_problem(request, contest, problem)
    form = RoundCreateForm(request.POST, labels=pickable_labels(problem_obj))
    if not form.is_valid():
        raise form_error(form)
    rounds.round_create(
        problem=problem_obj,
        labels=form.cleaned_data["labels"],
        kept=form.cleaned_data["kept"],
        seeded=form.cleaned_data["seeded"],
        actor=request.user,
    )
    messages.success(
        request, f"The calibration round of {problem_obj.code} is created: enter its reference."
    )
    return redirect(_chair_url(request, contest, problem))


@login_required
@require_POST
@on_refusal(redirect=_chair_url, one_message=True)
def calibration_change(request, contest: str, problem: int):
    """The round's papers (those graded in it until it is open to the jurors, those kept for
    seeding while it is open) and its seeded flag, changed."""
    round_ = _led_round(request, contest, problem)
    form = RoundCreateForm(request.POST, labels=pickable_labels(round_.problem))
    if not form.is_valid():
        raise form_error(form)
    repick = not rounds.round_opened_to_jurors(round_)
    rounds.round_change(
        round_=round_,
        labels=form.cleaned_data["labels"] if repick else None,
        kept=form.cleaned_data["kept"],
        seeded=form.cleaned_data["seeded"],
        actor=request.user,
    )
    messages.success(
        request,
        f"The calibration round of {round_.problem.code} is changed: "
        + (
            "papers and seeded checks saved."
            if repick
            else "papers kept for seeding and seeded checks saved."
        ),
    )
    return redirect(_chair_url(request, contest, problem))


@login_required
@require_POST
@on_refusal(redirect=_chair_url, one_message=True)
def calibration_references(request, contest: str, problem: int):
    round_ = _led_round(request, contest, problem)
    form = ReferenceGridForm(request.POST, rows=round_view(round_).rows)
    if not form.is_valid():
        # Every value stays as typed, each wrong one marked: nothing is saved until all fit.
        return _round_page(request, round_.problem, round_, reference_form=form, status=422)
    changed = rounds.references_set(round_=round_, entries=form.entries(), actor=request.user)
    messages.success(
        request,
        ngettext("%d reference saved.", "%d references saved.", changed) % changed,
    )
    return redirect(_chair_url(request, contest, problem))


@login_required
@require_POST
@on_refusal(redirect=_chair_url, one_message=True)
def calibration_open(request, contest: str, problem: int):
    round_ = _led_round(request, contest, problem)
    rounds.round_open_to_jurors(round_=round_, actor=request.user)
    messages.success(
        request, f"The calibration round of {round_.problem.code} is open to the jurors."
    )
    return redirect(_chair_url(request, contest, problem))


@login_required
@require_POST
@on_refusal(redirect=_chair_url, one_message=True)
def calibration_close(request, contest: str, problem: int):
    round_ = _led_round(request, contest, problem)
    form = RoundCloseForm(request.POST)
    if not form.is_valid():
        raise form_error(form)
    rounds.round_close(round_=round_, actor=request.user, without=form.confirmed_without())
    messages.success(request, f"Grading of {round_.problem.code} is open.")
    return redirect(_chair_url(request, contest, problem))


# A juror's calibration sheet.


def _juror_sheet(request, contest: str, problem: int):
    """The requesting juror's calibration sheet of the problem's round, once the round is open
    to the jurors; 404 for anyone not in the group, and while there is nothing to grade."""
    problem_obj, round_ = problem_round(contest_slug=contest, problem_number=problem)
    if problem_obj is None or round_ is None or not access.may_calibrate(request.user, problem_obj):
        raise Http404("You have no calibration sheet for this problem.")
    round_.problem = problem_obj
    sheet = own_calibration_sheet(juror=request.user, round_=round_)
    if sheet is None:
        if not round_.is_open or not rounds.round_opened_to_jurors(round_):
            raise Http404("You have no calibration sheet for this problem.")
        # A juror who joined the group after the round opened.
        sheet = rounds.calibration_sheet_ensure(round_=round_, juror_id=request.user.pk)
    sheet.round = round_
    return sheet


def _sheet_url(request, contest: str, problem: int, **kwargs) -> str:
    return reverse("calibration_sheet", args=[contest, problem])


def _solution_context(sheet, label: str) -> dict:
    """A calibration paper's solutions or scanned pages, under its calibration label."""
    round_ = sheet.round
    paper = calibration_paper(round_=round_, label=label)
    if paper is None:
        raise Http404("No calibration paper has this label.")
    problem = round_.problem
    real_label = paper.paper.labels.get(problem=problem).label
    _, tasks = paper_problem_detail(problem=problem, label=real_label)
    pages = paper_scan_pages(problem=problem, paper=paper.paper)
    return {
        "solution_label": label,
        "tasks": tasks,
        "problem": problem,
        "scan_pages": [
            {
                "position": page.position,
                "url": reverse(
                    "calibration_scan_page",
                    args=[problem.contest.slug, problem.number, label, page.position],
                ),
                "width": page.width,
                "height": page.height,
            }
            for page in pages
        ],
        "scanned": bool(pages) or paper.paper.source == paper.paper.Source.HUMAN,
    }


@login_required
@require_GET
def calibration_sheet_page(request, contest: str, problem: int):
    sheet = _juror_sheet(request, contest, problem)
    grid = calibration_grid(
        sheet=sheet,
        lock_reason=calibration_lock_reason(sheet),
        reopened_lock_reason=reopened_lock_reason(sheet),
    )
    selected = request.GET.get("row") or (grid.rows[0].label if grid.rows else "")
    context = {
        "sheet": sheet,
        "problem": sheet.round.problem,
        "contest": sheet.round.problem.contest,
        "grid": grid,
        "rows": grid.rows,
        "columns": [
            {"criterion": c, "points": points_text(c.points), "step": points_text(c.step)}
            for c in grid.criteria
        ],
        "locked": grid.lock_reason is not None,
        "selected": selected,
    }
    if selected:
        context.update(_solution_context(sheet, selected))
    return render(request, "grading/calibration/sheet.html", context)


@login_required
@require_GET
def calibration_solution(request, contest: str, problem: int, label: str):
    sheet = _juror_sheet(request, contest, problem)
    return render(request, "grading/calibration/_solution.html", _solution_context(sheet, label))


@login_required
@require_GET
def calibration_scan_page(request, contest: str, problem: int, label: str, position: int):
    """A calibration paper's scanned page under its calibration label, for the jurors of the
    group while the round is open (`access.may_read_pages`) and the chair; one kept out of the
    round for seeding for those who lead the round alone."""
    problem_obj, round_ = problem_round(contest_slug=contest, problem_number=problem)
    kept = access.may_lead_calibration(request.user)
    paper = calibration_paper(round_=round_, label=label, kept=kept) if round_ else None
    if paper is None or not access.may_read_pages(
        request.user, problem=problem_obj, paper=paper.paper
    ):
        raise Http404("No calibration paper has this label.")
    page = ScanPage.objects.filter(
        paper=paper.paper, problem=problem_obj, position=position
    ).first()
    path = scan_file(page) if page is not None else None
    if path is None:
        raise Http404("This paper has no such page.")
    response = HttpResponse(path.read_bytes(), content_type="image/png")
    response["Cache-Control"] = CACHE_CONTROL
    return response


def _cell_json(mark, **extra) -> dict:
    return {"points": points_text(mark.points), "note": mark.note, "version": mark.version, **extra}


def _save_cell(request, contest, problem, label, code, *, form, note: bool):
    valid = form.is_valid()
    sheet = _juror_sheet(request, contest, problem)
    mark = own_calibration_cell(sheet=sheet, label=label, code=code)
    if mark is None:
        raise Http404("No such cell on your calibration sheet.")
    try:
        if not valid:
            raise form_error(form)
        data = form.cleaned_data
        mark = calibration_mark_set(
            mark=mark,
            actor=request.user,
            expected_version=data["version"],
            change_key=data["change_key"],
            **({"note": data["note"], "keep_points": True} if note else {"points": data["points"]}),
        )
    except ValidationError as error:
        # A retry of a change already applied (its answer lost) is answered as it was then.
        replayed = applied_change(mark, valid and form.cleaned_data["change_key"])
        if replayed is not None:
            return JsonResponse(replayed)
        # As the live sheet's autosave: the JSON carries the cell as stored beside the refusal.
        mark.refresh_from_db(fields=["points", "note", "version"])
        return refusal_json(error, **_cell_json(mark, saved=False))
    return JsonResponse(_cell_json(mark, saved=True))


@login_required
@require_POST
def calibration_cell_save(request, contest: str, problem: int, label: str, code: str):
    form = CellPointsForm(request.POST, where=f"Criterion {code}")
    return _save_cell(request, contest, problem, label, code, form=form, note=False)


@login_required
@require_POST
def calibration_note_save(request, contest: str, problem: int, label: str, code: str):
    return _save_cell(
        request, contest, problem, label, code, form=CellNoteForm(request.POST), note=True
    )


@login_required
@require_GET
def calibration_cell_history(request, contest: str, problem: int, label: str, code: str):
    sheet = _juror_sheet(request, contest, problem)
    mark = own_calibration_cell(sheet=sheet, label=label, code=code)
    if mark is None:
        raise Http404("No such cell on your calibration sheet.")
    return render(
        request,
        "grading/calibration/_history.html",
        {
            "label": label,
            "mark": mark,
            "events": list(mark.events.select_related("actor").order_by("-version")),
        },
    )


@login_required
@require_POST
@on_refusal(redirect=_sheet_url, one_message=True)
def calibration_submit(request, contest: str, problem: int):
    sheet = _juror_sheet(request, contest, problem)
    calibration_sheet_submit(sheet=sheet, actor=request.user)
    messages.success(
        request,
        f"Your calibration sheet for {sheet.round.problem.code} is submitted: the reference "
        "and the group's spread are beside your marks.",
    )
    return redirect(_sheet_url(request, contest, problem))
