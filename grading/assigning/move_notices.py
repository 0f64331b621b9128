"""The assignment's notices, written inside the services' transactions (`moves.py`): each
colleague who takes papers of a leaving juror learns how many, of which problem, and that they
come "from a colleague" (never who); the leaving juror learns how many of theirs were given
away. A notice names no paper's identity; the receiver's sheet lists the papers, now theirs."""

from collections import Counter

from django.utils.translation import ngettext

from grading.models import Notification
from grading.resolution.inbox import write_notices


def notify_papers_moved(*, contest, juror, plan, in_conflict: bool = False) -> list[Notification]:
    """One notice per receiver and problem, and one per problem to the juror who left (or who
    is `in_conflict` with the papers: `conflict_moves`)."""
    written = []
    for problem in plan.problems:
        if not problem.moves:
            continue
        where = f"P{problem.number}"
        for receiver_id, n in sorted(Counter(move.to_id for move in problem.moves).items()):
            written += write_notices(
                [receiver_id],
                kind=Notification.Kind.PAPERS_MOVED,
                contest_id=contest.pk,
                problem_id=problem.problem_id,
                sentence=ngettext(
                    "%(where)s: %(n)d paper moved to you from a colleague.",
                    "%(where)s: %(n)d papers moved to you from a colleague.",
                    n,
                )
                % {"where": where, "n": n},
            )
        n = len(problem.moves)
        written += write_notices(
            [juror.pk],
            kind=Notification.Kind.PAPERS_MOVED,
            contest_id=contest.pk,
            problem_id=problem.problem_id,
            sentence=(
                ngettext(
                    "%(where)s: %(n)d paper you are in conflict with was given to a colleague.",
                    "%(where)s: %(n)d papers you are in conflict with were given to colleagues.",
                    n,
                )
                if in_conflict
                else ngettext(
                    "%(where)s: your %(n)d ungraded paper was given to a colleague.",
                    "%(where)s: your %(n)d ungraded papers were given to colleagues.",
                    n,
                )
            )
            % {"where": where, "n": n},
        )
    return written
