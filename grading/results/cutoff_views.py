"""The chair's medal cut-offs from the distribution: a proposal computed from the human
contestants' totals for each medal's share (editable; htmx recomputes it as the shares are
typed), each cut-off with its effect, and its confirmation, which sets the cut-offs.

What a proposal is and whether it may be applied are `grading.results.cutoffs`'s; who may see
the page is `grading.rules.access`'s (the chair and organizers, 404 to anyone else); refusals
become answers in `grading.web.errors`."""

from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from grading.models import Appeal
from grading.results.cutoffs import (
    ProposedCutoff,
    cutoffs_apply_proposal,
    cutoffs_sentence,
    proposal_medals,
    propose_cutoffs,
)
from grading.results.forms import CutoffConfirmForm, CutoffSharesForm
from grading.results.selectors import cutoff_totals
from grading.rules import access
from grading.rules.domain import points_text
from grading.web.errors import on_refusal
from grading.web.lookups import contest_for_chair
from rubrics.models import Contest


@dataclass(frozen=True)
class ProposalRow:
    """A proposed cut-off as the page shows it: the numbers, the AI papers it places, and
    what the ties did to the count."""

    cutoff: ProposedCutoff
    # The share in percent, as typed (it goes back to the server with the confirmation).
    percent: str
    ai_awarded: int
    effect: str


def _effect(row: ProposedCutoff) -> str:
    """The sentence that says how the cut-off meets its target, and which way ties moved it."""
    if row.min_total is None:
        return "No contestant is left for this medal: each has a better one already."
    at = points_text(row.min_total)
    tied = ngettext(
        "%(n)d contestant has exactly %(at)s",
        "%(n)d contestants are tied at %(at)s, all at or above",
        row.tied,
    ) % {"n": row.tied, "at": at}
    if row.rounding == "none":
        return f"{tied}; the share is met."
    way = "more" if row.rounding == "up" else "fewer"
    # Without a tie at the cut-off, only the better medal's count can push it up.
    why = (
        "each medal goes to at least one contestant more than the better medals"
        if row.rounding == "up" and row.tied == 1
        else "a cut-off never splits equal totals"
    )
    return (
        f"{tied}; {why}, so it rounds {row.rounding}: {way} contestants than the share's "
        f"{row.wanted} are at or above it."
    )


def _rows(proposal: list[ProposedCutoff], ai_totals: list[Decimal]) -> list[ProposalRow]:
    rows, better = [], None
    for row in proposal:
        if row.min_total is None:
            ai = 0
        else:
            ai = sum(
                1
                for total in ai_totals
                if total >= row.min_total and (better is None or total < better)
            )
            better = row.min_total
        percent = Decimal(row.share.numerator * 100) / Decimal(row.share.denominator)
        rows.append(ProposalRow(row, f"{percent.normalize():f}", ai, _effect(row)))
    return rows


@dataclass
class AppealsUnderWay:
    """Provisional results are out: the leaders may still appeal, or appeals wait for a
    decision. Cut-offs set now change the medals they were shown."""

    deadline_ahead: bool
    open_appeals: int


def _appeals_under_way(contest: Contest) -> AppealsUnderWay | None:
    if contest.state != Contest.State.PROVISIONAL:
        return None
    ahead = bool(contest.appeals_deadline and contest.appeals_deadline > timezone.now())
    open_appeals = Appeal.objects.filter(paper__contest=contest, state=Appeal.State.OPEN).count()
    if not (ahead or open_appeals):
        return None
    return AppealsUnderWay(deadline_ahead=ahead, open_appeals=open_appeals)


def _page(request, contest_obj, form: CutoffSharesForm, *, confirm=None, status: int = 200):
    """The page (or, for htmx, its proposal) for the shares in `form`."""
    totals = cutoff_totals(contest_obj)
    proposal = propose_cutoffs(totals.humans, form.shares()) if form.is_valid() else []
    context = {
        "contest": contest_obj,
        "form": form,
        "confirm": confirm,
        "rows": _rows(proposal, totals.ai),
        "humans": len(totals.humans),
        "ai": len(totals.ai),
        "current": cutoffs_sentence(contest_obj),
        "may_set": access.may_set_cutoffs(request.user) and not contest_obj.is_final,
        "appeals": _appeals_under_way(contest_obj),
    }
    template = "grading/_cutoffs_proposal.html" if request.htmx else "grading/cutoffs.html"
    return render(request, template, context, status=status)


@login_required
@require_GET
def cutoffs_proposal(request, contest: str):
    """The proposal for the shares in the query (the defaults without them)."""
    contest_obj = contest_for_chair(request, contest, organizer_too=True)
    medals = proposal_medals(contest_obj)
    typed = any(key.startswith("share_") for key in request.GET)
    form = CutoffSharesForm(
        request.GET if typed else CutoffSharesForm.defaults(medals), medals=medals
    )
    # htmx swaps only a 200: its partial says what is wrong with the shares itself.
    status = 200 if form.is_valid() or request.htmx else 422
    return _page(request, contest_obj, form, status=status)


def _proposal_again(request, contest: str) -> str:
    """Where a refused confirmation goes back to: the proposal for the same shares."""
    shares = [(key, value) for key, value in request.POST.items() if key.startswith("share_")]
    return f"{reverse('cutoffs', args=[contest])}?{urlencode(shares)}"


@login_required
@require_POST
@on_refusal(redirect=_proposal_again)
def cutoffs_confirm(request, contest: str):
    """Set the proposed cut-offs the chair confirmed; the service refuses a final contest, and a
    proposal the totals no longer give."""
    contest_obj = contest_for_chair(request, contest, organizer_too=True)
    medals = proposal_medals(contest_obj)
    form = CutoffConfirmForm(request.POST, medals=medals)
    if not form.is_valid():
        # Shown with the proposal it was about, the box to tick again.
        shares = CutoffSharesForm(request.POST, medals=medals)
        return _page(request, contest_obj, shares, confirm=form, status=422)
    contest_obj = cutoffs_apply_proposal(
        contest=contest_obj, shares=form.shares(), shown=form.shown(), actor=request.user
    )
    messages.success(request, f"Medal cut-offs set: {cutoffs_sentence(contest_obj)}.")
    return redirect("results", contest=contest_obj.slug)
