"""Change tokens for the pages that refresh themselves (`grading.resolution.live_views`): one short string
per scope that changes whenever anything the page shows may have changed, read in one query.

A change token is the newest id of each kind of record the page is built from (mark events of
submitted sheets, comments, resolution events, contest events, notifications) and the number of
submitted sheets; ids only grow, so any write changes it. Only submitted sheets' mark events
count: a draft is its juror's own business, and a token that moved with each autosave would
tell a submitted juror that another is still grading (and make every reader refetch for
nothing)."""

from django.contrib.auth import get_user_model
from django.db.models import Count, IntegerField, Max, Subquery, Value
from django.db.models.functions import Coalesce

from grading.models import (
    CalibrationMarkEvent,
    Comment,
    ContestEvent,
    Mark,
    MarkEvent,
    Notification,
    Resolution,
    ResolutionEvent,
    Sheet,
)
from grading.rules import compiled_sql
from rubrics.models import Contest, Criterion

# Every part is narrowed by `id IN (subquery)` from the scope's sheets or criteria down to the
# events, so that the database walks the foreign keys' indexes from the scope outwards; its cost
# follows the scope's size, not the tables'. (Joined the other way, SQLite scans every mark
# event of the database to find the newest of a scope, the more so when the scope has none.)


def _newest(queryset) -> Coalesce:
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


def _count(queryset) -> Coalesce:
    return Coalesce(
        Subquery(
            queryset.order_by()
            .annotate(scope=Value(1))
            .values("scope")
            .annotate(n=Count("pk"))
            .values("n")[:1],
            output_field=IntegerField(),
        ),
        Value(0),
    )


def _grading(sheets, criteria, **cell) -> dict:
    """The parts of a token for the submitted `sheets` and the `criteria` of a scope (one
    cell's, with `paper_id` and `criterion_id`)."""
    marks = Mark.objects.filter(sheet_id__in=sheets.values("pk"), **cell)
    comments = Comment.objects.filter(criterion_id__in=criteria.values("pk"), **cell)
    resolutions = Resolution.objects.filter(criterion_id__in=criteria.values("pk"), **cell)
    return {
        "marks": _newest(MarkEvent.objects.filter(mark_id__in=marks.values("pk"))),
        "comments": _newest(comments),
        "resolutions": _newest(
            ResolutionEvent.objects.filter(resolution_id__in=resolutions.values("pk"))
        ),
        "submitted": _count(sheets),
    }


def _submitted(**where):
    return Sheet.objects.filter(state=Sheet.State.SUBMITTED, **where)


def _in_contest(contest: int, parts: dict):
    parts = {**parts, "phase": _newest(ContestEvent.objects.filter(contest_id=contest))}
    return Contest.objects.filter(pk=contest).annotate(**parts).values_list(*parts)


def _token(build, **ids: int) -> str:
    """The token `build` reads for the scope `ids` name: its one row's values joined, "" when
    it has none. Each page polls every few seconds, and building a token's nested subqueries
    through the ORM cost ten times what the database takes to answer them (12 ms of a 304's
    13 ms of CPU, against the autosave's workers: bench/load.py's polling phase, issue 32), so
    their SQL is built once per process and only the ids are bound anew
    (`grading.rules.compiled_sql`)."""
    found = compiled_sql.rows(build, **ids)
    return "-".join(str(value) for value in found[0]) if found else ""


def _problem(shape, *, contest_id: int, problem_id: int):
    return _in_contest(
        contest_id,
        _grading(
            _submitted(problem_id=problem_id), Criterion.objects.filter(problem_id=problem_id)
        ),
    )


def problem_change_token(problem) -> str:
    """What the problem's comparison shows."""
    return _token(_problem, contest_id=problem.contest_id, problem_id=problem.pk)


def _contest(shape, *, contest_id: int):
    return _in_contest(
        contest_id,
        _grading(
            _submitted(problem__contest_id=contest_id),
            Criterion.objects.filter(problem__contest_id=contest_id),
        ),
    )


def contest_change_token(contest) -> str:
    """What the chair's queue shows: every problem of the contest."""
    return _token(_contest, contest_id=contest.pk)


def _cell(shape, *, contest_id: int, problem_id: int, paper_id: int, criterion_id: int):
    return _in_contest(
        contest_id,
        _grading(
            _submitted(problem_id=problem_id),
            Criterion.objects.filter(pk=criterion_id),
            paper_id=paper_id,
            criterion_id=criterion_id,
        ),
    )


def cell_change_token(*, problem, paper, criterion) -> str:
    """What a cell's discussion shows."""
    return _token(
        _cell,
        contest_id=problem.contest_id,
        problem_id=problem.pk,
        paper_id=paper.pk,
        criterion_id=criterion.pk,
    )


def _seed_cell(shape, *, contest_id: int, problem_id: int, seed_id: int, criterion_id: int):
    events = CalibrationMarkEvent.objects.filter(
        mark__seed_id=seed_id, mark__criterion_id=criterion_id
    )
    parts = {
        "marks": _newest(events),
        "comments": Value(0),
        "resolutions": Value(0),
        "submitted": _count(_submitted(problem_id=problem_id)),
    }
    return _in_contest(contest_id, parts)


def seed_cell_change_token(*, problem, seed, criterion) -> str:
    """What a seed's cell discussion shows its juror, in the parts a paper's cell token has: the
    seed mark's changes (comments and resolutions a seed never has), the submitted sheets and the
    contest's phase."""
    return _token(
        _seed_cell,
        contest_id=problem.contest_id,
        problem_id=problem.pk,
        seed_id=seed.pk,
        criterion_id=criterion.pk,
    )


def _inbox(shape, *, user_id: int):
    notices = Notification.objects.filter(recipient_id=user_id)
    own = _submitted(juror_id=user_id).values("problem_id")
    parts = {
        "notices": _newest(notices),
        "unread": _count(notices.filter(read_at__isnull=True)),
        **_grading(_submitted(problem_id__in=own), Criterion.objects.filter(problem_id__in=own)),
    }
    return get_user_model().objects.filter(pk=user_id).annotate(**parts).values_list(*parts)


def inbox_change_token(user) -> str:
    """What the user's inbox shows: their notifications (and how many are unread), and the
    grading of the problems where their sheet is in (for their cells that are open)."""
    return _token(_inbox, user_id=user.pk)
