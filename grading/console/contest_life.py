"""A contest's life, in one place: set-up → grading → resolution → final, and reopening a final
contest. A contest's state changes only through these services, each with its preconditions and
its record (`ContestEvent`); the admin shows the state read-only.

"Final means final" lives here too: `refuse_if_final` is what every service, importer, admin
page and management command calls before writing anything a contest owns."""

from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Count
from django.utils.translation import ngettext

from grading.console.assignment import unassigned_papers
from grading.models import ContestEvent, Sheet
from grading.resolution import inbox
from grading.resolution.comparison import contest_results
from grading.rules import access
from grading.rules.phase import contest_locked, refuse_if_final
from grading.rules.refusals import WrongState
from rubrics.models import Contest

State = Contest.State


def _move(contest: Contest, *, to: str, actor, reason: str = "") -> Contest:
    from_state = contest.state
    contest.state = to
    contest.save(update_fields=["state"])
    ContestEvent.objects.create(
        contest=contest,
        actor=actor if getattr(actor, "pk", None) else None,
        from_state=from_state,
        to_state=to,
        reason=reason,
    )
    return contest


@transaction.atomic
def contest_grading_open(*, contest: Contest, actor) -> Contest:
    """The organizer opens grading once the contest is set up: jurors may then submit sheets."""
    access.require(
        actor is None or access.may_run_contest(actor),
        "Only an organizer can start the grading.",
    )
    contest = contest_locked(contest)
    refuse_if_final(contest)
    if contest.state != State.SETUP:
        raise WrongState(f"{contest.name} is already past its set-up.")
    left = grading_open_blockers(contest)
    if left:
        raise WrongState(left[0])
    return _move(contest, to=State.GRADING, actor=actor)


def grading_open_blockers(contest: Contest) -> list[str]:
    """What stands between a contest in set-up and its grading, as sentences (empty when
    nothing): no problem set yet, or problems without a grading scheme. Two queries."""
    problems = list(contest.problems.order_by("number").annotate(n_criteria=Count("criteria")))
    if not problems:
        return [f"{contest.name} has no problems yet; import the problem set first."]
    missing = [problem.code for problem in problems if not problem.n_criteria]
    if missing:
        return [
            f"{contest.name} cannot start grading: {', '.join(missing)} "
            f"{'has' if len(missing) == 1 else 'have'} no grading scheme; load the schemes first."
        ]
    return []


@transaction.atomic
def contest_resolution_open(*, contest: Contest, actor) -> Contest:
    """The chair opens the resolution phase: submitted sheets may then be revised."""
    access.require(access.may_decide(actor), "Only the jury chair can start the resolution phase.")
    contest = contest_locked(contest)
    refuse_if_final(contest)
    if contest.state == State.RESOLUTION:
        raise WrongState(f"{contest.name} is already in the resolution phase.")
    contest = _move(contest, to=State.RESOLUTION, actor=actor)
    inbox.notify_resolution_open(contest=contest, actor=actor)
    return contest


@transaction.atomic
def contest_finalize(*, contest: Contest, actor) -> Contest:
    """Close the contest: refused while any discrepancy is open or any cell lacks a submitted
    mark. Afterwards nothing the contest owns changes, and the chair may see the identities."""

    access.require(access.may_decide(actor), "Only the jury chair can finalize a contest.")
    contest = contest_locked(contest)
    if contest.is_final:
        raise WrongState(f"{contest.name} is already final.")
    results = contest_results(contest)
    if not results.papers:
        raise WrongState(f"{contest.name} has no assigned papers to finalize.")
    left = finalize_blockers(results)
    if left:
        raise WrongState(f"{contest.name} cannot be finalized yet: {' and '.join(left)}.")
    return _move(contest, to=State.FINAL, actor=actor)


def finalize_blockers(results) -> list[str]:
    """What still stands between the results and finalizing, as phrases (empty when nothing)."""
    number = {problem.pk: problem.number for problem in results.problems}
    open_cells, pending = results.open_cells, results.pending_cells
    left = []
    if open_cells:
        examples = ", ".join(
            f"P{number[c.criterion.problem_id]} {c.criterion.code} of paper "
            f"{results.paper(c.paper_id).labels.get(number[c.criterion.problem_id], '?')}"
            for c in open_cells[:3]
        )
        left.append(
            f"{len(open_cells)} discrepanc{'y is' if len(open_cells) == 1 else 'ies are'} "
            f"still open ({examples}{', …' if len(open_cells) > 3 else ''})"
        )
    if pending:
        left.append(
            f"{len(pending)} cell{' lacks' if len(pending) == 1 else 's lack'} "
            "a submitted mark from every assigned juror"
        )
    return left


@transaction.atomic
def contest_reopen(*, contest: Contest, actor, reason: str) -> Contest:
    """An organizer reopens a final contest, with a reason on record: it goes back to the
    resolution phase, where the chair can change decisions and finalize again."""
    access.require(
        actor is None or access.may_run_contest(actor),
        "Only an organizer can reopen a final contest.",
    )
    reason = (reason or "").strip()
    if not reason:
        raise WrongState("Give the reason for reopening the contest; it stays on record.")
    contest = contest_locked(contest)
    if not contest.is_final:
        raise WrongState(f"{contest.name} is not final; there is nothing to reopen.")
    return _move(contest, to=State.RESOLUTION, actor=actor, reason=reason)


@dataclass(frozen=True)
class Check:
    """One precondition of a transition, as the contest stands now."""

    sentence: str
    met: bool
    # Whether the transition's service refuses while it is unmet (otherwise it is advice).
    blocks: bool = True
    detail: str = ""


@dataclass
class Transition:
    """One step of the contest's life with its preconditions, for the page that performs it."""

    step: str
    title: str
    # Whether the contest's state allows the step at all.
    available: bool
    checks: list[Check] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return self.available and all(check.met for check in self.checks if check.blocks)


def contest_checklist(contest: Contest) -> dict[str, Transition]:
    """Every transition of the contest's life (`grading`, `resolution`, `finalize`, `reopen`)
    with its preconditions checked as the services check them: `grading_open_blockers` and
    `finalize_blockers`, and the advice around them (papers assigned, sheets submitted).
    A fixed number of queries whatever the number of papers."""

    state = contest.state
    scheme_left = grading_open_blockers(contest)
    unassigned = {number: n for number, n in unassigned_papers(contest).items() if n}
    n_papers = contest.papers.count()
    sheets = list(Sheet.objects.filter(problem__contest=contest).values_list("state", flat=True))
    submitted = sheets.count(Sheet.State.SUBMITTED)
    assigned = Check(
        "Every paper is assigned to its jurors in every problem.",
        met=bool(n_papers) and not unassigned,
        blocks=False,
        detail="; ".join(
            f"P{number}: {ngettext('%d paper', '%d papers', n) % n} without a juror"
            for number, n in sorted(unassigned.items())
        ),
    )
    drafts = len(sheets) - submitted
    all_submitted = Check(
        f"Every sheet is submitted ({submitted} of {len(sheets)}).",
        met=bool(sheets) and submitted == len(sheets),
        blocks=False,
        detail=ngettext("%d sheet still in draft.", "%d sheets still in draft.", drafts) % drafts
        if submitted < len(sheets)
        else "",
    )
    results = contest_results(contest)
    left = finalize_blockers(results)
    open_cells, pending = len(results.open_cells), len(results.pending_cells)
    return {
        "grading": Transition(
            "grading",
            "Open grading",
            available=state == State.SETUP,
            checks=[
                Check(
                    "The problem set is imported and every problem has its grading scheme.",
                    met=not scheme_left,
                    detail=" ".join(scheme_left),
                ),
                Check(
                    f"The papers are imported ({ngettext('%d paper', '%d papers', n_papers) % n_papers}).",
                    met=bool(n_papers),
                    blocks=False,
                ),
                assigned,
            ],
        ),
        "resolution": Transition(
            "resolution",
            "Open the resolution phase",
            available=state == State.GRADING,
            checks=[all_submitted],
        ),
        "finalize": Transition(
            "finalize",
            "Finalize",
            available=state in (State.GRADING, State.RESOLUTION),
            checks=[
                Check("Papers are assigned to jurors.", met=bool(results.papers)),
                Check(
                    "Every assigned juror has submitted a mark in every cell.",
                    met=not pending,
                    detail=left[-1] if pending else "",
                ),
                Check(
                    "No discrepancy is open.",
                    met=not open_cells,
                    detail=left[0] if open_cells else "",
                ),
            ],
        ),
        "reopen": Transition("reopen", "Reopen", available=state == State.FINAL),
    }
