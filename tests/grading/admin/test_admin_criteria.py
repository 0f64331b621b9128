"""A criterion's tolerance at the admin's door (issue 31, finding 13: tolerance 99 was taken on a
criterion worth 4.5): the same rule as the scheme file's and the amendment's
(`rubrics.validators.tolerance_refusal`)."""

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
