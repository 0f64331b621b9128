"""Reads for pages. Each function runs a fixed number of queries whatever the number of papers."""

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, F, Q
from django.http import Http404

from grading.models import (
    CalibrationMark,
    CalibrationRound,
    CalibrationSheet,
    Delegation,
    Paper,
    PaperLabel,
    Seed,
    Sheet,
    Solution,
)
from grading.papers.items import item_labels
from grading.papers.markdown import render_markdown
from grading.rules import access, conflicts
from rubrics.models import Contest, Criterion, Problem


@dataclass
class JurorProblem:
    problem: Problem
    sheet_state: str
    graded: int
    cells: int
    labels: list[str] = field(default_factory=list)

    @property
    def percent(self) -> int:
        return round(100 * self.graded / self.cells) if self.cells else 0


def waiting_calibration_sheets(user) -> list[CalibrationSheet]:
    """The juror's calibration sheets of rounds still open (grading/calibration/), which the
    home page lists before their problems. One query."""
    return list(
        CalibrationSheet.objects.filter(juror=user, round__state=CalibrationRound.State.OPEN)
        .select_related("round__problem__contest")
        .order_by("round__problem__contest__slug", "round__problem__number")
    )


def juror_problems(user) -> list[JurorProblem]:
    """The problems a juror grades, with their papers' labels and the juror's own progress.

    Only the juror's own marks are counted: another juror's progress would leak how far the
    group has come (independence); a paper the juror is conflicted with is neither listed nor
    counted (`access.graded_assignments`). A seed (a calibration paper back in the sheet under
    its own label) is listed and counted as a paper is, as the sheet shows it: nothing tells
    the two apart."""
    assignments = (
        access.graded_assignments(user)
        .select_related("problem__contest")
        .order_by("problem__contest__slug", "problem__number")
    )
    label_of = {
        (link.paper_id, link.problem_id): link.label
        for link in PaperLabel.objects.filter(problem__assignments__juror=user).distinct()
    }
    sheets = {
        sheet.problem_id: sheet
        for sheet in Sheet.objects.filter(juror=user).annotate(
            # Marks of the papers the juror grades now: not of one moved away since (its marks
            # stay on record) nor of one they are conflicted with.
            graded=Count(
                "marks",
                filter=Q(
                    marks__points__isnull=False,
                    marks__paper__assignments__juror=user,
                    marks__paper__assignments__problem=F("problem"),
                )
                & ~conflicts.conflicted(user, paper="marks__paper"),
                distinct=True,
            )
        )
    }
    criteria_count = dict(
        Criterion.objects.filter(problem__assignments__juror=user)
        .values_list("problem_id")
        .annotate(n=Count("id", distinct=True))
    )
    seeds: dict[int, list[str]] = defaultdict(list)
    for problem_id, label in Seed.objects.filter(juror=user).values_list(
        "calibration_paper__round__problem_id", "label"
    ):
        seeds[problem_id].append(label)
    seeds_graded = dict(
        CalibrationMark.objects.filter(seed__juror=user, points__isnull=False)
        .values_list("seed__calibration_paper__round__problem_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    rows: dict[int, JurorProblem] = {}
    for assignment in assignments:
        problem = assignment.problem
        row = rows.get(problem.pk)
        if row is None:
            sheet = sheets.get(problem.pk)
            row = rows[problem.pk] = JurorProblem(
                problem=problem,
                sheet_state=sheet.get_state_display() if sheet else "Not started",
                graded=(getattr(sheet, "graded", 0) if sheet else 0)
                + seeds_graded.get(problem.pk, 0),
                cells=criteria_count.get(problem.pk, 0) * len(seeds[problem.pk]),
                labels=list(seeds[problem.pk]),
            )
        row.cells += criteria_count.get(problem.pk, 0)
        row.labels.append(label_of.get((assignment.paper_id, problem.pk), "?"))
    for row in rows.values():
        row.labels.sort()
    return list(rows.values())


def led_delegations(user) -> list[Delegation]:
    """The delegations a team leader leads, with their contests, for the home page (one
    query)."""
    return list(
        Delegation.objects.filter(leaders=user)
        .select_related("contest")
        .order_by("contest__slug", "code")
    )


def contest_overview(contest_ids=None) -> list[dict]:
    """Set-up status of each contest: counts an organizer or the chair checks at a glance."""
    contests = Contest.objects.annotate(
        n_problems=Count("problems", distinct=True),
        n_papers=Count("papers", distinct=True),
    ).prefetch_related("cutoffs", "problems")
    if contest_ids is not None:
        contests = contests.filter(pk__in=contest_ids)
    per_contest = defaultdict(dict)
    for key, queryset in (
        ("tasks", Problem.objects.values("contest").annotate(n=Count("tasks"))),
        ("criteria", Problem.objects.values("contest").annotate(n=Count("criteria"))),
        ("assignments", Problem.objects.values("contest").annotate(n=Count("assignments"))),
        (
            "jurors",
            Problem.objects.values("contest").annotate(n=Count("group__jurors", distinct=True)),
        ),
        ("sheets", Problem.objects.values("contest").annotate(n=Count("sheets"))),
        (
            "submitted",
            Problem.objects.values("contest").annotate(
                n=Count("sheets", filter=Q(sheets__state=Sheet.State.SUBMITTED))
            ),
        ),
    ):
        for row in queryset:
            per_contest[row["contest"]][key] = per_contest[row["contest"]].get(key, 0) + row["n"]
    overview = []
    for contest in contests:
        counts = per_contest[contest.pk]
        overview.append(
            {
                "contest": contest,
                **{
                    k: counts.get(k, 0)
                    for k in ("tasks", "criteria", "assignments", "jurors", "sheets", "submitted")
                },
            }
        )
    return overview


@dataclass
class TaskView:
    task: object
    items: list[dict]
    explanation: str
    parse_notes: list[str]
    missing: bool

    @property
    def explanation_html(self):
        """The explanation as sanitized HTML, for the paper page and the sheet alike."""
        return render_markdown(self.explanation)

    @property
    def reference_explanation_html(self):
        """The official solution's explanation, sanitized as the papers' are."""
        return render_markdown(self.task.reference_explanation)


def paper_problem_detail(*, problem: Problem, label: str) -> tuple[Paper, list[TaskView]]:
    """One paper's solutions to one problem, found by its label: each task with the paper's
    answer per item beside the accepted reference answers."""
    link = PaperLabel.objects.select_related("paper").filter(problem=problem, label=label).first()
    if link is None:
        raise Http404("No paper has this label in this problem.")
    return link.paper, paper_problem_tasks(problem=problem, paper=link.paper)


def paper_problem_tasks(*, problem: Problem, paper: Paper) -> list[TaskView]:
    """A paper's solutions to one problem, each task with the paper's answer per item beside
    the accepted reference answers (for a paper found by its label, or a seed's)."""
    solutions = {
        solution.task_id: solution
        for solution in Solution.objects.filter(paper=paper, task__problem=problem)
    }
    views = []
    for task in problem.tasks.order_by("number"):
        solution = solutions.get(task.pk)
        answers = list(solution.answers) if solution else []
        count = max(task.item_count, len(answers))
        names = item_labels(task.query, count)
        items = []
        for index in range(count):
            items.append(
                {
                    "number": names[index],
                    "answer": answers[index] if index < len(answers) else "",
                    "references": task.answers[index] if index < len(task.answers) else [],
                }
            )
        views.append(
            TaskView(
                task=task,
                items=items,
                explanation=solution.explanation if solution else "",
                parse_notes=list(solution.parse_notes) if solution else [],
                missing=solution is None,
            )
        )
    return views
