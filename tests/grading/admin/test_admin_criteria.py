"""A criterion's tolerance at the admin's door (issue 31, finding 13: tolerance 99 was taken on a
criterion worth 4.5): the same rule as the scheme file's and the amendment's
(`rubrics.validators.tolerance_refusal`)."""

from decimal import Decimal

import pytest
from django.urls import reverse

from grading.rules import roles
from rubrics.models import Criterion
from tests.factories import make_contest, make_user


def test_the_admin_refuses_a_tolerance_wider_than_the_criterions_points(client, db):
    contest = make_contest("tol", problems=1, papers=1)
    criterion = Criterion.objects.get(problem__contest=contest, code="T1")
    client.force_login(make_user("olga", roles.ORGANIZER))
    url = reverse("admin:rubrics_criterion_change", args=[criterion.pk])
    form = client.get(url).context["adminform"].form
    data = {name: form[name].value() for name in form.fields}
    data = {name: "" if value is None else value for name, value in data.items()}
    data["tolerance"] = "8.5"
    response = client.post(url, data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["tolerance"] == [
        "The tolerance 8.5 is more than the criterion's 8 points."
    ]
    criterion.refresh_from_db()
    assert criterion.tolerance == 0


@pytest.mark.parametrize("typed", ["٣", "３", "1_0"])
def test_the_admin_reads_points_in_ascii_digits_only_as_every_other_door(client, db, typed):
    # Issue 31: Django's own DecimalField reads digits of every script ("٣" as 3); the sheet,
    # its upload and the appeals do not (`rubrics.validators.parse_points`).
    contest = make_contest("digits", problems=1, papers=1)
    criterion = Criterion.objects.get(problem__contest=contest, code="T1")
    client.force_login(make_user("olga", roles.ORGANIZER))
    url = reverse("admin:rubrics_criterion_change", args=[criterion.pk])
    form = client.get(url).context["adminform"].form
    data = {name: "" if form[name].value() is None else form[name].value() for name in form.fields}
    data["tolerance"] = typed
    response = client.post(url, data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["tolerance"] == ["Enter a number."]
    criterion.refresh_from_db()
    assert criterion.tolerance == 0
    # A comma is a decimal point here as in the sheet.
    data["tolerance"] = "0,5"
    assert client.post(url, data).status_code == 302
    criterion.refresh_from_db()
    assert criterion.tolerance == Decimal("0.5")
