"""Delegations on the console: the CSV import (every problem a sentence naming its row and
column, nothing written on any; one transaction on success), through the imports page and
`import_delegations` alike, and the delegations page."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.asserts import assertContains

from grading.console.delegations import delegations_import, delegations_overview
from grading.models import Delegation, Paper
from grading.rules.refusals import ContestFinal
from rubrics.models import Contest
from tests.factories import make_contest, make_delegation, make_user
from tests.grading.console.test_imports import named, page_errors, summary_of, token_of
from tests.grading.scan_pages import add_human_papers

HEADER = "delegation, contestant code\n"


@pytest.fixture(autouse=True)
def folders(settings, tmp_path):
    settings.IMPORTS_DIR = tmp_path / "imports"


@pytest.fixture
def contest(db):
    """Contestants C101, C102, C103 (human) and Team Orca (an AI system's paper)."""
    contest = make_contest("deleg", identities=["Team Orca"])
    add_human_papers(contest, ["C101", "C102", "C103"], pages=0)
    return contest


def _delegations(contest) -> dict[str, list[str]]:
    return {
        delegation.code: sorted(delegation.papers.values_list("identity", flat=True))
        for delegation in contest.delegations.all()
    }


def test_an_import_creates_the_delegations_and_puts_each_contestant_in_theirs(contest, organizer):
    summary = delegations_import(
        contest=contest,
        text=HEADER + "EST, C101\nEST, C102\nLAT, C103\n",
        name="delegations.csv",
        actor=organizer,
    )
    assert _delegations(contest) == {"EST": ["C101", "C102"], "LAT": ["C103"]}
    assert summary.line() == "3 contestants were placed in 2 delegations (2 new) of Contest deleg."
    assert summary.detail_lines() == [
        "EST (created): 2 contestants, C101, C102.",
        "LAT (created): 1 contestant, C103.",
    ]


def test_a_contestant_named_again_moves_and_the_others_keep_their_delegation(contest, organizer):
    papers = {paper.identity: paper for paper in contest.papers.all()}
    make_delegation(contest, "EST", papers=[papers["C101"], papers["C102"]])
    summary = delegations_import(
        contest=contest, text=HEADER + "LAT, C102\n", name="d.csv", actor=organizer, dry_run=True
    )
    assert summary.detail_lines() == [
        "LAT (would be created): 1 contestant, C102. Moved from another delegation: C102."
    ]
    assert _delegations(contest) == {"EST": ["C101", "C102"]}
    delegations_import(contest=contest, text=HEADER + "LAT, C102\n", name="d.csv", actor=organizer)
    assert _delegations(contest) == {"EST": ["C101"], "LAT": ["C102"]}


def test_every_problem_is_a_sentence_naming_its_row_and_column_and_nothing_is_written(
    contest, organizer
):
    text = (
        HEADER
        + "EST, C101\n"
        + "EST, C999\n"
        + "EST, Team Orca\n"
        + "LAT, C101\n"
        + ", C102\n"
        + "LAT,\n"
        + "LAT, C103, Latvia, extra\n"
    )
    with pytest.raises(ValidationError) as refused:
        delegations_import(contest=contest, text=text, name="d.csv", actor=organizer)
    assert refused.value.messages == [
        "d.csv, row 3, column 2 (contestant code): no paper of Contest deleg has the contestant "
        "code “C999”; import the scanned papers first, or correct the code.",
        "d.csv, row 4, column 2 (contestant code): “Team Orca” is an AI system's paper; AI "
        "papers belong to no delegation.",
        "d.csv, row 5, column 2 (contestant code): “C101” is also on row 2; a contestant "
        "belongs to one delegation.",
        "d.csv, row 6, column 1 (delegation): the delegation is missing.",
        "d.csv, row 7, column 2 (contestant code): the contestant code is missing.",
        "d.csv, row 8 has 4 columns; each row needs 2: delegation, contestant code (and a "
        "third, the country, if you give it).",
    ]
    assert Delegation.objects.count() == 0
    assert Paper.objects.filter(delegation__isnull=False).count() == 0


def test_an_empty_file_says_what_it_should_hold(contest, organizer):
    with pytest.raises(ValidationError) as refused:
        delegations_import(contest=contest, text=HEADER, name="d.csv", actor=organizer)
    assert refused.value.messages == [
        "d.csv lists no contestant: one row per contestant, “delegation, contestant code”."
    ]


def test_a_final_contest_refuses_the_import(contest, organizer):
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    contest.refresh_from_db()
    with pytest.raises(ContestFinal):
        delegations_import(contest=contest, text=HEADER + "EST, C101\n", name="d", actor=organizer)
    assert Delegation.objects.count() == 0


def test_only_an_organizer_imports_delegations(contest, juror):
    with pytest.raises(ValidationError):
        delegations_import(contest=contest, text=HEADER + "EST, C101\n", name="d", actor=juror)
    assert Delegation.objects.count() == 0


def test_the_command_calls_the_same_service(contest, tmp_path):
    path = tmp_path / "delegations.csv"
    path.write_text(HEADER + "EST, C101\n", encoding="utf-8")
    out = io.StringIO()
    call_command("import_delegations", "deleg", str(path), stdout=out)
    assert out.getvalue().strip() == (
        "1 contestant was placed in 1 delegation (1 new) of Contest deleg."
    )
    assert _delegations(contest) == {"EST": ["C101"]}
    path.write_text(HEADER + "EST, C999\n", encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command("import_delegations", "deleg", str(path))
    assert "row 2, column 2 (contestant code)" in str(refused.value)


def test_the_command_refuses_a_final_contest(contest, tmp_path):
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    path = tmp_path / "delegations.csv"
    path.write_text(HEADER + "EST, C101\n", encoding="utf-8")
    with pytest.raises(CommandError, match="is final"):
        call_command("import_delegations", "deleg", str(path))
    assert Delegation.objects.count() == 0


def test_the_imports_page_previews_then_imports_on_confirmation(client, contest, organizer):
    client.force_login(organizer)
    url = reverse("console:import_delegations", args=["deleg"])
    preview = client.post(url, {"file": named(HEADER + "EST, C101\n", "d.csv")})
    assert (
        summary_of(preview)
        == "1 contestant would be placed in 1 delegation (1 new) of Contest deleg."
    )
    assert Delegation.objects.count() == 0
    client.post(reverse("console:import_confirm", args=["deleg"]), {"token": token_of(preview)})
    assert _delegations(contest) == {"EST": ["C101"]}


def test_the_imports_page_shows_every_problem_and_writes_nothing(client, contest, organizer):
    client.force_login(organizer)
    url = reverse("console:import_delegations", args=["deleg"])
    refused = client.post(url, {"file": named(HEADER + "EST, C999\n", "d.csv")})
    assert refused.status_code == 422
    assert page_errors(refused) == [
        "d.csv, row 2, column 2 (contestant code): no paper of Contest deleg has the contestant "
        "code “C999”; import the scanned papers first, or correct the code."
    ]
    assert Delegation.objects.count() == 0


def test_the_delegations_page_lists_contestants_leaders_and_those_in_none(
    client, contest, organizer, django_assert_max_num_queries
):
    papers = {paper.identity: paper for paper in contest.papers.all()}
    Paper.objects.filter(identity="C101").update(answer_language="Estonian")
    Paper.objects.filter(identity="C103").update(answer_language="Latvian")
    mari = make_user("mari", first_name="Mari", last_name="Tamm")
    make_delegation(contest, "EST", papers=[papers["C101"], papers["C102"]], leaders=[mari])
    client.force_login(organizer)
    with django_assert_max_num_queries(12):
        response = client.get(reverse("console:delegations", args=["deleg"]))
    assertContains(
        response,
        '<tr id="delegation-est"><th scope="row">EST <small>(Delegation EST)</small></th>'
        "<td>EST</td><td>2</td><td>C101 (Estonian), C102 (language not given)</td>"
        f'<td><a href="{reverse("console:person", args=["mari"])}">Mari Tamm</a></td></tr>',
        html=True,
    )
    assertContains(
        response,
        '<p id="delegation-counts">1 delegation, 2 contestants in them, 1 team leader; '
        "1 human contestant in no delegation.</p>",
        html=True,
    )
    assert delegations_overview(contest).unplaced == ["C103"]


def test_the_delegations_page_runs_as_many_queries_for_many_contestants(
    client, contest, organizer, django_assert_num_queries
):
    client.force_login(organizer)
    url = reverse("console:delegations", args=["deleg"])
    make_delegation(contest, "EST", papers=list(contest.papers.filter(source="human")))
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    many = [
        Paper.objects.create(
            contest=contest, source=Paper.Source.HUMAN, identity=f"M{n}", answer_language="Tagalog"
        )
        for n in range(40)
    ]
    make_delegation(contest, "PHL", papers=many[:20], country="Philippines")
    with django_assert_num_queries(len(few.captured_queries)):
        response = client.get(url)
    assertContains(response, "<td>Philippines</td>", html=True)


def test_a_third_column_gives_each_delegation_its_country(contest, organizer):
    make_delegation(contest, "LAT", country="Latvia")
    summary = delegations_import(
        contest=contest,
        text=HEADER + "EST, C101, Estonia\nEST, C102, estonia \nLAT, C103, Latvija\n",
        name="d.csv",
        actor=organizer,
    )
    assert summary.detail_lines() == [
        "EST (created, country Estonia): 2 contestants, C101, C102.",
        "LAT (kept, country Latvija): 1 contestant, C103.",
    ]
    assert dict(Delegation.objects.values_list("code", "country")) == {
        "EST": "Estonia",
        "LAT": "Latvija",
    }


def test_a_row_without_a_country_keeps_the_delegations(contest, organizer):
    make_delegation(contest, "LAT", country="Latvia")
    delegations_import(contest=contest, text=HEADER + "LAT, C103\n", name="d.csv", actor=organizer)
    assert Delegation.objects.get(code="LAT").country == "Latvia"


def test_one_delegations_rows_must_name_one_country(contest, organizer):
    text = HEADER + "EST, C101, Estonia\nEST, C102, Finland\nLAT, C103, " + "x" * 61 + "\n"
    with pytest.raises(ValidationError) as refused:
        delegations_import(contest=contest, text=text, name="d.csv", actor=organizer)
    assert refused.value.messages == [
        "d.csv, row 3, column 3 (country): “Finland” is not the country row 2 gives "
        "delegation EST (“Estonia”); one delegation's rows name one country.",
        f"d.csv, row 4, column 3 (country): “{'x' * 61}” is longer than 60 characters.",
    ]
    assert Delegation.objects.count() == 0
