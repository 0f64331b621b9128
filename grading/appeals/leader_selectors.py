"""Reads for a team leader's pages: their delegation's contestants with the agreed points of each
problem, the published (provisional) total, rank and medal and, once the contest is final, the
final ones; one contestant's problem with its scanned pages, the grading scheme and the agreed
points per criterion.

What a leader reads is a paper's *agreed* points only (`grading.results.selectors.papers_cells`,
the cells as the results page settles them): never a juror's mark, note or name, never a label,
never an AI paper. A fixed number of queries whatever the number of contestants."""

from dataclasses import dataclass, field
from decimal import Decimal

from django.http import Http404

from grading.models import Delegation, Paper, ProvisionalResult
from grading.papers.scan_pages import paper_scan_pages
from grading.resolution.cells import Cell
from grading.resolution.contest_grading import contest_results
from grading.results.selectors import papers_cells
from grading.rules import appeal_access
from grading.rules.domain import ZERO, cent
from rubrics.models import Contest, Problem


@dataclass
class Standing:
    """A total with its rank among the human contestants and its medal ("" for none)."""

    total: Decimal
    rank: int | None
    medal: str


@dataclass
class ContestantRow:
    paper: Paper
    # Agreed points per problem number; None where the problem has no settled points yet.
    problem_points: dict[int, Decimal | None]
    provisional: Standing | None = None
    final: Standing | None = None
    # The problems' points now, scaled to the contest's maximum as the results scale them: the
    # total the row adds up to (None while no problem has settled points).
    total_now: Decimal | None = None

    @property
    def code(self) -> str:
        """The contestant's code, as their delegation knows them."""
        return self.paper.identity

    @property
    def changed_since_published(self) -> bool:
        """Whether the points now (an appeal decided since) differ from the published total."""
        return self.provisional is not None and self.total_now != self.provisional.total


@dataclass
class DelegationPage:
    contest: Contest
    delegations: list[Delegation]
    problems: list[Problem]
    rows: list[ContestantRow] = field(default_factory=list)
    published: bool = False

    @property
    def max_points(self) -> Decimal:
        return sum((problem.max_points for problem in self.problems), ZERO)

    @property
    def scale(self) -> Decimal:
        """From the problems' points to the contest's total, as `contest_frame` scales them."""
        return self.contest.max_total / self.max_points if self.max_points else Decimal("1")


def _problem_points(cells: list[Cell]) -> dict[int, Decimal | None]:
    """Each problem's agreed points: the sum of its settled cells, None if none is settled."""
    points: dict[int, Decimal | None] = {}
    for cell in cells:
        number = cell.criterion.problem.number
        points.setdefault(number, None)
        if cell.status.is_settled and cell.points is not None:
            points[number] = (points[number] or ZERO) + cell.points
    return {number: None if value is None else cent(value) for number, value in points.items()}


def led_delegations(user, contest: Contest) -> list[Delegation]:
    """The contest's delegations the user leads, as a leader (one query; none for anyone
    else)."""
    if not user.is_authenticated or not appeal_access.is_leader(user):
        return []
    return list(contest.delegations.filter(leaders=user).order_by("code"))


def delegation_page(user, contest: Contest) -> DelegationPage:
    """The leader's delegation(s) in the contest, with every contestant's agreed points per
    problem and their provisional (and final) standing once published; 404 for anyone who
    leads no delegation of the contest. Ten queries (nineteen once final), whatever the number
    of contestants in the delegation or the contest."""
    delegations = led_delegations(user, contest)
    if not delegations:
        raise Http404("No such page.")
    page = DelegationPage(
        contest=contest,
        delegations=delegations,
        problems=list(contest.problems.order_by("number")),
        published=appeal_access.results_published(contest),
    )
    if not page.published:
        return page
    papers = list(
        Paper.objects.filter(
            contest=contest, delegation__in=delegations, source=Paper.Source.HUMAN
        ).order_by("identity")
    )
    cells = papers_cells(contest, paper_ids=[paper.pk for paper in papers])
    provisional = {
        result.paper_id: Standing(result.total, result.rank, result.medal)
        for result in ProvisionalResult.objects.filter(paper__in=papers)
    }
    final = {}
    if contest.is_final:
        shown = {paper.pk for paper in papers}
        final = {
            result.paper_id: Standing(result.total, result.rank, result.medal)
            for result in contest_results(contest).papers
            if result.paper_id in shown
        }
    for paper in papers:
        points = _problem_points(cells.get(paper.pk, []))
        problem_points = {problem.number: points.get(problem.number) for problem in page.problems}
        settled = [value for value in problem_points.values() if value is not None]
        page.rows.append(
            ContestantRow(
                paper=paper,
                problem_points=problem_points,
                provisional=provisional.get(paper.pk),
                final=final.get(paper.pk),
                total_now=cent(sum(settled, ZERO) * page.scale) if settled else None,
            )
        )
    return page


@dataclass
class CriterionRow:
    criterion: object  # rubrics.models.Criterion
    cell: Cell | None

    @property
    def points(self) -> Decimal | None:
        cell = self.cell
        if cell is None or not cell.status.is_settled:
            return None
        return cell.points


@dataclass
class ContestantProblem:
    contest: Contest
    problem: Problem
    paper: Paper
    criteria: list[CriterionRow]
    scan_pages: list  # ScanPage rows, in order
    published: bool

    @property
    def code(self) -> str:
        return self.paper.identity

    @property
    def total(self) -> Decimal | None:
        points = [row.points for row in self.criteria if row.points is not None]
        return cent(sum(points, ZERO)) if points else None


def leader_paper(user, contest: Contest, public_code: str) -> Paper:
    """The human paper with this public code, if the user leads its delegation (whether or not
    the results are published yet); else 404, the same as for a code that does not exist."""
    paper = (
        Paper.objects.filter(contest=contest, public_code=public_code, source=Paper.Source.HUMAN)
        .select_related("contest")
        .first()
    )
    if paper is None or not (
        appeal_access.is_leader(user) and appeal_access.leads_paper_delegation(user, paper)
    ):
        raise Http404("No contestant of yours has this code.")
    return paper


def contestant_problem(user, contest: Contest, *, public_code: str, number: int):
    """One of the leader's contestants in one problem: the scheme's criteria with guidance, the
    agreed points of each and the scanned pages, once published (`appeal_access.may_read_as_leader`);
    404 for another delegation's contestant, an AI paper or a problem that does not exist."""
    # `leader_paper` has asked whether the user leads the paper's delegation: what is left of
    # `appeal_access.may_read_as_leader` is whether the results are published.
    paper = leader_paper(user, contest, public_code)
    problem = contest.problems.filter(number=number).first()
    if problem is None:
        raise Http404("No such problem.")
    readable = appeal_access.results_published(contest)
    cells, pages = {}, []
    criteria = list(problem.criteria.order_by("order", "code"))
    if readable:
        by_paper = papers_cells(contest, paper_ids=[paper.pk], criteria=problem.criteria.all())
        cells = {cell.criterion.pk: cell for cell in by_paper.get(paper.pk, [])}
        pages = paper_scan_pages(problem=problem, paper=paper)
    return ContestantProblem(
        contest=contest,
        problem=problem,
        paper=paper,
        criteria=[CriterionRow(criterion, cells.get(criterion.pk)) for criterion in criteria],
        scan_pages=pages,
        published=readable,
    )
