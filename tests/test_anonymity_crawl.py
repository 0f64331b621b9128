"""Anonymity on a generated contest: AI outputs imported through the real importer from
competition record folders, whose metadata holds distinctive identity strings; as each juror,
everything reachable from the home page (pages, script-fetched partials, PDFs, XLSX, zips,
headers, file names, URLs) is searched for every one of them."""

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.urls import resolve

from grading.intake.importers.outputs import outputs_import
from grading.marking.marks import mark_set
from grading.marking.sheets import sheet_submit
from grading.models import Mark, Paper, Sheet
from grading.resolution.decisions import comment_add, discrepancy_decide
from grading.rules import roles
from rubrics.models import Task
from tests.crawl import crawl, database_state, raw_text, response_text, shared_data, sheet_saves
from tests.factories import assign, make_contest, make_user

# Folder name → metadata.json. Every string is one no page has any reason to show.
RECORDS = {
    "03_quokka-zeta": {
        "team": "Quokka Zeta Collective",
        "team_id": "qzc-team-4471",
        "submission_id": "sub-7f3a9c21e",
        "submission_repo": "quokka-lab/zeta-solver-8841",
        "model": "gargantua-13b-xq-instruct",
        "submission_comment": "beam eight with the zeta prompt",
        "status": "scored-qzc",
        "rank": 3,
    },
    "05_marmot-umbra": {
        "team": "Marmot Umbra Society",
        "team_id": "mus-team-9902",
        "submission_id": "sub-e41b07d5c",
        "submission_repo": "umbra-marmots/olympiad-bot-3318",
        "model": "leviathan-70b-umbra-chat",
        "submission_comment": "self-consistency over nine umbra samples",
        "status": "scored-mus",
        "rank": 5,
    },
    "11_narwhal-kappa": {
        "team": "Narwhal Kappa Guild",
        "team_id": "nkg-team-1207",
        "submission_id": "sub-90cc4e2fa",
        "submission_repo": "kappa-guild/narwhal-linguist-5560",
        "model": "behemoth-8x7b-kappa-dpo",
        "submission_comment": "kappa retrieval of past olympiads",
        "status": "scored-nkg",
        "rank": 11,
    },
}


def write_records(folder: Path, contest) -> list[Path]:
    """A competition record folder per system, shaped like the pipeline's (see
    shared formats/records), with one prediction per task of the contest."""
    paths = []
    for name, metadata in RECORDS.items():
        record = folder / name
        record.mkdir()
        (record / "metadata.json").write_text(json.dumps(metadata), encoding="utf-8")
        predictions = [
            {
                "id": task.external_id,
                "pred": json.dumps(["the dog sleeps", "water"]),
                "predicted_items": ["the dog sleeps", "water"],
                "explanation": f"- **Plural**: suffix *-ri*.\n\nTask {task.external_id}.",
                "split": "public",
            }
            for task in contest_tasks(contest)
        ]
        (record / "predictions.json").write_text(json.dumps(predictions), encoding="utf-8")
        paths.append(record)
    return paths


def contest_tasks(contest):
    return Task.objects.filter(problem__contest=contest).order_by("external_id")


def identity_strings() -> set[str]:
    """Each paper's identity and every textual metadata value, plus the record folders' names
    (which carry the team's rank and name)."""
    strings = set(RECORDS)
    for identity, metadata in Paper.objects.values_list("identity", "metadata"):
        strings.add(identity)
        strings |= {value for value in metadata.values() if isinstance(value, str)}
    return strings


def everything(url: str, response) -> str:
    """The URL, the headers (file names included), the readable text of pages, PDFs (text and
    metadata), XLSX and zips, and their raw bytes."""
    return "\n".join((url, response_text(response), raw_text(response)))


def leaks(pages: dict, secrets: set[str]) -> dict[str, list[str]]:
    """Every crawled URL whose response shows any of the secrets, with those it shows. Each
    response is read (PDFs through pdftotext) once, not once per secret."""
    found = {}
    for url, response in pages.items():
        text = everything(url, response)
        shown = sorted(secret for secret in secrets if secret in text)
        if shown:
            found[url] = shown
    return found


def grade(juror, problem, values: dict[str, str]) -> None:
    for mark in Mark.objects.filter(sheet__juror=juror, sheet__problem=problem).select_related(
        "criterion"
    ):
        mark_set(
            mark=mark,
            points=Decimal(values[mark.criterion.code]),
            actor=juror,
            channel="browser",
            note=f"Checked {mark.criterion.code}.",
        )


def submit(juror, problem) -> None:
    sheet = Sheet.objects.get(juror=juror, problem=problem)
    sheet_submit(sheet=sheet, actor=juror)


@pytest.fixture(scope="module")
def generated(django_db_setup, django_db_blocker, tmp_path_factory, pdf_cache):
    """Two problems, three imported systems; alice and bob grade problem 1 and have both
    submitted (so the comparison and discussions are open to them), charlie grades problem 2
    and is half-way through. Built once for the module: every test only crawls it."""
    with shared_data(django_db_blocker, pdf_cache):
        alice, bob, charlie = (make_user(name, roles.JUROR) for name in ("alice", "bob", "charlie"))
        contest = make_contest("gen", identities=["placeholder"])
        Paper.objects.filter(contest=contest).delete()
        records = write_records(tmp_path_factory.mktemp("records"), contest)
        outputs_import(contest_slug="gen", paths=records)
        assign(contest, [alice, bob], problems=[1])
        assign(contest, [charlie], problems=[2])
        p1, p2 = contest.problems.order_by("number")
        grade(alice, p1, {"A1": "10", "T1": "6"})
        grade(bob, p1, {"A1": "9", "T1": "6"})
        submit(alice, p1)
        submit(bob, p1)
        # A comment and a decision on a cell of theirs: notices in alice's and bob's inboxes.
        chair = make_user("chair-of-gen", roles.CHAIR)
        paper = p1.paper_labels.order_by("label").first().paper
        a1 = p1.criteria.get(code="A1")
        comment_add(paper=paper, criterion=a1, author=chair, text="Which rule?")
        discrepancy_decide(paper=paper, criterion=a1, points=Decimal("9"), reason="R.", actor=chair)
        first = Mark.objects.filter(sheet__juror=charlie, sheet__problem=p2).order_by("pk").first()
        mark_set(mark=first, points=Decimal("4"), actor=charlie, channel="browser")
        yield {"alice": alice, "bob": bob, "charlie": charlie, "state": database_state()}


@pytest.fixture(autouse=True)
def _each_test_starts_from_the_generated_contest(db, generated):
    # The contest is shared by the module's tests: were a test's writes (the sheet script's
    # saves among them) not rolled back with its savepoint, the next would crawl other data.
    assert database_state() == generated["state"]


def test_the_importer_kept_every_identity_string_where_the_crawl_must_not_find_it(generated):
    # The metadata flowed from the record folders into the papers, as in production.
    assert {
        identity: metadata.get("submission_repo")
        for identity, metadata in Paper.objects.values_list("identity", "metadata")
    } == {metadata["team"]: metadata["submission_repo"] for metadata in RECORDS.values()}


@pytest.mark.parametrize("username", ["alice", "bob", "charlie"])
def test_no_identity_string_is_reachable_by_a_juror_of_a_generated_contest(
    client, generated, username
):
    secrets = identity_strings()
    assert len(secrets) == 24
    client.force_login(generated[username])
    pages = crawl(client)
    pages |= sheet_saves(client, pages)
    assert leaks(pages, secrets) == {}


def test_the_crawl_reaches_every_kind_of_page_and_download_a_juror_has(client, generated):
    # Otherwise the test above would pass by not looking: alice reaches her sheet and its
    # partials, the printouts, the XLSX and, being submitted, the comparison and discussions.
    client.force_login(generated["alice"])
    pages = crawl(client)
    reached = {
        resolve(url.split("?")[0]).url_name
        for url, response in pages.items()
        if response.status_code == 200
    }
    assert reached == {
        "home",
        "inbox",
        "inbox_stamp",
        "sheet",
        "sheet_solution",
        "sheet_cell_history",
        "sheet_xlsx",
        "paper_detail",
        "paper_pdf",
        "problem_pdf_bundle",
        "problem_pdf_zip",
        "comparison",
        "comparison_stamp",
        "discussion",
        "discussion_stamp",
        # Her own calibration, linked from her submitted sheet.
        "calibration_mine",
    }
    # Her inbox was read with the notices of the comment and the decision in it.
    inbox = pages["/inbox/"].content.decode()
    assert ("commented on P1 paper" in inbox, "The chair decided P1 paper" in inbox) == (True, True)


def test_the_same_search_finds_identities_where_the_organizer_may_see_them(client, generated):
    # The search must be able to find an identity where one is shown, or the juror test would
    # prove nothing.
    client.force_login(make_user("olga", roles.ORGANIZER))
    pages = crawl(client)
    secrets = identity_strings()
    shown = set().union(
        *(
            {secret for secret in secrets if secret in text}
            for text in map(response_text, pages.values())
        )
    )
    # The automatic ranking names the systems; the organizer's pages show no other metadata.
    assert shown == {metadata["team"] for metadata in RECORDS.values()}


# The admin as the chair reads it: every list and every object's page, but not the same lists
# sorted and filtered every way (query strings), the write pages or the object histories.
ADMIN_SKIP = re.compile(
    r"^/(accounts/|static/|admin/logout|admin/jsi18n|admin/.*(/add/|/delete/|/history/|\?))"
)


def test_no_identity_string_is_reachable_by_the_chair_before_the_contest_is_final(
    client, generated
):
    client.force_login(make_user("chen", roles.CHAIR))
    pages = crawl(client) | crawl(client, start="/admin/", skip=ADMIN_SKIP)
    # The admin's list of papers was read, not refused; it links no paper's page by its id
    # (ids follow import order), so the crawl reaches none.
    paper_pages = {
        url: response.status_code
        for url, response in pages.items()
        if re.fullmatch(r"/admin/grading/paper/(\d+/change/)?", url)
    }
    assert paper_pages == {"/admin/grading/paper/": 200}
    assert leaks(pages, identity_strings()) == {}
