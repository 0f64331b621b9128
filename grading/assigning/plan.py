"""What an assignment plan is made of, as plain data: the facts of the jurors and the papers
one problem's plan is made from (`facts.py` reads them from the database), how a juror reads a
paper's language, and the plan the solver proposes (`solver.py`), which `plan_sentences.py`
explains and `assignments.py` saves."""

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
    # Papers of the contest's other problems (kept or planned): of two jurors otherwise
    # equal, the one with fewer takes the extra paper.
    elsewhere: int = 0


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
    # and no juror of the group reads Tagalog; 2 jurors read it with help."), those about
    # papers lacking jurors first.
    problems: list[str]
    # juror id → papers of the problem once the plan is saved (kept ones included).
    loads: dict[int, int]
    # Whether HiGHS proved the plan optimal (False: the best found within the time limit).
    optimal: bool = True
    # The even share: the smallest top load the capacities allow for everything asked.
    even_share: int = 0
    # Whether any juror of the group has a reading language on record: when none has, the
    # languages played no part and no pick is worth flagging.
    languages_known: bool = True

    @property
    def short(self) -> int:
        """Jurors missing over all papers: a plan with any is not saved."""
        return sum(self.unassigned.values())


def fit_of(juror: JurorFacts, language: str) -> Fit:
    level = juror.languages.get(language) if language else None
    if level == Fit.READS:
        return Fit.READS
    if level == Fit.WITH_HELP:
        return Fit.WITH_HELP
    return Fit.NO_READER
