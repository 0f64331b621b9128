"""Reads for one cell's discussion: its submitted marks with their history, the comments, the
resolution with its history, and the paper's answers beside the official ones; and the paper a
reader opens beside a criterion's marks in the comparison."""

from dataclasses import dataclass, field

from grading.metrics.answer_diff import compare_item
from grading.models import (
    Assignment,
    Comment,
    HelpRequest,
    Mark,
    MarkEvent,
    Paper,
    Resolution,
    Solution,
)
from grading.papers.items import item_labels
from grading.papers.selectors import TaskView
from grading.resolution.cells import Cell, settle_cell
from grading.rules.counting import counted_marks
from rubrics.models import Criterion, Problem, Task


@dataclass
class Discussion:
    problem: Problem
    paper: Paper
    label: str
    criterion: Criterion
    cell: Cell
    marks: list[Mark]
    events: list[MarkEvent]
    comments: list[Comment]
    resolution: Resolution | None
    resolution_events: list
    # What is argued about: the criterion's task (every task of the problem for a criterion on
    # none), the paper's answers item by item against the official ones, the explanations.
    tasks: list[TaskView] = field(default_factory=list)
    # The marks (by id) changed after their sheet was submitted.
    revised: set[int] = field(default_factory=set)
    # The paper's answered language help in the problem: the helpers' translation notes.
    help_notes: list[HelpRequest] = field(default_factory=list)
    # The jurors the paper is assigned to in the problem: one alone has no one to discuss the
    # cell with (`access.discusses_alone`).
    graders: int = 0


def criterion_tasks(*, problem: Problem, paper: Paper, criterion: Criterion) -> list[TaskView]:
    """The criterion's task(s) as the paper answered them, each item compared with its
    accepted answers (`grading.metrics.answer_diff`). Two queries."""
    tasks = Task.objects.filter(problem=problem).order_by("number")
    if criterion.task_id:
        tasks = tasks.filter(pk=criterion.task_id)
    tasks = list(tasks)
    solutions = {
        solution.task_id: solution
        for solution in Solution.objects.filter(paper=paper, task__in=[task.pk for task in tasks])
    }
    views = []
    for task in tasks:
        solution = solutions.get(task.pk)
        answers = list(solution.answers) if solution else []
        count = max(task.item_count, len(answers))
        names = item_labels(task.query, count)
        items = []
        for index in range(count):
            answer = answers[index] if index < len(answers) else ""
            references = task.answers[index] if index < len(task.answers) else []
            if isinstance(references, str):
                references = [references]
            items.append(
                {
                    "number": names[index],
                    "answer": answer,
                    "references": references,
                    "compared": compare_item(answer, references),
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


def criterion_reading(*, problem: Problem, paper_id: int, criterion: Criterion):
    """(the paper, its answers to the criterion's task(s)): what the comparison's one-criterion
    view shows of the paper a reader opens there. Three queries."""
    paper = Paper.objects.only("pk", "source", "contest_id").get(pk=paper_id)
    return paper, criterion_tasks(problem=problem, paper=paper, criterion=criterion)


def cell_discussion(
    *, problem: Problem, paper: Paper, label: str, criterion: Criterion
) -> Discussion:
    """One (paper, criterion): the submitted marks with their full history, the comments, the
    resolution with its history, and the paper's answers for the criterion's task(s) beside
    the official ones, and the translation notes the paper's language help brought. Nine
    queries."""
    marks = list(
        counted_marks()
        .filter(paper=paper, criterion=criterion)
        .select_related("sheet__juror")
        .order_by("sheet__juror__username")
    )
    events = list(
        MarkEvent.objects.filter(mark__in=[mark.pk for mark in marks])
        .select_related("actor", "mark__sheet__juror")
        .order_by("created_at", "id")
    )
    comments = list(
        Comment.objects.filter(paper=paper, criterion=criterion)
        .select_related("author")
        .order_by("created_at", "id")
    )
    resolution = (
        Resolution.objects.filter(paper=paper, criterion=criterion)
        .select_related("decided_by")
        .first()
    )
    resolution_events = (
        list(resolution.events.select_related("actor").order_by("created_at", "id"))
        if resolution
        else []
    )
    expected = Assignment.objects.filter(paper=paper, problem=problem).count()
    cell = settle_cell(
        paper_id=paper.pk,
        criterion=criterion,
        marks=[mark.points for mark in marks if mark.points is not None],
        expected=expected,
        resolution=(resolution.kind, resolution.points, resolution.reason) if resolution else None,
    )
    return Discussion(
        problem=problem,
        paper=paper,
        label=label,
        criterion=criterion,
        cell=cell,
        marks=marks,
        events=events,
        comments=comments,
        resolution=resolution,
        resolution_events=resolution_events,
        tasks=criterion_tasks(problem=problem, paper=paper, criterion=criterion),
        # A seed's questions stay on the seed's row: here, beside the paper's live label,
        # their asker would learn which paper their seed is.
        help_notes=list(
            HelpRequest.objects.filter(
                paper=paper, problem=problem, answered_at__isnull=False, seed__isnull=True
            ).order_by("answered_at", "id")
        ),
        # Points changed after submission: edits while drafting and notes alone do not count.
        revised={
            event.mark_id
            for event in events
            if event.old_points != event.new_points
            and event.mark.sheet.submitted_at
            and event.created_at > event.mark.sheet.submitted_at
        },
        graders=expected,
    )
