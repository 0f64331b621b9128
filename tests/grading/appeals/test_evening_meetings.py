"""The appeals evening at the table, on the provisional scenario (EST led by lena and mia, a
juror of P1; LAT by liam): each person at a meeting reads it as theirs to read (the jury by
labels, never the delegation or a leader's name; the leader by contestant codes, never a
juror's name), others get a 404; the group decides through the appeal's own door and the leader
acknowledges once; the delegation's record reads back from its PDF with the decision and the
acknowledgement, and only its leaders, the organizer and the chair may print it."""

import subprocess
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from grading.appeals.appeals import appeal_decide, appeal_file
from grading.appeals.evening import evening_propose, evening_publish, evening_set
from grading.appeals.meetings import appeal_acknowledge
from grading.models import AppealEvent, AppealMeeting
from tests.grading.appeals import provisional


@pytest.fixture
def held(db):
    """EST's appeal on est-1's A1 in P1, and LAT's on lat-2's A1 in P2, in a published
    evening of three slots."""
    scenario = provisional.build()
    users, papers, problems = scenario["users"], scenario["papers"], scenario["problems"]
    appeals = {
        identity: appeal_file(
            paper=papers[identity],
            problem=problems[number],
            criteria=provisional.criteria(scenario, number, "A1"),
            argument=f"The answer of {identity} is right.",
            actor=users[leader],
        )
        for identity, number, leader in (("est-1", 1, "lena"), ("lat-2", 2, "liam"))
    }
    evening = evening_set(
        scenario["contest"],
        starts_at=timezone.now() + timedelta(hours=1),
        slot_minutes=20,
        slots=3,
        tables={},
    )
    evening_propose(evening)
    evening_publish(evening)
    scenario["appeals"] = appeals
    scenario["meeting"] = AppealMeeting.objects.get(delegation__code="EST", problem__number=1)
    return scenario


def _page(held, client, name: str):
    client.force_login(held["users"][name])
    meeting = held["meeting"]
    return client.get(reverse("appeal_meeting", args=[held["contest"].slug, meeting.pk]))


def test_the_jury_reads_the_meeting_by_labels_and_the_leader_by_codes(held, client):
    label = provisional.label(held, "est-1", 1)
    for juror in ("alice", "bob", "erin", "chen"):
        answer = _page(held, client, juror)
        assert answer.status_code == 200, juror
        text = answer.content.decode()
        assert f"Paper {label}" in text and "The answer of est-1 is right." in text
        for hidden in ("est-1</a>", "EST", "lena", "mia"):
            assert hidden not in text, (juror, hidden)
    for leader in ("lena", "mia"):
        text = _page(held, client, leader).content.decode()
        assert "Contestant est-1" in text
        for hidden in ("alice", "bob", "erin", "chen"):
            assert hidden not in text, (leader, hidden)
    # LAT's leader, P2's jurors: not their meeting.
    for outsider in ("liam", "charlie", "dan"):
        assert _page(held, client, outsider).status_code == 404, outsider


def test_a_juror_in_conflict_with_the_delegation_does_not_open_its_meeting(held, client):
    from grading.models import DeclaredConflict

    est = held["contest"].delegations.get(code="EST")
    DeclaredConflict.objects.create(juror=held["users"]["bob"], delegation=est, reason="coach")
    assert _page(held, client, "bob").status_code == 404


def test_the_leader_acknowledges_a_decision_once_and_not_before_it(held, client):
    appeal, users = held["appeals"]["est-1"], held["users"]
    with pytest.raises(ValidationError, match="not decided yet"):
        appeal_acknowledge(appeal=appeal, actor=users["lena"])
    appeal_decide(
        appeal=appeal,
        points={"A1": Decimal("11")},
        reason="The gloss is right.",
        actor=users["erin"],
    )
    with pytest.raises(ValidationError, match="Only a team leader"):
        appeal_acknowledge(appeal=appeal, actor=users["liam"])
    client.force_login(users["lena"])
    url = reverse("appeal_acknowledge", args=[held["contest"].slug, appeal.pk])
    answer = client.post(url)
    assert answer["Location"] == reverse(
        "appeal_meeting", args=[held["contest"].slug, held["meeting"].pk]
    )
    client.post(url)
    assert AppealEvent.objects.filter(appeal=appeal, kind="acknowledged").count() == 1
    text = _page(held, client, "alice").content.decode()
    assert "Acknowledged by the team leader at" in text and "lena" not in text


def test_the_delegations_record_reads_back_from_its_pdf(held, client, tmp_path):
    appeal, users = held["appeals"]["est-1"], held["users"]
    appeal_decide(
        appeal=appeal,
        points={"A1": Decimal("11")},
        reason="The gloss is right.",
        actor=users["erin"],
    )
    appeal_acknowledge(appeal=appeal, actor=users["lena"])
    url = reverse("evening_record", args=[held["contest"].slug, "EST"])
    for outsider in ("liam", "alice"):
        client.force_login(users[outsider])
        assert client.get(url).status_code == 404, outsider
    client.force_login(users["lena"])
    answer = client.get(url)
    assert answer["Content-Type"] == "application/pdf"
    path = tmp_path / "record.pdf"
    path.write_bytes(answer.content)
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "Appeals record: EST" in text
    assert "Contestant est-1: decided, upheld" in text
    assert "Reason: The gloss is right." in text
    assert "Acknowledged by lena at" in text
    assert "jurors of P1's group at the table" in text or "juror of P1's group" in text
    for juror in ("alice", "bob", "erin"):
        assert juror not in text
    fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True)
    assert "Charis-SIL" in fonts.stdout


def test_a_juror_in_conflict_with_one_contestant_reads_the_meeting_without_their_appeal(
    held, client
):
    from grading.models import DeclaredConflict

    DeclaredConflict.objects.create(
        juror=held["users"]["bob"], paper=held["papers"]["est-1"], reason="Taught them."
    )
    text = _page(held, client, "bob").content.decode()
    assert "The answer of est-1 is right." not in text
    assert provisional.label(held, "est-1", 1) not in text
