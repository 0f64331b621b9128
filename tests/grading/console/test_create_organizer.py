"""`manage.py create_organizer`: the first organizer of a new site, with no password, signs in
once through the printed one-time link, as a juror does from a slip."""

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from grading.console import people
from grading.rules import roles


def _create(*args, **options) -> list[str]:
    out = io.StringIO()
    call_command("create_organizer", *args, stdout=out, **options)
    return out.getvalue().splitlines()


def test_the_first_organizer_is_created_without_a_password_and_signs_in_through_the_link(db):
    lines = _create(
        "olga", email="olga@example.org", name="Olga Petrova", base_url="https://jury.example.org/"
    )
    olga = User.objects.get(username="olga")
    assert (
        people.person_roles(olga),
        olga.get_full_name(),
        olga.email,
        olga.is_staff,
        olga.has_usable_password(),
    ) == ([roles.ORGANIZER], "Olga Petrova", "olga@example.org", True, False)
    # The link is the console's (its token holds the time, so only up to the user's id).
    same_user = ("https://jury.example.org" + people.sign_in_path(olga)).rsplit("/", 2)[0]
    assert lines[-1].rsplit("/", 2)[0] == same_user
    opened = Client().get(lines[-1].removeprefix("https://jury.example.org"), follow=True)
    assert opened.context["form"].user == olga


def test_a_taken_or_malformed_username_or_a_bad_address_is_refused_and_nothing_is_written(db):
    User.objects.create_user("olga")
    refusals = []
    for args, options in (
        (["Olga"], {"base_url": "https://jury.example.org"}),
        (["olga petrova"], {"base_url": "https://jury.example.org"}),
        (["ola"], {"email": "not-an-address", "base_url": "https://jury.example.org"}),
        (["ola"], {"base_url": "jury.example.org"}),
    ):
        with pytest.raises(CommandError) as error:
            _create(*args, **options)
        refusals.append(str(error.value))
    assert refusals == [
        "There is already an account “Olga”; choose another username.",
        "“olga petrova” may hold only letters, digits and @ . + - _ (no spaces).",
        "“not-an-address” is not an e-mail address.",
        "--base-url “jury.example.org” must start with https:// or http://.",
    ]
    assert list(User.objects.values_list("username", flat=True)) == ["olga"]
