"""The room's rows for the backup tests, written directly so that every field holds something
other than its default: an appeals evening (published) with each problem's tables and three
meetings of the contest's delegations, and two discussion sessions on problem 1 (one ended, one
running) with their members and outcomes, each outcome with its own set of people present. A
cell names a paper deleted since, as a session's cells may."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from grading.models import (
    AppealEvening,
    AppealMeeting,
    AppealTables,
    DiscussionSession,
    SessionMember,
    SessionOutcome,
)
from rubrics.models import Contest, Criterion
from tests.factories import make_delegation

EVENING = datetime(2026, 7, 26, 18, 0, tzinfo=UTC)
# Past any paper's id in a test database: a paper deleted since the session started.
GONE = 10**9


def at(minutes: int) -> datetime:
    return EVENING - timedelta(days=1) + timedelta(minutes=minutes)


def add_room(contest: Contest, people: list) -> dict:
    """The evening and the sessions of `contest` (problems 1 and 2, criteria A1 and T1; its
    delegations, or EST and LAT made without papers), `people` three users of its problem 1's
    group (the first starts the sessions). What was written, by name."""
    delegations = list(contest.delegations.order_by("code")[:2])
    if not delegations:
        delegations = [make_delegation(contest, code) for code in ("EST", "LAT")]
    problems = {problem.number: problem for problem in contest.problems.all()}
    evening = AppealEvening.objects.create(
        contest=contest, starts_at=EVENING, slot_minutes=15, slots=6, published_at=at(30)
    )
    for number, problem in problems.items():
        AppealTables.objects.create(evening=evening, problem=problem, tables=number + 1)
    for slot, number, delegation in ((0, 1, 0), (1, 1, 1), (2, 2, 0)):
        AppealMeeting.objects.create(
            evening=evening, delegation=delegations[delegation], problem=problems[number], slot=slot
        )
    return {"evening": evening, "sessions": _sessions(contest, problems[1], people)}


def _sessions(contest: Contest, problem, people: list) -> list[DiscussionSession]:
    first, second, third = people
    papers = list(contest.papers.order_by("identity"))
    a1, t1 = (problem.criteria.get(code=code) for code in ("A1", "T1"))
    cells = [[paper.pk, criterion.pk] for paper in papers for criterion in (a1, t1)]
    ended = DiscussionSession.objects.create(
        problem=problem,
        started_by=first,
        order=DiscussionSession.Order.CRITERION,
        cells=[*cells, [GONE, a1.pk]],
        position=3,
        ended_at=at(90),
    )
    running = DiscussionSession.objects.create(
        problem=problem, started_by=second, cells=cells[:2], position=1
    )
    DiscussionSession.objects.filter(pk=ended.pk).update(started_at=at(0))
    DiscussionSession.objects.filter(pk=running.pk).update(started_at=at(100))
    for session, members in ((ended, people), (running, [second, first])):
        for minutes, user in enumerate(members):
            member = SessionMember.objects.create(
                session=session, user=user, left_at=at(80) if user == third else None
            )
            SessionMember.objects.filter(pk=member.pk).update(joined_at=at(minutes + 1))
    Kind = SessionOutcome.Kind
    for minutes, (session, paper, criterion, kind, points, reason, recorder, present) in enumerate(
        (
            (ended, papers[0], a1, Kind.AGREED, "10", "", first, people),
            (
                ended,
                papers[0],
                t1,
                Kind.VALUE,
                "4.5",
                "The gloss is half right.",
                second,
                people[:2],
            ),
            (ended, papers[1], a1, Kind.CHAIR, None, "We cannot agree.", third, [second, third]),
            (ended, papers[1], t1, Kind.LEFT_OPEN, None, "", first, [first]),
            (running, papers[2], a1, Kind.DECIDED, "6", "", second, []),
        ),
        start=10,
    ):
        outcome = SessionOutcome.objects.create(
            session=session,
            paper=paper,
            criterion=criterion,
            kind=kind,
            points=None if points is None else Decimal(points),
            reason=reason,
            recorded_by=recorder,
        )
        outcome.present.set(present)
        SessionOutcome.objects.filter(pk=outcome.pk).update(created_at=at(minutes))
    return [ended, running]


def room_state(contest: Contest) -> dict:
    """Every field of the room's rows, by natural key, for comparing a contest with its
    restored copy; the sessions by their start."""
    evening = AppealEvening.objects.get(contest=contest)
    identity = dict(contest.papers.values_list("pk", "identity"))
    code = dict(Criterion.objects.filter(problem__contest=contest).values_list("pk", "code"))
    return {
        "evening": {
            "starts_at": evening.starts_at,
            "slot_minutes": evening.slot_minutes,
            "slots": evening.slots,
            "published_at": evening.published_at,
        },
        "tables": sorted(evening.tables.values_list("problem__number", "tables")),
        "meetings": sorted(
            evening.meetings.values_list("slot", "problem__number", "delegation__code")
        ),
        "sessions": [
            {
                "problem": session.problem.number,
                "started_by": session.started_by.username,
                "order": session.order,
                "cells": [[identity.get(p), code.get(c)] for p, c in session.cells],
                "position": session.position,
                "started_at": session.started_at,
                "ended_at": session.ended_at,
                "members": sorted(
                    (m.user.username, m.joined_at, m.left_at) for m in session.members.all()
                ),
                "outcomes": [
                    {
                        "paper": o.paper.identity,
                        "criterion": o.criterion.code,
                        "kind": o.kind,
                        "points": o.points,
                        "reason": o.reason,
                        "recorded_by": o.recorded_by.username,
                        "present": sorted(u.username for u in o.present.all()),
                        "created_at": o.created_at,
                    }
                    for o in session.outcomes.order_by("created_at")
                ],
            }
            for session in DiscussionSession.objects.filter(problem__contest=contest).order_by(
                "started_at"
            )
        ],
    }
