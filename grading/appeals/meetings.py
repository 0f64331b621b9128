"""The appeals evening at the table: a meeting's page as each person at it reads it, and the
leader's acknowledgement of each decision (the record of a delegation's meetings, printed, is
`meeting_record`'s).

The group's jurors and the chair read the meeting as the jury reads appeals (papers by their
label, the leader as "the team leader", never a delegation's code); its delegation's leaders
read their contestants by code and the jury as "the jury". The group decides each appeal on the
appeal's own page, through `appeals.appeal_decide` (the one door for a decision); the leader
then acknowledges it here, which is recorded as the appeal's event, as a signature on
exam_tools' printed form is."""

from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.db.models import Max, Q
from django.urls import reverse

from grading.appeals.evening import evening_facts, seating, timetable_of
from grading.models import Appeal, AppealEvent, AppealMeeting, PaperLabel
from grading.rules import access, appeal_access, conflicts
from grading.rules.refusals import NotAllowed, WrongState

LEADER, JURY = "leader", "jury"


def meeting_role(user, meeting: AppealMeeting) -> str | None:
    """How `user` reads the meeting: as a leader of its delegation, as the jury (the chair,
    the organizer, a juror of the problem's group not in conflict with the delegation), or not
    at all (None). A juror who leads the delegation reads it as its leader. At most three
    queries."""
    if not user.is_authenticated:
        return None
    if meeting.delegation.leaders.filter(pk=user.pk).exists():
        return LEADER
    if access.is_chair(user) or access.may_run_contest(user):
        return JURY
    contest = meeting.evening.contest_id
    if access.in_group(user, meeting.problem) and meeting.delegation_id not in (
        conflicts.conflicted_delegations(user, contest=contest)
    ):
        return JURY
    return None


@dataclass
class MeetingAppeal:
    """One appeal as the meeting shows it to its reader."""

    appeal: Appeal
    name: str
    url: str
    criteria: list = field(default_factory=list)
    acknowledged_at: datetime | None = None
    may_acknowledge: bool = False


@dataclass
class MeetingView:
    meeting: AppealMeeting
    role: str
    appeals: list[MeetingAppeal]
    seated_count: int

    @property
    def as_leader(self) -> bool:
        return self.role == LEADER


def acknowledgements(appeals) -> dict[int, datetime]:
    """When each decided appeal's decision was acknowledged by a leader, by appeal id (events
    in the order written: an acknowledgement after the decision). One query."""
    rows = (
        AppealEvent.objects.filter(appeal__in=appeals)
        .values("appeal_id")
        .annotate(
            decided=Max("id", filter=Q(kind=AppealEvent.Kind.DECIDED)),
            acknowledged=Max("id", filter=Q(kind=AppealEvent.Kind.ACKNOWLEDGED)),
            acknowledged_at=Max("created_at", filter=Q(kind=AppealEvent.Kind.ACKNOWLEDGED)),
        )
    )
    return {
        row["appeal_id"]: row["acknowledged_at"]
        for row in rows
        if row["acknowledged"] and row["decided"] and row["acknowledged"] > row["decided"]
    }


def meeting_appeals(meeting: AppealMeeting):
    """The meeting's live appeals (filed, not withdrawn) with paper, problem and criteria."""
    return (
        Appeal.objects.filter(
            paper__contest=meeting.evening.contest_id,
            paper__delegation=meeting.delegation_id,
            problem=meeting.problem_id,
        )
        .exclude(state=Appeal.State.WITHDRAWN)
        .select_related("paper", "problem")
        .prefetch_related("criteria__criterion")
        .order_by("paper__public_code")
    )


def meeting_view(user, meeting: AppealMeeting) -> MeetingView | None:
    """The meeting as `user` reads it, or None for who may not (a 404)."""
    role = meeting_role(user, meeting)
    if role is None:
        return None
    appeals = list(meeting_appeals(meeting))
    acknowledged = acknowledgements(appeals)
    labels = dict(
        PaperLabel.objects.filter(
            problem=meeting.problem_id, paper__in=[a.paper_id for a in appeals]
        ).values_list("paper_id", "label")
    )
    contest = meeting.evening.contest.slug
    rows = []
    reads_all = access.may_run_contest(user)
    for appeal in appeals:
        if role == JURY and not (
            reads_all
            or appeal_access.may_handle_appeal(user, problem=appeal.problem, paper=appeal.paper)
        ):
            # A conflict declared with this one contestant keeps their appeal from the juror,
            # as on the appeal's own page.
            continue
        if role == LEADER:
            name, url = appeal.paper.identity, reverse("appeal_mine", args=[contest, appeal.pk])
        else:
            name, url = (
                labels.get(appeal.paper_id, "?"),
                reverse("appeal", args=[contest, appeal.pk]),
            )
        done = appeal.state == Appeal.State.DECIDED
        rows.append(
            MeetingAppeal(
                appeal=appeal,
                name=name,
                url=url,
                criteria=list(appeal.criteria.all()),
                acknowledged_at=acknowledged.get(appeal.pk),
                may_acknowledge=role == LEADER and done and appeal.pk not in acknowledged,
            )
        )
    facts = evening_facts(meeting.evening)
    seated = seating(facts, timetable_of(meeting.evening))
    return MeetingView(
        meeting=meeting,
        role=role,
        appeals=rows,
        seated_count=len(seated.get((meeting.delegation_id, meeting.problem_id), ())),
    )


def meeting_change_token(meeting: AppealMeeting) -> str:
    """What the meeting's page shows that others change: its slot and its appeals' steps (a
    decision, an acknowledgement, a comment). One query."""
    row = AppealEvent.objects.filter(
        appeal__paper__delegation=meeting.delegation_id, appeal__problem=meeting.problem_id
    ).aggregate(last=Max("id"))
    return f"{meeting.slot}-{row['last'] or 0}"


def appeal_acknowledge(*, appeal: Appeal, actor) -> AppealEvent:
    """A leader of the paper's delegation acknowledges the decision on the appeal, as they
    would sign it at the table: recorded as the appeal's event, once per decision (asked again,
    the first acknowledgement stands)."""
    with transaction.atomic():
        appeal = (
            Appeal.objects.select_for_update(of=("self",))
            .select_related("paper__contest", "problem")
            .get(pk=appeal.pk)
        )
        if not appeal_access.may_read_as_leader(actor, appeal.paper):
            raise NotAllowed(
                "Only a team leader of this contestant's delegation acknowledges its decision."
            )
        if appeal.state != Appeal.State.DECIDED:
            raise WrongState(
                f"The appeal on {appeal.problem.code} is not decided yet: there is nothing to "
                "acknowledge."
            )
        earlier = acknowledgements([appeal]).get(appeal.pk)
        if earlier is not None:
            return AppealEvent.objects.filter(
                appeal=appeal, kind=AppealEvent.Kind.ACKNOWLEDGED
            ).latest("created_at", "id")
        return AppealEvent.objects.create(
            appeal=appeal, actor=actor, kind=AppealEvent.Kind.ACKNOWLEDGED
        )
