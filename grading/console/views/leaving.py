"""The console's door for a juror who leaves during grading: choose the juror and say why, see
what would move (`grading.assigning.moves.juror_leaving_plan`: their ungraded papers to
colleagues, their graded ones staying theirs), then confirm (`juror_leaving_make`, which plans
again and writes it all in one transaction); for one who comes back (`juror_back`); and for the
papers that sit with a juror in conflict with them since a fact changed (`conflict_moves`). The
command `juror_unavailable` (with `--back`) does the first two."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.shortcuts import redirect, render
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from grading.assigning.conflict_moves import conflict_moves_make, conflict_moves_plan
from grading.assigning.in_conflict import awaiting_ruling
from grading.assigning.moves import juror_back, juror_leaving_make, juror_leaving_plan
from grading.console.forms import JurorBackForm, JurorLeavingForm
from grading.console.views.guards import contest_for_organizer, organizer_required
from grading.web.errors import on_refusal
from rubrics.models import Contest

User = get_user_model()


def _jurors(contest: Contest):
    return (
        User.objects.filter(grading_groups__problem__contest=contest)
        .distinct()
        .order_by("username")
    )


def _away(contest: Contest):
    return _jurors(contest).filter(juror_profile__unavailable_since__isnull=False)


def _still_holding(contest: Contest, away, actor) -> list:
    """For each juror who left, what of theirs would still move, or can go to nobody: papers
    that stayed with them since (no eligible colleague then), said until they have gone. A
    final contest moves nothing."""
    if contest.is_final:
        return []
    plans = [juror_leaving_plan(contest=contest, juror=juror, actor=actor) for juror in away]
    return [plan for plan in plans if any(p.moves or p.stuck for p in plan.problems)]


def _awaiting_ruling(contest) -> str:
    """A sentence on the papers graded before their juror's conflict came to light that wait
    for the chair's decision (they move only once their marks are discarded), or ""."""
    n = len(awaiting_ruling(contest))
    if not n:
        return ""
    return (
        ngettext(
            "%d paper graded before its juror's conflict came to light waits for the chair, who "
            "keeps or discards its marks; it moves once they are discarded.",
            "%d papers graded before their juror's conflict came to light wait for the chair, who "
            "keeps or discards their marks; each moves once they are discarded.",
            n,
        )
        % n
    )


def _page(request, contest, form, *, plan=None, back=None, status=200):
    away = _away(contest)
    return render(
        request,
        "console/juror_leaving.html",
        {
            "contest": contest,
            "is_organizer": True,
            "form": form,
            "plan": plan,
            "away": away,
            "still_holding": _still_holding(contest, away, request.user),
            "back_form": back or JurorBackForm(jurors=away),
            # A final contest moves nothing: its page says so, and plans nothing.
            "conflicts": []
            if contest.is_final
            else conflict_moves_plan(contest=contest, actor=request.user),
            "awaiting_ruling": "" if contest.is_final else _awaiting_ruling(contest),
        },
        status=status,
    )


def _refused(request, sentences, status, contest):
    contest_obj = contest_for_organizer(contest)
    form = JurorLeavingForm(request.POST or None, jurors=_jurors(contest_obj))
    form.is_valid()
    for sentence in sentences:
        form.add_error(None, sentence)
    return _page(request, contest_obj, form, status=status)


@organizer_required
@on_refusal(page=_refused)
def juror_leaving_page(request, contest: str):
    """GET: the form. POST: the preview of what marking the juror unavailable does."""
    contest_obj = contest_for_organizer(contest)
    form = JurorLeavingForm(
        request.POST if request.method == "POST" else None, jurors=_jurors(contest_obj)
    )
    if request.method != "POST":
        return _page(request, contest_obj, form)
    if not form.is_valid():
        return _page(request, contest_obj, form, status=422)
    plan = juror_leaving_plan(
        contest=contest_obj, juror=form.cleaned_data["juror"], actor=request.user
    )
    return _page(request, contest_obj, form, plan=plan)


@organizer_required
@require_POST
@on_refusal(page=_refused)
def juror_leaving_confirm(request, contest: str):
    """The juror marked unavailable and their ungraded papers moved, as planned again now."""
    contest_obj = contest_for_organizer(contest)
    form = JurorLeavingForm(request.POST, jurors=_jurors(contest_obj))
    if not form.is_valid():
        return _page(request, contest_obj, form, status=422)
    juror = form.cleaned_data["juror"]
    plan = juror_leaving_make(
        contest=contest_obj, juror=juror, actor=request.user, reason=form.cleaned_data["reason"]
    )
    moved = len(plan.moves)
    messages.success(
        request,
        ngettext(
            "%(juror)s is unavailable from now; %(n)d paper moved to colleagues.",
            "%(juror)s is unavailable from now; %(n)d papers moved to colleagues.",
            moved,
        )
        % {"juror": juror.username, "n": moved},
    )
    for sentence in plan.sentences():
        messages.info(request, sentence)
    return redirect("console:assignments", contest=contest_obj.slug)


@organizer_required
@require_POST
@on_refusal(page=_refused)
def juror_back_confirm(request, contest: str):
    """A juror who left is available again: they take new papers from now."""
    contest_obj = contest_for_organizer(contest)
    back = JurorBackForm(request.POST, jurors=_away(contest_obj))
    if not back.is_valid():
        form = JurorLeavingForm(jurors=_jurors(contest_obj))
        return _page(request, contest_obj, form, back=back, status=422)
    juror = back.cleaned_data["juror"]
    juror_back(juror=juror, actor=request.user)
    messages.success(
        request,
        f"{juror.username} is available again: they take new papers from now; the papers "
        "moved from them stay with the colleagues who took them.",
    )
    return redirect("console:juror_leaving", contest=contest_obj.slug)


@organizer_required
@require_POST
@on_refusal(page=_refused)
def conflict_moves_confirm(request, contest: str):
    """Every paper that sits with a juror in conflict with it moved to a colleague, as planned
    again now."""
    contest_obj = contest_for_organizer(contest)
    plans = conflict_moves_make(contest=contest_obj, actor=request.user)
    moved = sum(len(conflict.plan.moves) for conflict in plans)
    messages.success(
        request,
        ngettext(
            "%(n)d paper moved from a juror in conflict with it to a colleague.",
            "%(n)d papers moved from jurors in conflict with them to colleagues.",
            moved,
        )
        % {"n": moved},
    )
    for conflict in plans:
        for sentence in conflict.plan.sentences():
            messages.info(request, sentence)
    return redirect("console:juror_leaving", contest=contest_obj.slug)
