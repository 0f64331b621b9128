"""Handing papers to jurors: each (paper, problem) goes to a fixed number of jurors of the
problem's grading group, with every juror's load as equal as can be."""

from collections import Counter
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Prefetch
from django.utils.translation import ngettext

from grading.marking.sheets import sheet_get_or_create
from grading.models import Assignment, GradingGroup, PaperLabel, Sheet
from grading.rules.phase import refuse_if_final_now
from grading.rules.refusals import Refusal
from rubrics.models import Contest


@dataclass
class ProblemAssignments:
    """What assigning did (or would do) in one problem."""

    number: int
    per_paper: int
    group_size: int
    papers: int
    created: int
    kept: int
    # Username → papers of this problem the juror grades once the assignment is done.
    loads: dict[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        loads = ", ".join(f"{username} {count}" for username, count in self.loads.items())
        return (
            f"Problem {self.number}: {ngettext('%d paper', '%d papers', self.papers) % self.papers} × {self.per_paper} "
            f"from a group of {self.group_size}; {self.created} new, {self.kept} kept; "
            f"loads: {loads}."
        )


@dataclass
class AssignmentSummary:
    contest: str
    problems: list[ProblemAssignments]
    dry_run: bool = False

    @property
    def created(self) -> int:
        return sum(problem.created for problem in self.problems)

    @property
    def kept(self) -> int:
        return sum(problem.kept for problem in self.problems)

    def __str__(self) -> str:
        where = f"in {ngettext('%d problem', '%d problems', len(self.problems)) % len(self.problems)} of {self.contest}"
        if self.dry_run:
            return (
                f"Dry run, nothing written: {ngettext('%d assignment', '%d assignments', self.created) % self.created} would be "
                f"created {where} ({self.kept} already there)."
            )
        return f"{ngettext('%d assignment', '%d assignments', self.created) % self.created} created {where} ({self.kept} already there)."


@transaction.atomic
def assignments_create(
    *,
    contest: Contest,
    per_problem: int = 2,
    overrides: dict[int, int] | None = None,
    dry_run: bool = False,
) -> AssignmentSummary:
    """Assign each paper of the contest, in every problem, to `per_problem` jurors of the
    problem's grading group (`overrides` maps a problem number to another count).

    Once any paper of the contest is selected for the jury, only selected papers are assigned.
    Existing assignments are kept and count towards both the paper's jurors and the juror's
    load, so running it again adds nothing. New papers go to the jurors with the fewest papers
    in that problem, then the fewest in the whole contest, then by username, so loads within a
    problem differ by at most one when starting from scratch. Each juror's sheet is then made
    (or completed) with sheet_get_or_create. Raises ValidationError, writing nothing, when a
    problem has no grading group or too few active jurors in it, and `ContestFinal` for a final
    contest, on a dry run too."""
    # A paper assigned after finalizing would come back as a provisional row of final results.
    contest = refuse_if_final_now(contest, what="its papers' assignments to jurors")
    overrides = dict(overrides or {})
    problems = list(contest.problems.order_by("number"))
    papers = papers_to_assign(contest)
    active = get_user_model().objects.filter(is_active=True).order_by("username")
    groups = {
        group.problem_id: list(group.jurors.all())
        for group in GradingGroup.objects.filter(problem__in=problems).prefetch_related(
            Prefetch("jurors", queryset=active)
        )
    }
    errors = _assignment_problems(contest, problems, papers, groups, per_problem, overrides)
    if errors:
        raise ValidationError(errors)

    paper_ids = {paper.pk for paper in papers}
    existing = {
        row
        for row in Assignment.objects.filter(problem__in=problems).values_list(
            "problem_id", "paper_id", "juror_id"
        )
        if row[1] in paper_ids
    }
    plan = _Plan(
        papers=papers,
        existing=existing,
        # A problem the contestant left blank is "no answer": no juror is needed to grade nothing.
        blank=_blank_answers(contest),
        submitted=set(
            Sheet.objects.submitted()
            .filter(problem__in=problems)
            .values_list("problem_id", "juror_id")
        ),
        # Ties within a problem go to whoever has least in the whole contest, so that the same
        # juror does not take the extra paper in every problem.
        contest_load=Counter(juror_id for _, _, juror_id in existing),
    )
    results = [
        plan.assign(problem, groups[problem.pk], overrides.get(problem.number, per_problem))
        for problem in problems
    ]
    if plan.short:
        raise LateAssignmentRefused(
            [
                f"Problem {number}: papers need more jurors than its group has left who have not "
                f"submitted their sheet ({', '.join(sorted(names))} "
                f"{ngettext('has', 'have', len(names))}); {LATE_RULE} Add a juror to the "
                "problem's grading group first."
                for number, names in sorted(plan.short.items())
            ]
        )
    summary = AssignmentSummary(contest=contest.slug, problems=results, dry_run=dry_run)
    if dry_run:
        return summary
    Assignment.objects.bulk_create(plan.new)
    graders = {(problem_id, juror_id) for problem_id, _, juror_id in existing}
    graders |= {(assignment.problem_id, assignment.juror_id) for assignment in plan.new}
    for problem in problems:
        for juror in groups[problem.pk]:
            if (problem.pk, juror.pk) in graders:
                sheet_get_or_create(juror=juror, problem=problem)
    return summary


def _assignment_problems(contest, problems, papers, groups, per_problem, overrides) -> list[str]:
    """Every reason the assignment cannot be made, each a sentence; none when it can."""
    numbers = [problem.number for problem in problems]
    errors = []
    if not problems:
        errors.append(f"Contest {contest.slug} has no problems yet; import the problem set first.")
    if per_problem < 1:
        errors.append(f"The number of jurors per paper must be at least 1, not {per_problem}.")
    for number, count in sorted(overrides.items()):
        if number not in numbers:
            known = ", ".join(str(n) for n in numbers) or "none"
            errors.append(
                f"Contest {contest.slug} has no problem {number}; its problems are {known}."
            )
        elif count < 1:
            errors.append(
                f"Problem {number}: the number of jurors per paper must be at least 1, not {count}."
            )
    if not papers:
        errors.append(f"Contest {contest.slug} has no papers to assign; import the outputs first.")
    for problem in problems:
        required = overrides.get(problem.number, per_problem)
        if problem.pk not in groups:
            errors.append(
                f"Problem {problem.number} has no grading group; put its jurors in one first."
            )
        elif len(groups[problem.pk]) < required:
            have = len(groups[problem.pk])
            errors.append(
                f"Problem {problem.number} needs {required} jurors per paper, but its grading "
                f"group has only {have}."
            )
    return errors


@dataclass
class _Plan:
    """The new assignments, problem by problem, balanced against what is assigned already."""

    papers: list
    existing: set[tuple[int, int, int]]
    blank: set[tuple[int, int]]
    submitted: set[tuple[int, int]]
    contest_load: Counter
    new: list[Assignment] = field(default_factory=list)
    # Problems whose papers lack jurors who may still take one: the usernames who may not.
    short: dict[int, set[str]] = field(default_factory=dict)

    def assign(self, problem, jurors: list, required: int) -> ProblemAssignments:
        load = Counter({juror.pk: 0 for juror in jurors})
        kept = 0
        for problem_id, _, juror_id in self.existing:
            if problem_id == problem.pk:
                kept += 1
                if juror_id in load:
                    load[juror_id] += 1
        created = 0
        for paper in self.papers:
            have = {
                juror.pk for juror in jurors if (problem.pk, paper.pk, juror.pk) in self.existing
            }
            need = required - len(have)
            if need <= 0 or (problem.pk, paper.pk) in self.blank:
                continue
            # A juror who has submitted the problem may have seen the comparison: no new paper.
            candidates = sorted(
                (
                    juror
                    for juror in jurors
                    if juror.pk not in have and (problem.pk, juror.pk) not in self.submitted
                ),
                key=lambda juror: (load[juror.pk], self.contest_load[juror.pk], juror.username),
            )
            if len(candidates) < need:
                self.short.setdefault(problem.number, set()).update(
                    juror.username
                    for juror in jurors
                    if juror.pk not in have and (problem.pk, juror.pk) in self.submitted
                )
                continue
            for juror in candidates[:need]:
                self.new.append(Assignment(paper=paper, problem=problem, juror=juror))
                load[juror.pk] += 1
                self.contest_load[juror.pk] += 1
                created += 1
        return ProblemAssignments(
            number=problem.number,
            per_paper=required,
            group_size=len(jurors),
            papers=len(self.papers),
            created=created,
            kept=kept,
            loads={juror.username: load[juror.pk] for juror in jurors},
        )


def papers_to_assign(contest: Contest) -> list:
    """The contest's papers that go to jurors: once any paper is selected for the jury, only
    the selected ones. One query."""
    papers = list(contest.papers.order_by("pk"))
    if any(paper.selected_for_jury for paper in papers):
        papers = [paper for paper in papers if paper.selected_for_jury]
    return papers


def _blank_answers(contest: Contest) -> set[tuple[int, int]]:
    """(problem id, paper id) of every problem a contestant left blank. One query."""
    return set(
        PaperLabel.objects.filter(problem__contest=contest, blank=True).values_list(
            "problem_id", "paper_id"
        )
    )


def unassigned_papers(contest: Contest) -> dict[int, int]:
    """Problem number → how many papers to assign have no juror yet in that problem (every
    problem listed, 0 when all are assigned; a problem left blank needs none). Four queries."""
    paper_ids = {paper.pk for paper in papers_to_assign(contest)}
    covered = set(
        Assignment.objects.filter(problem__contest=contest)
        .values_list("problem_id", "paper_id")
        # No ordering: the model's would enter the DISTINCT and count a paper per juror.
        .order_by()
        .distinct()
    )
    covered |= _blank_answers(contest)
    counts = Counter(problem_id for problem_id, paper_id in covered if paper_id in paper_ids)
    return {
        number: len(paper_ids) - counts[pk]
        for pk, number in contest.problems.order_by("number").values_list("pk", "number")
    }


# Independence when assignments change late: stated once, used by every door that assigns.
LATE_RULE = (
    "a juror who has submitted a problem may have seen the comparison, so no paper of that "
    "problem is given to them afterwards."
)


class LateAssignmentRefused(Refusal):
    """A paper would go to a juror who has submitted the problem (see `LATE_RULE`)."""

    status = 409


def refuse_late_assignment(*, problem, juror) -> None:
    """The rule for one new assignment (the admin's door): refused once the juror's sheet for
    the problem is submitted."""
    if Sheet.objects.submitted().filter(problem=problem, juror=juror).exists():
        raise LateAssignmentRefused(
            f"{juror.username} has submitted {problem.code}; {LATE_RULE} Choose another juror."
        )
