"""The appeals evening's services: the organizer sets its slots and tables, has a timetable
proposed (`evening_plan.propose`), moves a meeting, and publishes it to the team leaders and the
jurors it seats (their inbox). A meeting is a delegation's live appeals (filed, not withdrawn)
on one problem; who may sit at its table is the conflicts rule's (`grading.rules.conflicts`:
never a leader of the delegation, a juror from its country or one with a conflict declared with
it or with a contestant whose appeal it hears).

Every change is checked against the evening's rules (`evening_plan.breaches`) before it is
written, in one transaction; a refusal names what it breaks."""

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from grading.appeals import evening_plan
from grading.models import (
    Appeal,
    AppealEvening,
    AppealMeeting,
    AppealTables,
    DeclaredConflict,
    Delegation,
    GradingGroup,
    JurorProfile,
    Notification,
    PaperLabel,
)
from grading.resolution.inbox import write_notices
from grading.rules.conflicts import contestant_conflict
from grading.rules.refusals import ContestFinal, Refusal
from rubrics.models import Contest


@dataclass
class EveningFacts:
    """The evening as the solver reads it (`plan`), with the rows it was read from."""

    plan: evening_plan.Evening
    delegations: dict[int, Delegation]
    problems: dict[int, object]
    # (delegation id, problem id) → the appeals the meeting hears.
    appeals: dict[tuple[int, int], list[Appeal]]


def _refuse_if_final(contest: Contest) -> None:
    if contest.state == Contest.State.FINAL:
        raise ContestFinal(
            "The contest is final: its appeals evening no longer changes. An organizer may "
            "reopen the contest first."
        )


def evening_set(
    contest: Contest, *, starts_at, slot_minutes: int, slots: int, tables: dict[int, int]
) -> AppealEvening:
    """The evening's first slot, slots' length and number, and each problem's tables (by
    problem id), written at once. A timetable already made keeps its meetings; where the new
    slots or tables no longer hold it, the page says so (`timetable_breaches`)."""
    _refuse_if_final(contest)
    problems = set(contest.problems.values_list("pk", flat=True))
    with transaction.atomic():
        evening, _ = AppealEvening.objects.update_or_create(
            contest=contest,
            defaults={"starts_at": starts_at, "slot_minutes": slot_minutes, "slots": slots},
        )
        for problem_id, count in tables.items():
            if problem_id in problems:
                AppealTables.objects.update_or_create(
                    evening=evening, problem_id=problem_id, defaults={"tables": count}
                )
    return evening


def evening_facts(evening: AppealEvening) -> EveningFacts:
    """The meetings the contest's live appeals call for, the people who lead each delegation,
    each problem's group and tables, and who a conflict keeps from each table. Nine queries."""
    contest = evening.contest
    appeals: dict[tuple[int, int], list[Appeal]] = defaultdict(list)
    for appeal in (
        Appeal.objects.filter(paper__contest=contest, paper__delegation__isnull=False)
        .exclude(state=Appeal.State.WITHDRAWN)
        .select_related("paper", "problem")
        .order_by("problem__number", "paper__public_code")
    ):
        appeals[appeal.paper.delegation_id, appeal.problem_id].append(appeal)
    delegations = {d.pk: d for d in Delegation.objects.filter(contest=contest)}
    leaders: dict[int, set[int]] = defaultdict(set)
    for delegation_id, user_id in Delegation.leaders.through.objects.filter(
        delegation__contest=contest
    ).values_list("delegation_id", "user_id"):
        leaders[delegation_id].add(user_id)
    problems = {p.pk: p for p in contest.problems.order_by("number")}
    active = get_user_model().objects.filter(is_active=True)
    jurors: dict[int, set[int]] = defaultdict(set)
    for problem_id, user_id in GradingGroup.jurors.through.objects.filter(
        gradinggroup__problem__contest=contest, user__in=active
    ).values_list("gradinggroup__problem_id", "user_id"):
        jurors[problem_id].add(user_id)
    members = set().union(*jurors.values())
    countries = dict(
        JurorProfile.objects.filter(user__in=members).values_list("user_id", "country")
    )
    declared_delegations, declared_papers = {}, {}
    for juror_id, delegation_id, paper_id, reason in DeclaredConflict.objects.filter(
        Q(delegation__contest=contest) | Q(paper__contest=contest), juror__in=members
    ).values_list("juror_id", "delegation_id", "paper_id", "reason"):
        if delegation_id is not None:
            declared_delegations[juror_id, delegation_id] = reason
        else:
            declared_papers[juror_id, paper_id] = reason
    tables = dict(AppealTables.objects.filter(evening=evening).values_list("problem_id", "tables"))
    names = dict(
        active.filter(pk__in=members | set().union(*leaders.values())).values_list("pk", "username")
    )

    def kept_out(delegation_id: int, problem_id: int) -> frozenset[int]:
        delegation = delegations[delegation_id]
        return frozenset(
            juror
            for juror in jurors[problem_id]
            for appeal in appeals[delegation_id, problem_id]
            if contestant_conflict(
                leads=juror in leaders[delegation_id],
                juror_country=countries.get(juror, ""),
                delegation=delegation,
                declared_reason=declared_delegations.get((juror, delegation_id)),
                declared_on_paper=declared_papers.get((juror, appeal.paper_id)),
            )
        )

    meetings = tuple(
        evening_plan.Meeting(
            key=key,
            leaders=frozenset(leaders[key[0]]),
            group=key[1],
            kept_out=kept_out(*key),
        )
        for key in sorted(appeals, key=lambda k: (problems[k[1]].number, delegations[k[0]].code))
    )
    plan = evening_plan.Evening(
        meetings=meetings,
        slots=evening.slots,
        jurors={problem_id: frozenset(ids) for problem_id, ids in jurors.items()},
        tables=tables,
        meeting_names={
            key: f"{delegations[key[0]].code} on {problems[key[1]].code}" for key in appeals
        },
        group_names={pk: f"{problem.code}'s group" for pk, problem in problems.items()},
        person_names=names,
    )
    return EveningFacts(plan=plan, delegations=delegations, problems=problems, appeals=appeals)


def timetable_of(evening: AppealEvening) -> dict[tuple[int, int], int]:
    """The stored timetable: (delegation id, problem id) → slot. One query."""
    return {
        (delegation_id, problem_id): slot
        for delegation_id, problem_id, slot in evening.meetings.values_list(
            "delegation_id", "problem_id", "slot"
        )
    }


def timetable_breaches(evening: AppealEvening, facts: EveningFacts | None = None) -> list[str]:
    """How the stored timetable breaks the evening's rules now (an appeal filed or withdrawn
    since, a leader added, fewer slots or tables): sentences, none when it holds."""
    facts = facts or evening_facts(evening)
    slot_of = timetable_of(evening)
    sentences = evening_plan.breaches(facts.plan, slot_of)
    wanted = {meeting.key for meeting in facts.plan.meetings}
    for key in sorted(set(slot_of) - wanted):
        delegation, problem = facts.delegations.get(key[0]), facts.problems.get(key[1])
        sentences.append(
            f"{delegation.code if delegation else '?'} on {problem.code if problem else '?'} "
            "has no live appeal left: propose the timetable again to drop it."
        )
    return sentences


def seating(facts: EveningFacts, slot_of: dict) -> dict[tuple[int, int], list[int]]:
    """Who sits at each meeting's table (meeting key → juror ids) in the timetable `slot_of`,
    as the rules allow now (`evening_plan.seat_jurors`); a meeting no juror may sit at has
    none (`timetable_breaches` says so)."""
    seated = {}
    for slot in set(slot_of.values()):
        here = [m for m in facts.plan.meetings if slot_of.get(m.key) == slot]
        busy = {person for m in here for person in m.leaders}
        seated.update(evening_plan.seat_jurors(facts.plan, here, busy=busy) or {})
    return seated


def _write_timetable(evening: AppealEvening, slot_of: dict) -> None:
    """The meetings of `slot_of`, replacing the evening's, unpublished (inside the caller's
    transaction): the people it seats hear of it when it is published again."""
    evening.meetings.all().delete()
    AppealMeeting.objects.bulk_create(
        AppealMeeting(evening=evening, delegation_id=key[0], problem_id=key[1], slot=slot)
        for key, slot in sorted(slot_of.items())
    )
    AppealEvening.objects.filter(pk=evening.pk).update(published_at=None)
    evening.published_at = None


def evening_propose(evening: AppealEvening) -> evening_plan.Proposal:
    """A timetable for the live appeals, written over the evening's (which goes back to
    unpublished: the people it seats hear of it when it is published again); refused with
    the solver's sentence when none keeps the rules."""
    _refuse_if_final(evening.contest)
    facts = evening_facts(evening)
    if not facts.plan.meetings:
        raise Refusal("No team leader has a live appeal: there is no meeting to place.")
    proposal = evening_plan.propose(facts.plan)
    if not proposal.found:
        raise Refusal(proposal.sentence)
    with transaction.atomic():
        _write_timetable(evening, proposal.slot_of)
    return proposal


def meeting_move(meeting: AppealMeeting, *, slot: int) -> None:
    """The meeting to `slot` (0 first), unpublished again; refused, with what it would break,
    unless the whole timetable still keeps the rules. Only its row changes: the other meetings
    keep theirs (and a page open on them its address); the tables are seated on reading."""
    evening = meeting.evening
    _refuse_if_final(evening.contest)
    facts = evening_facts(evening)
    slot_of = timetable_of(evening)
    slot_of[meeting.delegation_id, meeting.problem_id] = slot
    sentences = evening_plan.breaches(facts.plan, slot_of)
    if sentences:
        raise Refusal(sentences)
    with transaction.atomic():
        AppealMeeting.objects.filter(pk=meeting.pk).update(slot=slot)
        AppealEvening.objects.filter(pk=evening.pk).update(published_at=None)
    meeting.slot, evening.published_at = slot, None


def evening_publish(evening: AppealEvening) -> list[Notification]:
    """The timetable to the people it seats: each team leader their delegation's meetings
    (when, which problem), each seated juror their tables (when, which problem, the papers by
    their label; never a delegation or a leader's name). Refused while it breaks a rule."""
    _refuse_if_final(evening.contest)
    facts = evening_facts(evening)
    sentences = timetable_breaches(evening, facts)
    if not evening.meetings.exists():
        sentences.insert(0, "There is no timetable yet: propose one first.")
    if sentences:
        raise Refusal(sentences)
    contest = evening.contest
    leaders_of = {meeting.key: meeting.leaders for meeting in facts.plan.meetings}
    seated = seating(facts, timetable_of(evening))
    leaders: dict[int, list[str]] = defaultdict(list)
    jurors: dict[int, list[str]] = defaultdict(list)
    for meeting in evening.meetings.select_related("problem", "evening"):
        key = meeting.delegation_id, meeting.problem_id
        when = f"{meeting.problem.code} at {_clock(meeting.starts_at)}"
        for person in leaders_of[key]:
            leaders[person].append(when)
        for juror in seated.get(key, ()):
            jurors[juror].append(when)
    with transaction.atomic():
        AppealEvening.objects.filter(pk=evening.pk).update(published_at=timezone.now())
        notices = []
        for person, times in sorted(leaders.items()):
            notices += write_notices(
                [person],
                kind=Notification.Kind.APPEAL_MEETING,
                contest=contest,
                sentence=_sentence("Your meetings on the appeals evening", times),
            )
        for juror, times in sorted(jurors.items()):
            notices += write_notices(
                [juror],
                kind=Notification.Kind.APPEAL_MEETING,
                contest=contest,
                sentence=_sentence("Your tables on the appeals evening", times),
            )
    evening.refresh_from_db(fields=["published_at"])
    return notices


def _clock(moment) -> str:
    """A slot's start as the inbox's sentence gives it, in the site's time zone."""
    return timezone.localtime(moment).strftime("%d %b %H:%M")


def _sentence(opening: str, times: list[str]) -> str:
    sentence = f"{opening}: {', '.join(times)}."
    return sentence if len(sentence) <= 500 else sentence[:499] + "…"


@dataclass
class DueMeeting:
    """A meeting of the published timetable as one person is due at it: as a leader of its
    delegation (its contestants by their codes) or at its table as a juror (the papers by
    their labels in the problem, as jurors know them; never the delegation)."""

    starts_at: object
    problem: object
    as_leader: bool
    papers: list[str]
    meeting_id: int


def meetings_due(user, contest: Contest) -> list[DueMeeting]:
    """The published timetable's meetings `user` is due at, by time; none while it is not
    published. A person who leads a delegation and sits in a group has both kinds."""
    evening = (
        AppealEvening.objects.filter(contest=contest, published_at__isnull=False)
        .select_related("contest")
        .first()
    )
    if evening is None or not user.is_authenticated:
        return []
    facts = evening_facts(evening)
    seated = seating(facts, timetable_of(evening))
    leaders_of = {meeting.key: meeting.leaders for meeting in facts.plan.meetings}
    labels = {
        (paper_id, problem_id): label
        for paper_id, problem_id, label in PaperLabel.objects.filter(
            problem__contest=contest
        ).values_list("paper_id", "problem_id", "label")
    }
    due = []
    for meeting in evening.meetings.select_related("problem", "evening"):
        key = meeting.delegation_id, meeting.problem_id
        appeals = facts.appeals.get(key, [])
        if user.pk in leaders_of.get(key, ()):
            papers = [appeal.paper.identity for appeal in appeals]
            due.append(DueMeeting(meeting.starts_at, meeting.problem, True, papers, meeting.pk))
        if user.pk in seated.get(key, ()):
            papers = [labels.get((appeal.paper_id, appeal.problem_id), "?") for appeal in appeals]
            due.append(
                DueMeeting(meeting.starts_at, meeting.problem, False, sorted(papers), meeting.pk)
            )
    return sorted(due, key=lambda m: (m.starts_at, m.problem.number))
