"""The assignment of one problem's papers to its jurors as an optimisation (scipy's `milp`,
HiGHS): plain data in, plain data out (`plan.py`'s shapes), no database (`facts.py` reads the
contest into them; `assignments.py` saves a plan).

Hard constraints: every paper gets `need` more jurors (none already assigned to it again);
no juror takes a paper listed in its `excluded` (their own country's contestant, a paper
they have seen in another role, a problem they have submitted); no juror passes their capacity.
Soft ones, in this order: a juror who reads the paper's language before one who reads it with
help, before one who does not read it at all (flagged: they need a helper); loads as even as
the capacities allow; pairs of jurors spread, so that no two always grade together.

When the hard constraints cannot all hold, the plan still assigns what it can, leaves the rest
unassigned, and says why in sentences (`ProblemPlan.problems`)."""

import time
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grading.assigning.pair_spread import spread_pairs
from grading.assigning.plan import Fit, JurorFacts, PaperFacts, Pick, ProblemPlan, fit_of
from grading.assigning.plan_sentences import plan_sentences

if TYPE_CHECKING:
    from grading.assigning.milp_counts import CountsModel


def solve(
    *,
    problem_number: int,
    jurors: list[JurorFacts],
    papers: list[PaperFacts],
    time_limit: float = 20.0,
    load_slack: int = 0,
) -> ProblemPlan:
    """The plan for one problem (see the module's docstring). Deterministic: the same facts
    give the same plan, whatever order they come in.

    `load_slack` widens the even-share band by that many papers either way: 0 keeps the
    balanced assignment's loads and chooses the best languages within them; 1 or more lets
    a juror who reads a language take more of its papers."""
    # numpy and scipy load with the first assignment, not with every process that starts
    # Django (tests/test_fast_start.py).
    from grading.assigning.milp_counts import solve_counts

    jurors = sorted(jurors, key=lambda juror: juror.id)
    papers = sorted((paper for paper in papers if paper.need > 0), key=lambda paper: paper.id)
    classes = _classes(papers)
    demand = sum(juror.assigned for juror in jurors) + sum(paper.need for paper in papers)
    share = even_share([juror.capacity for juror in jurors], demand)
    started = time.perf_counter()
    model = _model(jurors, classes, share, load_slack)
    counts = solve_counts(model, time_limit=time_limit)
    picks, unassigned = _realize(jurors, classes, counts.taken, model)
    loads = Counter({juror.id: juror.assigned for juror in jurors})
    loads.update(pick.juror_id for pick in picks)
    plan = ProblemPlan(
        picks=picks,
        unassigned=unassigned,
        problems=[],
        loads={juror.id: loads[juror.id] for juror in jurors},
        optimal=counts.optimal,
        even_share=share,
        languages_known=any(juror.languages for juror in jurors),
    )
    plan.problems = plan_sentences(
        problem_number=problem_number,
        jurors=jurors,
        papers=papers,
        plan=plan,
        upper=share + load_slack,
        seconds=time.perf_counter() - started,
    )
    return plan


def even_share(capacities: list[int | None], demand: int) -> int:
    """The smallest top load u with Σ min(capacity, u) ≥ demand: what the most loaded juror
    takes in the balanced assignment (the capacities' total when even that falls short)."""
    if not capacities or demand <= 0:
        return 0
    if all(capacity is not None for capacity in capacities) and sum(capacities) < demand:
        return max(capacities)
    low, high = 0, demand
    while low < high:
        middle = (low + high) // 2
        room = sum(middle if cap is None else min(cap, middle) for cap in capacities)
        low, high = (middle + 1, high) if room < demand else (low, middle)
    return low


@dataclass
class _Class:
    """Papers no constraint tells apart: one language, one need, the same jurors on them
    already and the same ones excluded."""

    language: str
    need: int
    assigned: frozenset[int]
    excluded: frozenset[int]
    papers: list[PaperFacts]


def _classes(papers: list[PaperFacts]) -> list[_Class]:
    classes: dict[tuple, _Class] = {}
    for paper in papers:
        key = (paper.language, paper.need, paper.assigned, frozenset(paper.excluded))
        if key not in classes:
            classes[key] = _Class(*key, papers=[])
        classes[key].papers.append(paper)
    return list(classes.values())


_COST = {Fit.READS: 0, Fit.WITH_HELP: 1, Fit.NO_READER: 2}


def _model(jurors, classes, share: int, slack: int) -> "CountsModel":
    from grading.assigning.milp_counts import CountsModel

    fits = {
        (c, j): _COST[fit_of(juror, group.language)]
        for c, group in enumerate(classes)
        for j, juror in enumerate(jurors)
        if juror.id not in group.assigned and juror.id not in group.excluded
    }
    return CountsModel(
        sizes=[len(group.papers) for group in classes],
        needs=[group.need for group in classes],
        kept=[juror.assigned for juror in jurors],
        room=[
            None if juror.capacity is None else max(juror.capacity - juror.assigned, 0)
            for juror in jurors
        ],
        upper=[share + slack for _ in jurors],
        # The balanced assignment's bottom: one below the top, or a smaller capacity filled.
        lower=[
            max(min(share - 1, juror.capacity if juror.capacity is not None else share) - slack, 0)
            for juror in jurors
        ],
        fits=fits,
        rank=_ranks(jurors),
    )


def _ranks(jurors: list[JurorFacts]) -> list[int]:
    order = sorted(range(len(jurors)), key=lambda j: (jurors[j].elsewhere, jurors[j].username))
    ranks = [0] * len(jurors)
    for place, j in enumerate(order):
        ranks[j] = place
    return ranks


def _realize(jurors, classes, taken, model: "CountsModel") -> tuple[list[Pick], dict[int, int]]:
    """Counts into papers. Each paper of a class takes, one by one, the jurors with the most
    of the class's count left, ties going to whoever has shared fewest papers so far with
    those already on it (pairs spread across the problem), then the lower id; then
    `spread_pairs` swaps jurors between papers of a class where that spreads pairs more.

    This never strands a count: while counts are at most the papers left and sum to at most
    `need` × papers left, the jurors whose count equals the papers left are at most `need`
    and come first, so both stay true for the next paper (and with shortfall, the papers
    taken in last lack jurors)."""
    shared: Counter = Counter()
    for group in classes:
        for paper in group.papers:
            _pair_up(shared, sorted(paper.assigned))
    left = {
        c: {jurors[j].id: count for (cc, j), count in taken.items() if cc == c}
        for c in range(len(classes))
    }
    class_of = {paper.id: c for c, group in enumerate(classes) for paper in group.papers}
    by_id = {juror.id: juror for juror in jurors}
    new, unassigned = {}, {}
    for paper_id in sorted(class_of):
        c = class_of[paper_id]
        group, counts = classes[c], left[c]
        on_it = sorted(group.assigned)
        chosen: list[int] = []
        for _ in range(group.need):
            candidates = [j for j, count in counts.items() if count > 0 and j not in chosen]
            if not candidates:
                break
            best = min(
                candidates,
                key=lambda j: (-counts[j], sum(shared[_pair(j, k)] for k in on_it), j),
            )
            for other in on_it:
                shared[_pair(best, other)] += 1
            chosen.append(best)
            on_it.append(best)
            counts[best] -= 1
        new[paper_id] = chosen
        if len(chosen) < group.need:
            unassigned[paper_id] = group.need - len(chosen)

    def fit(paper_id: int, juror_id: int) -> Fit | None:
        group = classes[class_of[paper_id]]
        if juror_id in group.assigned or juror_id in group.excluded:
            return None
        return fit_of(by_id[juror_id], group.language)

    index = {juror.id: j for j, juror in enumerate(jurors)}

    def band(j: int, load: int) -> tuple[int, int]:
        return max(load - model.upper[j], 0), max(model.lower[j] - load, 0)

    def may_trade(giver: int, taker: int, loads: dict[int, int]) -> bool:
        # The two loads trade places: the same top, spread and band, if the taker has room.
        g, t = index[giver], index[taker]
        if loads[giver] != loads[taker] + 1:
            return False
        room = model.room[t]
        if room is not None and loads[taker] + 1 > room + model.kept[t]:
            return False
        before = [a + b for a, b in zip(band(g, loads[giver]), band(t, loads[taker]), strict=True)]
        after = [
            a + b for a, b in zip(band(g, loads[giver] - 1), band(t, loads[taker] + 1), strict=True)
        ]
        return before == after

    loads = Counter({juror.id: juror.assigned for juror in jurors})
    for chosen in new.values():
        loads.update(chosen)
    spread = spread_pairs(
        {paper_id: sorted(classes[c].assigned) + new[paper_id] for paper_id, c in class_of.items()},
        {paper_id: set(chosen) for paper_id, chosen in new.items()},
        fit,
        loads=dict(loads),
        may_trade=may_trade,
    )
    picks = [
        Pick(paper_id, j, fit_of(by_id[j], classes[class_of[paper_id]].language))
        for paper_id in sorted(class_of)
        for j in spread[paper_id]
        if j not in classes[class_of[paper_id]].assigned
    ]
    return picks, unassigned


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _pair_up(shared: Counter, on_it: list[int]) -> None:
    for index, a in enumerate(on_it):
        for b in on_it[index + 1 :]:
            shared[_pair(a, b)] += 1
