"""The appeals evening's services on the provisional scenario (EST led by lena and by mia, a
juror of P1; LAT led by liam; P1's group alice, bob, erin, mia; P2's charlie, dan): a timetable
proposed from the live appeals keeps the rules and is written at once; a leader is never in two
meetings at once; a juror who leads a delegation or is in conflict with it never sits at its
table, even when the conflict comes to light after the timetable was made; a move that breaks a
rule is refused with what it breaks and writes nothing; publishing tells each leader their
meetings and each seated juror their tables, and nobody a name they must not read."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from grading.appeals.appeals import appeal_file, appeal_withdraw
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
from grading.models import AppealMeeting, DeclaredConflict, JurorProfile, Notification
from rubrics.models import Contest
from tests.grading.appeals import provisional


@pytest.fixture
def scenario(db):
    return provisional.build()


def _appeal(scenario, identity: str, number: int, leader: str = ""):
    papers, users = scenario["papers"], scenario["users"]
    leader = leader or ("lena" if identity.startswith("est") else "liam")
    return appeal_file(
        paper=papers[identity],
        problem=scenario["problems"][number],
        criteria=provisional.criteria(scenario, number, "A1"),
        argument="The answer is right.",
        actor=users[leader],
    )


def _evening(scenario, *, slots: int = 3, tables: int = 1):
    contest = scenario["contest"]
    return evening_set(
        contest,
        starts_at=timezone.now() + timedelta(hours=2),
        slot_minutes=20,
        slots=slots,
        tables={problem.pk: tables for problem in scenario["problems"].values()},
    )


def _key(scenario, delegation: str, number: int) -> tuple[int, int]:
    return (
        scenario["contest"].delegations.get(code=delegation).pk,
        scenario["problems"][number].pk,
    )


def _seated(evening) -> dict:
    return seating(evening_facts(evening), timetable_of(evening))


def test_a_proposed_timetable_keeps_every_rule_and_seats_no_leader_at_their_own_table(scenario):
    for identity, number in (("est-1", 1), ("est-2", 2), ("lat-1", 1)):
        _appeal(scenario, identity, number)
    evening = _evening(scenario)
    evening_propose(evening)
    slot_of = timetable_of(evening)
    est_p1, est_p2, lat_p1 = (_key(scenario, *k) for k in (("EST", 1), ("EST", 2), ("LAT", 1)))
    assert set(slot_of) == {est_p1, est_p2, lat_p1}
    assert timetable_breaches(evening) == []
    # lena and mia lead EST: its two meetings cannot share a slot; P1's one table cannot
    # hold EST and LAT at once.
    assert slot_of[est_p1] != slot_of[est_p2]
    assert slot_of[est_p1] != slot_of[lat_p1]
    seated = _seated(evening)
    users = scenario["users"]
    assert all(seated[key] for key in slot_of)
    assert users["mia"].pk not in seated[est_p1]
    # mia is at EST's meetings as its leader: she sits at no table in those slots.
    for key, slot in slot_of.items():
        if slot in (slot_of[est_p1], slot_of[est_p2]):
            assert users["mia"].pk not in seated[key]


def test_a_juror_from_a_delegations_country_never_sits_at_its_table(scenario):
    _appeal(scenario, "lat-1", 1)
    users = scenario["users"]
    for name in ("alice", "bob"):
        JurorProfile.objects.update_or_create(user=users[name], defaults={"country": "lat"})
    evening = _evening(scenario)
    evening_propose(evening)
    (seated,) = _seated(evening).values()
    assert users["alice"].pk not in seated and users["bob"].pk not in seated
    assert seated  # erin or mia


def test_a_conflict_declared_after_the_timetable_keeps_the_juror_away_and_may_break_it(
    scenario,
):
    _appeal(scenario, "lat-1", 2)
    evening = _evening(scenario, slots=1)
    evening_propose(evening)
    users = scenario["users"]
    key = _key(scenario, "LAT", 2)
    assert set(_seated(evening)[key]) == {users["charlie"].pk, users["dan"].pk}
    lat = scenario["contest"].delegations.get(code="LAT")
    DeclaredConflict.objects.create(juror=users["charlie"], delegation=lat, reason="coach")
    assert _seated(evening)[key] == [users["dan"].pk]
    DeclaredConflict.objects.create(juror=users["dan"], delegation=lat, reason="coach")
    assert timetable_breaches(evening) == [
        "In slot 1, not every meeting can have a juror of its group at the table: those who "
        "may sit there are at other tables or leading a meeting."
    ]
    with pytest.raises(ValidationError):
        evening_publish(evening)


def test_a_move_that_double_books_a_leader_is_refused_and_writes_nothing(scenario):
    _appeal(scenario, "est-1", 1)
    _appeal(scenario, "est-2", 2)
    evening = _evening(scenario)
    evening_propose(evening)
    before = timetable_of(evening)
    est_p2 = _key(scenario, "EST", 2)
    meeting = AppealMeeting.objects.get(
        evening=evening, delegation_id=est_p2[0], problem_id=est_p2[1]
    )
    with pytest.raises(ValidationError) as refused:
        meeting_move(meeting, slot=before[_key(scenario, "EST", 1)])
    slot = before[_key(scenario, "EST", 1)] + 1
    assert f"In slot {slot}, lena is due at EST on P1 and EST on P2." in refused.value.messages
    assert f"In slot {slot}, mia is due at EST on P1 and EST on P2." in refused.value.messages
    assert timetable_of(evening) == before
    free = next(s for s in range(3) if s not in before.values())
    meeting_move(meeting, slot=free)
    assert timetable_of(evening)[est_p2] == free
    # The meeting keeps its row (a page open on it keeps its address); the others are as they were.
    assert AppealMeeting.objects.get(pk=meeting.pk).slot == free
    assert {k: v for k, v in timetable_of(evening).items() if k != est_p2} == {
        k: v for k, v in before.items() if k != est_p2
    }


def test_an_evening_too_short_is_refused_with_the_reason(scenario):
    _appeal(scenario, "est-1", 1)
    _appeal(scenario, "est-2", 2)
    evening = _evening(scenario, slots=1)
    with pytest.raises(ValidationError) as refused:
        evening_propose(evening)
    assert refused.value.messages == [
        "lena leads 2 meetings, but the evening has 1 slot. "
        "mia leads 2 meetings, but the evening has 1 slot."
    ]
    assert not AppealMeeting.objects.exists()


def test_a_withdrawn_appeal_leaves_its_meeting_named_until_proposed_again(scenario):
    appeal = _appeal(scenario, "lat-1", 1)
    _appeal(scenario, "est-1", 2)
    evening = _evening(scenario)
    evening_propose(evening)
    appeal_withdraw(appeal=appeal, actor=scenario["users"]["liam"])
    assert timetable_breaches(evening) == [
        "LAT on P1 has no live appeal left: propose the timetable again to drop it."
    ]
    evening_propose(evening)
    assert set(timetable_of(evening)) == {_key(scenario, "EST", 2)}
    assert timetable_breaches(evening) == []


def test_publishing_tells_each_leader_their_meetings_and_each_seated_juror_their_tables(
    scenario,
):
    _appeal(scenario, "est-1", 1)
    _appeal(scenario, "lat-2", 2)
    evening = _evening(scenario)
    evening_propose(evening)
    notices = evening_publish(evening)
    evening.refresh_from_db()
    assert evening.published_at is not None
    users = scenario["users"]
    by_name = {n.recipient.username: n.sentence for n in notices}
    seated = _seated(evening)
    sitting = {users_id for jurors in seated.values() for users_id in jurors}
    assert set(by_name) == {"lena", "mia", "liam"} | {
        u.username for u in users.values() if u.pk in sitting
    }
    assert len(notices) == len(by_name)
    assert by_name["lena"].startswith("Your meetings on the appeals evening: P1 at ")
    assert by_name["liam"].startswith("Your meetings on the appeals evening: P2 at ")
    for name, sentence in by_name.items():
        # Nobody reads a juror's name or a delegation's, leaders included.
        assert not any(other in sentence for other in ("alice", "bob", "erin", "charlie", "dan"))
        assert "EST" not in sentence and "LAT" not in sentence
        if name not in ("lena", "mia", "liam"):
            assert sentence.startswith("Your tables on the appeals evening: ")
    assert all(n.kind == Notification.Kind.APPEAL_MEETING for n in notices)


def test_a_final_contest_refuses_every_change_of_its_evening(scenario):
    _appeal(scenario, "est-1", 1)
    evening = _evening(scenario)
    evening_propose(evening)
    Contest.objects.filter(pk=scenario["contest"].pk).update(state=Contest.State.FINAL)
    evening.contest.refresh_from_db()
    meeting = evening.meetings.get()
    for change in (
        lambda: evening_propose(evening),
        lambda: meeting_move(meeting, slot=1),
        lambda: evening_publish(evening),
        lambda: _evening(scenario),
    ):
        with pytest.raises(ValidationError, match="The contest is final"):
            change()


def test_each_person_reads_the_meetings_they_are_due_at_once_published(scenario, client):
    from django.urls import reverse

    _appeal(scenario, "est-1", 1)
    _appeal(scenario, "lat-2", 2)
    evening = _evening(scenario)
    evening_propose(evening)
    users = scenario["users"]
    page = reverse("evening_mine", args=[scenario["contest"].slug])
    client.force_login(users["lena"])
    assert "is published for you" in client.get(page).content.decode()
    evening_publish(evening)
    lena = client.get(page).content.decode()
    assert "team leader" in lena and "est-1" in lena and "lat-2" not in lena
    seated = _seated(evening)[_key(scenario, "LAT", 2)]
    juror = next(u for u in users.values() if u.pk == seated[0])
    client.force_login(juror)
    text = client.get(page).content.decode()
    label = provisional.label(scenario, "lat-2", 2)
    assert "juror at the table" in text and label in text
    # The jury's screen names no delegation, contestant or leader.
    for hidden in ("LAT", "lat-2", "liam"):
        assert hidden not in text


def test_the_inbox_leads_each_evening_notice_to_the_readers_own_evening(scenario, client):
    from django.urls import reverse

    _appeal(scenario, "est-1", 1)
    evening = _evening(scenario)
    evening_propose(evening)
    evening_publish(evening)
    client.force_login(scenario["users"]["lena"])
    inbox = client.get(reverse("inbox")).content.decode()
    assert reverse("evening_mine", args=[scenario["contest"].slug]) in inbox
    assert "Your meetings on the appeals evening: P1 at " in inbox
