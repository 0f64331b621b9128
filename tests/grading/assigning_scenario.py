"""The facts issue 22 added, on a contest with appeals (`appeals_scenario`), made directly with
the ORM for the backup and admin tests: a working language other than English, the contestants'
answer languages, a delegation's country, the jurors' countries, capacities, availability and
reading languages, a language specialist, two papers moved in the same instant and two
questions for language help (one answered, one only asked)."""

from datetime import UTC, datetime, timedelta

from django.contrib.auth.models import User

from grading.models import (
    AssignmentMove,
    Delegation,
    HelpRequest,
    JurorLanguage,
    JurorProfile,
    Paper,
)
from grading.rules import roles
from rubrics.models import Contest
from tests.factories import make_user
from tests.grading.appeals_scenario import contest_with_appeals

MOVED = datetime(2026, 7, 22, 14, 30, tzinfo=UTC)


def contest_with_assignment_facts(
    contest: Contest,
    *,
    juror: User,
    other_juror: User,
    chair: User,
    specialist: str = "sami",
    state: str = Contest.State.PROVISIONAL,
) -> Contest:
    """`contest` with appeals, and: Spanish as its working language; Orca answered in
    Estonian and Heron in Finnish (Lynx, an AI paper, in none); the delegation EST of
    Estonia (FIN with no country: its code stands for it); `juror` from Latvia, at most 12
    papers a problem, unavailable since the moves, reading Estonian and Finnish with help;
    `other_juror` from Estonia, reading Finnish; a specialist (`specialist`) reading
    Estonian. Problem 2's Orca and Heron moved from `juror` to `other_juror` by `chair`;
    `juror` asked for help on Orca (answered by the specialist) and on Heron (not assigned).
    `state`: the contest's state afterwards, as for `contest_with_appeals`."""
    contest_with_appeals(contest, juror=juror, other_juror=other_juror, chair=chair, state=state)
    Contest.objects.filter(pk=contest.pk).update(working_language="Spanish")
    contest.refresh_from_db()
    orca, heron = (
        Paper.objects.get(contest=contest, identity=name) for name in ("Team Orca", "Team Heron")
    )
    Paper.objects.filter(pk=orca.pk).update(answer_language="Estonian")
    Paper.objects.filter(pk=heron.pk).update(answer_language="Finnish")
    Delegation.objects.filter(contest=contest, code="EST").update(country="Estonia")
    helper = make_user(specialist, roles.SPECIALIST, first_name="Sami", last_name="Saar")
    JurorProfile.objects.create(user=juror, country="Latvia", capacity=12, unavailable_since=MOVED)
    JurorProfile.objects.create(user=other_juror, country="Estonia")
    for user, language, level in (
        (juror, "Estonian", JurorLanguage.Level.READS),
        (juror, "Finnish", JurorLanguage.Level.WITH_HELP),
        (other_juror, "Finnish", JurorLanguage.Level.READS),
        (helper, "Estonian", JurorLanguage.Level.READS),
    ):
        JurorLanguage.objects.create(user=user, language=language, level=level)
    p2 = contest.problems.get(number=2)
    for paper in (heron, orca):
        move = AssignmentMove.objects.create(
            paper=paper,
            problem=p2,
            from_juror=juror,
            to_juror=other_juror,
            actor=chair,
            reason="Alice fell ill.",
        )
        # auto_now_add sets the time; both moves in the same instant make the tie.
        AssignmentMove.objects.filter(pk=move.pk).update(at=MOVED)
    answered = HelpRequest.objects.create(
        paper=orca,
        problem=p2,
        asked_by=juror,
        question="Is *-ri* in item 2 a plural?",
        helper=helper,
        assigned_by=chair,
        assigned_at=MOVED - timedelta(hours=2),
        answer="Yes: *-ri* marks the plural of animate nouns.",
        answered_at=MOVED - timedelta(hours=1),
    )
    asked = HelpRequest.objects.create(
        paper=heron, problem=p2, asked_by=juror, question="What does *vamu* mean here?"
    )
    for request, hours in ((answered, 3), (asked, 0.5)):
        HelpRequest.objects.filter(pk=request.pk).update(asked_at=MOVED - timedelta(hours=hours))
    return contest
