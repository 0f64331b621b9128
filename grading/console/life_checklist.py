"""The contest's life as a checklist, for the pages that perform its steps: every transition
with its preconditions, checked as the services of `grading.console.contest_life` check them,
and the advice around them."""

from dataclasses import dataclass, field, replace

from django.utils import timezone
from django.utils.translation import ngettext

from grading.assigning.assignments import unassigned_papers
from grading.assigning.in_conflict import awaiting_ruling
from grading.console.contest_life import (
    State,
    _deadline_text,
    _open_appeals,
    _open_appeals_phrase,
    appeals_blockers,
    finalize_blockers,
    grading_open_blockers,
)
from grading.models import Sheet
from grading.resolution.comparison import contest_results
from rubrics.models import Contest


@dataclass(frozen=True)
class Check:
    """One precondition of a transition, as the contest stands now."""

    sentence: str
    met: bool
    # Whether the transition's service refuses while it is unmet (otherwise it is advice).
    blocks: bool = True
    detail: str = ""


@dataclass
class Transition:
    """One step of the contest's life with its preconditions, for the page that performs it."""

    step: str
    title: str
    # Whether the contest's state allows the step at all.
    available: bool
    checks: list[Check] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return self.available and all(check.met for check in self.checks if check.blocks)


def contest_checklist(contest: Contest) -> dict[str, Transition]:
    """Every transition of the contest's life (`grading`, `resolution`, `provisional`,
    `finalize`, `reopen`) with its preconditions checked as the services check them:
    `grading_open_blockers`, `finalize_blockers`, `provisional_blockers`' sheets and
    `appeals_blockers`, and the advice around them (papers assigned, sheets submitted).
    A fixed number of queries whatever the number of papers."""

    state = contest.state
    scheme_left = grading_open_blockers(contest)
    unassigned = {number: n for number, n in unassigned_papers(contest).items() if n}
    n_papers = contest.papers.count()
    sheets = list(Sheet.objects.filter(problem__contest=contest).values_list("state", flat=True))
    submitted = sheets.count(Sheet.State.SUBMITTED)
    assigned = Check(
        "Every paper is assigned to its jurors in every problem.",
        met=bool(n_papers) and not unassigned,
        blocks=False,
        detail="; ".join(
            f"P{number}: {ngettext('%d paper', '%d papers', n) % n} without a juror"
            for number, n in sorted(unassigned.items())
        ),
    )
    drafts = len(sheets) - submitted
    all_submitted = Check(
        f"Every sheet is submitted ({submitted} of {len(sheets)}).",
        met=bool(sheets) and submitted == len(sheets),
        blocks=False,
        detail=ngettext("%d sheet still in draft.", "%d sheets still in draft.", drafts) % drafts
        if submitted < len(sheets)
        else "",
    )
    results = contest_results(contest)
    left = finalize_blockers(results)
    open_cells, pending = len(results.open_cells), len(results.pending_cells)
    held = len(awaiting_ruling(contest))
    cell_checks = [
        Check("Papers are assigned to jurors.", met=bool(results.papers)),
        Check(
            "Every assigned juror has submitted a mark in every cell.",
            met=not pending,
            detail=left[-1] if pending else "",
        ),
        Check(
            "No discrepancy is open.",
            met=not open_cells,
            detail=left[0] if open_cells else "",
        ),
    ]
    if held:
        # Their cells lack those marks until the chair decides, which the check on every
        # cell's marks blocks on; this one says why and where.
        cell_checks.append(
            Check(
                "No marks given before a juror's conflict came to light wait for the chair.",
                met=False,
                blocks=False,
                detail=ngettext(
                    "%d paper's marks wait: the chair keeps or discards them on the page "
                    "“Marks given in conflict”.",
                    "%d papers' marks wait: the chair keeps or discards them on the page "
                    "“Marks given in conflict”.",
                    held,
                )
                % held,
            )
        )
    return {
        "grading": Transition(
            "grading",
            "Open grading",
            available=state == State.SETUP,
            checks=[
                Check(
                    "The problem set is imported and every problem has its grading scheme.",
                    met=not scheme_left,
                    detail=" ".join(scheme_left),
                ),
                Check(
                    f"The papers are imported ({ngettext('%d paper', '%d papers', n_papers) % n_papers}).",
                    met=bool(n_papers),
                    blocks=False,
                ),
                assigned,
            ],
        ),
        "resolution": Transition(
            "resolution",
            "Open the resolution phase",
            available=state == State.GRADING,
            checks=[all_submitted],
        ),
        "provisional": Transition(
            "provisional",
            "Publish provisional results",
            available=state == State.RESOLUTION,
            checks=[*cell_checks, replace(all_submitted, blocks=True)],
        ),
        "finalize": Transition(
            "finalize",
            "Finalize",
            available=state in (State.GRADING, State.RESOLUTION, State.PROVISIONAL),
            checks=cell_checks + appeals_checks(contest),
        ),
        "reopen": Transition("reopen", "Reopen", available=state == State.FINAL),
    }


def appeals_checks(contest: Contest) -> list[Check]:
    """The appeals' part of finalizing, each a sentence, judged as `appeals_blockers` does."""
    if contest.state != State.PROVISIONAL:
        # Said only where it applies: an AI-only jury has no leaders and no appeals.
        left = appeals_blockers(contest)
        return (
            [
                Check(
                    "The provisional results are published first: the contest has delegations.",
                    met=False,
                    detail=left[0].capitalize() + ".",
                )
            ]
            if left
            else []
        )
    deadline = contest.appeals_deadline
    still_open = _open_appeals(contest)
    return [
        Check(
            "The appeals deadline has passed"
            + (f" ({_deadline_text(deadline)})." if deadline else "."),
            met=not deadline or deadline <= timezone.now(),
        ),
        Check(
            "Every appeal is decided or withdrawn.",
            met=not still_open,
            detail=_open_appeals_phrase(still_open).capitalize() + "." if still_open else "",
        ),
    ]
