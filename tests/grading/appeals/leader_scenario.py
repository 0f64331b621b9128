"""A small contest with two delegations and an AI paper, every cell graded by one juror and
submitted, for the leaders' pages: EST (contestants EST-1, EST-2; leader mari) and LAT (LAT-1;
leader ivo). `publish` makes the results provisional with a `ProvisionalResult` per paper, as
the publishing step writes them."""

from dataclasses import dataclass
from decimal import Decimal

from django.utils import timezone

from grading.models import Paper, ProvisionalResult
from grading.rules import roles
from rubrics.models import Contest
from tests.factories import assign, make_contest, make_delegation, make_user
from tests.grading import scenario
from tests.grading.scan_pages import add_human_papers

# (A1 of 12, T1 of 8) in each problem, per contestant code.
POINTS = {"EST-1": ("10", "6"), "EST-2": ("7", "3"), "LAT-1": ("12", "8"), "Team Orca": ("4", "2")}


@dataclass
class Leaders:
    contest: Contest
    mari: object  # EST's leader
    ivo: object  # LAT's leader
    juror: object
    papers: dict[str, Paper]


def build(slug: str = "lead", *, pages: int = 1) -> Leaders:
    juror = make_user(f"alice-{slug}", roles.JUROR, first_name="Alice", last_name="Juror")
    contest = make_contest(slug, identities=["Team Orca"])
    add_human_papers(contest, ["EST-1", "EST-2", "LAT-1"], pages=pages)
    assign(contest, [juror])
    papers = {paper.identity: paper for paper in contest.papers.all()}
    for problem in contest.problems.all():
        for identity, (a1, t1) in POINTS.items():
            scenario.grade(juror, problem, papers[identity], a1, t1)
        scenario.submit(juror, problem)
    mari = make_user(f"mari-{slug}", first_name="Mari", last_name="Tamm")
    ivo = make_user(f"ivo-{slug}", first_name="Ivo", last_name="Ozols")
    make_delegation(contest, "EST", papers=[papers["EST-1"], papers["EST-2"]], leaders=[mari])
    make_delegation(contest, "LAT", papers=[papers["LAT-1"]], leaders=[ivo])
    for paper in papers.values():
        paper.refresh_from_db()
    return Leaders(contest, mari, ivo, juror, papers)


def _medal(total: Decimal) -> str:
    # The cut-offs of tests.factories.make_contest (IOL 2026's).
    for name, minimum in (("gold", 70), ("silver", "58.4"), ("honourable mention", "35.3")):
        if total >= Decimal(minimum):
            return name
    return ""


def publish(leaders: Leaders) -> None:
    """Provisional results as `contest_provisional_publish` writes them, written directly (the
    scenario's sheets are not all in): 2.5 × the 40 points of P1 and P2, ranked among the
    humans."""
    contest = leaders.contest
    totals = {identity: Decimal(a1) + Decimal(t1) for identity, (a1, t1) in POINTS.items()}
    humans = sorted(
        (total * 5 for identity, total in totals.items() if identity != "Team Orca"), reverse=True
    )
    now = timezone.now()
    for identity, paper in leaders.papers.items():
        total = totals[identity] * 5
        ProvisionalResult.objects.create(
            paper=paper,
            total=total,
            rank=1 + sum(1 for other in humans if other > total),
            medal=_medal(total),
            published_at=now,
        )
    Contest.objects.filter(pk=contest.pk).update(
        state=Contest.State.PROVISIONAL, appeals_deadline=now + timezone.timedelta(days=1)
    )
    contest.refresh_from_db()
