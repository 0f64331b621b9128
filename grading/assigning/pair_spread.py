"""Spreading pairs of jurors after the counts are realized: two papers swap a new juror each
when that lowers how often the most frequent pair grades together (then how many pairs do
so, then the sum of squares of all pairs' counts). Only swaps that keep every hard
constraint (each juror may take the paper they come to) and each juror's fit (how they read
the language) are made, so every juror's load and the plan's languages stay as the solver
chose them: only who grades with whom changes. A paper also moves from one juror to another
who has one paper fewer (and room for it): the two loads trade places, so the balance stays
as it was, though which of two jurors takes the extra paper may change (pairs come before
that tie-break)."""

import time
from collections import Counter
from collections.abc import Callable
from itertools import combinations

# Enough for a real problem's 250 papers; each accepted swap lowers the score, so the search
# ends well before on most plans.
MAX_SWAPS = 2000


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


class _Pairs:
    """Pair counts with a histogram, so that the score is read without a scan."""

    def __init__(self, papers: dict[int, list[int]]):
        self.count = Counter(
            _pair(a, b) for jurors in papers.values() for a, b in combinations(jurors, 2)
        )
        self.histogram = Counter(self.count.values())
        self.squares = sum(value * value for value in self.count.values())

    def add(self, pair, delta: int) -> None:
        old = self.count[pair]
        new = old + delta
        self.histogram[old] -= 1
        self.histogram[new] += 1
        self.count[pair] = new
        self.squares += new * new - old * old

    def score(self) -> tuple[int, int, int]:
        top = max((value for value, n in self.histogram.items() if n > 0 and value), default=0)
        return (top, self.histogram[top] if top else 0, self.squares)


def spread_pairs(
    on_paper: dict[int, list[int]],
    new: dict[int, set[int]],
    fit: Callable[[int, int], object | None],
    *,
    loads: dict[int, int],
    may_trade: Callable[[int, int, dict[int, int]], bool],
    seconds: float = 2.0,
) -> dict[int, list[int]]:
    """`on_paper`: paper id → every juror on it (kept and new); `new`: paper id → the new
    ones (only those may move); `fit(paper, juror)`: how the juror reads the paper, None when
    they may not take it; `loads`: juror id → papers; `may_trade(giver, taker, loads)`: whether
    a paper may go from one to the other without changing the balance. Returns the jurors on each paper after the swaps (deterministic:
    papers and jurors are tried in id order; the search stops after `seconds` in any case)."""
    on_paper = {paper: list(jurors) for paper, jurors in on_paper.items()}
    new = {paper: set(jurors) for paper, jurors in new.items()}
    search = _Search(on_paper, new, fit, dict(loads), may_trade)
    deadline = time.perf_counter() + seconds
    for _ in range(MAX_SWAPS):
        if time.perf_counter() > deadline or not search.improve():
            break
    return on_paper


class _Search:
    def __init__(self, on_paper, new, fit, loads, may_trade):
        self.on_paper, self.new, self.fit = on_paper, new, fit
        self.loads, self.may_trade = loads, may_trade
        self.pairs = _Pairs(on_paper)
        self.order = sorted(on_paper)
        self.jurors = sorted(loads)

    def improve(self) -> bool:
        """Makes the first swap or move that lowers the score, trying the papers of the most
        frequent pairs."""
        on_paper, new, pairs = self.on_paper, self.new, self.pairs
        score = pairs.score()
        top = score[0]
        if top <= 1:
            return False
        for pair in sorted(p for p, value in pairs.count.items() if value == top):
            for paper in self.order:
                jurors = on_paper[paper]
                if pair[0] not in jurors or pair[1] not in jurors:
                    continue
                for moving in sorted(set(pair) & new[paper]):
                    if self._swap_from(paper, moving, score) or self._move_from(
                        paper, moving, score
                    ):
                        return True
        return False

    def _swap_from(self, paper, moving, score) -> bool:
        on_paper, new, fit, pairs = self.on_paper, self.new, self.fit, self.pairs
        jurors, here = on_paper[paper], fit(paper, moving)
        for other in self.order:
            if other == paper or moving in on_paper[other] or fit(other, moving) != here:
                continue
            for coming in sorted(new[other]):
                if coming in jurors or fit(paper, coming) != fit(other, coming):
                    continue
                _swap(on_paper, new, pairs, paper, moving, other, coming)
                if pairs.score() < score:
                    return True
                _swap(on_paper, new, pairs, paper, coming, other, moving)
        return False

    def _move_from(self, paper, moving, score) -> bool:
        on_paper, new, pairs = self.on_paper, self.new, self.pairs
        jurors, here = on_paper[paper], self.fit(paper, moving)
        for taker in self.jurors:
            if taker in jurors or self.fit(paper, taker) != here:
                continue
            if not self.may_trade(moving, taker, self.loads):
                continue
            _move(on_paper, new, pairs, paper, moving, taker)
            if pairs.score() < score:
                self.loads[moving] -= 1
                self.loads[taker] += 1
                return True
            _move(on_paper, new, pairs, paper, taker, moving)
        return False


def _move(on_paper, new, pairs: _Pairs, paper, moving, taker) -> None:
    """`moving` leaves `paper` to `taker`."""
    here = on_paper[paper]
    for juror in here:
        if juror != moving:
            pairs.add(_pair(juror, moving), -1)
            pairs.add(_pair(juror, taker), +1)
    here[here.index(moving)] = taker
    new[paper].discard(moving)
    new[paper].add(taker)


def _swap(on_paper, new, pairs: _Pairs, paper, moving, other, coming) -> None:
    """`moving` leaves `paper` for `other`, `coming` the other way."""
    here, there = on_paper[paper], on_paper[other]
    for juror in here:
        if juror != moving:
            pairs.add(_pair(juror, moving), -1)
            pairs.add(_pair(juror, coming), +1)
    for juror in there:
        if juror != coming:
            pairs.add(_pair(juror, coming), -1)
            pairs.add(_pair(juror, moving), +1)
    here[here.index(moving)] = coming
    there[there.index(coming)] = moving
    new[paper].discard(moving)
    new[paper].add(coming)
    new[other].discard(coming)
    new[other].add(moving)
