"""The organizer pastes the jurors' facts (country, capacity, languages) on the console, sees
the preview, confirms, and finds them on a juror's person page."""

import pytest
from playwright.sync_api import expect

from grading.rules import roles
from tests.factories import make_user

pytestmark = pytest.mark.browser

LINES = """username, country, capacity, languages
amina, Nigeria, 12, Yoruba; English; French (with help)
lan, Vietnam, , Vietnamese; English (with help)
"""


def test_organizer_pastes_facts_previews_confirms_and_the_person_page_shows_them(
    page, log_in, organizer, db
):
    for username in ("amina", "lan"):
        make_user(username, roles.JUROR)
    log_in(organizer)
    page.click("#console-link")
    page.click("text=People")
    page.click("#juror-facts-link")
    page.fill("#id_text", LINES)
    page.click("#facts-form button[type=submit]")
    # all_inner_texts() does not wait for the preview's page; the expectation does.
    expect(page.locator("#facts-preview tbody tr")).to_have_count(2)
    assert page.locator("#facts-preview tbody tr").all_inner_texts() == [
        "2\tamina\tNigeria\t12\tYoruba; English; French (with help)\t"
        "no country; no limit; no language",
        "3\tlan\tVietnam\tno limit\tVietnamese; English (with help)\t"
        "no country; no limit; no language",
    ]
    page.click("#facts-confirm button[type=submit]")
    assert page.locator(".messages li.success").inner_text() == (
        "Facts of 2 jurors set (2 of them change)."
    )
    assert page.locator("#facts-amina").inner_text() == (
        "amina\t\tNigeria\t12\tEnglish; French (with help); Yoruba"
    )
    page.click("#facts-lan a")
    assert page.input_value("#id_country") == "Vietnam"
    assert page.input_value("#id_capacity") == ""
    assert page.input_value("#id_languages") == "English (with help); Vietnamese"
    page.fill("#id_capacity", "8")
    page.click("#person-form button[type=submit]")
    assert page.locator(".messages li.success").inner_text() == "lan: saved."
    assert page.input_value("#id_capacity") == "8"
