"""The appeals evening in the console: the organizer gives its slots and each group's tables,
has a timetable proposed from the live appeals, moves a meeting where the room needs it, and
publishes it to the team leaders and the jurors it seats. Every change goes through
`grading.appeals.evening`, which checks the whole timetable against the evening's rules; a
refusal comes back to this page with its sentences."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from grading.appeals.evening import (
    evening_facts,
    evening_propose,
    evening_publish,
    evening_set,
    meeting_move,
    seating,
    timetable_breaches,
    timetable_of,
)
from grading.console.forms import EveningForm, MeetingMoveForm
from grading.console.views.guards import contest_for_organizer, organizer_required
from grading.models import AppealEvening, AppealMeeting
from grading.web.errors import on_refusal


def _evening_page(request, contest, form=None, status=200):
    evening = AppealEvening.objects.filter(contest=contest).first()
    problems = list(contest.problems.order_by("number"))
    if form is None:
        initial = {}
        if evening is not None:
            initial = {
                "starts_at": evening.starts_at,
                "slot_minutes": evening.slot_minutes,
                "slots": evening.slots,
            }
            tables = dict(evening.tables.values_list("problem_id", "tables"))
            initial |= {f"tables_{p.number}": tables.get(p.pk, 1) for p in problems}
        form = EveningForm(initial=initial, problems=problems)
    context = {"contest": contest, "evening": evening, "form": form, "problems": problems}
    if evening is not None:
        context |= _timetable(evening, problems)
    return render(request, "console/appeals_evening.html", context, status=status)


def _timetable(evening: AppealEvening, problems) -> dict:
    """The timetable as a grid, slots down and problems across, each meeting with its
    delegation, leaders and the jurors at its table; the meetings the appeals call for and
    the timetable lacks; what it breaks."""
    facts = evening_facts(evening)
    slot_of = timetable_of(evening)
    seated = seating(facts, slot_of)
    names = facts.plan.person_names
    leaders_of = {meeting.key: meeting.leaders for meeting in facts.plan.meetings}
    meetings = list(evening.meetings.select_related("delegation", "problem"))
    cells = {}
    for meeting in meetings:
        key = meeting.delegation_id, meeting.problem_id
        meeting.leader_names = sorted(names.get(p, "?") for p in leaders_of.get(key, ()))
        meeting.juror_names = sorted(names.get(j, "?") for j in seated.get(key, ()))
        meeting.appeal_count = len(facts.appeals.get(key, ()))
        cells.setdefault((meeting.slot, meeting.problem_id), []).append(meeting)
    rows = [
        {
            "number": slot + 1,
            "starts_at": evening.slot_start(slot),
            "cells": [cells.get((slot, problem.pk), []) for problem in problems],
        }
        for slot in range(max(evening.slots, max(slot_of.values(), default=-1) + 1))
    ]
    return {
        "rows": rows,
        "meetings": meetings,
        "slot_choices": range(1, evening.slots + 1),
        "wanted": len(facts.plan.meetings),
        "appeal_count": sum(len(a) for a in facts.appeals.values()),
        "unplaced": [
            facts.plan.meeting_name(m) for m in facts.plan.meetings if m.key not in slot_of
        ],
        # Before any timetable, what it lacks is the list above, not a breach.
        "breaches": timetable_breaches(evening, facts) if meetings else [],
    }


@organizer_required
def appeals_evening(request, contest: str):
    """GET: the evening's settings and timetable. POST: the settings, written through
    `evening_set` (a refused form comes back with what was typed)."""
    contest_obj = contest_for_organizer(contest)
    if request.method != "POST":
        return _evening_page(request, contest_obj)
    form = EveningForm(request.POST, problems=contest_obj.problems.order_by("number"))
    if form.is_valid():
        try:
            evening_set(
                contest_obj,
                starts_at=form.cleaned_data["starts_at"],
                slot_minutes=form.cleaned_data["slot_minutes"],
                slots=form.cleaned_data["slots"],
                tables=form.tables(),
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, "The evening's slots and tables are saved.")
            return redirect("console:appeals_evening", contest_obj.slug)
    return _evening_page(request, contest_obj, form=form, status=422)


@organizer_required
@require_POST
@on_refusal(redirect="console:appeals_evening")
def appeals_evening_propose(request, contest: str):
    contest_obj = contest_for_organizer(contest)
    evening = get_object_or_404(AppealEvening, contest=contest_obj)
    proposal = evening_propose(evening)
    used = len(set(proposal.slot_of.values()))
    messages.success(
        request,
        ngettext(
            "A timetable of %(meetings)d meeting in %(slots)d slot, found in %(seconds).1f s. "
            "Check it, move what the room needs, then publish it.",
            "A timetable of %(meetings)d meetings in %(slots)d slots, found in %(seconds).1f s. "
            "Check it, move what the room needs, then publish it.",
            len(proposal.slot_of),
        )
        % {"meetings": len(proposal.slot_of), "slots": used, "seconds": proposal.seconds},
    )
    return redirect("console:appeals_evening", contest_obj.slug)


def _evening_url(request, contest: str, **_) -> str:
    return reverse("console:appeals_evening", args=[contest])


@organizer_required
@require_POST
@on_refusal(redirect=_evening_url)
def appeals_meeting_move(request, contest: str, pk: int):
    contest_obj = contest_for_organizer(contest)
    meeting = get_object_or_404(AppealMeeting, pk=pk, evening__contest=contest_obj)
    form = MeetingMoveForm(request.POST)
    if not form.is_valid():
        raise ValidationError("Choose the slot to move the meeting to.")
    meeting_move(meeting, slot=form.cleaned_data["slot"] - 1)
    messages.success(
        request,
        f"{meeting.delegation.code} on {meeting.problem.code} moved to slot "
        f"{form.cleaned_data['slot']}. Publish the timetable again to tell everyone.",
    )
    return redirect("console:appeals_evening", contest_obj.slug)


@organizer_required
@require_POST
@on_refusal(redirect="console:appeals_evening")
def appeals_evening_publish(request, contest: str):
    contest_obj = contest_for_organizer(contest)
    evening = get_object_or_404(AppealEvening, contest=contest_obj)
    notices = evening_publish(evening)
    messages.success(
        request,
        ngettext(
            "The timetable is published: %(count)d person was told in their inbox.",
            "The timetable is published: %(count)d people were told in their inbox.",
            len(notices),
        )
        % {"count": len(notices)},
    )
    return redirect("console:appeals_evening", contest_obj.slug)
