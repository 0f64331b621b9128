"""Papers moved during grading: a juror who can no longer grade (ill, gone home) is marked
unavailable, and their ungraded papers go to colleagues chosen by the solver under the same
hard rules as the assignment, plus those of a late change: never to a juror who has submitted
the problem (`LATE_RULE`), who is in conflict with the paper, who helped on it or had it moved
from them, or who has it already.

A paper is graded by the leaving juror when their sheet holds points for every criterion of
the problem (a problem the contestant left blank is "no answer" and needs none); partly marked
is ungraded. Graded papers stay theirs: those marks count once their sheet is submitted, or the
chair decides. A moved paper's assignment is deleted, the leaving juror's marks on it stay on
record as they are, and the move is an `AssignmentMove` row with who moved it and why.
Submitted sheets are never reopened: a problem the leaving juror has submitted moves nothing.

`juror_leaving_plan` writes nothing (the console's preview, the command's dry run);
`juror_leaving_make` plans again inside its transaction and writes it all, or nothing.
`juror_back` undoes the unavailability: the juror takes new papers from then on, and nothing
that moved comes back."""

import dataclasses
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import ngettext

from grading.assigning import facts as contest_facts
from grading.assigning import move_notices, solver
from grading.marking.sheets import sheet_get_or_create
from grading.models import Assignment, AssignmentMove, JurorProfile, Mark, PaperLabel, Sheet
from grading.rules import access
from grading.rules.phase import refuse_if_final, refuse_if_final_now
from rubrics.models import Contest, Criterion

REFUSED = "Only the organizer moves papers between jurors."
REASON_MAX = AssignmentMove._meta.get_field("reason").max_length


@dataclass(frozen=True)
class Move:
    problem_id: int
    problem_number: int
    paper_id: int
    label: str
    to_id: int
    to_username: str
    fit: str


@dataclass
class ProblemLeaving:
    """What the leaving juror's departure does in one problem."""

    problem_id: int
    number: int
    graded: int = 0
    submitted: bool = False
    moves: list[Move] = field(default_factory=list)
    # Labels of ungraded papers no eligible colleague can take: they stay with the juror.
    stuck: list[str] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)

    @property
    def receivers(self) -> dict[str, int]:
        """Username → papers they take, by username."""
        return dict(sorted(Counter(move.to_username for move in self.moves).items()))


@dataclass
class LeavingPlan:
    contest: Contest
    juror: object
    problems: list[ProblemLeaving]

    @property
    def moves(self) -> list[Move]:
        return [move for problem in self.problems for move in problem.moves]

    def sentences(self) -> list[str]:
        """The plan, one sentence per problem and one per thing that cannot be done."""
        return [sentence for problem in self.problems for sentence in problem.sentences]


def _graded(contest: Contest, juror, pairs: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The (problem id, paper id) among `pairs` the juror has graded: points in every criterion
    on their sheet, or a problem left blank. Three queries."""
    criteria = Counter(
        Criterion.objects.filter(problem__contest=contest).values_list("problem_id", flat=True)
    )
    full = {
        (problem_id, paper_id)
        for problem_id, paper_id, n in Mark.objects.filter(
            sheet__juror=juror, sheet__problem__contest=contest, points__isnull=False
        )
        .values("sheet__problem_id", "paper_id")
        .annotate(n=Count("id"))
        .order_by()
        .values_list("sheet__problem_id", "paper_id", "n")
        if n >= criteria[problem_id]
    }
    blank = set(
        PaperLabel.objects.filter(problem__contest=contest, blank=True).values_list(
            "problem_id", "paper_id"
        )
    )
    return {pair for pair in pairs if pair in full or pair in blank}


def juror_leaving_plan(*, contest: Contest, juror, actor) -> LeavingPlan:
    """What marking `juror` unavailable would do in `contest`, problem by problem (nothing
    written): which ungraded papers go to whom, how many graded ones stay, and what cannot be
    placed. Refused for a final contest and for anyone but the organizer."""
    access.require(access.may_run_contest(actor), REFUSED)
    refuse_if_final(contest, what="its papers' assignments to jurors")
    mine = list(
        Assignment.objects.filter(juror=juror, problem__contest=contest)
        .select_related("problem")
        .order_by("problem__number", "paper_id")
    )
    problems = {assignment.problem_id: assignment.problem for assignment in mine}
    pairs = {(assignment.problem_id, assignment.paper_id) for assignment in mine}
    graded = _graded(contest, juror, pairs)
    submitted_by_me = set(
        Sheet.objects.submitted()
        .filter(juror=juror, problem_id__in=problems)
        .values_list("problem_id", flat=True)
    )
    leaving = {
        problem_id: ProblemLeaving(
            problem_id=problem_id,
            number=problem.number,
            submitted=problem_id in submitted_by_me,
        )
        for problem_id, problem in sorted(problems.items(), key=lambda item: item[1].number)
    }
    moving: dict[int, set[int]] = defaultdict(set)
    for problem_id, paper_id in sorted(pairs):
        if (problem_id, paper_id) in graded or problem_id in submitted_by_me:
            leaving[problem_id].graded += 1
        else:
            moving[problem_id].add(paper_id)
    if moving:
        place_moving(contest, juror, leaving, moving)
    for problem in leaving.values():
        problem.sentences = _sentences(juror, problem)
    return LeavingPlan(contest=contest, juror=juror, problems=list(leaving.values()))


def place_moving(contest, juror, leaving: dict[int, ProblemLeaving], moving) -> None:
    """The solver's choice of a colleague for each moving paper (`moving`: problem id → paper
    ids of `juror`), problem by problem, into `leaving`'s moves and stuck labels (also used
    for a conflicted juror's papers, `conflict_moves`)."""
    labels = {
        (problem_id, paper_id): label
        for problem_id, paper_id, label in PaperLabel.objects.filter(
            problem_id__in=moving
        ).values_list("problem_id", "paper_id", "label")
    }
    removing = frozenset(
        (problem_id, paper_id, juror.pk)
        for problem_id, papers in moving.items()
        for paper_id in papers
    )
    problems = list(contest.problems.filter(pk__in=moving).order_by("number"))
    # As many jurors as the most a paper has now, the leaving juror counted: every moving
    # paper then needs one at least (and exactly one below, the leaving juror's place).
    most: dict[int, int] = defaultdict(int)
    for problem_id, n in (
        Assignment.objects.filter(problem_id__in=moving)
        .values("problem_id", "paper_id")
        .annotate(n=Count("id"))
        .order_by()
        .values_list("problem_id", "n")
    ):
        most[problem_id] = max(most[problem_id], n)
    facts = contest_facts.problem_facts(
        contest,
        problems,
        required={problem.number: most[problem.pk] for problem in problems},
        removing=removing,
        unavailable=frozenset({juror.pk}),
    )
    for problem_facts in facts:
        problem = problem_facts.problem
        number = problem.number
        # Only the moving papers, each for the leaving juror's place: the facts exclude whoever
        # may not take it (submitted the problem, in conflict, helped on it, had it before).
        papers = [
            dataclasses.replace(paper, need=1)
            for paper in problem_facts.papers
            if paper.id in moving[problem.pk]
        ]
        jurors = problem_facts.jurors
        plan = solver.solve(problem_number=number, jurors=jurors, papers=papers)
        usernames = {j.id: j.username for j in jurors}
        row = leaving[problem.pk]
        for pick in sorted(plan.picks, key=lambda pick: labels[problem.pk, pick.paper_id]):
            row.moves.append(
                Move(
                    problem_id=problem.pk,
                    problem_number=number,
                    paper_id=pick.paper_id,
                    label=labels[problem.pk, pick.paper_id],
                    to_id=pick.juror_id,
                    to_username=usernames[pick.juror_id],
                    fit=str(pick.fit),
                )
            )
        placed = {pick.paper_id for pick in plan.picks}
        row.stuck = sorted(labels[problem.pk, paper_id] for paper_id in moving[problem.pk] - placed)


def _sentences(juror, problem: ProblemLeaving) -> list[str]:
    where = f"P{problem.number}"
    if problem.submitted:
        n = problem.graded
        return [
            f"{where}: {juror.username} has submitted this problem, so nothing of it moves "
            f"(a submitted sheet is never reopened); "
            f"{ngettext('their %d paper stays theirs.', 'their %d papers stay theirs.', n) % n}"
        ]
    sentences = []
    moved = len(problem.moves)
    if moved:
        receivers = ", ".join(f"{name} {n}" for name, n in problem.receivers.items())
        sentences.append(
            f"{where}: {ngettext('%d ungraded paper moves', '%d ungraded papers move', moved) % moved}"
            f" to colleagues ({receivers})."
        )
    if problem.graded:
        sentences.append(
            f"{where}: {ngettext('%d graded paper stays', '%d graded papers stay', problem.graded) % problem.graded}"
            f" with {juror.username}; those marks count once their sheet is submitted, or the "
            "chair decides."
        )
    if problem.stuck:
        stuck = len(problem.stuck)
        sentences.append(
            f"{where}: {ngettext('%d paper', '%d papers', stuck) % stuck} "
            f"({', '.join(problem.stuck)}) can go to no colleague of the group, each having "
            "submitted the problem, being in conflict with the paper or having it already; "
            f"{ngettext('it stays', 'they stay', stuck)} with {juror.username}. Add a juror to "
            "the problem's grading group first, then mark them unavailable again."
        )
    if not sentences:
        sentences.append(f"{where}: nothing to move.")
    return sentences


@transaction.atomic
def juror_leaving_make(*, contest: Contest, juror, actor, reason: str) -> LeavingPlan:
    """Mark `juror` unavailable from now and move their ungraded papers of `contest` as
    `juror_leaving_plan` says (planned again here, against the contest as it is now): each
    move deletes the assignment (the juror's marks stay on record), assigns the colleague,
    records an `AssignmentMove`, completes the colleague's sheet, and tells both in their
    inbox. All or nothing."""
    access.require(access.may_run_contest(actor), REFUSED)
    contest = refuse_if_final_now(contest, what="its papers' assignments to jurors")
    reason = " ".join((reason or "").split())
    if not reason:
        raise ValidationError("Give the reason the juror leaves; it is kept with each move.")
    if len(reason) > REASON_MAX:
        raise ValidationError(
            f"The reason is {len(reason)} characters long; at most {REASON_MAX} are kept."
        )
    plan = juror_leaving_plan(contest=contest, juror=juror, actor=actor)
    profile, _ = JurorProfile.objects.get_or_create(user=juror)
    if profile.unavailable_since is None:
        profile.unavailable_since = timezone.now()
        profile.save(update_fields=["unavailable_since"])
    moves_write(contest, juror, plan.moves, actor=actor, reason_of=lambda move: reason)
    move_notices.notify_papers_moved(contest=contest, juror=juror, plan=plan)
    return plan


@transaction.atomic
def juror_back(*, juror, actor) -> None:
    """A juror who left grades again: from now they take new papers (the assignment, a move,
    the admin's form) as a juror who never left. The papers moved from them stay with the
    colleagues who took them. Refused for anyone but the organizer, and for a juror who is not
    marked unavailable."""
    access.require(access.may_run_contest(actor), REFUSED)
    profile = JurorProfile.objects.select_for_update().filter(user=juror).first()
    if profile is None or profile.unavailable_since is None:
        raise ValidationError(f"{juror.username} is not marked unavailable; nothing changes.")
    profile.unavailable_since = None
    profile.save(update_fields=["unavailable_since"])


def moves_write(contest: Contest, juror, moves: list[Move], *, actor, reason_of) -> None:
    """Write `moves` of `juror`'s papers: each assignment deleted (the juror's marks stay on
    record and no longer count), the colleague's assignment created, an `AssignmentMove` on
    record with `reason_of(move)`, and each colleague's sheet completed. For a leaving juror
    and for a juror in conflict (`conflict_moves`); the caller holds the transaction."""
    for move in moves:
        Assignment.objects.filter(
            problem_id=move.problem_id, paper_id=move.paper_id, juror=juror
        ).delete()
    Assignment.objects.bulk_create(
        Assignment(problem_id=move.problem_id, paper_id=move.paper_id, juror_id=move.to_id)
        for move in moves
    )
    AssignmentMove.objects.bulk_create(
        AssignmentMove(
            problem_id=move.problem_id,
            paper_id=move.paper_id,
            from_juror=juror,
            to_juror_id=move.to_id,
            actor=actor,
            reason=reason_of(move),
        )
        for move in moves
    )
    problems = {problem.pk: problem for problem in contest.problems.all()}
    users = type(juror).objects.in_bulk({move.to_id for move in moves})
    for problem_id, to_id in sorted({(move.problem_id, move.to_id) for move in moves}):
        sheet_get_or_create(juror=users[to_id], problem=problems[problem_id])
