"""A contest at provisional results with everything issue 21 added, made directly with the ORM
for the backup and admin tests: two delegations (one with two leaders, one of them a juror too,
whose marks given before leading it the chair kept), a paper
of each, an AI paper in none, provisional results, a deadline set and extended, and an appeal
in each state (open, withdrawn then filed again and decided upheld, partly upheld, rejected)
with its criteria and events."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from grading.models import (
    Appeal,
    AppealCriterion,
    AppealDeadlineChange,
    AppealEvent,
    ConflictRuling,
    Mark,
    Paper,
    ProvisionalResult,
)
from rubrics.models import Contest, Criterion
from tests.factories import make_delegation, make_user

PUBLISHED = datetime(2026, 7, 24, 18, 0, tzinfo=UTC)


def _at(hours: float) -> datetime:
    return PUBLISHED + timedelta(hours=hours)


def _appeal(paper, problem, leader, *, filed: float, criteria: dict, **decision) -> Appeal:
    appeal = Appeal.objects.create(
        paper=paper,
        problem=problem,
        filed_by=leader,
        argument=f"Item 2 of {paper.identity}.",
        **decision,
    )
    # auto_now_add sets the filing time on create; the test's own times make ties and order.
    Appeal.objects.filter(pk=appeal.pk).update(filed_at=_at(filed))
    for code, (before, after) in criteria.items():
        AppealCriterion.objects.create(
            appeal=appeal,
            criterion=Criterion.objects.get(problem=problem, code=code),
            points_before=Decimal(before),
            points_after=None if after is None else Decimal(after),
        )
    return appeal


def _events(appeal: Appeal, *steps) -> None:
    for hours, actor, kind, text in steps:
        event = AppealEvent.objects.create(appeal=appeal, actor=actor, kind=kind, text=text)
        AppealEvent.objects.filter(pk=event.pk).update(created_at=_at(hours))


def contest_with_appeals(
    contest: Contest,
    *,
    juror,
    other_juror,
    chair,
    leaders: tuple[str, str] = ("ada", "bea"),
    state: str = Contest.State.PROVISIONAL,
) -> Contest:
    """`contest` (with AI papers Team Orca, Team Heron and Team Lynx) at provisional results,
    Orca and Heron made contestants of two delegations with new leaders named `leaders`; Lynx
    stays an AI paper. `state`: the contest's state afterwards (final: as if it had been
    finalized after its appeals)."""
    orca, heron = (
        Paper.objects.get(contest=contest, identity=name) for name in ("Team Orca", "Team Heron")
    )
    ada, bea = (make_user(name) for name in leaders)
    make_delegation(contest, "EST", papers=[orca], leaders=[ada, other_juror])
    make_delegation(contest, "FIN", papers=[heron], leaders=[bea])
    # `other_juror` graded Orca before leading EST: the chair kept those marks, which would
    # otherwise be held (counted for no cell) as marks given in conflict.
    for problem_id in set(
        Mark.objects.filter(sheet__juror=other_juror, paper=orca).values_list(
            "sheet__problem_id", flat=True
        )
    ):
        ConflictRuling.objects.create(
            problem_id=problem_id,
            paper=orca,
            juror=other_juror,
            kept=True,
            reason="Graded before leading EST.",
            decided_by=chair,
        )
    deadline = _at(24)
    contest.state = state
    contest.appeals_deadline = deadline + timedelta(hours=6)
    contest.save(update_fields=["state", "appeals_deadline"])
    for hours, old, new, reason in (
        (0, None, deadline, ""),
        (20, deadline, contest.appeals_deadline, "The scans of P2 came late."),
    ):
        change = AppealDeadlineChange.objects.create(
            contest=contest, actor=chair, old_deadline=old, new_deadline=new, reason=reason
        )
        AppealDeadlineChange.objects.filter(pk=change.pk).update(created_at=_at(hours))
    for rank, paper, total, medal in (
        (1, orca, "30.5", "honourable mention"),
        (2, heron, "28", ""),
        (None, Paper.objects.get(contest=contest, identity="Team Lynx"), "12.25", ""),
    ):
        ProvisionalResult.objects.create(
            paper=paper, total=Decimal(total), rank=rank, medal=medal, published_at=PUBLISHED
        )
    p1, p2 = contest.problems.get(number=1), contest.problems.get(number=2)
    withdrawn = _appeal(
        orca,
        p1,
        ada,
        filed=1,
        criteria={"A1": ("10", None)},
        state=Appeal.State.WITHDRAWN,
        withdrawn_at=_at(2),
    )
    _events(withdrawn, (1, ada, "filed", ""), (2, ada, "withdrawn", ""))
    upheld = _appeal(
        orca,
        p1,
        ada,
        filed=3,
        criteria={"A1": ("10", "11.5"), "T1": ("6", "7")},
        state=Appeal.State.DECIDED,
        outcome=Appeal.Outcome.UPHELD,
        reason="Both items keep the plural.",
        decided_by=juror,
        decided_at=_at(8),
    )
    _events(
        upheld,
        (3, ada, "filed", ""),
        (5, juror, "comment", "The suffix is right."),
        (5, chair, "comment", "Agreed."),
        (6, chair, "question", "Which item keeps the plural?"),
        (7, ada, "answer", "Both items 1 and 2."),
        (8, juror, "decided", "Both items keep the plural."),
    )
    partly = _appeal(
        heron,
        p1,
        bea,
        filed=4,
        criteria={"A1": ("10", "10"), "T1": ("5", "6")},
        state=Appeal.State.DECIDED,
        outcome=Appeal.Outcome.PARTLY,
        reason="The rule is found; item 1 stays wrong.",
        decided_by=chair,
        decided_at=_at(9),
    )
    _events(partly, (4, bea, "filed", ""), (9, chair, "decided", "The rule is found."))
    rejected = _appeal(
        heron,
        p2,
        bea,
        filed=4,
        criteria={"T1": ("0", "0")},
        state=Appeal.State.DECIDED,
        outcome=Appeal.Outcome.REJECTED,
        reason="No rule is stated.",
        decided_by=juror,
        decided_at=_at(10),
    )
    _events(rejected, (4, bea, "filed", ""), (10, juror, "decided", "No rule is stated."))
    still_open = _appeal(orca, p2, ada, filed=12, criteria={"T1": ("4", None)})
    _events(still_open, (12, None, "filed", "Filed on the leader's behalf."))
    return contest
