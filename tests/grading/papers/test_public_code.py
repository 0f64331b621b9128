"""A paper's public code: what the chair's pages and the exports call a paper instead of its
database id, which counts papers in import order and so hints at the system."""

import html
import io
import json
import re
from urllib.parse import urljoin, urlsplit

import openpyxl
import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.console.contest_life import contest_finalize
from grading.models import (
    PUBLIC_CODE_ALPHABET,
    PUBLIC_CODE_LENGTH,
    Mark,
    Paper,
    Resolution,
    validate_public_code,
)
from rubrics.models import Contest
from tests.factories import make_contest
from tests.grading import scenario

# Far from every other table's ids and from any number a page shows for another reason.
FIRST_PAPER_ID = 987_651


def _papers_start_at(first: int) -> None:
    """Make the next papers' ids start at `first`, so that an id on a page is unmistakable."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence(%s, 'id'), %s, false)",
                [Paper._meta.db_table, first],
            )
    else:
        # SQLite's AUTOINCREMENT never hands out an id below one it has used, deleted or not.
        throwaway = Contest.objects.create(slug="throwaway", name="Throwaway")
        Paper.objects.create(pk=first - 1, contest=throwaway, identity="throwaway")
        throwaway.delete()


@pytest.fixture
def graded(db):
    _papers_start_at(FIRST_PAPER_ID)
    graded = scenario.build()
    assert sorted(paper.pk for paper in graded["papers"].values()) == [
        FIRST_PAPER_ID,
        FIRST_PAPER_ID + 1,
        FIRST_PAPER_ID + 2,
    ]
    return graded


LINK = re.compile(r'(?:href|src|action|hx-get)="([^"]*)"')
# Printouts are WeasyPrint PDFs of one problem's labels; slow to make, and not the chair's.
SKIPPED = ("/static/", "/admin/", "/accounts/logout/", "/favicon.ico")


def _body_text(response) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content
    kind = response.get("Content-Type", "")
    if kind.startswith("application/vnd.openxmlformats-officedocument.spreadsheetml"):
        workbook = openpyxl.load_workbook(io.BytesIO(content))
        values = [sheet.title for sheet in workbook.worksheets]
        for sheet in workbook.worksheets:
            values += [str(cell) for row in sheet.iter_rows(values_only=True) for cell in row]
        return "\n".join(values)
    return content.decode("utf-8")


def _crawl(user) -> dict[str, str]:
    """Every page and export the user reaches by following links from the home page, as text
    (a workbook as its cells' values), by URL. Forms are not submitted."""
    client = Client()
    client.force_login(user)
    pages, queue, seen = {}, ["/"], {"/"}
    while queue:
        url = queue.pop(0)
        response = client.get(url)
        if response.status_code != 200:
            continue
        kind = response.get("Content-Type", "")
        if "pdf" in kind or "zip" in kind:
            continue
        pages[url] = text = _body_text(response)
        if not kind.startswith("text/html"):
            continue
        for link in LINK.findall(text):
            target = urljoin(url, html.unescape(link)).split("#")[0]
            parts = urlsplit(target)
            if parts.netloc or not target.startswith("/") or target.startswith(SKIPPED):
                continue
            if "pdf" in parts.path or parts.path.endswith(".zip"):
                continue
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return pages


def _ids_shown(pages: dict[str, str], papers) -> dict[str, list[str]]:
    ids = "|".join(str(paper.pk) for paper in papers)
    found = {url: re.findall(rf"(?<!\d)(?:{ids})(?!\d)", text) for url, text in pages.items()}
    return {url: hits for url, hits in found.items() if hits}


def test_the_chair_sees_public_codes_and_no_paper_id_on_any_page_or_export_before_final(graded):
    papers = list(graded["papers"].values())
    pages = _crawl(graded["chair"])
    contest = "/contests/iol"
    # The crawl reached what the chair reads: results and both exports, queue, comparisons and
    # the discussion of a cell.
    for url in (
        f"{contest}/results/",
        f"{contest}/results.csv",
        f"{contest}/results.xlsx",
        f"{contest}/results.csv?table=long",
        f"{contest}/results.xlsx?table=long",
        f"{contest}/queue/",
        f"{contest}/p1/comparison/",
        f"{contest}/p2/comparison/",
    ):
        assert url in pages, f"the crawl did not reach {url}"
    assert any("/criteria/" in url for url in pages)
    assert _ids_shown(pages, papers) == {}
    codes = sorted(paper.public_code for paper in papers)
    results = pages[f"{contest}/results/"]
    assert sorted(re.findall(r'id="result-([A-Z0-9]+)"', results)) == codes
    assert sorted(set(re.findall(r"^([A-Z0-9]{5}),", pages[f"{contest}/results.csv"], re.M))) == (
        codes
    )


def test_jurors_pages_show_no_paper_id_nor_public_code(graded):
    papers = list(graded["papers"].values())
    for name in ("alice", "charlie"):
        pages = _crawl(graded["users"][name])
        assert len(pages) > 3
        assert _ids_shown(pages, papers) == {}
        codes = [paper.public_code for paper in papers]
        assert [url for url, text in pages.items() if any(c in text for c in codes)] == []


def test_after_final_the_reveal_and_exports_still_name_papers_by_code(graded):
    scenario.resolve(graded)
    contest_finalize(contest=graded["contest"], actor=graded["chair"])
    papers = list(graded["papers"].values())
    pages = _crawl(graded["chair"])
    assert "/contests/iol/reveal/" in pages
    assert "Team Orca" in pages["/contests/iol/reveal/"]
    assert _ids_shown(pages, papers) == {}


def test_every_paper_gets_a_code_of_its_own_in_the_contest(db):
    contest = make_contest(papers=40)
    codes = list(Paper.objects.filter(contest=contest).values_list("public_code", flat=True))
    assert len(set(codes)) == 40
    shape = re.compile(f"[A-Z][{PUBLIC_CODE_ALPHABET}]{{{PUBLIC_CODE_LENGTH - 1}}}")
    assert [code for code in codes if not shape.fullmatch(code)] == []
    for code in codes:
        validate_public_code(code)
    # Saving again keeps the code.
    paper = Paper.objects.filter(contest=contest).first()
    code = paper.public_code
    paper.save()
    paper.refresh_from_db()
    assert paper.public_code == code


@pytest.mark.parametrize("bad", ["", "#1", "12345", "K7QX", "K7QXAB", "K0OQ1", "k7qxa"])
def test_a_public_code_not_shaped_as_drawn_is_refused(bad):
    with pytest.raises(ValidationError):
        validate_public_code(bad)


def _backup(contest) -> dict:
    """The backup as import_contest reads it from the file export_contest writes."""
    return json.loads(json.dumps(contest_export(contest=contest)))


def _flush_contest():
    Mark.objects.all().delete()
    Resolution.objects.all().delete()
    Contest.objects.all().delete()


def test_public_codes_survive_backup_and_restore(graded):
    before = dict(Paper.objects.values_list("identity", "public_code"))
    document = _backup(graded["contest"])
    assert {p["identity"]: p["public_code"] for p in document["papers"]} == before
    _flush_contest()

    contest_import(document=document)

    assert dict(Paper.objects.values_list("identity", "public_code")) == before
    # The restored papers have new ids; the code is what names them.
    assert not Paper.objects.filter(pk__in=[p.pk for p in graded["papers"].values()]).exists()


def test_a_backup_from_before_public_codes_restores_with_fresh_codes(graded):
    before = dict(Paper.objects.values_list("identity", "public_code"))
    document = _backup(graded["contest"])
    for paper in document["papers"]:
        del paper["public_code"]
    _flush_contest()

    contest_import(document=document)

    after = dict(Paper.objects.values_list("identity", "public_code"))
    assert sorted(after) == sorted(before)
    assert len(set(after.values())) == 3
    for code in after.values():
        validate_public_code(code)


def test_a_backup_naming_two_papers_by_one_code_or_a_malformed_code_is_refused(graded):
    document = _backup(graded["contest"])
    first, second, third = document["papers"]
    second["public_code"] = first["public_code"]
    third["public_code"] = "#3"
    _flush_contest()

    with pytest.raises(ValidationError) as refused:
        contest_import(document=document, source="old.json")

    messages = refused.value.messages
    assert f"old.json, papers[1]: the public code “{first['public_code']}” appears twice." in (
        messages
    )
    assert any(m.startswith("old.json, papers[2]: public_code: “#3” is not") for m in messages)
    assert not Contest.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_every_existing_paper_a_code_of_its_own_in_its_contest():
    executor = MigrationExecutor(connection)
    before, after = (
        [("grading", "0007_solution_answer_counts")],
        [("grading", "0008_paper_public_code")],
    )
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    OldContest, OldPaper = old.get_model("rubrics", "Contest"), old.get_model("grading", "Paper")
    for slug in ("a", "b"):
        contest = OldContest.objects.create(slug=slug, name=slug, state="grading")
        OldPaper.objects.bulk_create(
            OldPaper(contest=contest, identity=f"system {n}") for n in range(50)
        )

    executor = MigrationExecutor(connection)
    executor.migrate(after)
    new = executor.loader.project_state(after).apps.get_model("grading", "Paper")
    codes = list(new.objects.values_list("contest__slug", "public_code"))
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    assert len(codes) == 100
    assert len(set(codes)) == 100
    for _, code in codes:
        validate_public_code(code)


def test_the_queues_straddle_list_names_papers_by_code(db):
    _papers_start_at(FIRST_PAPER_ID)
    # P1 totals 14 (alice) and 13 (bob), all within tolerance: 28 or 27 of 40, gold or silver.
    marks = {
        "Team Close": {
            1: {"alice": ("8", "6"), "bob": ("7.5", "5.5"), "dan": ("8", "6")},
            2: {"charlie": ("10", "4"), "erin": ("10", "4")},
        },
    }
    graded = scenario.build(marks=marks, tolerances={(1, "A1"): "0.5", (1, "T1"): "0.5"})
    close = graded["papers"]["Team Close"]
    client = Client()
    client.force_login(graded["chair"])
    page = client.get("/contests/iol/queue/").content.decode()
    straddling = page[page.index('id="straddling"') :]
    assert re.findall(r'<td class="code">([A-Z0-9]+)</td>', straddling) == [close.public_code]
    assert _ids_shown({"queue": page}, [close]) == {}
