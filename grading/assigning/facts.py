"""What the assignment knows, read from the database into the solver's plain shapes: for each
problem, the jurors of its grading group who can still take papers (with the languages they
read and their capacity) and the papers that need jurors (with their answer language, who has
them already and who may not take them, and why). A fixed number of queries for the whole
contest, whatever the number of papers and jurors."""

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, Q

from grading.assigning.plan import JurorFacts, PaperFacts
from grading.models import (
    Assignment,
    AssignmentMove,
    DeclaredConflict,
    Delegation,
    GradingGroup,
    HelpRequest,
    JurorLanguage,
    JurorProfile,
    PaperLabel,
    Sheet,
    language_key,
)
from grading.rules.conflicts import contestant_conflict
from rubrics.models import Contest

# Why a juror may not take a paper, in the words the preview shows after the juror's name.
# SUBMITTED is the late-assignment rule (assignments.LATE_RULE), which the service says in full.
SUBMITTED = "has submitted the problem"
SEEN = "has seen this paper in another role"
HAD_IT = "had this paper before"


@dataclass
class ProblemFacts:
    """One problem's part of the assignment, as the solver takes it."""

    problem: object
    # Jurors per paper asked for this problem.
    required: int
    jurors: list[JurorFacts]
    papers: list[PaperFacts]
    # Every juror id and paper id above (and the jurors the papers have already) → its name.
    usernames: dict[int, str] = field(default_factory=dict)
    paper_names: dict[int, str] = field(default_factory=dict)
    # Jurors of the group left out because they are unavailable, by username.
    unavailable: list[str] = field(default_factory=list)


def problem_facts(
    contest: Contest,
    problems: list,
    *,
    required: dict[int, int],
    removing: frozenset[tuple[int, int, int]] = frozenset(),
    unavailable: frozenset[int] = frozenset(),
) -> list[ProblemFacts]:
    """The facts of each problem in `problems` (a list of the contest's problems) for assigning
    `required[problem.number]` jurors to each of its papers to assign.

    `removing` holds (problem id, paper id, juror id) assignments to treat as gone (a juror's
    papers being moved): the paper needs a juror more, and that juror is excluded from it.
    `unavailable` holds juror ids to treat as unavailable, beside those whose profile says so
    already. A problem the contestant left blank needs no juror; a paper with all its jurors is
    left out. Thirteen queries."""
    reads = _read(contest, problems, removing=removing, unavailable=unavailable)
    return [_one_problem(contest, reads, problem, required[problem.number]) for problem in problems]


@dataclass
class _Reads:
    """Everything the facts are made of, read once for all the problems."""

    papers: list
    delegations: dict[int, Delegation]
    # Delegation id → its leaders' ids.
    leaders: dict[int, set[int]]
    # (juror id, delegation id) and (juror id, paper id) → the reason of a declared conflict.
    declared_delegations: dict[tuple[int, int], str]
    declared_papers: dict[tuple[int, int], str]
    # (problem id, paper id) → (label, left blank).
    labels: dict[tuple[int, int], tuple[str, bool]]
    # Problem id → the group's active jurors.
    groups: dict[int, list]
    profiles: dict[int, JurorProfile]
    # Juror id → language key → level.
    languages: dict[int, dict[str, str]]
    # (problem id, paper id) → the jurors it keeps.
    assigned: dict[tuple[int, int], set[int]]
    usernames: dict[int, str]
    # (problem id, juror id) of every submitted sheet.
    submitted: set[tuple[int, int]]
    # (problem id, paper id) → juror id → why they have seen it in another role.
    seen: dict[tuple[int, int], dict[int, str]]
    unavailable: frozenset[int]

    def is_unavailable(self, juror) -> bool:
        profile = self.profiles.get(juror.pk)
        return juror.pk in self.unavailable or bool(profile and profile.unavailable_since)


def papers_to_assign(contest: Contest) -> list:
    """The contest's papers that go to jurors (`PaperQuerySet.for_jury`: every human paper,
    and once any AI paper is selected for the jury, only the selected AI papers). One query."""
    return list(contest.papers.for_jury().order_by("pk"))


def _read(contest, problems, *, removing, unavailable) -> _Reads:
    leaders: dict[int, set[int]] = defaultdict(set)
    for delegation_id, user_id in Delegation.leaders.through.objects.filter(
        delegation__contest=contest
    ).values_list("delegation_id", "user_id"):
        leaders[delegation_id].add(user_id)
    active = get_user_model().objects.filter(is_active=True).order_by("username")
    groups = {
        group.problem_id: list(group.jurors.all())
        for group in GradingGroup.objects.filter(problem__in=problems).prefetch_related(
            Prefetch("jurors", queryset=active)
        )
    }
    members = {juror.pk for jurors in groups.values() for juror in jurors}
    languages: dict[int, dict[str, str]] = defaultdict(dict)
    for user_id, language, level in JurorLanguage.objects.filter(user__in=members).values_list(
        "user_id", "language", "level"
    ):
        languages[user_id][language_key(language)] = level
    assigned: dict[tuple[int, int], set[int]] = defaultdict(set)
    usernames = {juror.pk: juror.username for jurors in groups.values() for juror in jurors}
    for problem_id, paper_id, juror_id, username in Assignment.objects.filter(
        problem__in=problems
    ).values_list("problem_id", "paper_id", "juror_id", "juror__username"):
        usernames.setdefault(juror_id, username)
        if (problem_id, paper_id, juror_id) not in removing:
            assigned[(problem_id, paper_id)].add(juror_id)
    seen: dict[tuple[int, int], dict[int, str]] = defaultdict(dict)
    for problem_id, paper_id, helper_id in HelpRequest.objects.filter(
        problem__in=problems, helper__isnull=False
    ).values_list("problem_id", "paper_id", "helper_id"):
        seen[(problem_id, paper_id)][helper_id] = SEEN
    for problem_id, paper_id, juror_id in AssignmentMove.objects.filter(
        problem__in=problems
    ).values_list("problem_id", "paper_id", "from_juror_id"):
        seen[(problem_id, paper_id)][juror_id] = HAD_IT
    for problem_id, paper_id, juror_id in removing:
        seen[(problem_id, paper_id)][juror_id] = HAD_IT
    declared_delegations, declared_papers = {}, {}
    for juror_id, delegation_id, paper_id, reason in DeclaredConflict.objects.filter(
        Q(delegation__contest=contest) | Q(paper__contest=contest)
    ).values_list("juror_id", "delegation_id", "paper_id", "reason"):
        if delegation_id is not None:
            declared_delegations[(juror_id, delegation_id)] = reason
        else:
            declared_papers[(juror_id, paper_id)] = reason
    return _Reads(
        papers=papers_to_assign(contest),
        delegations={d.pk: d for d in Delegation.objects.filter(contest=contest)},
        leaders=leaders,
        declared_delegations=declared_delegations,
        declared_papers=declared_papers,
        labels={
            (problem_id, paper_id): (label, blank)
            for problem_id, paper_id, label, blank in PaperLabel.objects.filter(
                problem__in=problems
            ).values_list("problem_id", "paper_id", "label", "blank")
        },
        groups=groups,
        profiles={p.user_id: p for p in JurorProfile.objects.filter(user__in=members)},
        languages=languages,
        assigned=assigned,
        usernames=usernames,
        submitted=set(
            Sheet.objects.submitted()
            .filter(problem__in=problems)
            .values_list("problem_id", "juror_id")
        ),
        seen=seen,
        unavailable=unavailable,
    )


def _one_problem(contest, reads: _Reads, problem, required: int) -> ProblemFacts:
    group = reads.groups.get(problem.pk, [])
    available = [juror for juror in group if not reads.is_unavailable(juror)]
    submitted = {juror_id for problem_id, juror_id in reads.submitted if problem_id == problem.pk}
    kept = Counter(
        juror_id
        for (problem_id, _), jurors in reads.assigned.items()
        if problem_id == problem.pk
        for juror_id in jurors
    )
    papers, paper_names = [], {}
    for paper in reads.papers:
        label, blank = reads.labels.get((problem.pk, paper.pk), ("", False))
        paper_names[paper.pk] = label
        have = reads.assigned.get((problem.pk, paper.pk), set())
        if blank or required - len(have) <= 0:
            continue
        language = (
            paper.answer_language
            if paper.source == paper.Source.HUMAN
            else contest.working_language
        )
        delegation = reads.delegations.get(paper.delegation_id)
        papers.append(
            PaperFacts(
                id=paper.pk,
                name=label,
                language=language_key(language),
                language_name=" ".join(language.split()),
                need=required - len(have),
                assigned=frozenset(have),
                excluded=_excluded(
                    available,
                    reads,
                    paper=paper,
                    delegation=delegation,
                    submitted=submitted,
                    seen=reads.seen.get((problem.pk, paper.pk), {}),
                ),
            )
        )
    return ProblemFacts(
        problem=problem,
        required=required,
        jurors=[
            JurorFacts(
                id=juror.pk,
                username=juror.username,
                languages=dict(reads.languages.get(juror.pk, {})),
                capacity=reads.profiles[juror.pk].capacity if juror.pk in reads.profiles else None,
                assigned=kept[juror.pk],
            )
            for juror in available
        ],
        papers=papers,
        usernames=reads.usernames,
        paper_names=paper_names,
        unavailable=[juror.username for juror in group if reads.is_unavailable(juror)],
    )


def _excluded(jurors, reads: _Reads, *, paper, delegation, submitted, seen) -> dict[int, str]:
    """Juror id → why they may not take the paper, for every juror of the group who may not:
    the late-assignment rule, a conflict of interest (grading.rules.conflicts, the rule every
    door asks), or having seen the paper in another role."""
    excluded = {}
    leaders = reads.leaders.get(paper.delegation_id, set())
    for juror in jurors:
        profile = reads.profiles.get(juror.pk)
        conflict = contestant_conflict(
            leads=juror.pk in leaders,
            juror_country=profile.country if profile else "",
            delegation=delegation,
            declared_reason=reads.declared_delegations.get((juror.pk, paper.delegation_id)),
            declared_on_paper=reads.declared_papers.get((juror.pk, paper.pk)),
        )
        if juror.pk in submitted:
            excluded[juror.pk] = SUBMITTED
        elif conflict:
            excluded[juror.pk] = conflict
        elif juror.pk in seen:
            excluded[juror.pk] = seen[juror.pk]
    return excluded
