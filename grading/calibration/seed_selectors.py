"""The chair's seeds page: each juror's deviation from the reference on their seeds (their
points − the chair's reference), per criterion and over time, for graded seed marks only; and,
while nobody has a seed, how many papers the round keeps for seeding (what seeds are drawn
from), for the sentence that says why."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.contrib.auth import get_user_model

from grading.calibration.severity import mean_or_none, seed_marks
from grading.models import CalibrationRound, Seed
from rubrics.models import Criterion, Problem

# The strip of one juror's seed marks over time: one dot per mark, left to right in the order
# they were last changed, above the line when generous, below when severe.
STRIP_STEP = 14
STRIP_HEIGHT = 40


@dataclass(frozen=True)
class SeedMoment:
    """One graded seed mark: when it last changed, on which calibration paper and criterion,
    and its deviation from the reference."""

    when: datetime
    paper: str
    code: str
    deviation: Decimal
    x: int = 0
    y: int = 0


@dataclass
class JurorSeeds:
    username: str
    seeds: int
    deviations: list[Decimal | None] = field(default_factory=list)  # per criterion, its mean
    moments: list[SeedMoment] = field(default_factory=list)

    @property
    def graded(self) -> int:
        return len(self.moments)

    @property
    def strip_width(self) -> int:
        return STRIP_STEP * (len(self.moments) + 1)


def problem_seeds(problem: Problem) -> tuple[list[Criterion], list[JurorSeeds]]:
    """The problem's criteria, and for each juror with seeds (by username) their mean deviation
    per criterion and their graded seed marks in the order they were last changed. Four queries
    whatever the number of seeds."""
    criteria = list(Criterion.objects.for_problem(problem))
    codes = {criterion.pk: criterion.code for criterion in criteria}
    counts = defaultdict(int)
    for juror_id in Seed.objects.filter(calibration_paper__round__problem=problem).values_list(
        "juror_id", flat=True
    ):
        counts[juror_id] += 1
    names = dict(get_user_model().objects.filter(pk__in=counts).values_list("pk", "username"))
    by_criterion = defaultdict(list)
    moments = defaultdict(list)
    rows = seed_marks(problem)
    spread = max((abs(points - reference) for _, _, points, reference, *_ in rows), default=0)
    scale = (STRIP_HEIGHT / 2 - 4) / float(spread) if spread else 0
    for juror_id, criterion_id, points, reference, when, label in rows:
        deviation = points - reference
        by_criterion[juror_id, criterion_id].append(deviation)
        x = STRIP_STEP * (len(moments[juror_id]) + 1)
        y = round(STRIP_HEIGHT / 2 - float(deviation) * scale)
        moments[juror_id].append(SeedMoment(when, label, codes[criterion_id], deviation, x, y))
    return criteria, [
        JurorSeeds(
            username=names[juror_id],
            seeds=counts[juror_id],
            deviations=[mean_or_none(by_criterion[juror_id, c.pk]) for c in criteria],
            moments=moments[juror_id],
        )
        for juror_id in sorted(counts, key=lambda pk: names[pk])
    ]


def papers_kept_for_seeding(round_: CalibrationRound) -> int:
    """How many papers the round keeps out of it for seeding: a seeded round draws its seeds
    from those alone. One query."""
    return round_.papers.kept_for_seeding().count()
