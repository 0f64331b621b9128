"""Log-in throttling across usernames: one address that tries passwords on many usernames is
paused (LOGIN_ADDRESS_FAILURE_LIMIT, 30), while a few jurors' typos behind one venue address
pause only the juror who made them (LOGIN_FAILURE_LIMIT, 5, per username and address)."""

import re
import subprocess
import sys
from datetime import timedelta

from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client
from django.urls import reverse

from tests.factories import PASSWORD
from tests.grading.web.test_security import ROOT, _production_env

VENUE = "192.0.2.7"


def _log_in(username: str, password: str, address: str = VENUE):
    return Client().post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def _text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", response.content.decode())).strip()


def test_the_limits_are_five_per_username_and_address_and_thirty_per_address():
    assert (settings.AXES_FAILURE_LIMIT, settings.LOGIN_ADDRESS_FAILURE_LIMIT) == (5, 30)


def test_thirty_wrong_passwords_across_thirty_usernames_pause_the_address(juror):
    statuses = [_log_in(f"guess{n}", "wrong").status_code for n in range(29)]
    # Below the address's limit every username, and a real juror, may still log in from it.
    assert (statuses, _log_in("alice", PASSWORD).status_code) == ([200] * 29, 302)

    thirtieth = _log_in("guess29", "wrong")
    correct = _log_in("alice", PASSWORD)
    elsewhere = _log_in("alice", PASSWORD, address="198.51.100.1")

    assert (thirtieth.status_code, correct.status_code, elsewhere.status_code) == (429, 429, 302)
    assert (
        "Too many wrong passwords, for several accounts, came from this network address, so "
        "logging in from here is paused for 15 minutes."
    ) in _text(correct)


def test_five_wrong_passwords_by_one_juror_leave_the_other_jurors_at_the_venue_alone(
    juror, other_juror
):
    statuses = [_log_in("bob", "wrong").status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 200, 429]
    assert _log_in("bob", PASSWORD).status_code == 429
    assert _log_in("alice", PASSWORD).status_code == 302
    assert "The password for bob was wrong 5 times" in _text(_log_in("bob", PASSWORD))


def test_a_venue_survives_many_jurors_typos_below_the_address_limit(juror):
    # Seven jurors each mistype four times: 28 failures from one address, no username paused.
    for n in range(7):
        for _ in range(4):
            assert _log_in(f"juror{n}", "typo").status_code == 200
    assert _log_in("alice", PASSWORD).status_code == 302


def test_the_address_pause_ends_after_the_cool_off(juror):
    for n in range(30):
        _log_in(f"guess{n}", "wrong")
    assert _log_in("alice", PASSWORD).status_code == 429
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.order_by("attempt_time").last().attempt_time
        - timedelta(minutes=16)
    )
    assert _log_in("alice", PASSWORD).status_code == 302


def test_an_address_limit_below_the_username_limit_stops_start_up(tmp_path):
    env = _production_env(tmp_path, LOGIN_FAILURE_LIMIT="5", LOGIN_ADDRESS_FAILURE_LIMIT="3")
    result = subprocess.run(
        [sys.executable, "-c", "import grading.settings"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert (result.returncode, result.stderr.strip().splitlines()[-1]) == (
        1,
        "django.core.exceptions.ImproperlyConfigured: LOGIN_ADDRESS_FAILURE_LIMIT must be at "
        "least LOGIN_FAILURE_LIMIT (5); got 3.",
    )
