"""Small things found by trying the site: the icon browsers ask for, the results workbook's tab
name, a Rank column that only shows when there is something to rank against, "1 point" and
"AI" in capitals."""

import io
import re
from decimal import Decimal

import openpyxl
import pytest
from django.contrib.staticfiles import finders
from django.template import Context, Template
from django.urls import reverse

from grading.intake.importers.human_scores import human_scores_import
from grading.rules import roles
from grading.rules.domain import points_word
from tests.grading import scenario


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture
def graded(db):
    return scenario.build()


def test_favicon_ico_leads_to_an_icon_file_and_every_page_links_an_icon(client, graded):
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"] == "/static/grading/favicon.ico"
    with open(finders.find("grading/favicon.ico"), "rb") as icon:
        assert icon.read(4) == b"\x00\x00\x01\x00"  # the ICO header
    client.force_login(graded["users"]["alice"])
    page = client.get(reverse("home")).content.decode()
    (href,) = re.findall(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', page)
    assert href == "/static/grading/favicon.svg"
    with open(finders.find("grading/favicon.svg")) as svg:
        assert svg.read().startswith("<svg xmlns=")


@pytest.mark.parametrize(("table", "title"), [("", "Results"), ("long", "Results by criterion")])
def test_the_results_workbook_tab_has_a_real_name(client, graded, table, title):
    client.force_login(graded["chair"])
    url = reverse("results_export", args=["iol", "xlsx"])
    response = client.get(url, {"table": table} if table else {})
    assert response.status_code == 200
    book = openpyxl.load_workbook(io.BytesIO(response.content))
    assert book.sheetnames == [title]


def _headings(client) -> list[str]:
    html = client.get(reverse("results", args=["iol"])).content.decode()
    head = re.search(r'<table class="grid" id="results">\s*<thead>(.*?)</thead>', html, re.S)
    return [
        re.sub(r"<[^>]+>", "", cell).strip()
        for cell in re.findall(r"<th[^>]*>(.*?)</th>", head.group(1))
    ]


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


def test_a_number_of_absurd_size_is_refused_in_a_short_sentence(client, contest, juror):
    """Written out in full, 1e999999999 would be a billion characters long."""
    from grading.models import PaperLabel

    label = PaperLabel.objects.filter(problem__contest=contest, problem__number=1).first().label
    client.force_login(juror)
    url = reverse("sheet_cell_save", args=[contest.slug, 1, label, "T1"])
    for typed, shown, reason in (
        ("1e999999999", "1E+999999999", "is more than the 8 points this criterion allows."),
    ):
        response = client.post(url, {"points": typed, "version": 0})
        assert response.status_code == 422
        assert response.json()["error"] == f"Criterion T1: {shown} {reason}"


@pytest.mark.parametrize(
    ("value", "word"),
    [(0, "points"), ("0.5", "points"), (1, "point"), ("1.00", "point"), (2, "points")],
)
def test_points_are_one_point_and_otherwise_points(value, word):
    assert points_word(value) == word


def test_a_one_point_criterion_reads_1_point_on_the_sheet_and_in_a_sentence(client, db):
    from tests.factories import assign, make_contest, make_user

    contest = make_contest("one", problems=1, papers=2, criteria=(("A1", "assignment", "1"),))
    juror = make_user("ola", roles.JUROR)
    assign(contest, [juror])
    client.force_login(juror)
    page = client.get(reverse("sheet", args=["one", 1])).content.decode()
    assert (page.count("1 point · step"), page.count("1 points")) == (1, 0)
    # The discussion and the chair's decision say it through the same filter.
    shown = Template("{% load results_tags %}{{ one|points }}; {{ half|points }}").render(
        Context({"one": Decimal("1.00"), "half": Decimal("0.50")})
    )
    assert shown == "1 point; 0.5 points"


def test_the_outputs_import_page_says_ai_in_capitals(client, organizer):
    from tests.factories import make_contest

    make_contest("caps", problems=1, papers=1)
    client.force_login(organizer)
    page = client.get(reverse("console:import_outputs", args=["caps"])).content.decode()
    assert re.findall(r"<h1>(.*?)</h1>", page) == ["Import AI outputs into Contest caps"]
