"""The other doors of a scheme under marks: the admin (every criterion field read-only, and a
pointer to the amend page), the scheme loader (its refusal names the amend page), the amend
page itself (who may open it, its preview, its confirmation) and the admin's read-only list
of versions."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from pytest_django.asserts import assertContains

from grading.intake.schemes import scheme_load
from grading.models import Mark
from grading.schemes.amend import scheme_amend
from rubrics.models import Criterion, SchemeVersion
from tests import factories
from tests.grading import scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def graded():
    graded = scenario.build()
    graded["organizer"] = factories.make_user("olga", "organizer")
    return graded


def test_the_admin_makes_every_criterion_field_read_only_and_points_to_the_amend_page(
    client, graded
):
    client.force_login(graded["organizer"])
    p1 = graded["problems"][1]
    criterion = Criterion.objects.get(problem=p1, code="A1")
    url = reverse("admin:rubrics_criterion_change", args=[criterion.pk])
    page = client.get(url)
    html = page.content.decode()
    amend = reverse("scheme", args=[graded["contest"].slug, 1])
    assert f'<a href="{amend}">amend the scheme from its page</a>' in html
    assert 'name="guidance"' not in html and 'name="title"' not in html
    client.post(url, {"title": "Changed", "guidance": "New", "points": "10", "step": "1"})
    criterion.refresh_from_db()
    assert (criterion.title, criterion.guidance, criterion.points) == (
        "assignment A1",
        "",
        Decimal("12"),
    )
    problem_page = client.get(reverse("admin:rubrics_problem_change", args=[p1.pk]))
    assert 'name="criteria-0-title"' not in problem_page.content.decode()
    # A problem with no mark yet keeps its criteria editable.
    fresh = factories.make_contest("fresh")
    problem = fresh.problems.get(number=1)
    editable = client.get(reverse("admin:rubrics_problem_change", args=[problem.pk]))
    assert 'name="criteria-0-title"' in editable.content.decode()


def test_the_admin_lists_versions_read_only(client, graded):
    scheme_amend(
        graded["problems"][1],
        changes={"A1": {"title": "Clearer"}},
        reason="Wording.",
        actor=graded["chair"],
    )
    client.force_login(graded["organizer"])
    version = SchemeVersion.objects.get()
    assert client.get(reverse("admin:rubrics_schemeversion_changelist")).status_code == 200
    assert client.get(reverse("admin:rubrics_schemeversion_add")).status_code == 403
    change = client.post(
        reverse("admin:rubrics_schemeversion_change", args=[version.pk]), {"reason": "Other"}
    )
    assert change.status_code == 403
    version.refresh_from_db()
    assert version.reason == "Wording."


def test_the_scheme_loader_refusal_names_the_amend_page(graded, tmp_path):
    (tmp_path / "p1.toml").write_text(
        'problem = 1\n[[criteria]]\ncode = "A1"\nkind = "assignment"\ntitle = "A"\npoints = 10\n'
        '[[criteria]]\ncode = "T1"\nkind = "theory"\ntitle = "T"\npoints = 10\n',
        encoding="utf-8",
    )
    with pytest.raises(ValidationError) as refused:
        scheme_load(contest=graded["contest"], directory=tmp_path)
    first = refused.value.messages[0]
    assert first == (
        "p1.toml, criterion A1: cannot change the title and the points from 12 to 10 while 9 "
        "marks are given; clear them first or keep the scheme as it was, or amend the scheme from the "
        "problem's “Amend the scheme” page (/contests/iol/p1/scheme/), which makes a new "
        "version and reopens these marks for their jurors."
    )


def test_only_the_chair_and_the_organizer_open_the_amend_page(client, graded):
    url = reverse("scheme", args=[graded["contest"].slug, 1])
    assert client.get(url).status_code == 302  # anonymous: to the login page
    client.force_login(graded["users"]["alice"])
    assert client.get(url).status_code == 404
    for user in (graded["chair"], graded["organizer"]):
        client.force_login(user)
        assert client.get(url).status_code == 200


def test_the_page_previews_the_marks_it_reopens_then_confirms(client, graded):
    client.force_login(graded["chair"])
    url = reverse("scheme", args=[graded["contest"].slug, 1])
    form = {
        f"{code}-{name}": value
        for code, points in (("A1", "11"), ("T1", "9"))
        for name, value in (
            ("title", f"{'assignment' if code == 'A1' else 'theory'} {code}"),
            ("guidance", ""),
            ("points", points),
            ("step", "0.5"),
            ("tolerance", "0"),
        )
    }
    form["reason"] = "T1 weighs more."
    preview = client.post(url, {**form, "action": "preview"})
    html = preview.content.decode()
    assert preview.status_code == 200
    assert "18 marks will reopen for their jurors to re-confirm or re-mark (version 2)." in html
    # Issue 31, finding 13: the marks above the new maximum are flagged, with what their
    # jurors must do (Enter cannot re-confirm them).
    assertContains(
        preview,
        '<p id="reopen-unfit"><strong>3 reopened marks no longer fit the amended criterion'
        "</strong>: their jurors must type new points, since Enter cannot re-confirm them "
        "(flagged below, and in the juror's sheet beside the cell).</p>",
        html=True,
    )
    orca = scenario.label(graded, "Team Orca", 1)
    for juror in ("alice", "bob", "dan"):
        assertContains(
            preview,
            f'<tr class="unfit"><td>{juror}</td><td>{orca}</td><td>A1</td><td>12</td>'
            "<td>types new points: 12 is more than the 11 points this criterion allows</td></tr>",
            html=True,
        )
    assert html.count("<tr><td>alice</td>") == 5
    assert html.count("<td>re-confirms (Enter) or re-marks</td>") == 15
    assert SchemeVersion.objects.count() == 0
    assert Mark.objects.filter(reopened_by__isnull=False).count() == 0

    confirmed = client.post(url, {**form, "action": "confirm"}, follow=True)
    assert [str(m) for m in confirmed.context["messages"]] == [
        "Scheme version 2 of P1 is in force. 18 marks reopened for their jurors."
    ]
    assert Mark.objects.filter(reopened_by__number=2).count() == 18
    assert '<li id="version-2"><strong>Version 2</strong>' in confirmed.content.decode()


def test_a_refused_amendment_shows_its_sentences_on_the_page_and_writes_nothing(client, graded):
    client.force_login(graded["chair"])
    url = reverse("scheme", args=[graded["contest"].slug, 1])
    response = client.post(url, {"A1-points": "10", "reason": "", "action": "confirm"})
    html = response.content.decode()
    assert response.status_code == 422
    assert "<li>The criteria would add up to 18 points, but P1 is worth 20" in html
    assert "<li>Give a reason for the amendment" in html
    assert SchemeVersion.objects.count() == 0
    assert Criterion.objects.get(problem=graded["problems"][1], code="A1").points == Decimal("12")
