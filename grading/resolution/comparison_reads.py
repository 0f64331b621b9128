"""Reads of a problem's comparison that make its page flat as the contest grows: each paper's
medal straddle worked out for the papers shown only (`read_straddles`), not for every paper of
the contest. Marks are read as the results read them (`contest_grading.marks_by_cell`)."""

from dataclasses import dataclass, field

from grading.resolution.cells import JurorTotals, fixed_points
from grading.resolution.contest_grading import ContestFrame, marks_by_cell
from grading.rules.domain import medal_straddles


@dataclass
class StraddleFacts:
    """What a paper's straddle is worked out from besides the marks: the contest's shape, its
    resolutions and the problems each paper left blank (by number)."""

    # The contest's counted marks, a queryset not read yet.
    counted: object
    frame: ContestFrame
    resolutions: dict
    blank: dict[int, set[int]]
    # The problem's marks as read (`marks_by_cell`), and the problem.
    problem_marks: dict = field(default_factory=dict)
    problem: object = None
    # The contest's criteria as (id, problem number).
    criteria: list[tuple[int, int]] = field(default_factory=list)

    def __post_init__(self):
        number_of = self.frame.number_of
        self.criteria = [(c.pk, number_of[c.problem_id]) for c in self.frame.criteria]

    def straddles(self, paper_id: int, paper_marks: dict) -> bool:
        """Whether the paper's whole total, bounded by whose marks are taken, straddles a
        medal cut-off; `paper_marks`: the paper's marks of the whole contest, by criterion."""
        resolutions = self.resolutions
        paper_blank = self.blank.get(paper_id, ())
        totals = JurorTotals()
        for criterion_id, number in self.criteria:
            totals.add(
                number,
                paper_marks.get(criterion_id, ()),
                fixed_points(
                    resolutions.get((paper_id, criterion_id)), no_answer=number in paper_blank
                ),
            )
        low, high = totals.bounds(self.frame.scale)
        return medal_straddles(low, high, self.frame.cutoffs)


def read_straddles(data, rows: list) -> None:
    """Flag the straddle of `rows` (the `ComparisonRow`s shown of `data`, a `Comparison`) where
    `problem_comparison` left it unread: a page of 50 rows reads its own papers' marks, not the
    whole contest's. One query; none if the straddles are read already or no row is shown."""
    facts = data.straddle_facts
    if facts is None:
        return
    data.straddle_facts = None
    ids = {row.paper_id for row in rows if not row.seed}
    if not ids:
        return
    # The other problems' marks (the problem's are read); of the whole contest beyond a few
    # pages of papers, within SQLite's limit on parameters.
    others = facts.counted.exclude(criterion__problem=facts.problem)
    marks = marks_by_cell(others.filter(paper_id__in=ids) if len(ids) <= 500 else others)
    for row in rows:
        if not row.seed:
            paper_marks = marks.get(row.paper_id, {})
            paper_marks.update(facts.problem_marks.get(row.paper_id, {}))
            row.straddle = facts.straddles(row.paper_id, paper_marks)
