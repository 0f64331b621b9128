"""Reads for the jury-versus-automatic analysis: everything `grading.results.analysis` works on, in a fixed
number of queries whatever the number of papers (the results' queries, the automatic scorer's
three, and four more)."""

from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Subquery

from grading.metrics import autoscore
from grading.models import HumanCriterionRate, MarkEvent, Sheet
from grading.resolution.comparison import ContestResults, contest_results
from grading.rules.counting import counted_marks
from rubrics.models import Contest, Task


@dataclass(frozen=True)
class SubmittedMark:
    """One juror's mark for one (paper, criterion) as it stood when the sheet was submitted,
    i.e. before any revision of the resolution phase."""

    paper_id: int
    criterion_id: int
    juror_id: int
    points: Decimal


@dataclass
class AnalysisData:
    results: ContestResults
    autoscores: dict[int, autoscore.PaperResult]  # paper id → the automatic scorer's result
    task_problem: dict[int, int]  # task id → problem number
    marks: list[SubmittedMark]
    jurors: dict[int, str]  # juror id → the name shown in the calibration table
    human_rates: dict[int, Decimal]  # criterion id → share of human contestants meeting it


def submitted_marks_before_resolution(contest: Contest) -> list[SubmittedMark]:
    """Every mark of a submitted sheet at the value it had when the sheet was submitted: a mark
    changed afterwards (a revision) is read from its first later event's old value. One query."""
    later = MarkEvent.objects.filter(
        mark=OuterRef("pk"), created_at__gt=OuterRef("sheet__submitted_at")
    )
    rows = (
        counted_marks()
        .filter(sheet__problem__contest=contest)
        .annotate(
            revised=Exists(later),
            original=Subquery(later.order_by("created_at", "version").values("old_points")[:1]),
        )
        .order_by()
        .values_list("paper_id", "criterion_id", "sheet__juror_id", "points", "revised", "original")
    )
    marks = []
    for paper_id, criterion_id, juror_id, points, revised, original in rows:
        value = original if revised else points
        # Blank at submission means "not graded": it takes no part in agreement figures.
        if value is not None:
            marks.append(SubmittedMark(paper_id, criterion_id, juror_id, Decimal(value)))
    return marks


def analysis_data(contest: Contest, *, identities: bool = False) -> AnalysisData:
    """The contest's results (agreed or provisional values), the automatic scores of its papers,
    the marks as submitted, the jurors' names and the human criterion rates.

    `identities` is passed to `contest_results` (callers check `access.may_see_identities`); the
    automatic scorer reads identities too but the analysis never shows them unless allowed."""
    results = contest_results(contest, identities=identities)
    scored = {result.paper_id: result for result in autoscore.contest_autoscore(contest=contest)}
    task_problem = dict(
        Task.objects.filter(problem__contest=contest).values_list("pk", "problem__number")
    )
    marks = submitted_marks_before_resolution(contest)
    User = get_user_model()
    jurors = {
        pk: (f"{first} {last}".strip() or username)
        for pk, username, first, last in User.objects.filter(
            sheets__problem__contest=contest, sheets__state=Sheet.State.SUBMITTED
        )
        .distinct()
        .values_list("pk", "username", "first_name", "last_name")
    }
    human_rates = dict(
        HumanCriterionRate.objects.filter(criterion__problem__contest=contest).values_list(
            "criterion_id", "share_met"
        )
    )
    return AnalysisData(
        results=results,
        autoscores=scored,
        task_problem=task_problem,
        marks=marks,
        jurors=jurors,
        human_rates=human_rates,
    )
