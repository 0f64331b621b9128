"""The "revised" tag on a discussion's marks means "points changed after the sheet was
submitted": not edits while the sheet was a draft, not a note written afterwards."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from grading.marking.marks import mark_set
from grading.models import Mark
from grading.resolution.decisions import mark_revise
from tests.grading import scenario


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _orca_t1(graded, name: str) -> Mark:
    return Mark.objects.get(
        sheet__juror=graded["users"][name],
        paper=graded["papers"]["Team Orca"],
        criterion__code="T1",
    )


def test_revised_marks_only_those_whose_points_changed_after_submission(client, db):
    graded = scenario.build(submit_sheets=False)
    users, p1 = graded["users"], graded["problems"][1]
    # alice changes her mind twice while drafting: 8 → 7 → 8.
    for points in ("7", "8"):
        mark_set(
            mark=_orca_t1(graded, "alice"),
            points=Decimal(points),
            actor=users["alice"],
            channel="browser",
        )
    for name in ("alice", "bob", "dan"):
        scenario.submit(users[name], p1)
    for name in ("charlie", "erin"):
        scenario.submit(users[name], graded["problems"][2])
    scenario.open_resolution(graded)
    # bob adds a note after submitting; dan revises his points.
    bob = _orca_t1(graded, "bob")
    mark_set(
        mark=bob, points=bob.points, note="item 3 is fine", actor=users["bob"], channel="browser"
    )
    mark_revise(mark=_orca_t1(graded, "dan"), points=Decimal("7"), actor=users["dan"])

    client.force_login(graded["chair"])
    label = scenario.label(graded, "Team Orca", 1)
    response = client.get(reverse("discussion", args=["iol", 1, label, "T1"]))
    assert response.status_code == 200
    html = response.content.decode()
    tagged = re.findall(
        r'<li data-juror="(\w+)">(?:(?!</li>).)*?revised after submission', html, re.S
    )
    assert tagged == ["dan"]
    assert response.context["d"].revised == {_orca_t1(graded, "dan").pk}
