"""The sheets' service worker as the server sends it, the header naming each page's reader, and
the log-out that clears the browser's copies (the browser side: tests/browser/
test_sheet_offline_reading.py)."""

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from grading.web.offline_reading import READER_HEADER
from tests import factories
from tests.grading.web.test_security import EXPECTED_CSP

pytestmark = pytest.mark.django_db


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _worker_source() -> bytes:
    with open(finders.find("grading/sheet_worker.js"), "rb") as script:
        return script.read()


@pytest.mark.parametrize("who", ["anonymous", "juror"])
def test_the_worker_is_served_from_the_root_as_a_script_nothing_may_keep(who, juror):
    # Anonymous too: it holds nothing of anybody, and the browser checks it for updates with
    # whatever cookies it has, an ended session's included.
    client = Client() if who == "anonymous" else _signed_in(juror)
    response = client.get("/sheet-worker.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response.content == _worker_source()
    # Never pinned in a cache: a release's worker replaces the last one at the next visit.
    assert set(response["Cache-Control"].split(", ")) == {
        "max-age=0",
        "no-cache",
        "no-store",
        "must-revalidate",
        "private",
    }
    # Its scope is the root's by default: no Service-Worker-Allowed needed, none sent.
    assert "Service-Worker-Allowed" not in response
    assert response["Content-Security-Policy"] == EXPECTED_CSP
    assert READER_HEADER not in response


def test_the_worker_is_only_read(juror):
    response = _signed_in(juror).post("/sheet-worker.js")
    assert response.status_code == 405


def test_the_sheet_pages_register_the_worker_through_their_own_script(juror):
    contest = factories.make_contest(identities=["Team Orca"])
    factories.assign(contest, [juror], problems=[1])
    response = _signed_in(juror).get(f"/contests/{contest.slug}/p1/sheet/")
    assert response.status_code == 200
    tag = (
        '<script type="module" src="/static/grading/offline_reading.js" '
        'data-worker="/sheet-worker.js"></script>'
    )
    assert response.content.decode().count(tag) == 1


def test_a_page_names_its_signed_in_reader_and_nothing_else_does(juror):
    client = _signed_in(juror)
    assert client.get("/")[READER_HEADER] == str(juror.pk)
    assert READER_HEADER not in Client().get("/accounts/login/")
    # Not a page (a redirect, JSON): nothing a worker reads a reader from.
    assert READER_HEADER not in client.get("/favicon.ico")
    assert READER_HEADER not in client.get("/inbox/stamp/")


def test_signing_out_asks_the_browser_to_clear_the_sites_caches_and_storage(juror):
    client = _signed_in(juror)
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/"
    assert response["Clear-Site-Data"] == '"cache", "storage"'
    assert "_auth_user_id" not in client.session


def test_signing_out_is_a_post_only(juror):
    response = _signed_in(juror).get("/accounts/logout/")
    assert response.status_code == 405
    assert "Clear-Site-Data" not in response
