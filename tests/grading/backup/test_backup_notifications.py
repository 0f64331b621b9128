"""Backups carry the inbox: every notification comes back to its recipient, read or unread, with
the comment it announces, so that a chair's request to revise (a comment flagged only by its
notification) is still a request after a restore; a backup from before notifications restores
with empty inboxes; a notification that does not fit the file is refused with a sentence."""

import json
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse

from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.console.contest_life import contest_resolution_open
from grading.models import Comment, Notification, Paper
from grading.resolution.decisions import comment_add, discrepancy_decide
from grading.resolution.inbox import notifications_read
from grading.resolution.inbox_selectors import inbox_entries
from grading.resolution.revision_requests import revision_request
from grading.rules import roles
from rubrics.models import Contest, Criterion
from tests.factories import make_user
from tests.grading.backup.backup_helpers import forget_everything, problem_1_graded

Kind = Notification.Kind
REQUEST = "Request to bob to revise their mark: item 2 keeps the plural."


@pytest.fixture
def talked(contest, juror, other_juror, chair):
    """Problem 1 graded and submitted by alice and bob, the resolution phase open (a notice to
    each juror), a comment of alice's on Orca A1 (to bob and the chairs), the chair's request
    that bob revise Orca A1 (a request to bob, a comment notice to alice), and the chair's
    decision on Heron A1 (to alice and bob). A second chair, dora, appears in the contest only
    as the recipient of comment notices. Alice has read everything; bob one notice."""
    make_user("dora", roles.CHAIR)
    orca, heron = (Paper.objects.get(identity=name) for name in ("Team Orca", "Team Heron"))
    problem_1_graded(contest, {juror: "12", other_juror: "9"})
    contest_resolution_open(contest=contest, actor=chair)
    a1 = Criterion.objects.get(problem__number=1, code="A1")
    comment_add(paper=orca, criterion=a1, author=juror, text="Item 2 keeps the plural.")
    revision_request(
        paper=orca,
        criterion=a1,
        juror=other_juror,
        actor=chair,
        text="item 2 keeps the plural.",
    )
    discrepancy_decide(paper=heron, criterion=a1, points=Decimal("10"), reason="Mean.", actor=chair)
    notifications_read(user=juror)
    oldest = Notification.objects.filter(recipient=other_juror).order_by("created_at").first()
    notifications_read(user=other_juror, ids=[oldest.pk])
    return contest


def _notifications() -> list[tuple]:
    """Every notification by natural keys, every field."""
    return sorted(
        (
            notice.recipient.username,
            notice.kind,
            notice.contest.slug,
            notice.problem and notice.problem.number,
            notice.paper and notice.paper.identity,
            notice.criterion and notice.criterion.code,
            notice.comment
            and (notice.comment.author.username, notice.comment.text, notice.comment.created_at),
            notice.sentence,
            notice.created_at,
            notice.read_at,
        )
        for notice in Notification.objects.select_related(
            "recipient", "contest", "problem", "paper", "criterion", "comment__author"
        )
    )


def _inbox(username: str) -> list[tuple]:
    """What the inbox shows the person: each entry's kind, sentence, link and whether it is new,
    and the text of the comment it announces."""
    return [
        (
            entry.notification.get_kind_display(),
            entry.notification.sentence,
            entry.url,
            entry.unread,
            entry.notification.comment and entry.notification.comment.text,
        )
        for entry in inbox_entries(User.objects.get(username=username))
    ]


def _written() -> tuple[int, int, int, int]:
    return (
        Contest.objects.count(),
        User.objects.count(),
        Comment.objects.count(),
        Notification.objects.count(),
    )


def test_every_notification_comes_back_to_its_recipient_read_or_unread(talked, tmp_path):
    notifications = _notifications()
    inboxes = {name: _inbox(name) for name in ("alice", "bob", "chen", "dora")}
    path = tmp_path / "backup.json"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    forget_everything()

    call_command("import_contest", str(path), verbosity=0)

    assert _notifications() == notifications
    assert {name: _inbox(name) for name in inboxes} == inboxes
    assert (
        sorted({row[1] for row in notifications}),
        sorted((row[0], row[9] is None) for row in notifications),
    ) == (
        ["comment", "decision", "resolution_open", "revise_request"],
        [
            ("alice", False),
            ("alice", False),
            ("alice", False),
            ("bob", False),
            ("bob", True),
            ("bob", True),
            ("bob", True),
            ("charlie", True),
            ("chen", True),
            ("dora", True),
            ("dora", True),
        ],
    )


def test_a_restored_request_to_revise_is_still_a_request(talked, tmp_path, client):
    path = tmp_path / "backup.json"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    forget_everything()
    call_command("import_contest", str(path), verbosity=0)

    request = Comment.objects.get(text=REQUEST)
    client.force_login(User.objects.get(username="bob"))
    page = client.get(reverse("inbox")).content.decode()
    assert (
        list(
            Notification.objects.filter(comment=request)
            .order_by("recipient__username")
            .values_list("recipient__username", "kind")
        ),
        [row[0] for row in _inbox("bob") if row[4] == REQUEST],
        page.count("· Request to revise ·"),  # the group of requests in the inbox
    ) == (
        [("alice", Kind.COMMENT), ("bob", Kind.REVISE_REQUEST), ("dora", Kind.COMMENT)],
        ["Request to revise"],
        1,
    )


def test_the_backup_names_recipients_and_the_comment_each_notification_announces(talked):
    document = contest_export(contest=talked)
    comments = document["comments"]
    rows = [
        (
            row["recipient"],
            row["kind"],
            row["problem"],
            row["paper"],
            row["criterion"],
            None if row["comment"] is None else comments[row["comment"]]["text"],
            row["read_at"] is None,
        )
        for row in document["notifications"]
    ]
    assert (rows, [user["username"] for user in document["users"]]) == (
        [
            ("alice", "resolution_open", None, None, None, None, False),
            ("alice", "comment", 1, "Team Orca", "A1", REQUEST, False),
            ("alice", "decision", 1, "Team Heron", "A1", None, False),
            ("bob", "resolution_open", None, None, None, None, False),
            ("bob", "comment", 1, "Team Orca", "A1", "Item 2 keeps the plural.", True),
            ("bob", "revise_request", 1, "Team Orca", "A1", REQUEST, True),
            ("bob", "decision", 1, "Team Heron", "A1", None, True),
            ("charlie", "resolution_open", None, None, None, None, True),
            ("chen", "comment", 1, "Team Orca", "A1", "Item 2 keeps the plural.", True),
            ("dora", "comment", 1, "Team Orca", "A1", "Item 2 keeps the plural.", True),
            ("dora", "comment", 1, "Team Orca", "A1", REQUEST, True),
        ],
        ["alice", "bob", "charlie", "chen", "dora"],
    )


def test_a_backup_made_before_notifications_were_backed_up_still_restores(talked):
    document = contest_export(contest=talked)
    del document["notifications"]  # as export_contest wrote it before
    forget_everything()
    contest_import(document=document)
    assert (Contest.objects.count(), Comment.objects.count(), Notification.objects.count()) == (
        1,
        2,
        0,
    )


def test_a_dry_run_writes_no_notification(talked, tmp_path):
    path = tmp_path / "backup.json"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    forget_everything()
    call_command("import_contest", str(path), dry_run=True, verbosity=0)
    assert _written() == (0, 0, 0, 0)


def test_notifications_that_do_not_fit_the_file_are_refused_and_nothing_is_written(talked):
    document = contest_export(contest=talked)
    rows = document["notifications"]
    opened = next(row for row in rows if row["kind"] == "resolution_open")
    decided = next(row for row in rows if row["kind"] == "decision")
    # A criterion B1 that problem 2 has and problem 1 has not.
    problem_2 = document["problems"][1]
    problem_2["criteria"].append(problem_2["criteria"][0] | {"code": "B1", "order": 9})
    first = len(rows)
    rows += [
        opened | {"kind": "nudge"},
        opened | {"recipient": "mallory"},
        opened | {"problem": 7},
        opened | {"paper": "Team Nobody"},
        decided | {"criterion": "Z9"},
        decided | {"criterion": "B1"},
        opened | {"criterion": "A1"},
        opened | {"comment": 99},
        opened | {"comment": -1},
        opened | {"comment": 0},
        opened | {"created_at": "yesterday"},
        opened | {"read_at": "2026-07-21T09:30:00"},
        opened | {"read_at": 5},
        opened | {"sentence": ""},
    ]
    forget_everything()

    with pytest.raises(ValidationError) as caught:
        contest_import(document=json.loads(json.dumps(document)))

    at = [f"The backup, notifications[{first + index}]" for index in range(14)]
    assert caught.value.messages == [
        f"{at[0]}: kind: Value 'nudge' is not a valid choice.",
        f"{at[1]}: the user “mallory” is not in the file's list of users.",
        f"{at[2]}: problem 7 is not in the file.",
        f"{at[3]}: the paper is not in the file's list of papers.",
        f"{at[4]}: criterion Z9 of problem 1 is not in the file.",
        f"{at[5]}: criterion B1 of problem 1 is not in the file.",
        f"{at[6]}: criterion A1 is named without its problem.",
        f"{at[7]}: there is no comments[99]: the file's list of comments has 2.",
        f"{at[8]}.comment: expected a whole number of 0 or more; got -1.",
        f"{at[9]}: the comment it announces, comments[0], is on another cell.",
        f"{at[10]}.created_at: “yesterday” is not a date and time with a time zone.",
        f"{at[11]}.read_at: “2026-07-21T09:30:00” is not a date and time with a time zone.",
        f'{at[12]}.read_at: expected a date and time such as "2026-07-21T09:30:00+00:00"; got 5.',
        f"{at[13]}: sentence: This field cannot be blank.",
    ]
    assert _written() == (0, 0, 0, 0)
