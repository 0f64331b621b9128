"""What assigning did, or would do: per problem the counts, each juror's load, the picks with
how each juror reads the paper's language, and the sentences saying what the plan could not
do. A preview's summary goes to JSON and back (`to_dict`, `from_dict`) so that the organizer's
confirmation saves exactly what they saw."""

from dataclasses import asdict, dataclass, field

from django.utils.translation import ngettext

from grading.assigning.plan import Fit


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
    # (paper label, username, fit) of every new assignment, in paper order.
    picks: list[tuple[str, str, str]] = field(default_factory=list)
    # Each reason the plan is not everything asked, one sentence each.
    problems: list[str] = field(default_factory=list)
    # Jurors missing over all papers (a plan with any is previewed, never saved).
    short: int = 0
    # Whether the solver proved the plan the best there is (False: its time ran out).
    optimal: bool = True
    # For saving a previewed plan: the problem's id and (paper id, juror id) of each pick.
    problem_id: int = 0
    pick_ids: list[tuple[int, int]] = field(default_factory=list)
    # False when no juror of the group has a reading language on record (nothing to flag).
    languages_known: bool = True

    @property
    def flagged(self) -> list[tuple[str, str, str]]:
        """The picks whose juror does not read the paper's language alone."""
        if not self.languages_known:
            return []
        return [pick for pick in self.picks if pick[2] != Fit.READS]

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
    load_slack: int = 0

    @property
    def created(self) -> int:
        return sum(problem.created for problem in self.problems)

    @property
    def kept(self) -> int:
        return sum(problem.kept for problem in self.problems)

    @property
    def short(self) -> int:
        return sum(problem.short for problem in self.problems)

    def to_dict(self) -> dict:
        """Plain JSON types only (lists, not tuples; loads as pairs, to keep their order)."""
        data = asdict(self)
        for problem in data["problems"]:
            problem["loads"] = [[name, count] for name, count in problem["loads"].items()]
            problem["picks"] = [list(pick) for pick in problem["picks"]]
            problem["pick_ids"] = [list(pair) for pair in problem["pick_ids"]]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "AssignmentSummary":
        problems = []
        for problem in data["problems"]:
            problem = dict(problem)
            problem["loads"] = dict(problem["loads"])
            problem["picks"] = [tuple(pick) for pick in problem["picks"]]
            problem["pick_ids"] = [tuple(pair) for pair in problem["pick_ids"]]
            problems.append(ProblemAssignments(**problem))
        return cls(
            contest=data["contest"],
            problems=problems,
            dry_run=data["dry_run"],
            load_slack=data.get("load_slack", 0),
        )

    def __str__(self) -> str:
        where = f"in {ngettext('%d problem', '%d problems', len(self.problems)) % len(self.problems)} of {self.contest}"
        if self.dry_run:
            return (
                f"Dry run, nothing written: {ngettext('%d assignment', '%d assignments', self.created) % self.created} would be "
                f"created {where} ({self.kept} already there)."
            )
        return f"{ngettext('%d assignment', '%d assignments', self.created) % self.created} created {where} ({self.kept} already there)."
