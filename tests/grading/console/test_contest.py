"""The console's contest pages, as the organizer; other roles are in the permission matrix."""

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains

from rubrics.models import Contest


@pytest.fixture
def client(organizer):
    client = Client()
    client.force_login(organizer)
    return client


def test_the_organizer_creates_a_contest_and_lands_on_its_settings(client):
    response = client.post(
        reverse("console:index"), {"slug": "iol2026", "name": "IOL 2026", "max_total": "100"}
    )
    assert (response.status_code, response["Location"]) == (302, "/console/contests/iol2026/")
    contest = Contest.objects.get()
    assert (contest.slug, contest.name, contest.max_total, contest.state) == (
        "iol2026",
        "IOL 2026",
        Decimal("100.00"),
        "setup",
    )


def test_a_refused_creation_shows_its_sentences_and_writes_nothing(client, contest):
    response = client.post(
        reverse("console:index"), {"slug": "test", "name": "Again", "max_total": "abc"}
    )
    assert response.status_code == 422
    assert response.context["form"].errors == {
        "max_total": ["The maximum total: “abc” is not a number of points."]
    }
    response = client.post(
        reverse("console:index"), {"slug": "test", "name": "Again", "max_total": "100"}
    )
    assert (response.status_code, response.context["form"].non_field_errors()) == (
        422,
        ["A contest with the short name “test” already exists; choose another."],
    )
    assert Contest.objects.count() == 1


def test_the_organizer_sets_name_maximum_and_any_subset_of_cut_offs(client, contest):
    url = reverse("console:contest", args=[contest.slug])
    page = client.get(url)
    assert {
        key: page.context["form"].initial[key] for key in ("gold", "silver", "bronze", "hm")
    } == {
        "gold": Decimal("70.00"),
        "silver": Decimal("58.40"),
        "bronze": None,
        "hm": Decimal("35.30"),
    }
    response = client.post(
        url,
        {
            "name": "IOL 2026",
            "max_total": "120",
            "working_language": "English",
            "gold": "90",
            "silver": "",
            "bronze": "75,5",
            "hm": "",
        },
    )
    assert (response.status_code, response["Location"]) == (302, url)
    contest.refresh_from_db()
    assert (contest.name, contest.max_total) == ("IOL 2026", Decimal("120.00"))
    assert list(contest.cutoffs.values_list("name", "min_total")) == [
        ("gold", Decimal("90.00")),
        ("bronze", Decimal("75.50")),
    ]


def test_cut_offs_out_of_order_are_refused_on_the_page(client, contest):
    url = reverse("console:contest", args=[contest.slug])
    response = client.post(
        url,
        {
            "name": "X",
            "max_total": "100",
            "working_language": "English",
            "gold": "50",
            "silver": "60",
            "hm": "",
        },
    )
    assert (response.status_code, response.context["form"].non_field_errors()) == (
        422,
        ["The gold cut-off (50) must be higher than the silver cut-off (60)."],
    )
    contest.refresh_from_db()
    assert contest.name == "Contest test"


def test_a_final_contests_settings_are_read_only(client, contest):
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    url = reverse("console:contest", args=[contest.slug])
    assert b"<fieldset disabled>" in client.get(url).content
    response = client.post(
        url, {"name": "X", "max_total": "100", "working_language": "English", "gold": "1"}
    )
    assert (response.status_code, response.context["form"].non_field_errors()) == (
        403,
        [
            "Contest test is final: its name, maximum and medal cut-offs are read-only. An "
            "organizer can reopen it, with a reason, from its results page."
        ],
    )
    contest.refresh_from_db()
    assert contest.name == "Contest test"


def test_the_organizer_sets_the_working_language_ai_papers_are_read_in(client, contest):
    url = reverse("console:contest", args=[contest.slug])
    page = client.get(url)
    assert page.context["form"].initial["working_language"] == "English"
    assertContains(
        page,
        "<p id=\"working-language\">AI systems' papers are read in English; human contestants' "
        f'answer languages are on the <a href="/console/contests/{contest.slug}/answer-languages/">'
        "answer languages page</a>.</p>",
        html=True,
    )
    form = {"name": contest.name, "max_total": "100", "working_language": "  Spanish "}
    assert client.post(url, form).status_code == 302
    contest.refresh_from_db()
    assert contest.working_language == "Spanish"


def test_a_contest_needs_a_working_language(client, contest):
    url = reverse("console:contest", args=[contest.slug])
    response = client.post(url, {"name": "X", "max_total": "100", "working_language": " "})
    assert (response.status_code, response.context["form"].errors["working_language"]) == (
        422,
        ["Give the contest's working language, such as English."],
    )
    contest.refresh_from_db()
    assert contest.working_language == "English"


def test_the_organizers_home_links_to_the_console(client):
    response = client.get(reverse("home"))
    assert b'id="console-link" href="/console/"' in response.content
