"""The admin is the organizer's set-up tool; the chair may read it but not the identities."""

import pytest
from django.contrib import admin
from django.urls import reverse


def _changelists():
    return [
        reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        for model in admin.site._registry
        if model._meta.app_label in ("rubrics", "grading")
    ]


def test_organizer_opens_every_changelist_of_the_project(client, contest, organizer):
    client.force_login(organizer)
    statuses = {url: client.get(url).status_code for url in _changelists()}
    assert set(statuses.values()) == {200}
    assert len(statuses) == 17


def test_organizer_sees_identities_in_the_paper_list_and_the_chair_does_not(
    client, contest, organizer, chair
):
    url = reverse("admin:grading_paper_changelist")
    client.force_login(organizer)
    assert "Team Heron" in client.get(url).content.decode()
    client.force_login(chair)
    response = client.get(url)
    assert response.status_code == 200
    assert "Team Heron" not in response.content.decode()
    paper = contest.papers.get(identity="Team Heron")
    detail = client.get(reverse("admin:grading_paper_change", args=[paper.pk]))
    assert detail.status_code == 200
    assert "Team Heron" not in detail.content.decode()


@pytest.mark.parametrize("who", ["juror", None])
def test_jurors_and_visitors_are_kept_out_of_the_admin(request, client, contest, who):
    if who:
        client.force_login(request.getfixturevalue(who))
    response = client.get(reverse("admin:grading_paper_changelist"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_a_criterion_with_marks_keeps_its_points_in_the_admin_and_a_final_scheme_is_read_only(
    client, contest, organizer, juror
):
    from decimal import Decimal

    from grading.models import Mark
    from grading.services import mark_set
    from rubrics.models import Criterion

    criterion = Criterion.objects.get(problem__number=1, code="A1")
    url = reverse("admin:rubrics_criterion_change", args=[criterion.pk])
    client.force_login(organizer)
    form = {
        "problem": criterion.problem_id,
        "code": "A1",
        "kind": "assignment",
        "title": "New",
        "guidance": "",
        "points": "10",
        "step": "0.5",
        "tolerance": "0",
        "order": "0",
    }
    mark = Mark.objects.filter(criterion=criterion, sheet__juror=juror).first()
    mark_set(mark=mark, points=Decimal("3"), actor=juror, channel="browser")
    client.post(url, form)
    criterion.refresh_from_db()
    assert (criterion.title, criterion.points) == ("New", Decimal("12"))
    contest.state = "final"
    contest.save()
    assert client.post(url, {**form, "title": "Later"}).status_code == 403
    criterion.refresh_from_db()
    assert criterion.title == "New"
