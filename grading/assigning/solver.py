"""The assignment of one problem's papers to its jurors as an optimisation (scipy's `milp`,
HiGHS): plain data in, plain data out, no database (`facts.py` reads the contest into these
shapes; `assignments.py` saves a plan).

Hard constraints: every paper gets `need` more jurors (none already assigned to it again);
no juror takes a paper listed in its `excluded` (their own country's contestant, a paper
they have seen in another role, a problem they have submitted); no juror passes their capacity.
Soft ones, in this order: a juror who reads the paper's language before one who reads it with
help, before one who does not read it at all (flagged: they need a helper); loads as even as
the capacities allow; pairs of jurors spread, so that no two always grade together.

When the hard constraints cannot all hold, the plan still assigns what it can, leaves the rest
unassigned, and says why in sentences (`ProblemPlan.problems`)."""

import enum
from dataclasses import dataclass, field


class Fit(enum.StrEnum):
    """How a juror reads a paper's language."""

    READS = "reads"
    WITH_HELP = "with_help"
    NO_READER = "no_reader"


@dataclass(frozen=True)
class JurorFacts:
    id: int
    username: str
    # language_key(language) → "reads" or "with_help"
    languages: dict[str, str]
    # Papers of this problem the juror takes at most, counting those already assigned.
    capacity: int | None = None
    # Papers of this problem assigned to the juror already (kept).
    assigned: int = 0


@dataclass(frozen=True)
class PaperFacts:
    id: int
    # What the preview calls it: the paper's label in the problem.
    name: str
    # language_key of its answer language ("" when unknown: every juror is a NO_READER).
    language: str
    # The language as the organizer typed it, for the sentences.
    language_name: str
    # More jurors it needs (the problem's count less those assigned already).
    need: int
    # Jurors assigned to it already (never again), and those who may not take it, each with
    # the reason in a few words ("from Estonia", "submitted P3", "helped on this paper").
    assigned: frozenset[int] = frozenset()
    excluded: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Pick:
    paper_id: int
    juror_id: int
    fit: Fit


@dataclass
class ProblemPlan:
    """What the solver proposes for one problem."""

    picks: list[Pick]
    # paper id → how many jurors it still lacks (the hard constraints could not all hold).
    unassigned: dict[int, int]
    # Each reason the plan is not everything asked, one sentence each ("P3: 4 papers in Tagalog
    # and no juror of the group reads Tagalog; 2 jurors read it with help.").
    problems: list[str]
    # juror id → papers of the problem once the plan is saved (kept ones included).
    loads: dict[int, int]
    # Whether HiGHS proved the plan optimal (False: the best found within the time limit).
    optimal: bool = True


def solve(
    *,
    problem_number: int,
    jurors: list[JurorFacts],
    papers: list[PaperFacts],
    time_limit: float = 20.0,
) -> ProblemPlan:
    raise NotImplementedError
