"""The provisional-results phase: publishing (its checklist, the snapshot, the deadline on
record), extending the deadline, finalizing after the appeals, and what stays read-only."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from grading.appeals.appeals import appeal_decide, appeal_file
from grading.console.contest_life import (
    appeals_deadline_extend,
    contest_finalize,
    contest_provisional_publish,
    contest_reopen,
    contest_resolution_open,
)
from grading.models import AppealDeadlineChange, ContestEvent, Mark, ProvisionalResult
from grading.resolution.decisions import discrepancy_decide
from grading.rules.refusals import NotAllowed, WrongState
from rubrics.models import Contest
from tests.crawl import refetched, shared_data
from tests.grading.appeals import provisional


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture(scope="module")
def resolving_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield provisional.build(publish=False)


@pytest.fixture
def resolving(resolving_once, db):
    return refetched(resolving_once)


@pytest.fixture
def published(resolving):
    """`provisional.build()`: the module's world, published in this test."""
    return provisional.publish_results(resolving)


def _publish(scenario, who="olga", hours=24):
    return contest_provisional_publish(
        contest=scenario["contest"],
        deadline=timezone.now() + timedelta(hours=hours),
        actor=scenario["users"][who],
    )


def test_publishing_keeps_each_papers_total_rank_and_medal_and_records_the_deadline(resolving):
    contest = _publish(resolving)
    assert contest.state == Contest.State.PROVISIONAL
    snapshot = {
        r.paper.identity: (r.total, r.rank, r.medal)
        for r in ProvisionalResult.objects.select_related("paper")
    }
    assert snapshot == {
        "lat-1": (Decimal("100.00"), 1, "gold"),
        "est-1": (Decimal("75.00"), 2, "gold"),
        "est-2": (Decimal("55.00"), 3, "honourable mention"),
        "ai-system": (Decimal("50.00"), 4, "honourable mention"),
        "lat-2": (Decimal("32.50"), 4, ""),
    }
    change = AppealDeadlineChange.objects.get()
    assert (change.old_deadline, change.new_deadline, change.actor.username) == (
        None,
        contest.appeals_deadline,
        "olga",
    )
    assert list(ContestEvent.objects.values_list("to_state", flat=True)) == [
        "resolution",
        "provisional",
    ]


def test_only_the_organizer_publishes(resolving):
    with pytest.raises(NotAllowed) as excinfo:
        _publish(resolving, who="chen")
    assert excinfo.value.messages == ["Only an organizer can publish the provisional results."]


def test_publishing_needs_a_future_deadline(resolving):
    with pytest.raises(WrongState) as excinfo:
        _publish(resolving, hours=-1)
    assert excinfo.value.messages == [
        "Set the appeals deadline in the future; the leaders appeal until then."
    ]


def test_publishing_is_refused_while_a_discrepancy_is_open(resolving):
    from grading.resolution.decisions import mark_revise

    bob = Mark.objects.get(
        sheet__juror=resolving["users"]["bob"],
        paper=resolving["papers"]["est-1"],
        criterion__code="A1",
        criterion__problem__number=1,
    )
    mark_revise(mark=bob, points=Decimal("11"), actor=resolving["users"]["bob"])
    with pytest.raises(WrongState) as excinfo:
        _publish(resolving)
    assert excinfo.value.messages[0].startswith(
        "Contest iol cannot publish provisional results yet: 1 discrepancy is still open (P1 A1"
    )
    response = _client(resolving["users"]["olga"]).get(reverse("console:life", args=["iol"]))
    checks = response.context["transitions"]["provisional"].checks
    assert [(c.sentence, c.met) for c in checks] == [
        ("Papers are assigned to jurors.", True),
        ("Every assigned juror has submitted a mark in every cell.", True),
        ("No discrepancy is open.", False),
        ("Every sheet is submitted (6 of 6).", True),
    ]


def test_a_contest_with_delegations_publishes_provisional_results_before_finalizing(resolving):
    with pytest.raises(WrongState) as excinfo:
        contest_finalize(contest=resolving["contest"], actor=resolving["users"]["chen"])
    assert excinfo.value.messages == [
        "Contest iol cannot be finalized yet: publish the provisional results first, so that "
        "the team leaders may appeal."
    ]


def test_finalizing_waits_for_the_deadline_and_every_appeal(published):
    users, contest = published["users"], published["contest"]
    appeal = appeal_file(
        paper=published["papers"]["est-1"],
        problem=published["problems"][1],
        criteria=provisional.criteria(published, 1, "A1"),
        argument="More.",
        actor=users["lena"],
    )
    with pytest.raises(WrongState) as excinfo:
        contest_finalize(contest=contest, actor=users["chen"])
    message = excinfo.value.messages[0]
    assert message.startswith("Contest iol cannot be finalized yet: appeals are open until ")
    assert message.endswith(" (UTC) and 1 appeal is neither decided nor withdrawn.")
    provisional.deadline_passes(contest)
    response = _client(users["chen"]).get(reverse("console:life", args=["iol"]))
    checks = response.context["transitions"]["finalize"].checks
    assert [(c.sentence.split(" (")[0], c.met) for c in checks[3:]] == [
        ("The appeals deadline has passed", True),
        ("Every appeal is decided or withdrawn.", False),
    ]
    appeal_decide(appeal=appeal, points={"A1": Decimal("12")}, reason="Yes.", actor=users["erin"])
    contest = contest_finalize(contest=contest, actor=users["chen"])
    assert contest.is_final


def test_a_deadline_mistyped_at_publication_is_corrected_earlier_until_a_leader_appeals(
    published,
):
    """Issue 31, finding 11: the deadline could not be corrected. Earlier is a correction while
    nobody has relied on it by appealing, and only to a moment still to come; later at any time."""
    users, contest = published["users"], published["contest"]
    current = contest.appeals_deadline
    with pytest.raises(WrongState, match="in the future"):
        appeals_deadline_extend(
            contest=contest,
            deadline=timezone.now() - timedelta(minutes=1),
            reason="Typed 21:00 for 12:00.",
            actor=users["olga"],
        )
    corrected = current - timedelta(hours=9)
    appeals_deadline_extend(
        contest=contest, deadline=corrected, reason="Typed 21:00 for 12:00.", actor=users["olga"]
    )
    contest.refresh_from_db()
    assert contest.appeals_deadline == corrected
    appeal_file(
        paper=published["papers"]["est-1"],
        problem=published["problems"][1],
        criteria=provisional.criteria(published, 1, "A1"),
        argument="More.",
        actor=users["lena"],
    )
    with pytest.raises(WrongState) as excinfo:
        appeals_deadline_extend(
            contest=contest,
            deadline=corrected - timedelta(hours=1),
            reason="Earlier still.",
            actor=users["olga"],
        )
    assert excinfo.value.messages[0].startswith(
        "The new deadline must be later than the current one"
    )
    assert "1 appeal is filed already" in excinfo.value.messages[0]
    assert list(AppealDeadlineChange.objects.values_list("new_deadline", "reason")) == [
        (current, ""),
        (corrected, "Typed 21:00 for 12:00."),
    ]


def test_the_deadline_is_extended_later_with_a_reason_on_record(published):
    users, contest = published["users"], published["contest"]
    current = contest.appeals_deadline
    with pytest.raises(WrongState) as excinfo:
        appeals_deadline_extend(
            contest=contest, deadline=current + timedelta(hours=2), reason=" ", actor=users["olga"]
        )
    assert excinfo.value.messages == [
        "Give the reason for extending the deadline; it stays on record."
    ]
    with pytest.raises(WrongState) as excinfo:
        appeals_deadline_extend(
            contest=contest, deadline=current, reason="Why", actor=users["olga"]
        )
    assert excinfo.value.messages[0].startswith("The deadline is ")
    with pytest.raises(NotAllowed):
        appeals_deadline_extend(
            contest=contest,
            deadline=current + timedelta(hours=2),
            reason="Why",
            actor=users["chen"],
        )
    appeals_deadline_extend(
        contest=contest,
        deadline=current + timedelta(hours=2),
        reason="The scans of P2 came late.",
        actor=users["olga"],
    )
    contest.refresh_from_db()
    assert contest.appeals_deadline == current + timedelta(hours=2)
    assert list(AppealDeadlineChange.objects.values_list("old_deadline", "reason")) == [
        (None, ""),
        (current, "The scans of P2 came late."),
    ]


def test_in_provisional_results_the_chair_decides_no_discrepancy_and_no_revision_opens(published):
    users = published["users"]
    criterion = provisional.criteria(published, 1, "A1")[0]
    with pytest.raises(WrongState) as excinfo:
        discrepancy_decide(
            paper=published["papers"]["est-1"],
            criterion=criterion,
            points=Decimal("12"),
            reason="No.",
            actor=users["chen"],
        )
    assert excinfo.value.messages == [
        "Contest iol's results are provisional: a cell's points change only through an appeal's "
        "decision."
    ]
    with pytest.raises(WrongState):
        contest_resolution_open(contest=published["contest"], actor=users["chen"])
    response = _client(users["alice"]).get(reverse("sheet", args=["iol", 1]))
    assert response.context["locked"] is True


def test_reopening_a_final_contest_keeps_working_and_it_finalizes_again(published):
    users, contest = published["users"], published["contest"]
    provisional.deadline_passes(contest)
    contest_finalize(contest=contest, actor=users["chen"])
    contest = contest_reopen(contest=contest, actor=users["olga"], reason="A typo in P2.")
    assert contest.state == Contest.State.RESOLUTION
    # The provisional results were published once: finalizing again needs no second round.
    assert contest_finalize(contest=contest, actor=users["chen"]).is_final


def test_the_life_page_publishes_with_a_deadline_in_the_readers_time_zone(resolving):
    client = _client(resolving["users"]["olga"])
    client.cookies["tz"] = "Europe/Tallinn"
    url = reverse("console:life_step", args=["iol", "provisional"])
    response = client.post(url, {"confirm": "on", "deadline": "2099-07-25T18:00"})
    assert response.status_code == 302
    contest = Contest.objects.get(slug="iol")
    assert contest.state == "provisional"
    assert contest.appeals_deadline.isoformat() == "2099-07-25T15:00:00+00:00"
    page = client.get(reverse("console:life", args=["iol"]))
    assert "2099-07-25 18:00" in page.content.decode()


def test_the_life_page_extends_the_deadline_and_shows_the_history(published):
    client = _client(published["users"]["olga"])
    response = client.post(
        reverse("console:deadline_extend", args=["iol"]),
        {"deadline": "2099-01-01T10:00", "reason": "Late scans."},
        follow=True,
    )
    assert response.status_code == 200
    history = response.context["deadline_changes"]
    assert [change.reason for change in history] == ["", "Late scans."]
    refused = client.post(
        reverse("console:deadline_extend", args=["iol"]), {"deadline": "2099-01-01T10:00"}
    )
    assert refused.status_code == 302


def test_a_bad_deadline_is_said_on_the_confirmation_form(resolving):
    client = _client(resolving["users"]["olga"])
    url = reverse("console:life_step", args=["iol", "provisional"])
    response = client.post(url, {"confirm": "on", "deadline": "soon"})
    assert response.status_code == 422
    assert response.context["form"].errors["deadline"] == [
        "Write the deadline as 2026-07-25 18:00."
    ]


def test_a_missing_deadline_is_refused(resolving):
    with pytest.raises(ValidationError):
        contest_provisional_publish(
            contest=resolving["contest"], deadline=None, actor=resolving["users"]["olga"]
        )


def test_in_provisional_results_every_sheet_says_why_it_is_read_only(published):
    response = _client(published["users"]["alice"]).get(reverse("sheet", args=["iol", 1]))
    assert response.context["grid"].lock_reason == (
        "The results are provisional: every sheet is read-only, and marks change only through "
        "the appeals' decisions."
    )
