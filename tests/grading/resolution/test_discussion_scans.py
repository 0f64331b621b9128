"""A human paper read where the chair and the group decide: the discussion page and the
comparison's one-criterion drill-down show its scanned pages (the sheet's viewer) through the
access-checked page images, and never say that the paper has no solution."""

import re
from html import unescape

import pytest
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from grading.models import Assignment, Paper, ScanPage, Solution
from grading.rules import roles
from tests.crawl import refetched, shared_data
from tests.factories import assign, make_user
from tests.grading import scenario
from tests.grading.scan_pages import add_scans


@pytest.fixture(autouse=True)
def _fast_passwords(settings, tmp_path):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS
    settings.SCANS_DIR = tmp_path / "scans"


def _build_graded():
    graded = scenario.build()
    orca = graded["papers"]["Team Orca"]
    Paper.objects.filter(pk=orca.pk).update(source=Paper.Source.HUMAN)
    Solution.objects.filter(paper=orca).delete()
    return graded


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield _build_graded()


@pytest.fixture
def graded(graded_once, db):
    """The resolution scenario with Orca turned into a human contestant's paper: no typed
    solutions, three scanned pages for problem 1. The pages are added per test, as their
    images go to the test's own SCANS_DIR, set after the module's data is built."""
    graded = refetched(graded_once)
    add_scans(graded["papers"]["Team Orca"], graded["problems"][1], 3)
    return graded


def _image_urls(html: str) -> list[str]:
    return [unescape(src) for src in re.findall(r'<img src="([^"]+)"', html)]


def _text(html: str) -> str:
    html = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def _pages(label: str) -> list[str]:
    return [reverse("scan_page_image", args=["iol", 1, label, n]) for n in (1, 2, 3)]


def test_a_human_papers_discussion_shows_its_pages_instead_of_an_empty_answers_table(
    graded, client
):
    client.force_login(graded["chair"])
    label = scenario.label(graded, "Team Orca", 1)
    response = client.get(reverse("discussion", args=["iol", 1, label, "T1"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert _image_urls(html) == _pages(label)
    assert html.count("data-scan-viewer") == 1
    # The viewer's keys come with it, and the official answers beside the pages.
    assert 'src="/static/grading/scans.js"' in html
    assert html.count('<details class="official-answers">') == 1
    text = _text(html)
    assert "This paper has no solution to this task." not in text
    assert "(empty)" not in text
    assert '<table class="answers compared">' not in html
    # Each page comes through the access-checked image view, for the chair who reads it.
    assert [client.get(url).status_code for url in _pages(label)] == [200, 200, 200]


def test_an_ai_papers_discussion_keeps_its_answers_table_and_has_no_viewer(graded, client):
    client.force_login(graded["chair"])
    label = scenario.label(graded, "Team Heron", 1)
    html = client.get(reverse("discussion", args=["iol", 1, label, "A1"])).content.decode()
    assert html.count('<table class="answers compared">') == 1
    assert html.count("data-scan-viewer") == 0
    assert 'src="/static/grading/scans.js"' not in html


def test_a_human_papers_discussion_swapped_by_htmx_still_shows_its_pages(graded, client):
    client.force_login(graded["chair"])
    label = scenario.label(graded, "Team Orca", 1)
    response = client.post(
        reverse("discussion_comment", args=["iol", 1, label, "T1"]),
        {"text": "Page 2, line 3.", "queue": ""},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert _image_urls(response.content.decode()) == _pages(label)


def _comparison(client, **query) -> str:
    response = client.get(reverse("comparison", args=["iol", 1]), query)
    assert response.status_code == 200
    return response.content.decode()


def test_the_one_criterion_view_opens_a_human_paper_at_its_pages(graded, client):
    client.force_login(graded["chair"])
    label = scenario.label(graded, "Team Orca", 1)
    html = _comparison(client, criterion="T1", read=label)
    assert _image_urls(html) == _pages(label)
    assert html.count("data-scan-viewer") == 1
    assert 'src="/static/grading/scans.js"' in html
    assert "This paper has no solution to this task." not in _text(html)
    # Every row offers the same neutral link: the list does not tell which papers are scanned.
    labels = sorted(scenario.label(graded, name, 1) for name in graded["papers"])
    assert re.findall(r'class="read-paper" href="\?criterion=T1&amp;read=(\w+)#reader"', html) == (
        labels
    )


def test_the_one_criterion_view_opens_an_ai_paper_at_its_answers_and_nothing_without_read(
    graded, client
):
    client.force_login(graded["chair"])
    label = scenario.label(graded, "Team Heron", 1)
    html = _comparison(client, criterion="A1", read=label)
    assert html.count('id="reader"') == 1
    assert html.count('<table class="answers">') == 1
    assert html.count("data-scan-viewer") == 0
    assert _comparison(client, criterion="A1").count('id="reader"') == 0
    # A label that is not a row of the view opens nothing.
    assert _comparison(client, criterion="A1", read="NOPE").count('id="reader"') == 0


def test_a_juror_of_the_group_reads_the_pages_in_the_discussion_once_submitted_not_before(
    graded, client
):
    """dora grades problem 1 but not Orca's paper: she reads its discussion (and its pages)
    after submitting her sheet, as she reads an AI paper's answers there; before, neither."""
    dora = make_user("dora", roles.JUROR)
    assign(graded["contest"], [dora], problems=[1])
    problem = graded["problems"][1]
    orca, heron = graded["papers"]["Team Orca"], graded["papers"]["Team Heron"]
    Assignment.objects.filter(juror=dora, problem=problem).exclude(paper=heron).delete()
    label = scenario.label(graded, "Team Orca", 1)
    discussion = reverse("discussion", args=["iol", 1, label, "T1"])
    client.force_login(dora)
    assert [client.get(url).status_code for url in _pages(label)] == [404, 404, 404]
    scenario.grade(dora, problem, heron, "8", "4")
    scenario.submit(dora, problem)
    assert not Assignment.objects.filter(juror=dora, paper=orca).exists()
    assert _image_urls(client.get(discussion).content.decode()) == _pages(label)
    assert [client.get(url).status_code for url in _pages(label)] == [200, 200, 200]
    # The paper page stays the assigned jurors'.
    assert client.get(reverse("paper_detail", args=["iol", 1, label])).status_code == 404


def test_each_queue_row_links_its_paper_to_the_one_criterion_view_open_at_it(graded, client):
    client.force_login(graded["chair"])
    html = client.get(reverse("chair_queue", args=["iol"])).content.decode()
    links = re.findall(r'<a class="label read-paper" href="([^"]+)"', html)
    items = client.get(reverse("chair_queue", args=["iol"])).context["items"]
    assert [unescape(link) for link in links] == [
        reverse("comparison", args=["iol", item.problem.number])
        + f"?criterion={item.cell.criterion.code}&read={item.label}#reader"
        for item in items
    ]
    orca = scenario.label(graded, "Team Orca", 1)
    assert _image_urls(_comparison(client, criterion="T1", read=orca)) == _pages(orca)


def test_a_human_paper_without_pages_for_the_problem_says_so_on_its_discussion(graded, client):
    ScanPage.objects.filter(paper=graded["papers"]["Team Orca"]).delete()
    client.force_login(graded["chair"])
    label = scenario.label(graded, "Team Orca", 1)
    html = client.get(reverse("discussion", args=["iol", 1, label, "T1"])).content.decode()
    assertInHTML('<p class="warning">This paper has no pages for this problem.</p>', html, count=1)
    assert "This paper has no solution to this task." not in _text(html)
    assert _image_urls(html) == []
