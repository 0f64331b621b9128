"""The inbox groups notices by problem and kind: a chair deciding dozens of a juror's cells is
one line saying so, opened to list them, with its unread count, read as a group, and the inbox
can be narrowed to one kind."""

import re

import pytest
from django.urls import reverse

from grading.models import Notification
from grading.rules import roles
from tests.factories import make_user
from tests.grading.resolution.test_inbox_page import _header_count, _many

Kind = Notification.Kind


@pytest.fixture
def flooded(db):
    """alice's inbox after 12 papers: the resolution phase opened, 12 comments and 6 chair
    decisions in P1."""
    make_user("chen", roles.CHAIR)
    alice, graded = _many(12)
    return alice, graded["contest"]


def _groups(html: str) -> list[tuple[str, str, int]]:
    """(headline, unread count or "", notices listed) of each group, in page order."""
    found = []
    for block in html.split('<details class="notice-group')[1:]:
        block = block.split("</details>")[0]
        headline = re.search(r'<span class="headline">([^<]+)</span>', block).group(1)
        unread = re.search(r'<span class="group-unread">(\d+) unread</span>', block)
        found.append((headline, unread.group(1) if unread else "", block.count("<li")))
    return found


def test_a_flood_of_notices_is_one_group_per_problem_and_kind_newest_first(client, flooded):
    alice, contest = flooded
    client.force_login(alice)
    html = client.get(reverse("inbox")).content.decode()
    assert _groups(html) == [
        ("The chair decided 6 of your cells in P1.", "6", 6),
        ("12 comments on cells in P1.", "12", 12),
        (
            f"The resolution phase of {contest.name} is open: you may revise your submitted "
            "marks and discuss the open cells.",
            "1",
            1,
        ),
    ]
    assert _header_count(html) == "19"


def test_marking_one_group_read_leaves_the_others_unread(client, flooded):
    alice, contest = flooded
    client.force_login(alice)
    problem = contest.problems.get()
    response = client.post(
        reverse("inbox_read"), {"contest": contest.pk, "problem": problem.pk, "kind": Kind.DECISION}
    )
    assert response.status_code == 302
    html = client.get(response["Location"]).content.decode()
    assert [(headline, unread) for headline, unread, _ in _groups(html)] == [
        ("The chair decided 6 of your cells in P1.", ""),
        ("12 comments on cells in P1.", "12"),
        (_groups(html)[2][0], "1"),
    ]
    assert _header_count(html) == "13"
    # The contest-wide group has no problem.
    client.post(reverse("inbox_read"), {"contest": contest.pk, "kind": Kind.RESOLUTION_OPEN})
    assert Notification.objects.unread().filter(recipient=alice).count() == 12


def test_the_inbox_is_narrowed_to_one_kind_by_its_filter(client, flooded):
    alice, _ = flooded
    client.force_login(alice)
    html = client.get(reverse("inbox"), {"kind": Kind.COMMENT}).content.decode()
    assert _groups(html) == [("12 comments on cells in P1.", "12", 12)]
    # An unknown kind shows every kind.
    html = client.get(reverse("inbox"), {"kind": "nonsense"}).content.decode()
    assert len(_groups(html)) == 3


def test_a_group_named_by_half_is_refused_with_a_sentence_and_marks_nothing(client, flooded):
    alice, contest = flooded
    client.force_login(alice)
    response = client.post(reverse("inbox_read"), {"contest": contest.pk}, follow=True)
    assert [str(message) for message in response.context["messages"]] == [
        "A group of notices is named by its contest and its kind."
    ]
    assert Notification.objects.unread().filter(recipient=alice).count() == 19
