"""A group's discussion session in the room: a juror of the group (or the chair) starts it on a
problem, the group's jurors who have submitted join, and the session walks the problem's open
cells in the order the group chose while every member's screen follows the current cell
(`session_views`, polling its change token). A juror revises their own mark in place
(`decisions.mark_revise`, the one door for a revision); when the marks agree the cell closes as
agreed; otherwise the group records an agreed value with a reason, which each of the cell's
jurors takes as their mark on their own device, or sends the cell to the chair. Every outcome
records who was in the session.

What can change under a session is refused with a sentence: a second session on the problem, a
cell the chair decided meanwhile, the resolution phase ending, a member who left."""

from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from grading.models import (
    Assignment,
    DiscussionSession,
    Mark,
    Notification,
    Paper,
    PaperLabel,
    Resolution,
    SessionMember,
    SessionOutcome,
    Sheet,
)
from grading.resolution.cells import settle_cell
from grading.resolution.contest_grading import contest_results
from grading.resolution.decisions import comment_add, mark_revise
from grading.resolution.inbox import write_notices
from grading.rules import access, roles
from grading.rules.counting import counted_marks
from grading.rules.domain import CellStatus, points_text
from grading.rules.refusals import DecidedByChair, NotAllowed, Refusal, Stale, WrongState
from rubrics.models import Contest, Criterion
from rubrics.validators import validate_points

MEMBERS_ONLY = "A discussion session is for the group's jurors who have submitted, and the chair."
Order = DiscussionSession.Order
Kind = SessionOutcome.Kind


def live_session(problem) -> DiscussionSession | None:
    return (
        DiscussionSession.objects.filter(problem=problem, ended_at__isnull=True)
        .select_related("started_by", "problem__contest")
        .first()
    )


def _refuse_unless_resolving(contest: Contest) -> None:
    contest.refresh_from_db(fields=["state"])
    if contest.state != Contest.State.RESOLUTION:
        raise WrongState(
            f"The resolution phase of {contest.name} is not open: a discussion session "
            "walks open cells during it only."
        )


def open_cells(problem, order: str) -> list[list[int]]:
    """The problem's open cells as [paper id, criterion id], in `order`: by paper (label),
    by criterion, or the papers whose medal the marks straddle first."""
    results = contest_results(problem.contest)
    labels = dict(PaperLabel.objects.filter(problem=problem).values_list("paper_id", "label"))
    rows = []
    for paper in results.papers:
        for cell in paper.problem_cells(problem.pk):
            if cell.status == CellStatus.OPEN:
                criterion = cell.criterion
                rows.append((paper, criterion, labels.get(paper.paper_id, "")))
    if order == Order.CRITERION:
        rows.sort(key=lambda r: (r[1].order, r[1].code, r[2]))
    elif order == Order.STRADDLE:
        rows.sort(key=lambda r: (not r[0].straddle, r[2], r[1].order, r[1].code))
    else:
        rows.sort(key=lambda r: (r[2], r[1].order, r[1].code))
    return [[paper.paper_id, criterion.pk] for paper, criterion, _ in rows]


def session_start(*, problem, actor, order: str = Order.PAPER) -> DiscussionSession:
    """A session on `problem`'s open cells, its starter in it; refused while another runs."""
    access.require(
        access.may_join_session(actor, problem),
        MEMBERS_ONLY,
    )
    _refuse_unless_resolving(problem.contest)
    running = live_session(problem)
    if running is not None:
        raise Refusal(_running(running))
    cells = open_cells(problem, order)
    if not cells:
        raise Refusal(f"{problem.code} has no open cell to discuss.")
    try:
        with transaction.atomic():
            session = DiscussionSession.objects.create(
                problem=problem, started_by=actor, order=order, cells=cells
            )
            SessionMember.objects.create(session=session, user=actor)
    except IntegrityError:
        # Another member started one in the same moment: theirs is the problem's session.
        raise Refusal(_running(live_session(problem))) from None
    _notify_started(session, actor)
    return session


def _notify_started(session: DiscussionSession, actor) -> None:
    """The group's jurors who may join (their sheet is in) and the chair hear of it."""
    problem = session.problem
    jurors = Sheet.objects.submitted().filter(problem=problem).values_list("juror_id", flat=True)
    chairs = get_user_model().objects.filter(groups__name=roles.CHAIR, is_active=True)
    write_notices(
        (set(jurors) | set(chairs.values_list("pk", flat=True))) - {actor.pk},
        kind=Notification.Kind.SESSION_STARTED,
        contest=problem.contest,
        problem=problem,
        sentence=(
            f"{actor.username} started a discussion session on {problem.code}: join it to walk "
            f"its {len(session.cells)} open cells with the group."
        ),
    )


def _running(session) -> str:
    when = timezone.localtime(session.started_at).strftime("%H:%M")
    return (
        f"A discussion session on {session.problem.code} is already running, started at "
        f"{when}: join it rather than start a second."
    )


def session_join(*, session: DiscussionSession, actor) -> SessionMember:
    """Into the session (again, after leaving it)."""
    access.require(
        access.may_join_session(actor, session.problem),
        MEMBERS_ONLY,
    )
    _refuse_if_over(session)
    member, created = SessionMember.objects.get_or_create(session=session, user=actor)
    if not created and member.left_at is not None:
        member.left_at = None
        member.save(update_fields=["left_at"])
    return member


def session_leave(*, session: DiscussionSession, actor) -> None:
    SessionMember.objects.filter(session=session, user=actor, left_at__isnull=True).update(
        left_at=timezone.now()
    )


def present(session: DiscussionSession) -> list[int]:
    """The ids of the people in the session now."""
    return list(
        session.members.filter(left_at__isnull=True)
        .order_by("user__username")
        .values_list("user_id", flat=True)
    )


def _refuse_if_over(session: DiscussionSession) -> None:
    if session.ended_at is not None:
        raise WrongState("This discussion session has ended.")
    contest = session.problem.contest
    contest.refresh_from_db(fields=["state"])
    if contest.state != Contest.State.RESOLUTION:
        raise WrongState(f"The resolution phase of {contest.name} is over: the session has ended.")


def _member(session: DiscussionSession, actor) -> None:
    """A member still in the session, who may still join it: a role taken away or the group
    left since joining ends what they may do here, as it ends their comparison."""
    _refuse_if_over(session)
    access.require(access.may_join_session(actor, session.problem), MEMBERS_ONLY)
    if not session.members.filter(user=actor, left_at__isnull=True).exists():
        raise NotAllowed("Join the session first.")


@dataclass
class CurrentCell:
    paper_id: int
    criterion: Criterion
    label: str
    status: CellStatus
    points: Decimal


def current_cell(session: DiscussionSession) -> CurrentCell | None:
    """The cell the session is at, settled as it stands now."""
    if session.current is None:
        return None
    paper_id, criterion_id = session.current
    criterion = Criterion.objects.select_related("problem").get(pk=criterion_id)
    marks = [
        m
        for m in counted_marks()
        .filter(paper_id=paper_id, criterion=criterion)
        .values_list("points", flat=True)
        if m is not None
    ]
    resolution = (
        Resolution.objects.filter(paper_id=paper_id, criterion=criterion)
        .values_list("kind", "points", "reason")
        .first()
    )
    cell = settle_cell(
        paper_id=paper_id,
        criterion=criterion,
        marks=marks,
        expected=Assignment.objects.filter(paper_id=paper_id, problem=criterion.problem).count(),
        resolution=resolution,
    )
    label = (
        PaperLabel.objects.filter(paper_id=paper_id, problem=criterion.problem)
        .values_list("label", flat=True)
        .first()
        or "?"
    )
    return CurrentCell(paper_id, criterion, label, cell.status, cell.points)


def _record(session, cell: CurrentCell, *, kind, actor, points=None, reason="") -> SessionOutcome:
    outcome = SessionOutcome.objects.create(
        session=session,
        paper_id=cell.paper_id,
        criterion=cell.criterion,
        kind=kind,
        points=points,
        reason=reason,
        recorded_by=actor,
    )
    outcome.present.set(present(session))
    return outcome


def _recorded(session, cell: CurrentCell) -> bool:
    return session.outcomes.filter(paper_id=cell.paper_id, criterion=cell.criterion).exists()


def session_move(*, session: DiscussionSession, actor, position: int) -> DiscussionSession:
    """The session to the cell at `position` (0 first). The cell left is recorded as it
    stands when nothing was recorded for it: agreed, decided by the chair, or left open."""
    _member(session, actor)
    if not 0 <= position < len(session.cells):
        raise Refusal(
            f"The session has {len(session.cells)} cells: there is no cell {position + 1}."
        )
    with transaction.atomic():
        held = DiscussionSession.objects.select_for_update().get(pk=session.pk)
        cell = current_cell(held)
        if cell is not None and not _recorded(held, cell):
            if cell.status in (CellStatus.AGREED, CellStatus.CONSENSUS):
                _record(held, cell, kind=Kind.AGREED, actor=actor, points=cell.points)
            elif cell.status in (CellStatus.CHAIR, CellStatus.APPEAL):
                _record(held, cell, kind=Kind.DECIDED, actor=actor, points=cell.points)
            else:
                _record(held, cell, kind=Kind.LEFT_OPEN, actor=actor)
        held.position = position
        held.save(update_fields=["position"])
    session.position = position
    return session


def _open_now(session, cell: CurrentCell | None) -> CurrentCell:
    if cell is None:
        raise Refusal("The session has walked all its cells.")
    if cell.status in (CellStatus.CHAIR, CellStatus.APPEAL):
        raise DecidedByChair(
            f"The chair decided {cell.label} {cell.criterion.code} meanwhile "
            f"({points_text(cell.points)}): the group moves on."
        )
    if cell.status != CellStatus.OPEN:
        raise Stale(
            f"{cell.label} {cell.criterion.code} is {cell.status.label.lower()} already: "
            "the group moves on."
        )
    return cell


def session_agree_value(
    *, session: DiscussionSession, actor, points: Decimal, reason: str
) -> SessionOutcome:
    """The group's agreed value for the current cell, with its reason and who was present;
    each of the cell's jurors then takes it as their mark (`session_take_value`)."""
    _member(session, actor)
    cell = _open_now(session, current_cell(session))
    reason = (reason or "").strip()
    if not reason:
        raise Refusal("Give the reason for the agreed value: the record needs it.")
    validate_points(points, cell.criterion)
    return _record(session, cell, kind=Kind.VALUE, actor=actor, points=points, reason=reason)


def agreed_value(session: DiscussionSession, cell: CurrentCell | None) -> SessionOutcome | None:
    if cell is None:
        return None
    return (
        session.outcomes.filter(paper_id=cell.paper_id, criterion=cell.criterion, kind=Kind.VALUE)
        .order_by("-created_at", "-id")
        .first()
    )


def session_take_value(*, session: DiscussionSession, actor) -> Mark:
    """The actor's own mark of the current cell revised to the group's agreed value, through
    the revision's own door (`mark_revise`): the cell closes as agreed once every juror's
    mark is in tolerance."""
    _member(session, actor)
    cell = current_cell(session)
    agreed = agreed_value(session, cell)
    if agreed is None:
        raise Refusal("The group has recorded no agreed value for this cell.")
    mark = (
        counted_marks()
        .filter(paper_id=cell.paper_id, criterion=cell.criterion, sheet__juror=actor)
        .first()
    )
    if mark is None:
        raise NotAllowed("You have no mark in this cell: its jurors take the agreed value.")
    return mark_revise(mark=mark, points=agreed.points, actor=actor)


def session_to_chair(*, session: DiscussionSession, actor, reason: str) -> SessionOutcome:
    """The current cell sent to the chair, with the group's reason (a comment on the cell,
    which the chair and its jurors are told of) and who was present."""
    _member(session, actor)
    cell = _open_now(session, current_cell(session))
    reason = (reason or "").strip()
    if not reason:
        raise Refusal("Say why the group sends this cell to the chair.")
    with transaction.atomic():
        comment_add(
            paper=Paper.objects.get(pk=cell.paper_id),
            criterion=cell.criterion,
            author=actor,
            text=f"Sent to the chair by the discussion session: {reason}",
        )
        return _record(session, cell, kind=Kind.CHAIR, actor=actor, reason=reason)


def session_end(*, session: DiscussionSession, actor) -> None:
    """The session over (its starter, a member or the chair); its record stays."""
    access.require(
        access.is_chair(actor) or session.members.filter(user=actor).exists(),
        "Only the session's members and the chair end it.",
    )
    DiscussionSession.objects.filter(pk=session.pk, ended_at__isnull=True).update(
        ended_at=timezone.now()
    )
