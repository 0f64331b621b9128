"""The site's strict Content-Security-Policy (no inline script or style) holds on every page:
Chromium reports each refused inline style or script on the console; none may appear."""

import pytest

from tests.browser.test_accessibility import _pages, graded  # noqa: F401 (a fixture)
from tests.factories import PASSWORD

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("role", ["dan", "chair", "organizer"])
def test_no_page_breaks_the_content_security_policy(browser, live_server, graded, role):  # noqa: F811
    user = graded["users"]["dan"] if role == "dan" else graded[role]
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    refused: list[str] = []
    page.on(
        "console",
        lambda message: (
            refused.append(f"{page.url}: {message.text}")
            if "Content Security Policy" in message.text
            else None
        ),
    )
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", user.username)
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        for path in _pages(graded).values():
            page.goto(f"{live_server.url}{path}")
            page.wait_for_load_state("networkidle")
    finally:
        context.close()
    assert refused == []
