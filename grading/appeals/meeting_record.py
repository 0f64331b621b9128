"""The record of a delegation's meetings at the appeals evening, one PDF per delegation (as
exam_tools' moderation form, printed and signed): for each meeting its time, problem, who was
there (the delegation's leaders by name, the jury by the number at its table: a leader never
reads a juror's name), and for each appeal the criteria before and after, the outcome, the
reason, when it was decided and whether, and when, a leader acknowledged it."""

from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils import timezone

from grading.appeals.evening import evening_facts, seating, timetable_of
from grading.appeals.meetings import acknowledgements, meeting_appeals
from grading.models import AppealEvent, AppealMeeting
from grading.printing import pdf
from grading.rules import access


def may_read_record(user, delegation) -> bool:
    """The organizer and the chair read every delegation's record; a leader their own."""
    if not user.is_authenticated:
        return False
    if access.may_run_contest(user) or access.is_chair(user):
        return True
    return delegation.leaders.filter(pk=user.pk).exists()


@dataclass
class RecordMeeting:
    meeting: AppealMeeting
    leaders: list[str]
    jurors_at_table: int
    appeals: list


def delegation_record(delegation) -> list[RecordMeeting]:
    """The delegation's meetings of its contest's published evening, by time, each with its
    appeals and who acknowledged each decision."""
    meetings = list(
        AppealMeeting.objects.filter(
            delegation=delegation, evening__published_at__isnull=False
        ).select_related("evening__contest", "problem", "delegation")
    )
    if not meetings:
        return []
    evening = meetings[0].evening
    facts = evening_facts(evening)
    seated = seating(facts, timetable_of(evening))
    leaders = sorted(
        leader.get_full_name() or leader.username for leader in delegation.leaders.all()
    )
    record = []
    for meeting in meetings:
        appeals = list(meeting_appeals(meeting))
        acknowledged = acknowledgements(appeals)
        who = dict(
            AppealEvent.objects.filter(
                appeal__in=appeals, kind=AppealEvent.Kind.ACKNOWLEDGED
            ).values_list("appeal_id", "actor__username")
        )
        for appeal in appeals:
            appeal.acknowledged_at = acknowledged.get(appeal.pk)
            appeal.acknowledged_by = who.get(appeal.pk, "") if appeal.acknowledged_at else ""
        record.append(
            RecordMeeting(
                meeting=meeting,
                leaders=leaders,
                jurors_at_table=len(seated.get((meeting.delegation_id, meeting.problem_id), ())),
                appeals=appeals,
            )
        )
    return record


def record_pdf(delegation) -> bytes:
    html = render_to_string(
        "grading/pdf/appeals_record.html",
        {
            "delegation": delegation,
            "contest": delegation.contest,
            "meetings": delegation_record(delegation),
            "printed_at": timezone.localtime(),
            "font_url": pdf.FONT_DIR.as_uri(),
            "generator": pdf.GENERATOR,
        },
    )
    return pdf.render_pdf(html)
