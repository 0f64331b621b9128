"""The solver on plain data: every hard constraint holds on random instances, and it does at
least as well as the balanced assignment it replaced wherever that one is valid."""

import re
from collections import Counter
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grading.assigning.solver import Fit, JurorFacts, PaperFacts, solve
from tests.grading.assigning.balanced_reference import balanced_reference

LANGUAGES = ["english", "tagalog", "estonian", "yoruba"]
LACK = re.compile(r"\bpapers? lacks? ")
REASONS = ["comes from Estonia, the paper's country", "has submitted the problem"]


@st.composite
def instances(draw):
    n_jurors = draw(st.integers(1, 7))
    n_papers = draw(st.integers(0, 24))
    juror_ids = list(range(1, n_jurors + 1))
    papers = []
    held = Counter()
    for index in range(n_papers):
        required = draw(st.integers(1, 3))
        # Mostly fresh papers with a conflict or two, so that the balanced assignment is
        # often valid and the comparison bites; now and then a crowded one.
        assigned = frozenset(
            draw(st.lists(st.sampled_from(juror_ids), max_size=min(required - 1, 1), unique=True))
        )
        rest = [j for j in juror_ids if j not in assigned]
        crowded = draw(st.integers(0, 9)) == 0
        excluded_ids = (
            draw(st.lists(st.sampled_from(rest), unique=True, max_size=None if crowded else 1))
            if rest
            else []
        )
        held.update(assigned)
        papers.append(
            PaperFacts(
                id=1000 + index * draw(st.integers(1, 3)),
                name=f"L{index}",
                language=draw(st.sampled_from([*LANGUAGES, ""])),
                language_name="",
                need=required - len(assigned),
                assigned=assigned,
                excluded={j: draw(st.sampled_from(REASONS)) for j in excluded_ids},
            )
        )
    ids = {paper.id for paper in papers}
    papers = [paper for paper in papers if paper.id in ids and ids.discard(paper.id) is None]
    jurors = []
    for juror_id in juror_ids:
        languages = draw(
            st.dictionaries(
                st.sampled_from(LANGUAGES), st.sampled_from(["reads", "with_help"]), max_size=3
            )
        )
        extra = draw(st.integers(0, 1))
        capacity = draw(st.none() | st.none() | st.integers(0, 14))
        kept = held[juror_id] + extra
        jurors.append(
            JurorFacts(
                id=juror_id,
                username=f"j{juror_id}",
                languages=languages,
                capacity=None if capacity is None else kept + capacity,
                assigned=kept,
                elsewhere=draw(st.integers(0, 3)),
            )
        )
    return jurors, papers, draw(st.integers(0, 2))


def _measures(jurors, papers, picks):
    """READS picks, top load, spread of loads, most papers any pair of jurors shares, and
    how many picks of each fit."""
    loads = Counter({juror.id: juror.assigned for juror in jurors})
    loads.update(pick.juror_id for pick in picks)
    on_paper = {paper.id: set(paper.assigned) for paper in papers}
    for pick in picks:
        on_paper[pick.paper_id].add(pick.juror_id)
    pairs = Counter(pair for ids in on_paper.values() for pair in combinations(sorted(ids), 2))
    reads = sum(pick.fit == Fit.READS for pick in picks)
    values = list(loads.values())
    fits = Counter(pick.fit for pick in picks)
    return reads, max(values), max(values) - min(values), max(pairs.values(), default=0), fits


def _valid(jurors, papers, picks, short) -> bool:
    loads = Counter(pick.juror_id for pick in picks)
    capacity_kept = all(
        juror.capacity is None or juror.assigned + loads[juror.id] <= juror.capacity
        for juror in jurors
    )
    return capacity_kept and not short


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_every_hard_constraint_holds_and_the_balanced_assignment_is_never_better(instance):
    jurors, papers, _ = instance
    plan = solve(problem_number=1, jurors=jurors, papers=papers, time_limit=10)
    by_paper = Counter(pick.paper_id for pick in plan.picks)
    for paper in papers:
        # Each paper's need is met, or its shortfall is said.
        assert by_paper[paper.id] + plan.unassigned.get(paper.id, 0) == max(paper.need, 0)
    for pick in plan.picks:
        paper = next(paper for paper in papers if paper.id == pick.paper_id)
        assert pick.juror_id not in paper.assigned
        assert pick.juror_id not in paper.excluded
    assert len({(pick.paper_id, pick.juror_id) for pick in plan.picks}) == len(plan.picks)
    loads = Counter(pick.juror_id for pick in plan.picks)
    for juror in jurors:
        assert plan.loads[juror.id] == juror.assigned + loads[juror.id]
        assert juror.capacity is None or plan.loads[juror.id] <= juror.capacity
    assert bool(plan.unassigned) == any(LACK.search(sentence) for sentence in plan.problems)

    reference, short = balanced_reference(jurors, papers)
    if _valid(jurors, papers, reference, short):
        assert not plan.unassigned
        ours, theirs = _measures(jurors, papers, plan.picks), _measures(jurors, papers, reference)
        assert ours[1] <= theirs[1], "top load"
        assert ours[2] <= theirs[2], "spread"
        # Balance comes before languages (with no load slack): where the balanced assignment
        # reads more papers, it is by loading some jurors less evenly.
        if ours[2] == theirs[2]:
            assert ours[0] >= theirs[0], "READS picks"
        # Languages come before pairs: a plan that reads more of its papers may put the few
        # jurors who read a language together more often. Where the fits are the same, the
        # pairs are spread at least as well.
        if ours[4] == theirs[4]:
            assert ours[3] <= theirs[3], "pairs"
