"""Reads for the printouts (grading/printing/pdf.py): every paper of a problem, or a juror's share of
them, with their solutions (or, for a human paper, its scanned pages) and the problem's
criteria, in a fixed number of queries whatever the number of papers."""

from dataclasses import dataclass, field
from pathlib import Path

from grading.models import Paper, PaperLabel, Seed, Solution
from grading.papers.items import item_labels
from grading.papers.scan_pages import scan_file, scan_pages
from grading.papers.selectors import TaskView
from grading.rules import access
from rubrics.models import Criterion, Problem


@dataclass
class PaperPrint:
    """One paper as the printout shows it: its label in this problem and its solutions.
    Deliberately without the paper itself, so that no identity can reach a template."""

    label: str
    tasks: list[TaskView] = field(default_factory=list)
    # A paper answered on paper prints its scanned pages instead of typed answers: each stored
    # image's file (masked and stripped of metadata when imported) in the answer's order, None
    # where the file is missing from SCANS_DIR, so that the printout says so in its place.
    scanned: bool = False
    scans: list[Path | None] = field(default_factory=list)


@dataclass
class ProblemPrint:
    problem: Problem
    papers: list[PaperPrint]
    criteria: list[Criterion]


def _answer_text(value) -> str:
    # Answers are strings after import; a stray list (alternatives) or number still prints.
    if value is None:
        return ""
    if isinstance(value, list):
        return " / ".join(_answer_text(item) for item in value)
    return str(value).strip()


def problem_print(*, problem: Problem, juror=None, labels: list[str] | None = None) -> ProblemPrint:
    """The papers of `problem` to print, ordered by label (never by import order, which could
    hint at the system), each task with the paper's answer per item and its explanation.

    With `juror`, only the papers assigned to that juror for this problem, and their seeds
    (a calibration paper back in their sheet, printed under the seed's label like any of their
    papers); without, the papers the jury grades (`PaperQuerySet.for_jury`). With `labels`,
    only those labels; unknown or out-of-scope labels are left out, so the caller answers 404
    to both alike."""
    links = PaperLabel.objects.filter(problem=problem).order_by("label")
    seeds = Seed.objects.none()
    if juror is not None:
        links = links.filter(
            paper_id__in=access.graded_assignments(juror, problem).values("paper_id")
        )
        if access.is_juror(juror):
            seeds = Seed.objects.filter(juror=juror, calibration_paper__round__problem=problem)
    else:
        links = links.filter(
            paper__in=Paper.objects.filter(contest_id=problem.contest_id).for_jury()
        )
    if labels is not None:
        links = links.filter(label__in=labels)
        seeds = seeds.filter(label__in=labels)
    rows = list(links.distinct().values_list("paper_id", "label", "paper__source"))
    # A juror may hold a paper under its label and a seed of it under another: two rows.
    rows += seeds.values_list(
        "calibration_paper__paper_id", "label", "calibration_paper__paper__source"
    )
    paper_ids = {paper_id for paper_id, _, _ in rows}
    human = {paper_id for paper_id, _, source in rows if source == Paper.Source.HUMAN}
    pages = scan_pages(problem=problem, paper_ids=list(paper_ids))
    tasks = list(problem.tasks.order_by("number"))
    solutions = {
        (solution.paper_id, solution.task_id): solution
        for solution in Solution.objects.filter(paper_id__in=paper_ids, task__problem=problem)
    }
    papers = []
    names_of: dict[tuple[int, int], list[str]] = {}
    for paper_id, label, _ in sorted(rows, key=lambda row: row[1]):
        paper = PaperPrint(label=label)
        if paper_id in pages or paper_id in human:
            paper.scanned = True
            paper.scans = [scan_file(page) for page in pages.get(paper_id, [])]
            papers.append(paper)
            continue
        for task in tasks:
            solution = solutions.get((paper_id, task.pk))
            answers = list(solution.answers) if solution else []
            count = max(task.item_count, len(answers))
            if (task.pk, count) not in names_of:
                names_of[task.pk, count] = item_labels(task.query, count)
            names = names_of[task.pk, count]
            paper.tasks.append(
                TaskView(
                    task=task,
                    items=[
                        {
                            "number": names[index],
                            "answer": _answer_text(answers[index]) if index < len(answers) else "",
                        }
                        for index in range(count)
                    ],
                    explanation=solution.explanation if solution else "",
                    parse_notes=list(solution.parse_notes) if solution else [],
                    missing=solution is None,
                )
            )
        papers.append(paper)
    criteria = list(Criterion.objects.for_problem(problem))
    return ProblemPrint(problem=problem, papers=papers, criteria=criteria)
