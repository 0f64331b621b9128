"""The appeals evening in the browser, from the timetable to the signed record: the organizer
sets the slots, has a timetable proposed and publishes it; lena (EST's leader) and erin (a juror
of P1's group who did not mark est-1) open their meeting from "My appeals evening" on their own
devices; erin decides the appeal on its page; lena's screen shows the decision without a reload
and she acknowledges it; erin's screen shows the acknowledgement; the delegation's record reads
back from its PDF with the decision and the acknowledgement."""

import subprocess

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from grading.appeals.appeals import appeal_file
from tests.grading import scenario as shared
from tests.grading.appeals import provisional

pytestmark = pytest.mark.browser

# The meeting's page asks every 2 s; the tests wait longer, so that a loaded machine makes them
# slower, never red.
FOLLOW_MS = 15_000


@pytest.fixture
def appealed(db, settings):
    settings.PASSWORD_HASHERS = shared.FAST_HASHERS
    built = provisional.build()
    appeal_file(
        paper=built["papers"]["est-1"],
        problem=built["problems"][1],
        criteria=provisional.criteria(built, 1, "A1"),
        argument="The gloss of item 3 is right.",
        actor=built["users"]["lena"],
    )
    return built


def test_a_leader_and_a_group_hold_their_meeting_and_the_record_reads_back(
    sign_in, live_server, appealed, tmp_path
):
    users, url = appealed["users"], live_server.url
    label = provisional.label(appealed, "est-1", 1)

    olga = sign_in(users["olga"])
    olga.goto(f"{url}{reverse('console:appeals_evening', args=['iol'])}")
    olga.get_by_label("First slot starts").fill("2099-07-25T19:00")
    olga.get_by_label("Slots").fill("3")
    olga.get_by_role("button", name="Save").click()
    expect(olga.locator(".messages li.success")).to_have_text(
        "The evening's slots and tables are saved."
    )
    olga.get_by_role("button", name="Propose a timetable").click()
    expect(olga.locator(".messages li.success")).to_contain_text(
        "A timetable of 1 meeting in 1 slot"
    )
    expect(olga.locator("#evening-grid")).to_contain_text("EST")
    olga.get_by_role("button", name="Publish to leaders and jurors").click()
    expect(olga.locator(".messages li.success")).to_contain_text("The timetable is published")

    lena = sign_in(users["lena"])
    lena.goto(f"{url}{reverse('evening_mine', args=['iol'])}")
    expect(lena.locator("#evening-mine")).to_contain_text("team leader")
    lena.locator("#evening-mine a").click()
    expect(lena.locator("#meeting-appeals")).to_contain_text("Contestant est-1")
    expect(lena.locator("#meeting-appeals .acknowledgement")).to_have_text("Not decided yet.")

    erin = sign_in(users["erin"])
    erin.goto(f"{url}{reverse('evening_mine', args=['iol'])}")
    expect(erin.locator("#evening-mine")).to_contain_text("juror at the table")
    erin.locator("#evening-mine a").click()
    expect(erin.locator("#meeting-appeals")).to_contain_text(f"Paper {label}")
    assert "EST" not in erin.locator("main").inner_text()
    assert "lena" not in erin.locator("main").inner_text()
    meeting_url = erin.url

    erin.get_by_role("link", name=f"Paper {label}").click()
    erin.get_by_label("A1: new points").fill("11")
    erin.get_by_label("Reason (the leader reads it)").fill("The gloss of item 3 is right.")
    erin.get_by_role("button", name="Decide").click()
    expect(erin.locator(".messages li.success")).to_have_text(
        "The appeal is decided; the leader is told."
    )

    # lena's screen follows the table: the decision and the button come without a reload.
    expect(lena.locator("#meeting-appeals .state")).to_contain_text(
        "Decided: upheld", timeout=FOLLOW_MS
    )
    lena.get_by_role("button", name="Acknowledge the decision").click()
    expect(lena.locator(".messages li.success")).to_have_text(
        "You acknowledged the jury's decision."
    )
    expect(lena.locator("#meeting-appeals .acknowledgement")).to_contain_text(
        "Acknowledged by the team leader at"
    )

    erin.goto(meeting_url)
    expect(erin.locator("#meeting-appeals .acknowledgement")).to_contain_text(
        "Acknowledged by the team leader at"
    )

    record = lena.request.get(f"{url}{reverse('evening_record', args=['iol', 'EST'])}")
    assert record.status == 200
    path = tmp_path / "record.pdf"
    path.write_bytes(record.body())
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "Contestant est-1: decided, upheld" in text
    assert "Reason: The gloss of item 3 is right." in text
    assert "Acknowledged by lena at" in text
