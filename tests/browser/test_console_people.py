"""The organizer adds three jurors in the console by pasting their lines, confirms, prints their
sign-in slips; a juror opens the link from the slip, sets a password and lands on their home."""

import re
import subprocess

import pytest
from playwright.sync_api import expect

from grading.assigning.assignments import assignments_create
from tests.factories import make_contest

pytestmark = pytest.mark.browser

LINES = """name, username, email, problems
Amina Okafor, amina, amina@example.org, 1 2, Nigeria, Yoruba; English, 12
"Nguyen, Lan", lan, , P2
Dmitri Volkov, dmitri, , P1
"""


@pytest.fixture
def bare(db):
    return make_contest("bare", problems=2)


def _pages_of(pdf: bytes, tmp_path) -> list[str]:
    path = tmp_path / "slips.pdf"
    path.write_bytes(pdf)
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    return text.split("\f")[:-1]


def test_organizer_adds_jurors_prints_slips_and_a_juror_signs_in_by_the_link(
    browser, page, log_in, live_server, organizer, bare, tmp_path
):
    log_in(organizer)
    page.click("#console-link")
    page.click("#contests >> text=Add jurors")
    page.fill("#id_text", LINES)
    page.click("#jurors-form button[type=submit]")
    # all_inner_texts() does not wait for the preview's page; the expectation does.
    expect(page.locator("#juror-preview tbody tr")).to_have_count(3)
    assert page.locator("#juror-preview tbody tr").all_inner_texts() == [
        "2\tAmina Okafor\tamina\tamina@example.org\tP1, P2\tNigeria\t12\tYoruba; English",
        "3\tNguyen, Lan\tlan\t—\tP2\t—\tno limit\t—",
        "4\tDmitri Volkov\tdmitri\t—\tP1\t—\tno limit\t—",
    ]
    page.click("#jurors-confirm button[type=submit]")
    assert page.locator(".messages li.success").inner_text() == (
        "3 jurors added to Contest bare; print their sign-in slips below."
    )
    assert page.locator("#person-amina .state").inner_text() == "waiting for first sign-in"

    # The slips: the organizer's browser fetches the PDF the link offers.
    href = page.get_attribute("#added-slips", "href")
    slips = page.request.get(f"{live_server.url}{href}")
    assert slips.headers["content-type"] == "application/pdf"
    pages = _pages_of(slips.body(), tmp_path)
    links = {}
    for text in pages:
        username = re.search(r"Username\s+(\S+)", text).group(1)
        (links[username],) = re.findall(
            rf"{re.escape(live_server.url)}/accounts/sign-in/\S+/", text
        )
    assert sorted(links) == ["amina", "dmitri", "lan"]

    # Papers go to the new jurors as `assign_jurors` gives them (assignments are not part of
    # this page yet).
    assignments_create(contest=bare, per_problem=1)

    juror_context = browser.new_context()
    juror = juror_context.new_page()
    juror.set_default_timeout(10_000)
    juror.goto(links["dmitri"])
    assert juror.locator("h1").inner_text() == "Choose your password"
    juror.fill("#id_new_password1", "kettle-lantern-93")
    juror.fill("#id_new_password2", "kettle-lantern-93")
    juror.click("#sign-in-form button[type=submit]")
    juror.wait_for_url(f"{live_server.url}/")
    assert juror.locator("h1").inner_text() == "Welcome, Dmitri Volkov"
    assert juror.locator("article.card h3").all_inner_texts() == ["Contest bare · P1: Problem 1"]

    # The link is spent.
    juror.goto(links["dmitri"])
    assert juror.locator("h1").inner_text() == "This sign-in link no longer works"
    juror_context.close()
