""" "Final means final", in one place: `refuse_if_final` is what every service, importer, admin page and
management command calls before writing anything a contest owns. A contest's phase changes only
through `grading.console.contest_life`."""

from grading.rules.refusals import ContestFinal
from rubrics.models import Contest


def refuse_if_final(contest: Contest, what: str = "its papers, marks and results") -> None:
    """Refuse (`ContestFinal`) any write to a final contest, naming what stays read-only."""
    if contest.is_final:
        raise ContestFinal(
            f"{contest.name} is final: {what} are read-only. An organizer can reopen it, "
            "with a reason, from its results page."
        )


def contest_locked(contest: Contest) -> Contest:
    """The contest read afresh and its row held until the transaction ends, so that a state
    change committing meanwhile (which locks the row too) is neither missed nor slipped past."""
    return Contest.objects.select_for_update(of=("self",)).get(pk=contest.pk)


def refuse_if_final_now(contest: Contest, what: str = "its papers, marks and results") -> Contest:
    """`refuse_if_final` on the contest as it is in the database now, its row held (call inside
    the writer's transaction). Returns the fresh contest."""
    fresh = contest_locked(contest)
    refuse_if_final(fresh, what)
    return fresh
