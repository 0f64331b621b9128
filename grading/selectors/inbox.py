"""The inbox's reads: a person's notifications with where each leads, and, for a juror in the
resolution phase, the cells of theirs that are still open. Each runs a fixed number of queries
whatever the number of notifications, papers or cells.

Only the reader's own submitted marks are read as theirs; the other marks of a cell are read
solely to settle it through `settle_cell` (that is, `grading.domain.cell_outcome`) and are never
returned, so the section says which cells are open, not what anyone else gave."""

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count
from django.urls import reverse

from grading import access
from grading.models import Assignment, Mark, Notification, PaperLabel, Resolution, Sheet
from grading.selectors.comparison import settle_cell
from rubrics.models import Contest, Criterion, Problem

INBOX_LIMIT = 200


@dataclass
class Entry:
    notification: Notification
    url: str

    @property
    def unread(self) -> bool:
        return self.notification.read_at is None


@dataclass
class OpenCell:
    contest: Contest
    problem: Problem
    label: str
    criterion: Criterion
    own_points: Decimal
    url: str


def _labels(pairs: set[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """Labels by (paper id, problem id), in one query."""
    if not pairs:
        return {}
    papers, problems = {pair[0] for pair in pairs}, {pair[1] for pair in pairs}
    return {
        (paper_id, problem_id): label
        for paper_id, problem_id, label in PaperLabel.objects.filter(
            paper_id__in=papers, problem_id__in=problems
        ).values_list("paper_id", "problem_id", "label")
    }


def inbox_entries(user, *, limit: int = INBOX_LIMIT) -> list[Entry]:
    """The user's latest notifications, newest first, each with the page it leads to: a cell's
    discussion where the reader may open it, their sheet where their own sheet is not in yet,
    the home page for a contest-wide notice. Three queries."""
    notices = list(
        Notification.objects.filter(recipient=user)
        .select_related("contest", "problem", "criterion")
        .order_by("-created_at", "-id")[:limit]
    )
    labels = _labels({(n.paper_id, n.problem_id) for n in notices if n.paper_id})
    submitted = set(
        Sheet.objects.submitted().filter(juror=user).values_list("problem_id", flat=True)
    )
    reads_all = access.reads_every_paper(user)
    entries = []
    for notice in notices:
        label = labels.get((notice.paper_id, notice.problem_id))
        if notice.problem is None or label is None:
            url = reverse("home")
        elif reads_all or notice.problem_id in submitted:
            url = reverse(
                "discussion",
                args=[notice.contest.slug, notice.problem.number, label, notice.criterion.code],
            )
        else:
            url = reverse("sheet", args=[notice.contest.slug, notice.problem.number])
        entries.append(Entry(notification=notice, url=url))
    return entries


def open_cells_of(user) -> list[OpenCell]:
    """The cells still open in contests in their resolution phase where the user has a
    submitted mark, by contest, problem, label and criterion. One query when there are none,
    five otherwise."""
    own = list(
        Mark.objects.filter(
            sheet__juror=user,
            sheet__state=Sheet.State.SUBMITTED,
            sheet__problem__contest__state=Contest.State.RESOLUTION,
            points__isnull=False,
        ).select_related("criterion__problem__contest")
    )
    if not own:
        return []
    paper_ids = {mark.paper_id for mark in own}
    criterion_ids = {mark.criterion_id for mark in own}
    problem_ids = {mark.criterion.problem_id for mark in own}
    values: dict[tuple[int, int], list[Decimal]] = defaultdict(list)
    for paper_id, criterion_id, points in Mark.objects.filter(
        paper_id__in=paper_ids,
        criterion_id__in=criterion_ids,
        sheet__state=Sheet.State.SUBMITTED,
        points__isnull=False,
    ).values_list("paper_id", "criterion_id", "points"):
        values[paper_id, criterion_id].append(points)
    resolutions = {
        (paper_id, criterion_id): (kind, points, reason)
        for paper_id, criterion_id, kind, points, reason in Resolution.objects.filter(
            paper_id__in=paper_ids, criterion_id__in=criterion_ids
        ).values_list("paper_id", "criterion_id", "kind", "points", "reason")
    }
    expected = {
        (row["paper_id"], row["problem_id"]): row["n"]
        for row in Assignment.objects.filter(paper_id__in=paper_ids, problem_id__in=problem_ids)
        .values("paper_id", "problem_id")
        .annotate(n=Count("id"))
        .order_by()
    }
    labels = _labels({(mark.paper_id, mark.criterion.problem_id) for mark in own})
    cells = []
    for mark in own:
        criterion = mark.criterion
        problem = criterion.problem
        cell = settle_cell(
            paper_id=mark.paper_id,
            criterion=criterion,
            marks=values[mark.paper_id, criterion.pk],
            expected=expected.get((mark.paper_id, problem.pk), 0),
            resolution=resolutions.get((mark.paper_id, criterion.pk)),
        )
        if not cell.is_open:
            continue
        label = labels[mark.paper_id, problem.pk]
        cells.append(
            OpenCell(
                contest=problem.contest,
                problem=problem,
                label=label,
                criterion=criterion,
                own_points=mark.points,
                url=reverse(
                    "discussion", args=[problem.contest.slug, problem.number, label, criterion.code]
                ),
            )
        )
    cells.sort(
        key=lambda c: (
            c.contest.name,
            c.problem.number,
            c.label,
            c.criterion.order,
            c.criterion.code,
        )
    )
    return cells
