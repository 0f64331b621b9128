"""The icon browsers ask for (/favicon.ico) and the one every page links."""

import re

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

from tests.grading import scenario


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture
def graded(db):
    return scenario.build()


def test_favicon_ico_leads_to_an_icon_file_and_every_page_links_an_icon(client, graded):
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"] == "/static/grading/favicon.ico"
    with open(finders.find("grading/favicon.ico"), "rb") as icon:
        assert icon.read(4) == b"\x00\x00\x01\x00"  # the ICO header
    client.force_login(graded["users"]["alice"])
    page = client.get(reverse("home")).content.decode()
    (href,) = re.findall(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', page)
    assert href == "/static/grading/favicon.svg"
    with open(finders.find("grading/favicon.svg")) as svg:
        assert svg.read().startswith("<svg xmlns=")
