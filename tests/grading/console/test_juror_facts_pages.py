"""The jurors' facts on the console's pages: the facts page (paste → preview → confirm, in a
fixed number of queries whatever the number of jurors), the person page's three facts fields,
and the people CSV's optional columns `country, languages, capacity`."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.asserts import assertContains

from grading.console.juror_facts import juror_facts_set
from grading.console.people import jurors_add, jurors_parse
from grading.models import JurorLanguage, JurorProfile
from grading.rules import roles
from tests.factories import make_contest, make_user

READS, WITH_HELP = JurorLanguage.Level.READS, JurorLanguage.Level.WITH_HELP


@pytest.fixture
def client(organizer):
    client = Client()
    client.force_login(organizer)
    return client


@pytest.fixture
def jurors(db):
    return [make_user(name, roles.JUROR) for name in ("amina", "lan")]


def _languages():
    return sorted(JurorLanguage.objects.values_list("user__username", "language", "level"))


def test_the_facts_page_previews_the_lines_then_sets_them_on_confirmation(client, jurors):
    url = reverse("console:juror_facts")
    text = "amina, Nigeria, 12, Yoruba; French (with help)\nlan, Vietnam, , Vietnamese\n"
    preview = client.post(url, {"text": text})
    assert preview.status_code == 200
    assertContains(
        preview, "<h2>Facts of 2 jurors would be set (2 of them change).</h2>", html=True
    )
    assertContains(
        preview,
        "<tr><td>1</td><td>amina</td><td>Nigeria</td><td>12</td>"
        "<td>Yoruba; French (with help)</td><td>no country; no limit; no language</td></tr>",
        html=True,
    )
    assert _languages() == []
    done = client.post(reverse("console:juror_facts_confirm"), {"text": text}, follow=True)
    assert done.redirect_chain == [(url, 302)]
    assertContains(done, "Facts of 2 jurors set (2 of them change).")
    assertContains(
        done,
        '<tr id="facts-amina"><th scope="row"><a href="/console/people/amina/">amina</a></th>'
        "<td></td><td>Nigeria</td><td>12</td><td>French (with help); Yoruba</td></tr>",
        html=True,
    )
    assert _languages() == [
        ("amina", "French", WITH_HELP),
        ("amina", "Yoruba", READS),
        ("lan", "Vietnamese", READS),
    ]


def test_wrong_lines_are_listed_in_the_preview_with_no_confirmation(client, jurors):
    preview = client.post(reverse("console:juror_facts"), {"text": "nobody, Latvia, 2, Latvian"})
    assert preview.status_code == 422
    assert preview.context["batch"].errors == [
        "Line 1, column 1 (username): there is no account “nobody”; add the juror on the "
        "people page first, or correct the username."
    ]
    assert b'id="facts-confirm"' not in preview.content


def test_a_confirmation_whose_lines_went_wrong_since_the_preview_writes_nothing(client, jurors):
    text = "amina, Nigeria, 12, Yoruba\n"
    jurors[0].delete()
    response = client.post(reverse("console:juror_facts_confirm"), {"text": text})
    assert (response.status_code, response.context["batch"].errors) == (
        422,
        [
            "Line 1, column 1 (username): there is no account “amina”; add the juror on the "
            "people page first, or correct the username."
        ],
    )
    assert JurorProfile.objects.count() == 0


def test_an_empty_form_asks_for_the_lines(client, jurors):
    response = client.post(reverse("console:juror_facts"), {"text": " "})
    assert (response.status_code, response.context["form"].non_field_errors()) == (
        422,
        ["Paste the jurors' lines or choose a CSV file: username, country, capacity, languages."],
    )


def test_the_facts_page_runs_as_many_queries_for_forty_jurors_as_for_two(
    client, jurors, organizer, django_assert_num_queries
):
    url = reverse("console:juror_facts")
    juror_facts_set(text="amina, Nigeria, 12, Yoruba; English", actor=organizer)
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    lines = []
    for n in range(40):
        make_user(f"j{n:02}", roles.JUROR)
        lines.append(f"j{n:02}, Country {n}, {n + 1}, Language {n}; English (with help)")
    juror_facts_set(text="\n".join(lines), actor=organizer)
    with django_assert_num_queries(len(few.captured_queries)):
        response = client.get(url)
    assert len(response.context["rows"]) == 42


def test_the_person_page_shows_and_edits_the_facts(client, jurors, organizer):
    juror_facts_set(text="amina, Nigeria, 12, Yoruba; French (with help)", actor=organizer)
    url = reverse("console:person", args=["amina"])
    form = client.get(url).context["form"]
    assert {key: form.initial[key] for key in ("country", "capacity", "languages")} == {
        "country": "Nigeria",
        "capacity": "12",
        "languages": "French (with help); Yoruba",
    }
    response = client.post(
        url,
        {
            "first_name": "",
            "last_name": "",
            "email": "",
            "country": "Ghana",
            "capacity": "",
            "languages": "Twi; English (with help)",
        },
    )
    assert response.status_code == 302
    assert (JurorProfile.objects.get(user__username="amina").country, _languages()) == (
        "Ghana",
        [("amina", "English", WITH_HELP), ("amina", "Twi", READS)],
    )


def test_the_person_page_says_what_is_wrong_with_the_facts_on_their_fields(
    client, jurors, organizer
):
    juror_facts_set(text="amina, Nigeria, 12, Yoruba", actor=organizer)
    response = client.post(
        reverse("console:person", args=["amina"]),
        {
            "first_name": "Amina",
            "last_name": "",
            "email": "",
            "country": "Ghana",
            "capacity": "many",
            "languages": "Twi; twi",
        },
    )
    assert response.status_code == 422
    assert (
        response.context["form"].errors["capacity"],
        response.context["form"].errors["languages"],
    ) == (
        [
            "Capacity: “many” is not a number of papers; give a whole number such as 12, or "
            "leave it empty for no limit."
        ],
        [
            "Languages: “twi” is given twice (as “Twi” before); give each language once, with its level."
        ],
    )
    amina = jurors[0]
    amina.refresh_from_db()
    assert (amina.first_name, JurorProfile.objects.get(user=amina).country) == ("", "Nigeria")


def test_saving_a_persons_name_gives_them_no_empty_facts(client, organizer):
    make_user("lena", roles.LEADER)
    response = client.post(
        reverse("console:person", args=["lena"]),
        {
            "first_name": "Lena",
            "last_name": "",
            "email": "",
            "country": "",
            "capacity": "",
            "languages": "",
        },
    )
    assert (response.status_code, JurorProfile.objects.count()) == (302, 0)


def test_the_people_csv_takes_country_languages_and_capacity_after_the_problems(organizer):
    contest = make_contest("bare", problems=2)
    text = (
        "Amina Okafor, amina, , 1 2, Nigeria, Yoruba; English (with help), 12\n"
        "Lan Nguyen, lan, , 2, Vietnam\n"
        "Dmitri Volkov, dmitri, , 1\n"
    )
    created = jurors_add(contest=contest, text=text, actor=organizer)
    assert [user.username for user in created] == ["amina", "lan", "dmitri"]
    assert {
        profile.user.username: (profile.country, profile.capacity)
        for profile in JurorProfile.objects.select_related("user")
    } == {"amina": ("Nigeria", 12), "lan": ("Vietnam", None)}
    assert _languages() == [("amina", "English", WITH_HELP), ("amina", "Yoruba", READS)]


def test_the_people_csvs_facts_are_checked_with_the_same_sentences_and_nothing_is_written(
    organizer,
):
    contest = make_contest("bare", problems=2)
    text = (
        "Amina Okafor, amina, , 1, Nigeria, Yoruba (a little), 0\n"
        "Lan Nguyen, lan, , 2, Vietnam, Vietnamese, 3, extra\n"
    )
    batch = jurors_parse(contest=contest, text=text)
    assert batch.errors == [
        "Line 1, column 6 (languages): “Yoruba (a little)” carries “(a little)”; a language "
        "is read alone, or with help, written “Yoruba (with help)”.",
        "Line 1, column 7 (capacity): a juror takes at least 1 paper of a problem; leave it "
        "empty for no limit, or take the juror out of the problem's grading group.",
        "Line 2 has 8 columns; each line needs 4: name, username, email, problems (then, if "
        "you give them, country, languages, capacity).",
    ]


def test_the_people_csvs_preview_shows_the_facts(client):
    contest = make_contest("bare", problems=2)
    preview = client.post(
        reverse("console:jurors_add", args=[contest.slug]),
        {"text": "Amina Okafor, amina, , 1, Nigeria, Yoruba; English (with help), 12\n"},
    )
    assertContains(
        preview,
        "<tr><td>1</td><td>Amina Okafor</td><td>amina</td><td>—</td><td>P1</td>"
        "<td>Nigeria</td><td>12</td><td>Yoruba; English (with help)</td></tr>",
        html=True,
    )
