"""The admin is the organizer's set-up tool; the chair may read it but not the identities."""

from decimal import Decimal

import pytest
from django.contrib import admin
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.marking.marks import mark_set
from grading.models import Mark, MarkEvent
from grading.rules import roles
from tests import factories


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
    # 27 of grading's models (4 of them delegations, provisional results and appeals; 2 the
    # appeals evening and its meetings; 5 jurors' facts, moves, language help, declared
    # conflicts and the chair's decisions on marks given in conflict; the comment bank's notes;
    # the calibration rounds; the discussion sessions), 6 of rubrics' (scheme versions among
    # them).
    assert len(statuses) == 33


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
    # Before final, the chair opens no paper's page by its id (ids follow import order).
    detail = client.get(reverse("admin:grading_paper_change", args=[paper.pk]))
    assert (detail.status_code, detail["Location"]) == (302, "/admin/")


@pytest.mark.parametrize("who", ["juror", None])
def test_jurors_and_visitors_are_kept_out_of_the_admin(request, client, contest, who):
    if who:
        client.force_login(request.getfixturevalue(who))
    response = client.get(reverse("admin:grading_paper_changelist"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_a_criterion_with_marks_is_read_only_in_the_admin_and_a_final_scheme_too(
    client, contest, organizer, juror
):
    from decimal import Decimal

    from grading.marking.marks import mark_set
    from grading.models import Mark
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
    # Under marks every field is read-only here: the scheme is amended from its own page.
    assert (criterion.title, criterion.points) == ("assignment A1", Decimal("12"))
    contest.state = "final"
    contest.save()
    assert client.post(url, {**form, "title": "Later"}).status_code == 403
    criterion.refresh_from_db()
    assert criterion.title == "assignment A1"


def _submitted_sheet(contest, juror):
    from decimal import Decimal

    from grading.marking.marks import mark_set
    from grading.marking.sheets import sheet_submit
    from grading.models import Sheet

    sheet = Sheet.objects.get(juror=juror, problem__number=1)
    for mark in sheet.marks.select_related("criterion"):
        mark_set(mark=mark, points=Decimal("2"), actor=juror, channel="browser")
    return sheet_submit(sheet=sheet, actor=juror)


def test_a_submitted_sheet_cannot_be_set_back_to_draft_in_the_admin(
    client, contest, organizer, juror
):
    from grading.models import Sheet

    sheet = _submitted_sheet(contest, juror)
    client.force_login(organizer)
    form = {"juror": juror.pk, "problem": sheet.problem_id, "state": "draft"}
    form.update({"submitted_at_0": "", "submitted_at_1": ""})
    response = client.post(reverse("admin:grading_sheet_change", args=[sheet.pk]), form)
    # The state is read-only: the form saves what it may and leaves the state as it was.
    assert response.status_code == 302
    assert Sheet.objects.get(pk=sheet.pk).state == "submitted"


def test_graded_work_cannot_be_deleted_in_the_admin_but_untouched_blanks_can(
    client, contest, organizer, juror, other_juror
):
    from grading.models import Mark, Sheet

    sheet = _submitted_sheet(contest, juror)
    client.force_login(organizer)
    mark = sheet.marks.first()
    for url in (
        reverse("admin:grading_mark_delete", args=[mark.pk]),
        reverse("admin:grading_sheet_delete", args=[sheet.pk]),
        reverse("admin:grading_paper_delete", args=[mark.paper_id]),
        reverse("admin:rubrics_contest_delete", args=[contest.pk]),
    ):
        assert client.post(url, {"post": "yes"}).status_code == 403, url
    assert Mark.objects.filter(pk=mark.pk).exists()
    assert Sheet.objects.filter(pk=sheet.pk).exists()

    untouched = Sheet.objects.filter(juror=other_juror).first()
    assert not untouched.marks.exclude(version=0).exists()
    response = client.post(
        reverse("admin:grading_sheet_delete", args=[untouched.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert not Sheet.objects.filter(pk=untouched.pk).exists()
    assert Mark.objects.filter(sheet__juror=juror).count() == sheet.marks.count()


# The lists name rows by their paper's label in the problem (models.paper_named_in): read from
# labels prefetched for the page, never one query per row.


def _queries(client, name: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse(f"admin:grading_{name}_changelist")).status_code == 200
    return len(queries)


def _graded(slug: str, papers: int, juror) -> None:
    contest = factories.make_contest(slug, problems=1, papers=papers)
    factories.assign(contest, [juror])
    for mark in Mark.objects.filter(sheet__problem__contest=contest):
        mark_set(mark=mark, points=Decimal("1"), actor=juror, channel=MarkEvent.Channel.BROWSER)


@pytest.mark.parametrize("who", ["organizer", "chair"])
@pytest.mark.parametrize(
    "name", ["solution", "markevent", "mark", "assignment", "sheet", "paperlabel", "paper"]
)
def test_lists_named_by_label_run_the_same_queries_for_few_rows_or_many(
    request, db, client, who, name
):
    # The chair's rows are ordered by their label in their problem: a subquery, not a query a row.
    juror = factories.make_user("lena", roles.JUROR)
    client.force_login(request.getfixturevalue(who))
    _graded("few", 2, juror)
    few = _queries(client, name)
    _graded("many", 12, juror)
    assert _queries(client, name) == few
