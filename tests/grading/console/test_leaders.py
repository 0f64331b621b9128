"""Team leaders added like jurors: bulk lines checked with a sentence naming each line and
column, nothing written on any problem, one-time sign-in links on the contest's slips, the
role on the people pages; and a person who is a juror and a leader."""

import re

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains

from grading.console.leaders import leaders_add, leaders_parse
from grading.rules import roles
from grading.rules.refusals import ContestFinal
from rubrics.models import Contest
from tests.factories import make_contest, make_delegation, make_user
from tests.grading.console.test_people_pages import _links, _pdf_text

LINES = 'Mari Tamm, mari, mari@example.org, EST\n"Ozols, Ivo", ivo, , LAT\n'


@pytest.fixture
def contest(db):
    contest = make_contest("lead")
    make_delegation(contest, "EST")
    make_delegation(contest, "LAT")
    return contest


@pytest.fixture
def client(organizer):
    client = Client()
    client.force_login(organizer)
    return client


def _led(contest) -> dict[str, list[str]]:
    return {
        delegation.code: sorted(delegation.leaders.values_list("username", flat=True))
        for delegation in contest.delegations.all()
    }


def test_new_leaders_get_accounts_without_a_password_and_the_leader_role(contest, organizer):
    people = leaders_add(contest=contest, text=LINES, actor=organizer)
    assert [person.username for person in people] == ["mari", "ivo"]
    assert _led(contest) == {"EST": ["mari"], "LAT": ["ivo"]}
    ivo = User.objects.get(username="ivo")
    assert (ivo.first_name, ivo.last_name, ivo.has_usable_password()) == ("Ozols,", "Ivo", False)
    assert list(ivo.groups.values_list("name", flat=True)) == [roles.LEADER]


def test_a_juror_named_by_their_username_becomes_a_leader_too(contest, organizer, juror):
    batch = leaders_parse(contest=contest, text="Alice, Alice, , EST\n")
    assert batch.errors == []
    assert [(line.username, line.existing) for line in batch.leaders] == [("alice", True)]
    leaders_add(contest=contest, text="Alice, Alice, , EST\n", actor=organizer)
    assert sorted(juror.groups.values_list("name", flat=True)) == [roles.JUROR, roles.LEADER]
    assert _led(contest) == {"EST": ["alice"], "LAT": []}
    assert juror.has_usable_password()


def test_every_problem_is_a_sentence_naming_its_line_and_column_and_nothing_is_written(
    contest, organizer
):
    text = (
        "name, username, email, delegation\n"
        "Mari Tamm, mari, mari@example.org, EST\n"
        "Jaan Kask, jaan kask, not-an-address, FIN\n"
        ", nobody, , EST\n"
        "Ivo Ozols, ivo, , \n"
        "Ivo Ozols, ivo\n"
    )
    with pytest.raises(ValidationError) as refused:
        leaders_add(contest=contest, text=text, actor=organizer)
    assert refused.value.messages == [
        "Line 3, column 2 (username): “jaan kask” may hold only letters, digits and @ . + - _ "
        "(no spaces).",
        "Line 3, column 3 (email): “not-an-address” is not an e-mail address.",
        "Line 3, column 4 (delegation): Contest lead has no delegation “FIN”; its delegations "
        "are EST, LAT.",
        "Line 4, column 1 (name): the leader's name is missing.",
        "Line 5, column 4 (delegation): the delegation is missing.",
        "Line 6 has 2 columns; each line needs 4: name, username, email, delegation.",
    ]
    assert not User.objects.filter(username__in=["mari", "nobody", "ivo"]).exists()
    assert _led(contest) == {"EST": [], "LAT": []}


def test_a_final_contest_takes_no_leader(contest, organizer):
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    contest.refresh_from_db()
    with pytest.raises(ContestFinal):
        leaders_add(contest=contest, text=LINES, actor=organizer)
    assert not User.objects.filter(username="mari").exists()


def test_only_an_organizer_adds_leaders(contest, juror):
    with pytest.raises(ValidationError):
        leaders_add(contest=contest, text=LINES, actor=juror)
    assert not User.objects.filter(username="mari").exists()


def test_the_lines_are_previewed_then_added_on_confirmation(client, contest):
    preview = client.post(reverse("console:leaders_add", args=["lead"]), {"text": LINES})
    assert preview.status_code == 200
    assertContains(
        preview,
        "<tr><td>1</td><td>Mari Tamm</td><td>mari</td><td>mari@example.org</td><td>EST</td>"
        "<td>new</td></tr>",
        html=True,
    )
    assert not User.objects.filter(username="mari").exists()
    confirmed = client.post(reverse("console:leaders_confirm", args=["lead"]), {"text": LINES})
    assert confirmed.status_code == 302
    assert _led(contest) == {"EST": ["mari"], "LAT": ["ivo"]}


def test_lines_with_problems_are_shown_and_cannot_be_confirmed(client, contest):
    preview = client.post(
        reverse("console:leaders_add", args=["lead"]), {"text": "Mari Tamm, mari, , FIN\n"}
    )
    assert preview.status_code == 422
    assertContains(
        preview,
        '<ul id="leader-errors"><li class="error">Line 1, column 4 (delegation): Contest lead '
        "has no delegation “FIN”; its delegations are EST, LAT.</li></ul>",
        html=True,
        status_code=422,
    )
    assert "leaders-confirm" not in preview.content.decode()


def test_the_slips_hold_each_new_leaders_link_and_delegation(client, contest, tmp_path):
    client.post(reverse("console:leaders_confirm", args=["lead"]), {"text": LINES})
    response = client.get(reverse("console:contest_slips", args=["lead"]))
    pages = _pdf_text(response.content, tmp_path)
    assert len(pages) == 2
    assert re.search(r"Team leader of\s+LAT", pages[0])
    assert re.search(r"Team leader of\s+EST", pages[1])
    (link,) = _links(pages[1])
    opened = Client().get(link, follow=True)
    assert opened.context["form"].user.username == "mari"


def test_the_people_page_shows_the_leader_role_and_the_roles_form_keeps_it(client, contest):
    mari = make_user("mari", roles.JUROR)
    make_delegation(contest, "FIN", leaders=[mari])
    people = client.get(reverse("console:people"))
    assert re.search(r"<td>juror, leader</td>", people.content.decode())
    client.post(
        reverse("console:person_roles", args=["mari"]), {"roles": [roles.JUROR, roles.LEADER]}
    )
    assert sorted(mari.groups.values_list("name", flat=True)) == [roles.JUROR, roles.LEADER]


def test_the_person_page_names_the_delegations_a_leader_leads(client, contest):
    client.post(reverse("console:leaders_confirm", args=["lead"]), {"text": LINES})
    response = client.get(reverse("console:person", args=["mari"]))
    assertContains(
        response,
        '<p id="delegations-led">Team leader of <a href="'
        f'{reverse("console:delegations", args=["lead"])}">EST</a> (Contest lead).</p>',
        html=True,
    )
