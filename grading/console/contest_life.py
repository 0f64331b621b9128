"""A contest's life, in one place: set-up → grading → resolution → provisional results (with
the team leaders' appeals until a deadline) → final, and reopening a final contest. A contest's state changes only through these services, each with its preconditions and
its record (`ContestEvent`); the admin shows the state read-only.

"Final means final" lives here too: `refuse_if_final` is what every service, importer, admin
page and management command calls before writing anything a contest owns."""

from datetime import datetime

from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import ngettext

from grading.models import (
    Appeal,
    AppealDeadlineChange,
    ContestEvent,
    Delegation,
    ProvisionalResult,
    Sheet,
)
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
            f"{ngettext('has', 'have', len(missing))} no grading scheme; load the schemes first."
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
    if contest.state == State.PROVISIONAL:
        # The published totals are what the leaders appeal against: marks now change only
        # through the appeals' decisions.
        raise WrongState(
            f"{contest.name}'s results are provisional: marks change only through the appeals' "
            "decisions until it is finalized."
        )
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
    left = finalize_blockers(results) + appeals_blockers(contest)
    if left:
        raise WrongState(f"{contest.name} cannot be finalized yet: {' and '.join(left)}.")
    return _move(contest, to=State.FINAL, actor=actor)


def _open_appeals(contest: Contest) -> int:
    return Appeal.objects.filter(paper__contest=contest, state=Appeal.State.OPEN).count()


def _open_appeals_phrase(n: int) -> str:
    return (
        ngettext(
            "%d appeal is neither decided nor withdrawn",
            "%d appeals are neither decided nor withdrawn",
            n,
        )
        % n
    )


def _deadline_text(moment: datetime) -> str:
    # In the reader's time zone (the request's, activated by the middleware), with its name.
    local = timezone.localtime(moment)
    return f"{local:%Y-%m-%d %H:%M} ({timezone.get_current_timezone_name()})"


def appeals_blockers(contest: Contest, *, now: datetime | None = None) -> list[str]:
    """What the appeals leave between the contest and finalizing, as phrases (empty when
    nothing). In provisional results: the deadline not passed yet, appeals still open. Before
    them (grading, resolution), a contest with delegations publishes provisional results first,
    so that their leaders may appeal; an AI-only jury has no leaders, and a contest reopened
    after its appeals keeps the results it published. One query."""
    now = now or timezone.now()
    if contest.state == State.PROVISIONAL:
        left = []
        if contest.appeals_deadline and contest.appeals_deadline > now:
            left.append(f"appeals are open until {_deadline_text(contest.appeals_deadline)}")
        still_open = _open_appeals(contest)
        if still_open:
            left.append(_open_appeals_phrase(still_open))
        return left
    # Publishing sets the deadline, and reopening keeps it: a deadline says they were published.
    published = contest.appeals_deadline is not None
    if not published and Delegation.objects.filter(contest=contest).exists():
        return ["publish the provisional results first, so that the team leaders may appeal"]
    return []


@transaction.atomic
def contest_provisional_publish(*, contest: Contest, deadline: datetime, actor) -> Contest:
    """The organizer publishes the provisional results: from the resolution phase, once no
    discrepancy is open and every sheet is submitted. Each paper's total, rank among the human
    contestants and medal, as the results page ranks them, are kept (`ProvisionalResult`:
    what the final results are compared with), and the team leaders may appeal until
    `deadline` (on record as an `AppealDeadlineChange`)."""
    access.require(
        actor is None or access.may_run_contest(actor),
        "Only an organizer can publish the provisional results.",
    )
    contest = contest_locked(contest)
    refuse_if_final(contest)
    if contest.state != State.RESOLUTION:
        raise WrongState(
            f"{contest.name} is in {contest.get_state_display().lower()}: provisional results "
            "are published from the resolution phase."
        )
    if deadline is None or deadline <= timezone.now():
        raise WrongState("Set the appeals deadline in the future; the leaders appeal until then.")
    results = contest_results(contest)
    left = provisional_blockers(contest, results)
    if left:
        raise WrongState(f"{contest.name} cannot publish provisional results yet: {left[0]}")
    published_at = timezone.now()
    ProvisionalResult.objects.filter(paper__contest=contest).delete()
    ProvisionalResult.objects.bulk_create(
        ProvisionalResult(
            paper_id=paper.paper_id,
            total=paper.total,
            rank=paper.rank,
            medal=paper.medal,
            published_at=published_at,
        )
        for paper in results.papers
    )
    AppealDeadlineChange.objects.create(
        contest=contest,
        actor=actor if getattr(actor, "pk", None) else None,
        old_deadline=contest.appeals_deadline,
        new_deadline=deadline,
    )
    contest.appeals_deadline = deadline
    contest.save(update_fields=["appeals_deadline"])
    return _move(contest, to=State.PROVISIONAL, actor=actor)


def provisional_blockers(contest: Contest, results) -> list[str]:
    """What stands between the resolution phase and publishing provisional results, as
    sentences (empty when nothing): the finalization's own (open discrepancies, missing
    marks), sheets still in draft. One query beyond `results`."""
    left = [f"{phrase[0].upper()}{phrase[1:]}." for phrase in finalize_blockers(results)]
    if not results.papers:
        left.insert(0, f"{contest.name} has no assigned papers.")
    drafts = list(
        Sheet.objects.filter(problem__contest=contest)
        .exclude(state=Sheet.State.SUBMITTED)
        .order_by("problem__number", "juror__username")
        .values_list("juror__username", "problem__number")
    )
    if drafts:
        whose = ", ".join(f"{username}'s P{number}" for username, number in drafts[:5])
        left.append(
            ngettext("%d sheet is still in draft", "%d sheets are still in draft", len(drafts))
            % len(drafts)
            + f" ({whose}{', …' if len(drafts) > 5 else ''})."
        )
    return left


@transaction.atomic
def appeals_deadline_extend(
    *, contest: Contest, deadline: datetime, reason: str, actor
) -> AppealDeadlineChange:
    """The organizer moves the appeals deadline, with a reason on record: later at any time
    while the results are provisional, or earlier (a correction, say of a mistyped hour) while
    no team leader has appealed yet and to a moment still to come, so that no one who relied
    on the deadline loses by it."""
    access.require(
        actor is None or access.may_run_contest(actor),
        "Only an organizer can change the appeals deadline.",
    )
    contest = contest_locked(contest)
    refuse_if_final(contest, "its appeals and their deadline")
    if contest.state != State.PROVISIONAL:
        raise WrongState(
            f"{contest.name} has no provisional results: there is no appeals deadline to extend."
        )
    reason = (reason or "").strip()
    if not reason:
        raise WrongState("Give the reason for extending the deadline; it stays on record.")
    current = contest.appeals_deadline
    if deadline is None:
        raise WrongState("Give the new appeals deadline.")
    if current and deadline == current:
        raise WrongState(f"The deadline is {_deadline_text(current)} already.")
    if current and deadline < current:
        filed = Appeal.objects.filter(paper__contest=contest).count()
        if filed:
            raise WrongState(
                "The new deadline must be later than the current one, "
                f"{_deadline_text(current)}: "
                + ngettext(
                    "%d appeal is filed already, so the deadline is no longer corrected earlier.",
                    "%d appeals are filed already, so the deadline is no longer corrected earlier.",
                    filed,
                )
                % filed
            )
        if deadline <= timezone.now():
            raise WrongState(
                "Set the corrected deadline in the future; the leaders appeal until then."
            )
    change = AppealDeadlineChange.objects.create(
        contest=contest,
        actor=actor if getattr(actor, "pk", None) else None,
        old_deadline=current,
        new_deadline=deadline,
        reason=reason,
    )
    contest.appeals_deadline = deadline
    contest.save(update_fields=["appeals_deadline"])
    return change


def finalize_blockers(results) -> list[str]:
    """What still stands between the results and finalizing, as phrases (empty when nothing)."""
    number = {problem.pk: problem.number for problem in results.problems}
    open_cells, pending = results.open_cells, results.pending_cells

    def named(cells) -> str:
        """The first three cells by problem, criterion and label, so that one can be found."""
        examples = ", ".join(
            f"P{number[c.criterion.problem_id]} {c.criterion.code} of paper "
            f"{results.paper(c.paper_id).labels.get(number[c.criterion.problem_id], '?')}"
            for c in cells[:3]
        )
        return f"{examples}{', …' if len(cells) > 3 else ''}"

    left = []
    if open_cells:
        left.append(
            ngettext("%d discrepancy is", "%d discrepancies are", len(open_cells)) % len(open_cells)
            + f" still open ({named(open_cells)})"
        )
    if pending:
        left.append(
            ngettext("%d cell lacks", "%d cells lack", len(pending)) % len(pending)
            + f" a submitted mark from every assigned juror ({named(pending)})"
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


def appeals_deadline_history(contest: Contest) -> list[AppealDeadlineChange]:
    """The deadline as set and every extension, oldest first, with who changed it. One query,
    none before the results were ever published (no deadline, no history)."""
    if contest.appeals_deadline is None:
        return []
    return list(
        contest.appeal_deadline_changes.select_related("actor").order_by("created_at", "id")
    )
