"""Papers that sit with a juror in conflict with them: a fact that changed during grading (a juror
made a team leader, a juror's country corrected, a conflict declared) takes the papers from the
juror's sheet at once (`grading.rules.conflicts`, which every door asks), but the assignment stays
until the organizer moves it, so the cell still waits for that juror. This finds every such
assignment of a contest, proposes a colleague for each (the solver, under the assignment's hard
rules, as for a juror who leaves: `moves.place_moving`), and moves them all on one confirmation.

Unlike a leaving juror's papers, a conflicted paper moves from a submitted sheet too (the
sheet is not reopened), but only a paper the juror had not graded, or whose marks the chair
discarded: marks given on a submitted sheet before the conflict came to light are held for the
chair, who keeps them (the paper stays) or discards them (it moves;
`grading.assigning.conflict_rulings`). Moved papers' marks stay on record and never count."""

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import ngettext

from grading.assigning import move_notices
from grading.assigning.in_conflict import movable
from grading.assigning.moves import (
    REFUSED,
    LeavingPlan,
    ProblemLeaving,
    moves_write,
    place_moving,
)
from grading.rules import access
from grading.rules.phase import refuse_if_final, refuse_if_final_now
from rubrics.models import Contest


@dataclass
class ConflictPlan:
    """One conflicted juror's papers of the contest and where they go."""

    plan: LeavingPlan
    # Why the juror may not grade them (the rule's own words), once per reason.
    reasons: list[str]

    @property
    def juror(self):
        return self.plan.juror


def conflict_moves_plan(*, contest: Contest, actor) -> list[ConflictPlan]:
    """Where each conflicted assignment of the contest would go, juror by juror (nothing
    written). Refused for a final contest and for anyone but the organizer."""
    access.require(access.may_run_contest(actor), REFUSED)
    refuse_if_final(contest, what="its papers' assignments to jurors")
    found = movable(contest)
    jurors = get_user_model().objects.in_bulk(found)
    return [
        _plan(contest, jurors[juror_id], found[juror_id])
        for juror_id in sorted(found, key=lambda pk: jurors[pk].username)
    ]


def _plan(contest: Contest, juror, pairs: dict[tuple[int, int], str]) -> ConflictPlan:
    """Where one juror's conflicted papers (`pairs`: (problem id, paper id) → why) would go."""
    problems = {problem.pk: problem for problem in contest.problems.all()}
    moving: dict[int, set[int]] = defaultdict(set)
    for problem_id, paper_id in pairs:
        moving[problem_id].add(paper_id)
    leaving = {
        problem_id: ProblemLeaving(problem_id=problem_id, number=problems[problem_id].number)
        for problem_id in sorted(moving, key=lambda pk: problems[pk].number)
    }
    place_moving(contest, juror, leaving, moving)
    plan = LeavingPlan(contest=contest, juror=juror, problems=list(leaving.values()))
    for problem in plan.problems:
        problem.sentences = _sentences(juror, problem)
    return ConflictPlan(plan=plan, reasons=sorted(set(pairs.values())))


def _sentences(juror, problem: ProblemLeaving) -> list[str]:
    where = f"P{problem.number}"
    sentences = []
    if problem.moves:
        n = len(problem.moves)
        receivers = ", ".join(f"{name} {k}" for name, k in problem.receivers.items())
        sentences.append(
            f"{where}: {ngettext('%d paper moves', '%d papers move', n) % n} from "
            f"{juror.username} to colleagues ({receivers})."
        )
    if problem.stuck:
        n = len(problem.stuck)
        sentences.append(
            f"{where}: {ngettext('%d paper', '%d papers', n) % n} ({', '.join(problem.stuck)}) "
            "can go to no colleague of the group, each having submitted the problem, being in "
            f"conflict with the paper or having it already; {ngettext('it stays', 'they stay', n)}"
            f" with {juror.username}, out of their sheet. Add a juror to the problem's grading "
            "group first."
        )
    return sentences


@transaction.atomic
def conflict_moves_make(*, contest: Contest, actor) -> list[ConflictPlan]:
    """Move every conflicted assignment of the contest as `conflict_moves_plan` says, planned
    again here juror by juror, each against the moves of those before (two conflicted jurors
    of one paper must not both hand it to the same colleague): each move deletes the
    assignment (the marks stay on record and no longer count), assigns the colleague, records
    an `AssignmentMove` with the conflict as its reason, completes the colleague's sheet and
    tells both in their inbox. All or nothing."""
    access.require(access.may_run_contest(actor), REFUSED)
    contest = refuse_if_final_now(contest, what="its papers' assignments to jurors")
    found = movable(contest)
    jurors = get_user_model().objects.in_bulk(found)
    plans = []
    for juror_id in sorted(found, key=lambda pk: jurors[pk].username):
        juror, pairs = jurors[juror_id], found[juror_id]
        conflict = _plan(contest, juror, pairs)
        moves_write(
            contest,
            juror,
            conflict.plan.moves,
            actor=actor,
            reason_of=lambda move, pairs=pairs, juror=juror: (
                f"{juror.username} {pairs[(move.problem_id, move.paper_id)]}"
            ),
        )
        move_notices.notify_papers_moved(
            contest=contest, juror=juror, plan=conflict.plan, in_conflict=True
        )
        plans.append(conflict)
    return plans
