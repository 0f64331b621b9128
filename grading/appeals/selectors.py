"""The appeals' reads: a leader's own appeals, the problem's appeals queue for its jurors and
the chair, one appeal for the page that handles it, and the criteria a leader may appeal. Each
runs a fixed number of queries whatever the number of appeals or papers.

Who may read what is `grading.rules.access`'s; a leader reads their delegation's appeals under
the contestant's code, as the delegation knows them (their pages' addresses carry the paper's
public code), the jury under the paper's label in the problem (never the other way round)."""

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Prefetch, Q

from grading.models import Appeal, AppealCriterion, AppealEvent, Paper, PaperLabel
from grading.resolution.comparison import Discussion, cell_discussion
from grading.rules import appeal_access
from rubrics.models import Contest, Criterion, Problem


def _with_criteria(appeals):
    return appeals.select_related("problem", "paper").prefetch_related(
        Prefetch(
            "criteria",
            queryset=AppealCriterion.objects.select_related("criterion").order_by(
                "criterion__order", "criterion__code"
            ),
        )
    )


def leader_appeals(user, contest: Contest) -> list[Appeal]:
    """The appeals on the papers of the delegations the user leads, newest first, with their
    criteria. Two queries."""
    if not user.is_authenticated:
        return []
    return list(
        _with_criteria(
            Appeal.objects.filter(paper__contest=contest, paper__delegation__leaders=user)
        ).order_by("-filed_at", "-id")
    )


@dataclass
class QueueRow:
    appeal: Appeal
    label: str


@dataclass
class ProblemQueue:
    problem: Problem
    rows: list[QueueRow] = field(default_factory=list)

    @property
    def open_count(self) -> int:
        return sum(row.appeal.state == Appeal.State.OPEN for row in self.rows)


def appeal_queue(
    user, contest: Contest, *, problem_number: int | None = None
) -> list[ProblemQueue]:
    """The appeals the user handles (`appeal_access.appeals_handled_by`), per problem, oldest first,
    each with the paper's label in its problem. Four queries."""
    appeals = list(
        _with_criteria(
            Appeal.objects.filter(appeal_access.appeals_handled_by(user), paper__contest=contest)
        )
        .distinct()
        .order_by("problem__number", "filed_at", "id")
    )
    if problem_number is not None:
        appeals = [a for a in appeals if a.problem.number == problem_number]
    labels = _labels(appeals)
    queues: dict[int, ProblemQueue] = {}
    for appeal in appeals:
        queue = queues.setdefault(appeal.problem_id, ProblemQueue(problem=appeal.problem))
        queue.rows.append(QueueRow(appeal, labels.get((appeal.paper_id, appeal.problem_id), "?")))
    return list(queues.values())


def _labels(appeals) -> dict[tuple[int, int], str]:
    if not appeals:
        return {}
    return {
        (paper_id, problem_id): label
        for paper_id, problem_id, label in PaperLabel.objects.filter(
            paper_id__in={a.paper_id for a in appeals},
            problem_id__in={a.problem_id for a in appeals},
        ).values_list("paper_id", "problem_id", "label")
    }


@dataclass
class AppealView:
    """One appeal as its page shows it: the label, each named criterion's discussion (the
    jurors' marks and notes with their history, the comments, the resolution's history) and
    the appeal's own events."""

    appeal: Appeal
    label: str
    criteria: list[AppealCriterion]
    discussions: list[Discussion]
    events: list[AppealEvent]

    @property
    def items(self) -> list[dict]:
        """Each named criterion with its discussion, in the criteria's order."""
        return [
            {"row": row, "discussion": discussion}
            for row, discussion in zip(self.criteria, self.discussions, strict=True)
        ]


def appeal_view(appeal: Appeal) -> AppealView:
    """Nine queries per criterion named (`cell_discussion`) and three more."""
    label = _labels([appeal]).get((appeal.paper_id, appeal.problem_id), "?")
    criteria = list(appeal.criteria.select_related("criterion").order_by("criterion__order"))
    discussions = [
        cell_discussion(
            problem=appeal.problem, paper=appeal.paper, label=label, criterion=row.criterion
        )
        for row in criteria
    ]
    events = list(appeal.events.select_related("actor").order_by("created_at", "id"))
    return AppealView(appeal, label, criteria, discussions, events)


def appeal_for_handler(user, contest_slug: str, pk: int) -> Appeal | None:
    """The appeal if the user may handle it (`appeal_access.may_handle_appeal`), else None."""
    appeal = (
        Appeal.objects.select_related("paper__contest", "problem__contest")
        .filter(pk=pk, paper__contest__slug=contest_slug)
        .first()
    )
    if appeal is None or not appeal_access.may_handle_appeal(
        user, problem=appeal.problem, paper=appeal.paper
    ):
        return None
    return appeal


# What a leader reads of their appeal's record: the jury's comments among themselves are not.
LEADER_EVENTS = (
    AppealEvent.Kind.FILED,
    AppealEvent.Kind.QUESTION,
    AppealEvent.Kind.ANSWER,
    AppealEvent.Kind.WITHDRAWN,
    AppealEvent.Kind.DECIDED,
    AppealEvent.Kind.ACKNOWLEDGED,
)


@dataclass
class LeaderAppeal:
    """One appeal as its leader reads it: the criteria with their points before and after, the
    thread with the jury (questions and answers, never a juror's name) and whether the jury
    waits for an answer."""

    appeal: Appeal
    criteria: list[AppealCriterion]
    events: list[AppealEvent]

    @property
    def asked(self) -> bool:
        return any(event.kind == AppealEvent.Kind.QUESTION for event in self.events)


def appeal_for_leader(user, contest_slug: str, pk: int) -> LeaderAppeal | None:
    """The appeal with its criteria and the events its leader reads, if the user leads the
    paper's delegation (`appeal_access.may_read_as_leader`); else None. Three queries."""
    appeal = (
        Appeal.objects.select_related("paper__contest", "problem")
        .filter(pk=pk, paper__contest__slug=contest_slug)
        .first()
    )
    if appeal is None or not appeal_access.may_read_as_leader(user, appeal.paper):
        return None
    criteria = list(appeal.criteria.select_related("criterion").order_by("criterion__order"))
    events = list(appeal.events.filter(kind__in=LEADER_EVENTS).order_by("created_at", "id"))
    return LeaderAppeal(appeal, criteria, events)


def paper_for_leader(user, contest_slug: str, code: str) -> Paper | None:
    """The paper with this public code if the user may appeal it (`appeal_access.may_appeal`)."""
    paper = (
        Paper.objects.select_related("contest")
        .filter(contest__slug=contest_slug, public_code=code.upper())
        .first()
    )
    if paper is None or not appeal_access.may_appeal(user, paper):
        return None
    return paper


@dataclass
class AppealableCriterion:
    criterion: Criterion
    agreed: Decimal


def live_appeal(paper: Paper, problem: Problem) -> Appeal | None:
    return (
        Appeal.objects.filter(paper=paper, problem=problem)
        .filter(~Q(state=Appeal.State.WITHDRAWN))
        .first()
    )
