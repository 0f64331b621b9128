"""Language help's reads: the help queue of a contest with the helpers each question may go to
(those who read the paper's language first), a helper's own questions, and one question as its
helper reads it. Each runs a fixed number of queries whatever the number of questions, papers or
people."""

from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db.models import F, Prefetch, Q

from grading.models import (
    Assignment,
    Delegation,
    HelpRequest,
    JurorLanguage,
    PaperLabel,
    language_key,
)
from grading.rules import roles
from rubrics.models import Contest

User = get_user_model()


def paper_language(paper, contest: Contest) -> str:
    """The language a paper is written in: a contestant's answer language, an AI system's the
    contest's working language (also for a human paper whose language is not recorded)."""
    return paper.answer_language or contest.working_language


def _labels(requests) -> dict[tuple[int, int], str]:
    pairs = {(r.paper_id, r.problem_id) for r in requests}
    if not pairs:
        return {}
    return {
        (paper_id, problem_id): label
        for paper_id, problem_id, label in PaperLabel.objects.filter(
            paper_id__in={p for p, _ in pairs}, problem_id__in={q for _, q in pairs}
        ).values_list("paper_id", "problem_id", "label")
    }


@dataclass
class Candidate:
    username: str
    name: str
    kind: str  # "juror" or "language specialist"
    reads: bool
    # Every language the person reads alone, as kept: whom to ask for another paper is read here.
    languages: list[str] = field(default_factory=list)

    @property
    def choice_label(self) -> str:
        """ "Ana Tamm (language specialist; reads Estonian, Finnish)"."""
        reads = (
            f"reads {', '.join(self.languages)}"
            if self.languages
            else "reads no language on record"
        )
        return f"{self.name} ({self.kind}; {reads})"


@dataclass
class QueueRow:
    request: HelpRequest
    label: str
    language: str
    candidates: list[Candidate] = field(default_factory=list)

    @property
    def readers(self) -> list[Candidate]:
        return [c for c in self.candidates if c.reads]

    @property
    def others(self) -> list[Candidate]:
        return [c for c in self.candidates if not c.reads]


def _people():
    """Active jurors and language specialists, with the languages they read (alone), but not a
    juror marked unavailable (they left). Two queries."""
    reading = JurorLanguage.objects.filter(level=JurorLanguage.Level.READS)
    return list(
        User.objects.filter(is_active=True, groups__name__in=[roles.JUROR, roles.SPECIALIST])
        .exclude(juror_profile__unavailable_since__isnull=False)
        .distinct()
        .order_by("username")
        .prefetch_related(
            Prefetch("groups"), Prefetch("reading_languages", queryset=reading, to_attr="reads")
        )
    )


def help_queue(contest: Contest) -> list[QueueRow]:
    """The contest's unanswered questions, oldest first, each with its label, the paper's
    language and the people it may go to: those who read that language first, then the others;
    never the juror who asked, a juror of the paper in the problem or a leader of its
    delegation. Seven queries (six when no paper asked about is in a delegation)."""
    requests = list(
        HelpRequest.objects.filter(problem__contest=contest, answered_at__isnull=True)
        .select_related("problem", "paper", "asked_by", "helper")
        .order_by("asked_at", "id")
    )
    if not requests:
        return []
    labels = _labels(requests)
    markers: dict[tuple[int, int], set[int]] = {}
    for paper_id, problem_id, juror_id in Assignment.objects.filter(
        paper_id__in={r.paper_id for r in requests}, problem__contest=contest
    ).values_list("paper_id", "problem_id", "juror_id"):
        markers.setdefault((paper_id, problem_id), set()).add(juror_id)
    leaders: dict[int, set[int]] = {}
    for delegation_id, user_id in Delegation.leaders.through.objects.filter(
        delegation_id__in={r.paper.delegation_id for r in requests if r.paper.delegation_id}
    ).values_list("delegation_id", "user_id"):
        leaders.setdefault(delegation_id, set()).add(user_id)
    people = _people()
    rows = []
    for request in requests:
        language = paper_language(request.paper, contest)
        key = language_key(language)
        excluded = (
            markers.get((request.paper_id, request.problem_id), set())
            | leaders.get(request.paper.delegation_id, set())
            | {request.asked_by_id}
        )
        candidates = []
        for person in people:
            held = {group.name for group in person.groups.all()}
            specialist = roles.SPECIALIST in held
            if person.pk in excluded:
                continue
            candidates.append(
                Candidate(
                    username=person.username,
                    name=person.get_full_name() or person.username,
                    kind="language specialist" if specialist else "juror",
                    reads=any(language_key(row.language) == key for row in person.reads),
                    languages=sorted(row.language for row in person.reads),
                )
            )
        candidates.sort(key=lambda c: (not c.reads, c.kind != "language specialist", c.name))
        rows.append(
            QueueRow(
                request=request,
                label=labels.get((request.paper_id, request.problem_id), "?"),
                language=language,
                candidates=candidates,
            )
        )
    return rows


@dataclass
class HelperRow:
    request: HelpRequest
    label: str

    @property
    def state_label(self) -> str:
        return HelpRequest.State(self.request.state).label


def helper_requests(user) -> list[HelperRow]:
    """The questions given to the user to answer, unanswered first, then by when they were
    asked. Two queries."""
    requests = list(
        HelpRequest.objects.filter(helper=user)
        .select_related("problem__contest")
        .order_by(F("answered_at").asc(nulls_first=True), "asked_at", "id")
    )
    labels = _labels(requests)
    return [
        HelperRow(request=r, label=labels.get((r.paper_id, r.problem_id), "?")) for r in requests
    ]


def request_for_helper(user, pk: int) -> HelpRequest | None:
    """The question, if the user is its helper."""
    if not user.is_authenticated:
        return None
    return (
        HelpRequest.objects.filter(Q(pk=pk) & Q(helper=user))
        .select_related("problem__contest", "paper")
        .first()
    )
