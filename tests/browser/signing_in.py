"""Signing a browser page in, shared by the browser tests' fixtures and helpers."""

from tests.factories import PASSWORD


def submit_log_in(page, live_server, user):
    """Sign `page` in as `user` (the factories' password) and wait for the home page."""
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    return page
