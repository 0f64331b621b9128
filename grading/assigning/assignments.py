"""Handing papers to jurors: each (paper, problem) goes to a fixed number of jurors of the
problem's grading group, under the jury's constraints (`facts.py` reads them, `solver.py`
plans each problem), previewed first and saved on confirmation."""

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Prefetch
from django.utils.translation import ngettext

from grading.assigning import facts as facts_module
from grading.assigning.facts import ProblemFacts, papers_to_assign, problem_facts
from grading.assigning.solver import solve
from grading.assigning.summary import AssignmentSummary, ProblemAssignments
from grading.marking.sheets import sheet_get_or_create
from grading.models import Assignment, GradingGroup, HelpRequest, JurorProfile, PaperLabel, Sheet
from grading.rules import conflicts
from grading.rules.phase import refuse_if_final_now
from grading.rules.refusals import Refusal
from rubrics.models import Contest

__all__ = [
    "AssignmentSummary",
    "LATE_RULE",
    "LateAssignmentRefused",
    "ProblemAssignments",
    "assignments_create",
    "papers_to_assign",
    "refuse_late_assignment",
    "unassigned_papers",
]

# Each problem's search stops after this long with the best plan found (flagged not optimal).
TIME_LIMIT = 20.0


@transaction.atomic
def assignments_create(
    *,
    contest: Contest,
    per_problem: int = 2,
    overrides: dict[int, int] | None = None,
    dry_run: bool = False,
    load_slack: int = 0,
    progress: Callable[[int, int], None] | None = None,
    plan: AssignmentSummary | None = None,
) -> AssignmentSummary:
    """Assign each paper of the contest, in every problem, to `per_problem` jurors of the
    problem's grading group (`overrides` maps a problem number to another count), through the
    solver: no juror on their own country's contestants, a delegation they lead, a problem
    they have submitted (`LATE_RULE`) or a paper they have seen in another role; capacities
    kept; loads as even as the capacities allow (`load_slack` lets them differ by that many
    papers more, for jurors who read a paper's language); then jurors who read the paper's
    language before those who read it with help, before those who do not.

    Once any paper of the contest is selected for the jury, only selected papers are assigned.
    Existing assignments are kept and count towards both the paper's jurors and the juror's
    load, so running it again adds nothing. `progress(done, total)` is called as each problem
    is planned, then, when saving, as each problem's assignments and sheets are saved (a save
    without a plan counts both: twice as many steps as problems). With `plan`, a summary previewed earlier (a dry run), its picks are checked
    against the contest as it is now and saved exactly, or refused with what changed. Each
    juror's sheet is then made (or completed) with sheet_get_or_create.

    Raises ValidationError, writing nothing, when a problem has no grading group or too few
    active jurors in it, or when a plan to save leaves papers short of jurors (a dry run
    returns it, with its sentences); `LateAssignmentRefused` when only jurors who have
    submitted the problem could take its papers; `ContestFinal` for a final contest, on a
    dry run too. A fixed number of queries whatever the number of papers."""
    # A paper assigned after finalizing would come back as a provisional row of final results.
    contest = refuse_if_final_now(contest, what="its papers' assignments to jurors")
    overrides = dict(overrides or {})
    if plan is not None:
        overrides = {problem.number: problem.per_paper for problem in plan.problems}
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
    required = {problem.number: overrides.get(problem.number, per_problem) for problem in problems}
    facts = problem_facts(contest, problems, required=required)
    paper_ids = {paper.pk for paper in papers}
    existing = {
        row
        for row in Assignment.objects.filter(problem__in=problems).values_list(
            "problem_id", "paper_id", "juror_id"
        )
        if row[1] in paper_ids
    }
    # Progress counts problems: each solved (a dry run), each saved (with a plan), or each
    # solved then each saved (twice as many steps).
    steps = len(problems) * (2 if plan is None and not dry_run else 1)
    if plan is None:
        solved = None if progress is None else (lambda done, _total: progress(done, steps))
        summary = _planned(contest, facts, groups, existing, len(papers), load_slack, solved)
    else:
        summary = _checked(plan, contest, facts)
    summary.dry_run = dry_run
    _refuse_late(summary, facts)
    if dry_run:
        return summary
    if summary.short:
        raise ValidationError(
            [
                sentence
                for problem in summary.problems
                if problem.short
                for sentence in problem.problems
            ]
        )
    Assignment.objects.bulk_create(
        Assignment(paper_id=paper_id, problem_id=problem.problem_id, juror_id=juror_id)
        for problem in summary.problems
        for paper_id, juror_id in problem.pick_ids
    )
    graders = {(problem_id, juror_id) for problem_id, _, juror_id in existing}
    graders |= {
        (problem.problem_id, juror_id)
        for problem in summary.problems
        for _, juror_id in problem.pick_ids
    }
    for done, problem in enumerate(problems, start=steps - len(problems) + 1):
        for juror in groups[problem.pk]:
            if (problem.pk, juror.pk) in graders:
                sheet_get_or_create(juror=juror, problem=problem)
        if progress is not None:
            progress(done, steps)
    return summary


def _planned(contest, facts, groups, existing, papers, load_slack, progress) -> AssignmentSummary:
    """Each problem planned by the solver, in turn: ties within a problem go to whoever has
    least in the whole contest so far, so that the same juror does not take the extra paper
    in every problem."""
    contest_load = Counter(juror_id for _, _, juror_id in existing)
    results = []
    for done, problem_facts_ in enumerate(facts, start=1):
        problem = problem_facts_.problem
        kept_here = Counter(
            juror_id for problem_id, _, juror_id in existing if problem_id == problem.pk
        )
        jurors = [
            replace(juror, elsewhere=contest_load[juror.id] - kept_here[juror.id])
            for juror in problem_facts_.jurors
        ]
        plan = solve(
            problem_number=problem.number,
            jurors=jurors,
            papers=problem_facts_.papers,
            time_limit=TIME_LIMIT,
            load_slack=load_slack,
        )
        contest_load.update(pick.juror_id for pick in plan.picks)
        names, labels = problem_facts_.usernames, problem_facts_.paper_names
        sentences = list(plan.problems)
        if plan.short and problem_facts_.unavailable:
            away = problem_facts_.unavailable
            sentences.insert(
                0,
                f"P{problem.number}: {', '.join(away)} {ngettext('is', 'are', len(away))} "
                "unavailable and take no new paper.",
            )
        results.append(
            ProblemAssignments(
                number=problem.number,
                per_paper=problem_facts_.required,
                group_size=len(groups[problem.pk]),
                papers=papers,
                created=len(plan.picks),
                kept=sum(kept_here.values()),
                loads={juror.username: plan.loads[juror.id] for juror in jurors},
                picks=[
                    (labels.get(pick.paper_id, ""), names[pick.juror_id], str(pick.fit))
                    for pick in plan.picks
                ],
                problems=sentences,
                short=plan.short,
                optimal=plan.optimal,
                problem_id=problem.pk,
                pick_ids=[(pick.paper_id, pick.juror_id) for pick in plan.picks],
                languages_known=plan.languages_known,
            )
        )
        if progress is not None:
            progress(done, len(facts))
    return AssignmentSummary(contest=contest.slug, problems=results, load_slack=load_slack)


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


def _refuse_late(summary: AssignmentSummary, facts: list[ProblemFacts]) -> None:
    """Papers short of jurors because those left have submitted the problem: the late rule
    says so in full (a preview too, since no plan can lift it but a new juror)."""
    late = {}
    by_id = {problem.problem.pk: problem for problem in facts}
    for problem in summary.problems:
        if not problem.short or problem.problem_id not in by_id:
            continue
        problem_facts_ = by_id[problem.problem_id]
        eligible_short = [
            paper
            for paper in problem_facts_.papers
            if facts_module.SUBMITTED in paper.excluded.values()
            and _eligible(problem_facts_, paper) < paper.need
        ]
        names = {
            problem_facts_.usernames[juror_id]
            for paper in eligible_short
            for juror_id, reason in paper.excluded.items()
            if reason == facts_module.SUBMITTED
        }
        if names:
            late[problem.number] = names
    if late:
        raise LateAssignmentRefused(
            [
                f"Problem {number}: papers need more jurors than its group has left who have not "
                f"submitted their sheet ({', '.join(sorted(names))} "
                f"{ngettext('has', 'have', len(names))}); {LATE_RULE} Add a juror to the "
                "problem's grading group first."
                for number, names in sorted(late.items())
            ]
        )


def _eligible(problem_facts_: ProblemFacts, paper) -> int:
    return sum(
        juror.id not in paper.excluded and juror.id not in paper.assigned
        for juror in problem_facts_.jurors
    )


def _checked(plan: AssignmentSummary, contest: Contest, facts: list[ProblemFacts]):
    """The previewed plan, if every pick still holds against the contest as it is now;
    otherwise a refusal naming what changed (nothing is written)."""
    if plan.contest != contest.slug:
        raise ValidationError(
            f"This preview is of contest {plan.contest}, not {contest.slug}; preview it again."
        )
    by_id = {problem.problem.pk: problem for problem in facts}
    changes, late = [], False
    for problem in plan.problems:
        code = f"P{problem.number}"
        problem_facts_ = by_id.get(problem.problem_id)
        if problem_facts_ is None:
            changes.append(f"{code} is no longer a problem of the contest")
            continue
        jurors = {juror.id: juror for juror in problem_facts_.jurors}
        papers = {paper.id: paper for paper in problem_facts_.papers}
        taken = Counter()
        per_paper = Counter()
        names = dict(zip(problem.pick_ids, problem.picks, strict=True))
        for pair in problem.pick_ids:
            paper_id, juror_id = pair
            label, username, _ = names[pair]
            juror, paper = jurors.get(juror_id), papers.get(paper_id)
            taken[juror_id] += 1
            per_paper[paper_id] += 1
            if juror is None:
                away = username in problem_facts_.unavailable
                changes.append(
                    f"{code}: {username} is "
                    + ("unavailable" if away else "no longer an active juror of its group")
                )
            elif paper is None:
                changes.append(f"{code}: paper {label} needs no more jurors")
            elif juror_id in paper.assigned:
                changes.append(f"{code}: {username} has paper {label} already")
            elif juror_id in paper.excluded:
                reason = paper.excluded[juror_id]
                late = late or reason == facts_module.SUBMITTED
                changes.append(f"{code}: {username} {reason} (paper {label})")
            elif per_paper[paper_id] > paper.need:
                changes.append(f"{code}: paper {label} needs only {paper.need} more")
        for juror_id, count in sorted(taken.items()):
            juror = jurors.get(juror_id)
            if juror and juror.capacity is not None and juror.assigned + count > juror.capacity:
                changes.append(
                    f"{code}: {juror.username} takes at most {juror.capacity} of its papers"
                )
    if changes:
        # One change often shows in many picks (a juror gone); each is said once.
        unique = list(dict.fromkeys(changes))
        shown = "; ".join(unique[:5])
        if len(unique) > 5:
            shown += f"; and {len(unique) - 5} more"
        sentence = f"The assignment changed since its preview: {shown}; preview it again."
        if late:
            raise LateAssignmentRefused([sentence, f"In short: {LATE_RULE}"])
        raise ValidationError(sentence)
    return AssignmentSummary(
        contest=plan.contest,
        problems=list(plan.problems),
        dry_run=False,
        load_slack=plan.load_slack,
    )


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


class AssignmentRefused(Refusal):
    """A paper would go to a juror the assignment's facts exclude from it: unavailable,
    conflicted with it, or its language helper."""

    status = 409


def refuse_new_assignment(*, problem, juror, paper) -> None:
    """The rules for one assignment made by hand (the admin's door), the solver's own
    (`facts`): no paper for a juror who has submitted the problem, who is unavailable, who is
    conflicted with it (`grading.rules.conflicts`) or who has helped with it in the problem."""
    refuse_late_assignment(problem=problem, juror=juror)
    profile = JurorProfile.objects.filter(user=juror).first()
    if profile and profile.unavailable_since:
        raise AssignmentRefused(
            f"{juror.username} is unavailable and takes no new paper. Choose another juror."
        )
    conflict = conflicts.paper_conflict(juror, paper)
    if conflict:
        raise AssignmentRefused(f"{juror.username} {conflict}. Choose another juror.")
    if HelpRequest.objects.filter(problem=problem, paper=paper, helper=juror).exists():
        raise AssignmentRefused(
            f"{juror.username} {facts_module.SEEN}: they helped with its language in "
            f"{problem.code}. Choose another juror."
        )


def refuse_late_assignment(*, problem, juror) -> None:
    """The rule for one new assignment (the admin's door): refused once the juror's sheet for
    the problem is submitted."""
    if Sheet.objects.submitted().filter(problem=problem, juror=juror).exists():
        raise LateAssignmentRefused(
            f"{juror.username} has submitted {problem.code}; {LATE_RULE} Choose another juror."
        )
