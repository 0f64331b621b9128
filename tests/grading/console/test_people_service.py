"""People in the console: jurors added in bulk (all-or-nothing, every problem a sentence with
its line and column), edits, deactivation, unlocking and resetting passwords."""

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from grading.console.people import (
    jurors_add,
    jurors_parse,
    password_reset,
    person_set_active,
    person_set_roles,
    person_unlock,
    person_update,
)
from grading.models import GradingGroup
from grading.rules import roles
from grading.rules.refusals import ContestFinal, NotAllowed
from rubrics.models import Contest
from tests.factories import PASSWORD, make_contest, make_user

LINES = """name, username, email, problems
Amina Okafor, amina, amina@example.org, 1 2
"Nguyen, Lan", lan, , P2
Dmitri  Volkov, dmitri, dmitri@example.org, p1;P1
"""


@pytest.fixture
def bare(db):
    """Two problems, no grading group yet."""
    return make_contest("bare", problems=2)


def _logs_in(username, password=PASSWORD) -> bool:
    response = Client().post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302


def _usernames():
    return sorted(User.objects.values_list("username", flat=True))


def _group(contest, number):
    group = GradingGroup.objects.filter(problem__contest=contest, problem__number=number).first()
    return sorted(group.jurors.values_list("username", flat=True)) if group else None


def test_the_lines_are_read_with_their_problems_and_nothing_is_written(bare):
    batch = jurors_parse(contest=bare, text=LINES)
    assert batch.errors == []
    assert [
        (j.line, j.first_name, j.last_name, j.username, j.email, j.problems) for j in batch.jurors
    ] == [
        (2, "Amina", "Okafor", "amina", "amina@example.org", (1, 2)),
        (3, "Nguyen,", "Lan", "lan", "", (2,)),
        (4, "Dmitri", "Volkov", "dmitri", "dmitri@example.org", (1,)),
    ]
    assert batch.new_groups == [1, 2]
    assert _usernames() == []


def test_every_problem_is_a_sentence_naming_its_line_and_column(bare, juror):
    text = (
        "Amina Okafor, amina, amina@example.org, 1 7\n"
        "\n"
        ", Alice, not-an-address, P1;x\n"
        "Bea, amina, , 2\n"
        "Too few, columns\n"
        "Carl, carl smith, , 1\n"
    )
    batch = jurors_parse(contest=bare, text=text)
    assert batch.errors == [
        "Line 1, column 4 (problems): Contest bare has no problem 7; its problems are 1, 2.",
        "Line 3, column 1 (name): the juror's name is missing.",
        "Line 3, column 2 (username): “Alice” is already the username of an account "
        "(“alice”); choose another, or edit that person on the people page.",
        "Line 3, column 3 (email): “not-an-address” is not an e-mail address.",
        "Line 3, column 4 (problems): “x” is not a problem; write problem numbers like "
        "“1 3” or “P1;P3”.",
        "Line 4, column 2 (username): “amina” is also on line 1; each juror needs a username "
        "of their own.",
        "Line 5 has 2 columns; each line needs 4: name, username, email, problems (then, "
        "if you give them, country, languages, capacity).",
        "Line 6, column 2 (username): “carl smith” may hold only letters, digits and "
        "@ . + - _ (no spaces).",
    ]
    with pytest.raises(ValidationError) as caught:
        jurors_add(contest=bare, text=text, actor=None)
    assert caught.value.messages == batch.errors
    assert _usernames() == ["alice"]
    assert GradingGroup.objects.filter(problem__contest=bare).count() == 0


def test_empty_lines_are_refused_with_a_sentence(bare):
    assert jurors_parse(contest=bare, text="name, username, email, problems\n\n").errors == [
        "There is no juror to add: give one line per juror, “name, username, email, problems”."
    ]


def test_adding_jurors_creates_accounts_without_passwords_in_their_groups(bare, organizer):
    created = jurors_add(contest=bare, text=LINES, actor=organizer)
    assert [user.username for user in created] == ["amina", "lan", "dmitri"]
    amina = User.objects.get(username="amina")
    assert (amina.get_full_name(), amina.email, amina.has_usable_password()) == (
        "Amina Okafor",
        "amina@example.org",
        False,
    )
    assert sorted(
        User.objects.filter(groups__name=roles.JUROR).values_list("username", flat=True)
    ) == ["amina", "dmitri", "lan"]
    assert (_group(bare, 1), _group(bare, 2)) == (["amina", "dmitri"], ["amina", "lan"])


def test_jurors_join_an_existing_group_beside_its_jurors(contest, organizer):
    jurors_add(contest=contest, text="Dora Diaz, dora, , 1", actor=organizer)
    assert _group(contest, 1) == ["alice", "bob", "dora"]


def test_the_chair_and_jurors_cannot_add_jurors(bare, chair, juror):
    for user in (chair, juror):
        with pytest.raises(NotAllowed):
            jurors_add(contest=bare, text=LINES, actor=user)
    assert _usernames() == ["alice", "chen"]


def test_no_juror_joins_a_final_contest(bare, organizer):
    Contest.objects.filter(pk=bare.pk).update(state=Contest.State.FINAL)
    bare.refresh_from_db()
    with pytest.raises(ContestFinal):
        jurors_add(contest=bare, text=LINES, actor=organizer)
    assert _usernames() == ["olga"]


def test_once_grading_has_begun_the_preview_states_the_late_assignment_rule(contest):
    batch = jurors_parse(contest=contest, text="Dora Diaz, dora, , 1")
    assert batch.late_note == (
        "Grading has begun in Contest test: new jurors join their problems' grading groups but "
        "take no paper until jurors are assigned again, and then a juror who has submitted a "
        "problem may have seen the comparison, so no paper of that problem is given to them "
        "afterwards."
    )


def test_editing_moves_a_juror_between_groups_but_not_out_of_one_with_papers(
    contest, organizer, juror
):
    with pytest.raises(ValidationError) as caught:
        person_update(
            person=juror,
            actor=organizer,
            first_name="Alice",
            last_name="Liddell",
            email="",
            problems={contest: [2]},
        )
    assert caught.value.messages == [
        "alice has papers of P1 in Contest test assigned; they stay in its grading group."
    ]
    juror.refresh_from_db()
    assert juror.last_name == ""
    person_update(
        person=juror,
        actor=organizer,
        first_name="Alice",
        last_name="Liddell",
        email="alice@example.org",
        problems={contest: [1, 2]},
    )
    juror.refresh_from_db()
    assert (juror.get_full_name(), juror.email) == ("Alice Liddell", "alice@example.org")
    assert (_group(contest, 1), _group(contest, 2)) == (["alice", "bob"], ["alice", "charlie"])


def test_a_juror_without_papers_leaves_a_group(contest, organizer):
    dora = make_user("dora", roles.JUROR)
    GradingGroup.objects.get(problem__contest=contest, problem__number=2).jurors.add(dora)
    person_update(
        person=dora, actor=organizer, first_name="", last_name="", email="", problems={contest: []}
    )
    assert _group(contest, 2) == ["charlie"]


def test_deactivating_stops_log_in_and_no_organizer_deactivates_themselves(organizer, juror):
    person_set_active(person=juror, actor=organizer, active=False)
    assert _logs_in("alice") is False
    with pytest.raises(ValidationError) as caught:
        person_set_active(person=organizer, actor=organizer, active=False)
    assert caught.value.messages == ["You cannot deactivate your own account."]
    person_set_active(person=juror, actor=organizer, active=True)
    assert _logs_in("alice") is True


def test_an_organizer_cannot_manage_a_superuser(organizer):
    root = User.objects.create_superuser("root", password=PASSWORD)
    with pytest.raises(NotAllowed):
        password_reset(person=root, actor=organizer)
    with pytest.raises(NotAllowed):
        person_set_active(person=root, actor=organizer, active=False)
    root.refresh_from_db()
    assert (root.is_active, root.check_password(PASSWORD)) == (True, True)


def _wrong_passwords(username, times=5):
    client = Client()
    for _ in range(times):
        client.post(reverse("login"), {"username": username, "password": "wrong"})
    return client


def test_unlocking_lets_a_locked_out_juror_log_in_again(organizer, juror):
    _wrong_passwords("alice")
    client = Client()
    locked = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert locked.status_code == 429
    assert person_unlock(person=juror, actor=organizer) == 1
    assert AccessAttempt.objects.count() == 0
    again = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert (again.status_code, again["Location"]) == (302, "/")


def test_resetting_a_password_voids_it_and_lifts_a_lock_out(organizer, juror):
    _wrong_passwords("alice")
    password_reset(person=juror, actor=organizer)
    juror.refresh_from_db()
    assert (juror.has_usable_password(), AccessAttempt.objects.count()) == (False, 0)
    assert _logs_in("alice") is False


def test_jurors_cannot_unlock_or_reset(juror, other_juror):
    with pytest.raises(NotAllowed):
        person_unlock(person=other_juror, actor=juror)
    with pytest.raises(NotAllowed):
        password_reset(person=other_juror, actor=juror)
    other_juror.refresh_from_db()
    assert other_juror.check_password(PASSWORD)


def _roles(user):
    return sorted(user.groups.values_list("name", flat=True))


def test_an_organizer_makes_a_juror_the_chair_and_another_organizer(organizer, juror):
    assert juror.is_staff is False
    person_set_roles(person=juror, actor=organizer, wanted=[roles.CHAIR, roles.ORGANIZER])
    assert _roles(juror) == [roles.CHAIR, roles.ORGANIZER]
    juror.refresh_from_db()
    assert juror.is_staff is True  # the admin lets staff in only
    # Alice, now an organizer, may take Olga's organizer role away: Olga is no longer the last.
    person_set_roles(person=organizer, actor=juror, wanted=[roles.JUROR])
    organizer.refresh_from_db()
    assert (_roles(organizer), organizer.is_staff) == ([roles.JUROR], False)


def test_role_changes_are_refused_with_a_sentence_and_change_nothing(organizer, juror, chair):
    refusals = []
    for person, actor, wanted in (
        (organizer, organizer, [roles.CHAIR]),
        (juror, organizer, []),
    ):
        with pytest.raises(ValidationError) as caught:
            person_set_roles(person=person, actor=actor, wanted=wanted)
        refusals.append(caught.value.messages)
    other = make_user("oscar", roles.ORGANIZER)
    other.is_active = False
    other.save()
    with pytest.raises(ValidationError) as caught:
        person_set_roles(person=organizer, actor=other, wanted=[roles.CHAIR])
    refusals.append(caught.value.messages)
    assert refusals == [
        ["You cannot take your own organizer role away; ask another organizer to."],
        ["Choose at least one role for alice; to stop them signing in, deactivate them instead."],
        # An inactive organizer cannot sign in: Olga is still the last active one.
        ["olga is the last active organizer; make someone else an organizer first."],
    ]
    with pytest.raises(NotAllowed):
        person_set_roles(person=juror, actor=chair, wanted=[roles.CHAIR])
    assert (_roles(organizer), _roles(juror), _roles(chair)) == (
        [roles.ORGANIZER],
        [roles.JUROR],
        [roles.CHAIR],
    )


def test_the_last_active_organizer_keeps_the_role(organizer, juror):
    root = User.objects.create_superuser("root", password=PASSWORD)
    with pytest.raises(ValidationError) as caught:
        person_set_roles(person=organizer, actor=root, wanted=[roles.JUROR])
    assert caught.value.messages == [
        "olga is the last active organizer; make someone else an organizer first."
    ]
    assert _roles(organizer) == [roles.ORGANIZER]
