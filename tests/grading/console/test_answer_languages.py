"""Papers' answer languages as bulk lines `code, language` (the paper's public code or the
contestant's code): every problem a sentence naming its line and column, nothing written on
any; the console's page (paste → preview → confirm) and `set_answer_languages` alike."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.asserts import assertContains

from grading.console.answer_languages import answer_languages_parse, answer_languages_set
from grading.models import Paper
from grading.rules.refusals import ContestFinal, NotAllowed
from rubrics.models import Contest
from tests.factories import make_contest


@pytest.fixture
def contest(db):
    contest = make_contest("langs", problems=1, papers=1, identities=["Team Orca"])
    for code in ("C101", "C102", "C103"):
        Paper.objects.create(contest=contest, identity=code, source=Paper.Source.HUMAN)
    return contest


@pytest.fixture
def client(organizer):
    client = Client()
    client.force_login(organizer)
    return client


def _languages(contest):
    return dict(
        contest.papers.filter(source=Paper.Source.HUMAN).values_list("identity", "answer_language")
    )


def test_lines_set_the_answer_languages_by_contestant_or_public_code(contest, organizer):
    c102 = contest.papers.get(identity="C102")
    text = f"code, language\nC101, Estonian\n{c102.public_code},  Tagalog \n"
    batch = answer_languages_set(contest=contest, text=text, actor=organizer)
    assert batch.line() == "Answer languages of 2 papers of Contest langs set (2 of them change)."
    assert _languages(contest) == {"C101": "Estonian", "C102": "Tagalog", "C103": ""}


def test_every_problem_is_a_sentence_naming_its_line_and_column_and_nothing_is_written(
    contest, organizer
):
    orca = contest.papers.get(identity="Team Orca")
    text = (
        "C101, Estonian\n"
        "C999, Latvian\n"
        f"{orca.public_code}, English\n"
        "C101, Finnish\n"
        "C102,\n"
        "C103, Estonian; Russian\n"
        ", Estonian\n"
        "C103, Estonian, extra\n"
    )
    with pytest.raises(ValidationError) as refused:
        answer_languages_set(contest=contest, text=text, actor=organizer)
    assert refused.value.messages == [
        "Line 2, column 1 (code): no paper of Contest langs has the code “C999”; give the "
        "paper's public code or the contestant's code.",
        f"Line 3, column 1 (code): “{orca.public_code}” is an AI system's paper; AI papers are "
        "read in the contest's working language (English), set on the contest's page.",
        "Line 4, column 1 (code): “C101” is the paper of line 1 too; give each paper one line.",
        "Line 5, column 2 (language): the language is missing.",
        "Line 6, column 2 (language): “Estonian; Russian” is not one language's name; give one "
        "per paper.",
        "Line 7, column 1 (code): the paper's code is missing.",
        "Line 8 has 3 columns; each line needs 2: code, language.",
    ]
    assert _languages(contest) == {"C101": "", "C102": "", "C103": ""}


def test_no_line_says_what_a_line_holds(contest):
    assert answer_languages_parse(contest=contest, text="code, language\n").errors == [
        "There is no paper's language: give one line per paper, “code, language”."
    ]


def test_a_final_contest_and_a_juror_are_refused(contest, organizer, juror):
    with pytest.raises(NotAllowed):
        answer_languages_set(contest=contest, text="C101, Estonian", actor=juror)
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    contest.refresh_from_db()
    with pytest.raises(ContestFinal):
        answer_languages_set(contest=contest, text="C101, Estonian", actor=organizer)
    assert _languages(contest)["C101"] == ""


def test_the_page_previews_then_sets_the_languages(client, contest):
    url = reverse("console:answer_languages", args=[contest.slug])
    page = client.get(url)
    assertContains(
        page,
        f'<tr><th scope="row">C101</th><td>{contest.papers.get(identity="C101").public_code}'
        "</td><td>—</td><td>not given</td></tr>",
        html=True,
    )
    preview = client.post(url, {"text": "C101, Estonian\nC102, Latvian\n"})
    assert preview.status_code == 200
    assertContains(preview, "Answer languages of 2 papers of Contest langs would be set")
    assert _languages(contest)["C101"] == ""
    done = client.post(
        reverse("console:answer_languages_confirm", args=[contest.slug]),
        {"text": "C101, Estonian\nC102, Latvian\n"},
        follow=True,
    )
    assert done.redirect_chain == [(url, 302)]
    assertContains(done, "The answer languages of 2 papers of Contest langs are set.")
    assert _languages(contest) == {"C101": "Estonian", "C102": "Latvian", "C103": ""}


def test_the_page_lists_wrong_lines_without_a_confirmation(client, contest):
    preview = client.post(
        reverse("console:answer_languages", args=[contest.slug]), {"text": "C999, Latvian"}
    )
    assert preview.status_code == 422
    assert b'id="languages-confirm"' not in preview.content


def test_a_confirmation_refused_since_the_preview_shows_why(client, contest):
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    response = client.post(
        reverse("console:answer_languages_confirm", args=[contest.slug]),
        {"text": "C101, Estonian"},
    )
    assert response.status_code == 403
    assert _languages(contest)["C101"] == ""


def test_the_page_runs_as_many_queries_for_many_papers(client, contest, django_assert_num_queries):
    url = reverse("console:answer_languages", args=[contest.slug])
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    for n in range(50):
        Paper.objects.create(
            contest=contest, identity=f"M{n}", source=Paper.Source.HUMAN, answer_language="Tagalog"
        )
    with django_assert_num_queries(len(few.captured_queries)):
        client.get(url)


def test_the_command_sets_the_languages(contest, tmp_path):
    path = tmp_path / "languages.csv"
    path.write_text("C101, Estonian\nC103, Latvian\n")
    out = io.StringIO()
    call_command(
        "set_answer_languages", "--contest", "langs", "--file", str(path), "--dry-run", stdout=out
    )
    assert out.getvalue() == (
        "Answer languages of 2 papers of Contest langs would be set (2 of them change).\n"
    )
    assert _languages(contest)["C101"] == ""
    out = io.StringIO()
    call_command(
        "set_answer_languages", "--contest", "langs", "--file", str(path), "-v", "2", stdout=out
    )
    assert out.getvalue().splitlines() == [
        "C101: Estonian",
        "C103: Latvian",
        "Answer languages of 2 papers of Contest langs set (2 of them change).",
    ]
    assert _languages(contest) == {"C101": "Estonian", "C102": "", "C103": "Latvian"}


def test_the_command_lists_every_problem_and_writes_nothing(contest, tmp_path):
    path = tmp_path / "languages.csv"
    path.write_text("C101, Estonian\nC999, Latvian\n")
    with pytest.raises(CommandError) as refused:
        call_command("set_answer_languages", "--contest", "langs", "--file", str(path))
    assert str(refused.value) == (
        "Nothing was set; fix these first:\n"
        "  - Line 2, column 1 (code): no paper of Contest langs has the code “C999”; give the "
        "paper's public code or the contestant's code."
    )
    assert _languages(contest)["C101"] == ""
    with pytest.raises(CommandError, match="There is no contest"):
        call_command("set_answer_languages", "--contest", "nope", "--file", str(path))
