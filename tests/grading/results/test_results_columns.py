"""The results workbook's tab names, a Rank column only when there is something to rank
against, and human scores out of range written plainly."""

import io
import re

import openpyxl
import pytest
from django.urls import reverse

from grading.intake.importers.human_scores import human_scores_import
from tests.crawl import refetched, shared_data
from tests.grading import scenario


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield scenario.build()


@pytest.fixture
def graded(graded_once, db):
    return refetched(graded_once)


def _headings(client) -> list[str]:
    html = client.get(reverse("results", args=["iol"])).content.decode()
    head = re.search(r'<table class="grid" id="results">\s*<thead>(.*?)</thead>', html, re.S)
    return [
        re.sub(r"<[^>]+>", "", cell).strip()
        for cell in re.findall(r"<th[^>]*>(.*?)</th>", head.group(1))
    ]


@pytest.mark.parametrize(("table", "title"), [("", "Results"), ("long", "Results by criterion")])
def test_the_results_workbook_tab_has_a_real_name(client, graded, table, title):
    client.force_login(graded["chair"])
    url = reverse("results_export", args=["iol", "xlsx"])
    response = client.get(url, {"table": table} if table else {})
    assert response.status_code == 200
    book = openpyxl.load_workbook(io.BytesIO(response.content))
    assert book.sheetnames == [title]


def test_without_human_scores_the_results_show_no_empty_rank_column(client, graded):
    client.force_login(graded["chair"])
    headings = _headings(client)
    assert "Rank" not in headings and "Human rank" not in headings
    assert "Percentile" not in headings


def test_with_human_scores_the_results_show_the_human_rank(client, graded):
    human_scores_import(contest=graded["contest"], text=scenario.HUMANS_CSV)
    client.force_login(graded["chair"])
    headings = _headings(client)
    assert headings[headings.index("Medal") + 1 : headings.index("Medal") + 3] == [
        "Human rank",
        "Percentile",
    ]


def test_human_scores_out_of_range_are_written_plainly_never_in_exponent_notation(graded):
    from django.core.exceptions import ValidationError

    from grading.intake.importers.human_scores import human_scores_parse

    with pytest.raises(ValidationError) as refused:
        human_scores_parse(contest=graded["contest"], text="contestant,p1,p2\nH1,1e3,20\n")
    assert refused.value.messages == [
        "the file, row 2, column “p1”: 1000 is outside 0 to 20, the points of problem 1."
    ]
