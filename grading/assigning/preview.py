"""What the assignment preview shows, read from a plan (`AssignmentSummary`) and the contest:
per problem its sentences, each juror's load and reading languages, each paper's jurors with
why one is flagged ("reads Tagalog with help", "reads no Tagalog: needs a helper"), the
flagged papers first. Two queries whatever the number of papers and jurors."""

from collections import defaultdict
from dataclasses import dataclass, field

from grading.assigning.plan import Fit
from grading.models import JurorLanguage, Paper, PaperLabel
from rubrics.models import Contest


def fit_reason(fit: str, language: str) -> str:
    """Why a juror is flagged on a paper, in a few words; "" when they read its language."""
    if fit == Fit.READS:
        return ""
    if not language:
        return "the paper's answer language is not recorded: needs a helper"
    if fit == Fit.WITH_HELP:
        return f"reads {language} with help"
    return f"reads no {language}: needs a helper"


@dataclass
class PaperJuror:
    username: str
    fit: str
    reason: str


@dataclass
class PaperRow:
    name: str
    language: str
    jurors: list[PaperJuror] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        return any(juror.reason for juror in self.jurors)


@dataclass
class JurorRow:
    username: str
    load: int
    languages: str


@dataclass
class ProblemPreview:
    number: int
    sentences: list[str]
    short: int
    optimal: bool
    jurors: list[JurorRow]
    papers: list[PaperRow]

    @property
    def flagged(self) -> int:
        return sum(1 for paper in self.papers if paper.flagged)


def paper_language(paper_source: str, answer_language: str, contest: Contest) -> str:
    """A paper's language as the assignment reads it: an AI system writes in the contest's
    working language; a contestant in the language of their answers (blank when unknown)."""
    if paper_source == Paper.Source.AI:
        return contest.working_language
    return answer_language


def _languages_text(rows: list[tuple[str, str]]) -> str:
    if not rows:
        return "no language recorded"
    return ", ".join(
        language if level == JurorLanguage.Level.READS else f"{language} (with help)"
        for language, level in sorted(rows, key=lambda row: row[0].casefold())
    )


def preview_problems(contest: Contest, summary) -> list[ProblemPreview]:
    """The preview of `summary` (the plan of `assignments_create`, dry run), problem by problem.
    Two queries: the labels with their papers' languages, and the jurors' languages."""
    numbers = [problem.number for problem in summary.problems]
    languages: dict[tuple[int, str], str] = {
        (number, label): paper_language(source, answer_language, contest)
        for number, label, source, answer_language in PaperLabel.objects.filter(
            problem__contest=contest, problem__number__in=numbers
        ).values_list("problem__number", "label", "paper__source", "paper__answer_language")
    }
    usernames = {username for problem in summary.problems for username in problem.loads}
    read: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for username, language, level in JurorLanguage.objects.filter(
        user__username__in=usernames
    ).values_list("user__username", "language", "level"):
        read[username].append((language, level))
    return [_problem(problem, languages, read) for problem in summary.problems]


def _problem(problem, languages, read) -> ProblemPreview:
    papers: dict[str, PaperRow] = {}
    # With no reading language on record in the group, every juror would read as "no reader":
    # nothing to flag (the problem's sentences say the languages are unknown).
    flags = getattr(problem, "languages_known", True)
    for name, username, fit in problem.picks:
        language = languages.get((problem.number, name), "")
        row = papers.setdefault(name, PaperRow(name=name, language=language))
        reason = fit_reason(fit, language) if flags else ""
        row.jurors.append(PaperJuror(username=username, fit=str(fit), reason=reason))
    return ProblemPreview(
        number=problem.number,
        sentences=list(problem.problems),
        short=problem.short,
        optimal=problem.optimal,
        jurors=[
            JurorRow(username=username, load=load, languages=_languages_text(read[username]))
            for username, load in sorted(problem.loads.items())
        ],
        # The flagged papers first, each group by label: those are what the organizer checks.
        papers=sorted(papers.values(), key=lambda row: (not row.flagged, row.name)),
    )
