"""Playwright on Debian's Chromium against pytest-django's live server.

Playwright's own browser download cannot run here, so the tests drive Debian's Chromium (or
$CHROMIUM) with the flags a closed network needs: its headless shell when installed
(`chromium-headless-shell`, the build Playwright itself runs headless tests on: no browser UI
behind the page, so it costs less CPU per test than `chromium --headless`), else `chromium`. A
missing Chromium fails the tests with a sentence saying what to install: `make test` installs
the headless shell when run as root."""

import os
import shutil
import urllib.request

import pytest
from playwright.sync_api import sync_playwright

from tests.browser.signing_in import submit_log_in

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium_path() -> str:
    path = (
        os.environ.get("CHROMIUM")
        or shutil.which("chromium-headless-shell")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )
    if not path:
        pytest.fail(
            "Chromium is missing: install Debian's `chromium` package (make test does as root)."
        )
    return path


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=_chromium_path(), headless=True, args=CHROMIUM_FLAGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


@pytest.fixture
def sign_in(browser, live_server):
    """sign_in(user): a page in a browser context of its own, signed in with the factory's
    password, for a test with several people at once; every context is closed at the end."""
    contexts = []

    def _sign_in(user):
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        return submit_log_in(page, live_server, user)

    yield _sign_in
    for context in contexts:
        context.close()


@pytest.fixture
def log_in(page, live_server):
    """log_in(user) opens the log-in page and signs in as that user (password from factories)."""

    def _log_in(user):
        return submit_log_in(page, live_server, user)

    return _log_in


_warmed = False


@pytest.fixture(autouse=True)
def _warm_live_server(request):
    """The live server's first answer imports every view and template tag (seconds on a loaded
    machine): paid once per run here, with a minute to spare, rather than by the first test's
    first page load, which has a ten- or fifteen-second limit."""
    global _warmed
    if _warmed or "live_server" not in request.fixturenames:
        return
    request.getfixturevalue("transactional_db")  # as pytest-django's live server helper does
    live_server = request.getfixturevalue("live_server")
    urllib.request.urlopen(f"{live_server.url}/accounts/login/", timeout=60).read()
    _warmed = True
