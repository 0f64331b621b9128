"""Races that only PostgreSQL's test database can stage: two connections, one waiting on the
other's row lock. (SQLite serializes writing transactions outright; its in-memory test database
uses shared-cache table locks, which fail at once instead of waiting. tests/conftest.py leaves
this file out of SQLite runs.)"""

import threading
from contextlib import contextmanager
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, connections, transaction
from django.utils import timezone

from grading.console.contest_life import contest_resolution_open
from grading.marking.sheets import sheet_submit
from grading.models import Comment, Mark, MarkEvent, Resolution, Sheet
from grading.resolution.decisions import comment_add, discrepancy_decide, mark_revise
from rubrics.models import Contest
from tests import waiting
from tests.grading.marking.test_sheet import _fill, _labels, _mark, _save

# The longest a lock is held for a write that never comes to wait for it (a write that does not
# wait is the bug these tests catch: it goes through at once and the test fails).
HOLD_AT_MOST_SECONDS = 30
# Whether another connection waits for a lock this one holds (pg_locks and pg_blocking_pids
# read the present, not the transaction's snapshot as pg_stat_activity would).
SOMEONE_WAITS = """SELECT count(*) FROM pg_locks
  WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))"""


def _held_until_someone_waits() -> None:
    """Called inside the transaction holding a row lock: it is the race under test, so the lock
    is held on purpose, until the racing write has arrived and waits for it, rather than for a
    guessed time the write may or may not have arrived within."""
    with connection.cursor() as cursor:

        def someone_waits() -> bool:
            cursor.execute(SOMEONE_WAITS)
            return bool(cursor.fetchone()[0])

        waiting.until(someone_waits, HOLD_AT_MOST_SECONDS)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("change", ["submit the sheet", "finalize the contest"])
def test_a_save_racing_a_submission_or_finalization_waits_for_it_and_is_refused(
    client, contest, juror, change
):
    """Another request holds the sheet (or contest) row while it changes its state; a save
    arriving meanwhile must wait for it and then be refused, not slip in under the old state.
    (SQLite serializes the two transactions; PostgreSQL needs the save's row locks.)"""
    _fill(juror, contest, "2")
    label = _labels(contest)[0]
    mark = _mark(juror, label, "A1")
    holding = threading.Event()

    def change_state():
        try:
            with transaction.atomic():
                if change == "submit the sheet":
                    Sheet.objects.select_for_update().get(pk=mark.sheet_id)
                    Sheet.objects.filter(pk=mark.sheet_id).update(
                        state=Sheet.State.SUBMITTED, submitted_at=timezone.now()
                    )
                else:
                    Contest.objects.select_for_update().get(pk=contest.pk)
                    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
                holding.set()
                _held_until_someone_waits()
        finally:
            connections.close_all()

    # A save goes through first (warming up the log-in, URL resolving and imports): the
    # refusal below is the race's, not a broken save's.
    client.force_login(juror)
    other_cell = _mark(juror, label, "T1")
    assert _save(client, contest, label, "T1", "1", other_cell.version).status_code == 200
    other = threading.Thread(target=change_state)
    other.start()
    assert holding.wait(10)
    response = _save(client, contest, label, "A1", "3", mark.version)
    other.join()
    assert response.status_code == 403, response.content
    mark.refresh_from_db()
    assert (mark.points, mark.version) == (Decimal("2"), 1)


@contextmanager
def finalizing(contest):
    """Another connection holds the contest row, sets it final and commits once a write waits
    for it."""
    holding = threading.Event()

    def finalize():
        try:
            with transaction.atomic():
                Contest.objects.select_for_update().get(pk=contest.pk)
                Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
                holding.set()
                _held_until_someone_waits()
        finally:
            connections.close_all()

    other = threading.Thread(target=finalize)
    other.start()
    assert holding.wait(10)
    try:
        yield
    finally:
        other.join()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("action", ["decide", "comment", "revise"])
def test_the_chairs_and_jurors_resolution_writes_racing_finalization_wait_and_are_refused(
    contest, juror, other_juror, chair, action
):
    _fill(juror, contest, "2")
    _fill(other_juror, contest, "4")
    for user in (juror, other_juror):
        sheet_submit(sheet=Sheet.objects.get(juror=user), actor=user)
    contest_resolution_open(contest=contest, actor=chair)
    mark = Mark.objects.select_related("paper", "criterion").filter(sheet__juror=juror).first()
    writes = {
        "decide": lambda: discrepancy_decide(
            paper=mark.paper, criterion=mark.criterion, points=Decimal("3"), reason="r", actor=chair
        ),
        "comment": lambda: comment_add(
            paper=mark.paper, criterion=mark.criterion, author=juror, text="on reflection"
        ),
        "revise": lambda: mark_revise(mark=mark, points=Decimal("4"), actor=juror),
    }
    before = (Resolution.objects.count(), Comment.objects.count(), MarkEvent.objects.count())
    with finalizing(contest), pytest.raises(ValidationError, match="is final"):
        writes[action]()
    after = (Resolution.objects.count(), Comment.objects.count(), MarkEvent.objects.count())
    assert after == before
