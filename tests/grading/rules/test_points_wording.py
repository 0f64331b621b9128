"""Points in words: "1 point" and otherwise "points", on the sheet and in sentences, and a
number of absurd size refused in a short sentence."""

from decimal import Decimal

import pytest
from django.template import Context, Template
from django.urls import reverse

from grading.rules import roles
from grading.rules.domain import points_word
from tests.grading import scenario


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


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
