"""Language specialists added like team leaders: bulk lines checked with a sentence naming each
line and column, nothing written on any problem, their languages kept for the help queue,
one-time sign-in links on slips that say "Language specialist", and the role on the people
pages."""

import re

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains

from grading.console.specialists import specialists_add, specialists_parse
from grading.models import JurorLanguage
from grading.rules import roles
from grading.rules.refusals import ContestFinal
from rubrics.models import Contest
from tests.factories import make_contest, make_user
from tests.grading.console.test_people_pages import _links, _pdf_text

LINES = 'Maria Santos, msantos, maria@example.org, Tagalog; Ilocano\n"Ng, Wei", wng, , Cantonese\n'


@pytest.fixture
def contest(db):
    return make_contest("spec")


@pytest.fixture
def client(organizer):
    client = Client()
    client.force_login(organizer)
    return client


def _languages() -> dict[str, list[tuple[str, str]]]:
    languages: dict[str, list[tuple[str, str]]] = {}
    for username, language, level in JurorLanguage.objects.order_by(
        "user__username", "language"
    ).values_list("user__username", "language", "level"):
        languages.setdefault(username, []).append((language, level))
    return languages


def test_new_specialists_get_accounts_without_a_password_the_role_and_their_languages(
    contest, organizer
):
    people = specialists_add(contest=contest, text=LINES, actor=organizer)
    assert [person.username for person in people] == ["msantos", "wng"]
    assert [person.get_full_name() for person in people] == ["Maria Santos", "Ng, Wei"]
    assert not any(person.has_usable_password() for person in people)
    for person in people:
        assert list(person.groups.values_list("name", flat=True)) == [roles.SPECIALIST]
    assert _languages() == {
        "msantos": [("Ilocano", "reads"), ("Tagalog", "reads")],
        "wng": [("Cantonese", "reads")],
    }


def test_an_existing_specialist_gains_the_languages_they_did_not_have(contest, organizer):
    specialists_add(contest=contest, text="Maria Santos, msantos, , Tagalog\n", actor=organizer)
    specialists_add(
        contest=contest, text="Maria Santos, msantos, , tagalog / Cebuano\n", actor=organizer
    )
    assert _languages() == {"msantos": [("Cebuano", "reads"), ("Tagalog", "reads")]}


def test_every_problem_is_a_sentence_naming_its_line_and_column_and_nothing_is_written(
    contest, organizer, juror
):
    text = (
        "Maria Santos, msantos, not-an-email, Tagalog\n"
        "Ng Wei, wng, , \n"
        "Alice, alice, , Estonian\n"
        "Too, few\n"
        "Maria Again, msantos, , Ilocano\n"
    )
    batch = specialists_parse(contest=contest, text=text)
    assert batch.errors == [
        "Line 1, column 3 (email): “not-an-email” is not an e-mail address.",
        "Line 2, column 4 (languages): the languages are missing; write those the specialist "
        "reads, like “Tagalog; Ilocano”.",
        "Line 3, column 2 (username): “alice” is already an account that is not a language "
        "specialist's; a specialist has an account of their own (a juror helps as a juror).",
        "Line 4 has 2 columns; each line needs 4: name, username, email, languages.",
        "Line 5, column 2 (username): “msantos” is also on line 1; give each person one line.",
    ]
    with pytest.raises(ValidationError):
        specialists_add(contest=contest, text=text, actor=organizer)
    assert not User.objects.filter(username__in=["msantos", "wng"]).exists()
    assert JurorLanguage.objects.count() == 0


def test_a_final_contest_takes_no_specialist_and_only_an_organizer_adds_them(
    contest, organizer, juror
):
    with pytest.raises(ValidationError):
        specialists_add(contest=contest, text=LINES, actor=juror)
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    contest.refresh_from_db()
    with pytest.raises(ContestFinal):
        specialists_add(contest=contest, text=LINES, actor=organizer)
    assert not User.objects.filter(username="msantos").exists()


def test_the_lines_are_previewed_then_added_on_confirmation(client, contest):
    preview = client.post(reverse("console:specialists_add", args=["spec"]), {"text": LINES})
    assert preview.status_code == 200
    assertContains(
        preview,
        "<tr><td>1</td><td>Maria Santos</td><td>msantos</td><td>maria@example.org</td>"
        "<td>Tagalog, Ilocano</td><td>new</td></tr>",
        html=True,
    )
    assert not User.objects.filter(username="msantos").exists()
    confirmed = client.post(reverse("console:specialists_confirm", args=["spec"]), {"text": LINES})
    assert confirmed.status_code == 302
    assert sorted(
        User.objects.filter(groups__name=roles.SPECIALIST).values_list("username", flat=True)
    ) == ["msantos", "wng"]


def test_lines_with_problems_are_shown_and_cannot_be_confirmed(client, contest):
    preview = client.post(
        reverse("console:specialists_add", args=["spec"]), {"text": "Maria, msantos, , \n"}
    )
    assertContains(
        preview,
        '<ul id="specialist-errors"><li class="error">Line 1, column 4 (languages): the '
        "languages are missing; write those the specialist reads, like “Tagalog; "
        "Ilocano”.</li></ul>",
        html=True,
        status_code=422,
    )
    assert "specialists-confirm" not in preview.content.decode()


def test_the_slips_say_language_specialist_with_the_languages(client, contest, tmp_path):
    client.post(reverse("console:specialists_confirm", args=["spec"]), {"text": LINES})
    response = client.get(
        reverse("console:contest_slips", args=["spec"]) + "?added=msantos&added=wng"
    )
    pages = _pdf_text(response.content, tmp_path)
    assert len(pages) == 2
    assert re.search(r"Language specialist\s+Ilocano, Tagalog", pages[0])
    assert re.search(r"Language specialist\s+Cantonese", pages[1])
    (link,) = _links(pages[0])
    opened = Client().get(link, follow=True)
    assert opened.context["form"].user.username == "msantos"


def test_the_roles_form_offers_language_specialist(client, contest):
    make_user("maria")
    page = client.get(reverse("console:person", args=["maria"]))
    assertContains(page, "Language specialist")
    client.post(reverse("console:person_roles", args=["maria"]), {"roles": [roles.SPECIALIST]})
    assert list(User.objects.get(username="maria").groups.values_list("name", flat=True)) == [
        roles.SPECIALIST
    ]
