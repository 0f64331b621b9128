"""The assignment as it was before the solver, kept as a yardstick for its tests: each paper,
in id order, goes to the eligible jurors with the fewest papers of the problem, then the
fewest in the contest, then by username. It knows no language and no capacity."""

from collections import Counter

from grading.assigning.solver import JurorFacts, PaperFacts, Pick, fit_of


def balanced_reference(
    jurors: list[JurorFacts], papers: list[PaperFacts]
) -> tuple[list[Pick], dict[int, int]]:
    """The picks and each paper's shortfall (paper id → jurors it lacks)."""
    load = Counter({juror.id: juror.assigned for juror in jurors})
    contest_load = Counter({juror.id: juror.assigned + juror.elsewhere for juror in jurors})
    picks, short = [], {}
    for paper in sorted(papers, key=lambda paper: paper.id):
        if paper.need <= 0:
            continue
        candidates = sorted(
            (
                juror
                for juror in jurors
                if juror.id not in paper.assigned and juror.id not in paper.excluded
            ),
            key=lambda juror: (load[juror.id], contest_load[juror.id], juror.username),
        )
        if len(candidates) < paper.need:
            short[paper.id] = paper.need
            continue
        for juror in candidates[: paper.need]:
            picks.append(Pick(paper.id, juror.id, fit_of(juror, paper.language)))
            load[juror.id] += 1
            contest_load[juror.id] += 1
    return picks, short
