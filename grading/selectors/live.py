"""Change stamps for the pages that refresh themselves (`grading.views.live`): one short string
per scope that changes whenever anything the page shows may have changed, read in one query.

A stamp is the newest id of each kind of record the page is built from (mark events of
submitted sheets, comments, resolution events, contest events, notifications) and the number of
submitted sheets; ids only grow, so any write changes it. Only submitted sheets' mark events
count: a draft is its juror's own business, and a stamp that moved with each autosave would
tell a submitted juror that another is still grading (and make every reader refetch for
nothing)."""

from django.contrib.auth import get_user_model
from django.db.models import Count, IntegerField, Max, Q, Subquery, Value
from django.db.models.functions import Coalesce

from grading.models import (
    Comment,
    ContestEvent,
    MarkEvent,
    Notification,
    Paper,
    ResolutionEvent,
    Sheet,
)
from rubrics.models import Contest


def _newest(queryset) -> Coalesce:
    # MAX over the scope, through the foreign keys' indexes: its cost follows the scope's size.
    # (ORDER BY id DESC LIMIT 1 would walk the whole table from its newest row when nothing of
    # the scope is in it, as for a juror with no sheet in.)
    return Coalesce(
        Subquery(
            queryset.order_by()
            .annotate(scope=Value(1))
            .values("scope")
            .annotate(newest=Max("pk"))
            .values("newest")[:1],
            output_field=IntegerField(),
        ),
        Value(0),
    )


def _sheets(queryset) -> Coalesce:
    return Coalesce(
        Subquery(
            queryset.order_by().values("state").annotate(n=Count("pk")).values("n")[:1],
            output_field=IntegerField(),
        ),
        Value(0),
    )


def _stamp(contest_id: int, **parts) -> str:
    row = Contest.objects.filter(pk=contest_id).annotate(**parts).values_list(*parts).first()
    return "-".join(str(value) for value in row or ())


def _scope(*, contest_id: int, problem_filter: Q, cell: Q | None = None) -> dict:
    cell = cell or Q()
    submitted = Sheet.objects.filter(state=Sheet.State.SUBMITTED)
    return {
        "marks": _newest(
            MarkEvent.objects.filter(
                Q(mark__sheet__state=Sheet.State.SUBMITTED),
                *_prefixed(problem_filter, "mark__sheet__"),
                *_prefixed(cell, "mark__"),
            )
        ),
        "comments": _newest(
            Comment.objects.filter(*_prefixed(problem_filter, "criterion__"), *_prefixed(cell, ""))
        ),
        "resolutions": _newest(
            ResolutionEvent.objects.filter(
                *_prefixed(problem_filter, "resolution__criterion__"),
                *_prefixed(cell, "resolution__"),
            )
        ),
        "phase": _newest(ContestEvent.objects.filter(contest_id=contest_id)),
        "sheets": _sheets(submitted.filter(*_prefixed(problem_filter, ""))),
    }


def _prefixed(where: Q, prefix: str) -> list[Q]:
    """`where`'s lookups (a flat AND of keyword lookups) with `prefix` before each."""
    return [Q(**{f"{prefix}{key}": value}) for key, value in where.children]


def problem_stamp(problem) -> str:
    """What the problem's comparison shows."""
    return _stamp(
        problem.contest_id,
        **_scope(contest_id=problem.contest_id, problem_filter=Q(problem=problem)),
    )


def contest_stamp(contest) -> str:
    """What the chair's queue shows: every problem of the contest."""
    return _stamp(
        contest.pk, **_scope(contest_id=contest.pk, problem_filter=Q(problem__contest=contest))
    )


def cell_stamp(*, problem, paper: Paper, criterion) -> str:
    """What a cell's discussion shows."""
    return _stamp(
        problem.contest_id,
        **_scope(
            contest_id=problem.contest_id,
            problem_filter=Q(problem=problem),
            cell=Q(paper=paper, criterion=criterion),
        ),
    )


def inbox_stamp(user) -> str:
    """What the user's inbox shows: their notifications (and how many are unread), and the
    grading of the problems where their sheet is in (for the cells that need them)."""
    own_problems = Sheet.objects.filter(juror=user, state=Sheet.State.SUBMITTED).values(
        "problem_id"
    )
    notices = Notification.objects.filter(recipient=user)
    parts = {
        "notices": _newest(notices),
        "unread": Coalesce(
            Subquery(
                notices.filter(read_at__isnull=True)
                .order_by()
                .values("recipient")
                .annotate(n=Count("pk"))
                .values("n")[:1],
                output_field=IntegerField(),
            ),
            Value(0),
        ),
        "marks": _newest(
            MarkEvent.objects.filter(
                mark__sheet__state=Sheet.State.SUBMITTED,
                mark__sheet__problem_id__in=own_problems,
            )
        ),
        "resolutions": _newest(
            ResolutionEvent.objects.filter(resolution__criterion__problem_id__in=own_problems)
        ),
    }
    row = get_user_model().objects.filter(pk=user.pk).annotate(**parts).values_list(*parts).first()
    return "-".join(str(value) for value in row or ())
