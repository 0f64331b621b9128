"""The counts half of the solver: how many papers of each class each juror takes, found by
scipy's `milp` (HiGHS) in stages, each stage's optimum kept as a bound by the next, so that a
lower priority never buys a higher one's worse value (a single weighted objective would need
weights of 10^17 at a real jury's size, beyond floating point's reach).

Stages: (1) shortfall, then the most papers any juror takes above the even share's top;
(2) the papers above the band's top, then those below its bottom; (3) picks by a juror who
does not read the language, then those with help; (4) the spread of loads (max − min);
(5) among plans equal in all that, the papers go to the jurors first in `rank` (fewest
papers in the contest's other problems, then by username), so that the same juror does not
take the extra paper in every problem."""

import time
from dataclasses import dataclass

import numpy as np

# Every stage is solved to optimality (HiGHS stops within this relative gap of the bound):
# a stage's optimum becomes the next stage's bound, so a near-optimum would leak downwards.
MIP_REL_GAP = 1e-6


@dataclass(frozen=True)
class CountsModel:
    """Plain numbers the solver builds from the facts (classes × jurors)."""

    # Per class: papers in it, and jurors each needs.
    sizes: list[int]
    needs: list[int]
    # Per juror: papers kept, the most new ones they may take (None: no limit), the band.
    kept: list[int]
    room: list[int | None]
    upper: list[int]
    lower: list[int]
    # (class, juror) → cost of a pick: 0 reads, 1 with help, 2 no reader; absent: ineligible.
    fits: dict[tuple[int, int], int]
    # Per juror: their place in the order extra papers go by (0 first).
    rank: list[int]


@dataclass
class Counts:
    # (class, juror) → papers; absent is 0.
    taken: dict[tuple[int, int], int]
    optimal: bool


def solve_counts(model: CountsModel, *, time_limit: float) -> Counts:
    from scipy.optimize import LinearConstraint, milp
    from scipy.sparse import coo_array

    pairs = sorted(model.fits)
    n_classes, n_jurors = len(model.sizes), len(model.kept)
    # Variables: x per eligible pair, a shortfall per class, then per juror the excess above
    # the band and the deficit below it, then the largest excess, the highest and lowest load.
    n_x = len(pairs)
    s0 = n_x
    e0 = s0 + n_classes
    d0 = e0 + n_jurors
    big, hi, lo = d0 + n_jurors, d0 + n_jurors + 1, d0 + n_jurors + 2
    n_vars = lo + 1

    rows, cols, vals, lbs, ubs = [], [], [], [], []

    def row(entries, lb, ub):
        index = len(lbs)
        for col, val in entries:
            rows.append(index)
            cols.append(col)
            vals.append(val)
        lbs.append(lb)
        ubs.append(ub)

    by_class: dict[int, list[int]] = {}
    by_juror: dict[int, list[int]] = {}
    for index, (c, j) in enumerate(pairs):
        by_class.setdefault(c, []).append(index)
        by_juror.setdefault(j, []).append(index)
    for c in range(n_classes):
        demand = model.sizes[c] * model.needs[c]
        row([(i, 1) for i in by_class.get(c, [])] + [(s0 + c, 1)], demand, demand)
    for j in range(n_jurors):
        new = [(i, 1) for i in by_juror.get(j, [])]
        kept = model.kept[j]
        if model.room[j] is not None:
            row(new, -np.inf, model.room[j])
        row(new + [(e0 + j, -1)], -np.inf, model.upper[j] - kept)
        row(new + [(big, -1)], -np.inf, model.upper[j] - kept)
        row(new + [(d0 + j, 1)], model.lower[j] - kept, np.inf)
        row(new + [(hi, -1)], -np.inf, -kept)
        row(new + [(lo, -1)], -kept, np.inf)

    upper_bounds = np.full(n_vars, np.inf)
    for index, (c, _) in enumerate(pairs):
        # A juror takes a paper once: at most every paper of the class.
        upper_bounds[index] = model.sizes[c]
    for c in range(n_classes):
        upper_bounds[s0 + c] = model.sizes[c] * model.needs[c]
    integrality = np.zeros(n_vars)
    integrality[:e0] = 1

    stages = _objectives(model, pairs, n_vars, s0=s0, e0=e0, d0=d0, big=big, hi=hi, lo=lo)
    started = time.perf_counter()
    solution, optimal = None, True
    for objective in stages:
        left = max(time_limit - (time.perf_counter() - started), 0.5)
        shape = (len(lbs), n_vars)
        matrix = coo_array((vals, (rows, cols)), shape=shape).tocsr()
        result = milp(
            objective,
            integrality=integrality,
            bounds=(np.zeros(n_vars), upper_bounds),
            constraints=LinearConstraint(matrix, lbs, ubs),
            options={"time_limit": left, "mip_rel_gap": MIP_REL_GAP},
        )
        if result.x is None:
            # Out of time before any plan of this stage: the last stage's plan stands.
            optimal = False
            break
        optimal = optimal and result.status == 0
        solution = result.x
        # Integer-valued objectives: half a unit above the optimum keeps it, and only it.
        value = round(float(objective @ solution))
        row([(i, v) for i, v in enumerate(objective) if v], -np.inf, value + 0.5)
    taken = {}
    if solution is not None:
        for index, pair in enumerate(pairs):
            count = round(solution[index])
            if count:
                taken[pair] = count
    return Counts(taken=taken, optimal=optimal and solution is not None)


def _objectives(model: CountsModel, pairs, n_vars, *, s0, e0, d0, big, hi, lo) -> list:
    """One objective per stage, over the variables laid out by `solve_counts`. Weights within
    a stage exceed the most the next term can reach, so each stage is lexicographic too."""
    n_jurors = len(model.kept)
    total = sum(size * need for size, need in zip(model.sizes, model.needs, strict=True))
    load_bound = total + max(model.kept, default=0) + 1
    stages = []
    shortfall = np.zeros(n_vars)
    shortfall[s0:e0] = load_bound
    shortfall[big] = 1
    stages.append(shortfall)
    band = np.zeros(n_vars)
    band[e0:d0] = load_bound * n_jurors + 1
    band[d0:big] = 1
    stages.append(band)
    language = np.zeros(n_vars)
    for index, pair in enumerate(pairs):
        language[index] = {0: 0, 1: 1, 2: total + 1}[model.fits[pair]]
    stages.append(language)
    spread = np.zeros(n_vars)
    spread[hi], spread[lo] = 1, -1
    stages.append(spread)
    ties = np.zeros(n_vars)
    for index, (_, j) in enumerate(pairs):
        ties[index] = model.rank[j]
    stages.append(ties)

    return stages
