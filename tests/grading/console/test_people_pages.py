"""The console's people pages as the organizer, the printed sign-in slips (read back with
pdftotext) and the one-time link's page as the juror meets it."""

import re
import subprocess

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from grading.models import GradingGroup
from grading.rules import roles
from rubrics.models import Contest
from tests.factories import PASSWORD, make_contest, make_user

LINES = (
    "Amina Okafor, amina, amina@example.org, 1 2\n"
    '"Nguyen, Lan", lan, , P2\n'
    "Dmitri Volkov, dmitri, , 1\n"
)


@pytest.fixture
def client(organizer):
    client = Client()
    client.force_login(organizer)
    return client


@pytest.fixture
def bare(db):
    return make_contest("bare", problems=2)


def _pdf_text(content: bytes, tmp_path) -> list[str]:
    """The text of each page, through poppler's pdftotext."""
    path = tmp_path / "slips.pdf"
    path.write_bytes(content)
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    return text.split("\f")[:-1]


def _links(text: str) -> list[str]:
    return re.findall(r"http://testserver/accounts/sign-in/\S+/\S+/", text)


def test_pasted_lines_are_previewed_then_created_on_confirmation(client, bare):
    url = reverse("console:jurors_add", args=[bare.slug])
    preview = client.post(url, {"text": LINES})
    assert preview.status_code == 200
    assert [(juror.username, juror.problem_codes) for juror in preview.context["batch"].jurors] == [
        ("amina", "P1, P2"),
        ("lan", "P2"),
        ("dmitri", "P1"),
    ]
    assert User.objects.filter(username__in=["amina", "lan", "dmitri"]).count() == 0

    done = client.post(
        reverse("console:jurors_confirm", args=[bare.slug]),
        {"text": preview.context["confirm"]["text"].value()},
    )
    assert (done.status_code, done["Location"]) == (
        302,
        "/console/people/?contest=bare&added=amina&added=lan&added=dmitri",
    )
    assert sorted(
        GradingGroup.objects.get(problem__contest=bare, problem__number=1).jurors.values_list(
            "username", flat=True
        )
    ) == ["amina", "dmitri"]
    people = client.get(done["Location"])
    assert re.search(
        rb'id="added-slips" href="/console/contests/bare/sign-in-slips.pdf\?'
        rb'added=amina&amp;added=lan&amp;added=dmitri"',
        people.content,
    )


def test_an_uploaded_csv_is_read_like_pasted_lines(client, bare):
    upload = SimpleUploadedFile(
        "jurors.csv", ("\ufeffname,username,email,problems\n" + LINES).encode(), "text/csv"
    )
    preview = client.post(reverse("console:jurors_add", args=[bare.slug]), {"file": upload})
    assert [juror.username for juror in preview.context["batch"].jurors] == [
        "amina",
        "lan",
        "dmitri",
    ]


def test_lines_with_problems_are_shown_with_their_sentences_and_cannot_be_confirmed(client, bare):
    preview = client.post(
        reverse("console:jurors_add", args=[bare.slug]), {"text": "Amina, amina, , 9\n"}
    )
    assert preview.status_code == 422
    assert preview.context["batch"].errors == [
        "Line 1, column 4 (problems): Contest bare has no problem 9; its problems are 1, 2."
    ]
    assert b'id="jurors-confirm"' not in preview.content
    # A confirmation posted anyway is parsed again and refused.
    refused = client.post(
        reverse("console:jurors_confirm", args=[bare.slug]), {"text": "Amina, amina, , 9\n"}
    )
    assert refused.status_code == 422
    assert User.objects.filter(username="amina").count() == 0


def test_a_file_that_is_not_utf8_is_refused_with_a_sentence(client, bare):
    upload = SimpleUploadedFile("jurors.csv", "Ámina, amina, , 1\n".encode("latin-1"))
    page = client.post(reverse("console:jurors_add", args=[bare.slug]), {"file": upload})
    assert (page.status_code, page.context["form"].non_field_errors()) == (
        422,
        ["jurors.csv is not UTF-8 text; save it as “CSV UTF-8” and upload it again."],
    )


def test_sign_in_slips_have_one_page_per_new_juror_with_their_link(client, bare, tmp_path):
    client.post(reverse("console:jurors_confirm", args=[bare.slug]), {"text": LINES})
    response = client.get(reverse("console:contest_slips", args=[bare.slug]))
    assert (response.status_code, response["Content-Type"], response["Cache-Control"]) == (
        200,
        "application/pdf",
        "no-store",
    )
    pages = _pdf_text(response.content, tmp_path)
    assert len(pages) == 3
    for page, (username, name) in zip(
        pages,
        [("amina", "Amina Okafor"), ("dmitri", "Dmitri Volkov"), ("lan", "Nguyen, Lan")],
        strict=True,
    ):
        assert name in page
        assert re.search(rf"Username\s+{username}\b", page)
        (link,) = _links(page)
        # The printed link signs this juror in: it opens the set-password form for them.
        opened = Client().get(link, follow=True)
        assert opened.context["form"].user.username == username


def test_slips_only_for_jurors_named_and_never_for_one_with_a_password(client, bare, tmp_path):
    client.post(reverse("console:jurors_confirm", args=[bare.slug]), {"text": LINES})
    with_password = make_user("pat", roles.JUROR)
    GradingGroup.objects.get(problem__contest=bare, problem__number=1).jurors.add(with_password)
    response = client.get(
        reverse("console:contest_slips", args=[bare.slug]), {"added": ["lan", "pat"]}
    )
    (page,) = _pdf_text(response.content, tmp_path)
    assert "lan" in page and "pat" not in page
    one = client.get(reverse("console:person_slip", args=["pat"]))
    assert (one.status_code, one["Location"]) == (302, "/console/people/pat/")


def test_a_slip_names_each_of_the_jurors_problems_once_and_only_this_contests(client, tmp_path):
    four = make_contest("four", problems=4, papers=1)
    other = make_contest("other", problems=2, papers=1)
    kofi = make_user("kofi", roles.JUROR)
    for problem in [*four.problems.all(), other.problems.get(number=2)]:
        GradingGroup.objects.create(problem=problem).jurors.add(kofi)
    kofi.set_unusable_password()
    kofi.save()
    (page,) = _pdf_text(
        client.get(reverse("console:contest_slips", args=["four"])).content, tmp_path
    )
    assert re.findall(r"Problems\s+(.+)", page) == ["P1, P2, P3, P4"]


def test_the_link_sets_a_password_signs_in_and_then_no_longer_works(client, bare):
    client.post(reverse("console:jurors_confirm", args=[bare.slug]), {"text": LINES})
    page = client.get(reverse("console:person", args=["amina"]))
    link = page.context["link"]
    juror = Client()
    form_page = juror.get(link)
    # Django moves the token into the session: the form's own address carries none.
    assert form_page["Location"].endswith("/set-password/")
    signed_in = juror.post(
        form_page["Location"],
        {"new_password1": "a long new secret 42", "new_password2": "a long new secret 42"},
    )
    assert (signed_in.status_code, signed_in["Location"]) == (302, "/")
    home = juror.get("/")
    assert (
        home.context["user"].username,
        [row["problem"].number for row in home.context["juror_problems"]],
    ) == ("amina", [])
    assert (
        Client()
        .post(reverse("login"), {"username": "amina", "password": "a long new secret 42"})
        .status_code
        == 302
    )
    again = Client().get(link, follow=True)
    assert again.context["validlink"] is False
    assert b"This sign-in link no longer works" in again.content


def test_a_deactivated_persons_link_is_dead(client, bare):
    client.post(reverse("console:jurors_confirm", args=[bare.slug]), {"text": LINES})
    link = client.get(reverse("console:person", args=["amina"])).context["link"]
    client.post(reverse("console:person_deactivate", args=["amina"]))
    assert Client().get(link, follow=True).context["validlink"] is False


def test_the_person_page_edits_name_email_and_problems(client, contest):
    url = reverse("console:person", args=["charlie"])
    page = client.get(url)
    assert page.context["form"].initial["problems_test"] == "2"
    assert page.context["link"] is None  # charlie has a password: no link to show
    response = client.post(
        url,
        {
            "first_name": "Charlie",
            "last_name": "Chaplin",
            "email": "c@example.org",
            "problems_test": "P1 P2",
        },
    )
    assert (response.status_code, response["Location"]) == (302, url)
    refused = client.post(
        url, {"first_name": "", "last_name": "", "email": "", "problems_test": "1 5"}
    )
    assert refused.context["form"].errors == {
        "problems_test": [
            "Problems in Contest test: Contest test has no problem 5; its problems are 1, 2."
        ]
    }
    charlie = User.objects.get(username="charlie")
    assert (charlie.get_full_name(), charlie.email) == ("Charlie Chaplin", "c@example.org")
    assert sorted(charlie.grading_groups.values_list("problem__number", flat=True)) == [1, 2]


def test_reset_gives_a_new_link_and_unlock_lifts_a_lock_out(client, juror):
    for _ in range(5):
        Client().post(reverse("login"), {"username": "alice", "password": "wrong"})
    listing = client.get(reverse("console:people"))
    assert [row["locked"] for row in listing.context["rows"] if row["person"] == juror] == [True]
    unlocked = client.post(reverse("console:person_unlock", args=["alice"]))
    assert unlocked.status_code == 302
    assert AccessAttempt.objects.count() == 0
    assert (
        Client().post(reverse("login"), {"username": "alice", "password": PASSWORD}).status_code
        == 302
    )
    client.post(reverse("console:person_reset", args=["alice"]))
    page = client.get(reverse("console:person", args=["alice"]))
    assert page.context["link"].startswith("http://testserver/accounts/sign-in/")
    assert (
        Client().post(reverse("login"), {"username": "alice", "password": PASSWORD}).status_code
        == 200
    )


def test_an_organizer_does_not_reach_a_superusers_page(client):
    User.objects.create_superuser("root", password=PASSWORD)
    assert client.get(reverse("console:person", args=["root"])).status_code == 404
    assert client.post(reverse("console:person_reset", args=["root"])).status_code == 404
    assert User.objects.get(username="root").check_password(PASSWORD)


def test_the_lock_out_page_says_to_ask_an_organizer_to_unlock(juror):
    for _ in range(5):
        Client().post(reverse("login"), {"username": "alice", "password": "wrong"})
    page = Client().post(reverse("login"), {"username": "alice", "password": PASSWORD})
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page.content.decode()))
    assert (
        "Wait and try again, or ask an organizer to unlock your account; if you have forgotten "
        "your password, they can give you a new sign-in link."
    ) in text


@pytest.mark.parametrize("jurors", [3, 40])
def test_the_people_list_runs_a_fixed_number_of_queries(
    client, contest, jurors, django_assert_num_queries
):
    for number in range(jurors):
        user = make_user(f"j{number:02}", roles.JUROR)
        GradingGroup.objects.get(
            problem__contest=contest, problem__number=1 + number % 2
        ).jurors.add(user)
    # session, user, the user's groups, people, their groups, their grading groups, lock-outs,
    # and the header's count of unread notices
    with django_assert_num_queries(8):
        response = client.get(reverse("console:people"))
    assert len(response.context["rows"]) == jurors + 4


def test_no_juror_is_added_to_a_final_contest_from_the_page(client, bare):
    Contest.objects.filter(pk=bare.pk).update(state=Contest.State.FINAL)
    page = client.post(reverse("console:jurors_add", args=[bare.slug]), {"text": LINES})
    assert (page.status_code, page.context["form"].non_field_errors()) == (
        403,
        [
            "Contest bare is final: its jurors and grading groups are read-only. An organizer "
            "can reopen it, with a reason, from its results page."
        ],
    )
    confirmed = client.post(reverse("console:jurors_confirm", args=[bare.slug]), {"text": LINES})
    assert confirmed.status_code == 403
    assert User.objects.filter(username="amina").count() == 0


def test_the_person_page_makes_a_juror_the_chair_and_refuses_with_sentences(client, juror):
    page = client.get(reverse("console:person", args=["alice"]))
    assert page.context["roles_form"].initial == {"roles": [roles.JUROR]}
    url = reverse("console:person_roles", args=["alice"])
    response = client.post(url, {"roles": [roles.JUROR, roles.CHAIR]}, follow=True)
    assert response.redirect_chain == [(reverse("console:person", args=["alice"]), 302)]
    assert [str(m) for m in response.context["messages"]] == ["alice: roles saved."]
    assert response.context["roles_form"].initial == {"roles": [roles.CHAIR, roles.JUROR]}
    assert sorted(juror.groups.values_list("name", flat=True)) == [roles.CHAIR, roles.JUROR]
    refused = client.post(
        reverse("console:person_roles", args=["olga"]), {"roles": [roles.CHAIR]}, follow=True
    )
    assert [str(m) for m in refused.context["messages"]] == [
        "You cannot take your own organizer role away; ask another organizer to."
    ]
    bogus = client.post(url, {"roles": ["admin"]}, follow=True)
    assert [str(m) for m in bogus.context["messages"]] == ["“admin” is not a role."]
    assert sorted(juror.groups.values_list("name", flat=True)) == [roles.CHAIR, roles.JUROR]
    assert sorted(User.objects.get(username="olga").groups.values_list("name", flat=True)) == [
        roles.ORGANIZER
    ]
