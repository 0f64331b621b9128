"""The language each human contestant answered in, set or corrected by the organizer as bulk
lines `code, language` (the paper's public code, or the contestant's code the scans were
imported under) on the console or through `manage.py set_answer_languages`; the scan import's
page map may give them too (`grading.intake.scans`). AI papers have none of their own: they are
read in the contest's working language (`Contest.working_language`).

All-or-nothing: `answer_languages_parse` checks every line, each problem a sentence naming the
line and the column; `answer_languages_set` parses again in its transaction and writes only
when nothing is wrong."""

import csv
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils.translation import ngettext

from grading.console.bulk_lines import MAX_LINES, bulk_lines
from grading.intake.scans.languages import answer_language_check
from grading.models import Paper
from grading.rules import access
from grading.rules.phase import refuse_if_final, refuse_if_final_now
from rubrics.models import Contest

COLUMNS = ("code", "language")
SHAPE = "code, language"


@dataclass(frozen=True)
class LanguageLine:
    line: int
    paper: Paper
    language: str

    @property
    def before(self) -> str:
        return self.paper.answer_language

    @property
    def changes(self) -> bool:
        return self.language != self.paper.answer_language


@dataclass
class LanguagesBatch:
    contest: Contest
    lines: list[LanguageLine] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return sum(1 for line in self.lines if line.changes)

    @property
    def preview_line(self) -> str:
        return self.line(dry_run=True)

    def line(self, *, dry_run: bool = False) -> str:
        count = len(self.lines)
        papers = ngettext("%d paper", "%d papers", count) % count
        changed = ngettext("%d of them changes", "%d of them change", self.changed) % self.changed
        verb = "would be set" if dry_run else "set"
        return f"Answer languages of {papers} of {self.contest.name} {verb} ({changed})."


def _rows(text: str) -> tuple[list[tuple[int, list[str]]], str]:
    try:
        rows = bulk_lines(text)
    except csv.Error as error:
        return [], f"The lines cannot be read as CSV ({error}); check the quotes."
    if rows and [cell.lower() for cell in rows[0][1][:2]] == list(COLUMNS):
        rows = rows[1:]
    if not rows:
        return [], f"There is no paper's language: give one line per paper, “{SHAPE}”."
    if len(rows) > MAX_LINES:
        return [], f"There are {len(rows)} lines; give at most {MAX_LINES} at a time."
    return rows, ""


def answer_languages_parse(*, contest: Contest, text: str) -> LanguagesBatch:
    """Read `code, language` lines and check every one, writing nothing."""
    refuse_if_final(contest, what="its papers' answer languages")
    batch = LanguagesBatch(contest=contest)
    rows, refused = _rows(text)
    if refused:
        batch.errors.append(refused)
        return batch
    codes = [cells[0] for _, cells in rows if cells and cells[0]]
    papers: dict[str, Paper] = {}
    for paper in Paper.objects.filter(contest=contest).filter(
        Q(public_code__in=codes) | Q(identity__in=codes, source=Paper.Source.HUMAN)
    ):
        papers.setdefault(paper.public_code, paper)
        if paper.source == Paper.Source.HUMAN:
            # A contestant's code is what the organizer typed on the scans; it wins over a
            # public code that happens to spell the same.
            papers[paper.identity] = paper
    seen: dict[int, int] = {}
    for line, cells in rows:

        def where(column: int) -> str:
            return f"Line {line}, column {column} ({COLUMNS[column - 1]})"  # noqa: B023

        if len(cells) != 2:
            count = ngettext("%d column", "%d columns", len(cells)) % len(cells)
            batch.errors.append(f"Line {line} has {count}; each line needs 2: {SHAPE}.")
            continue
        code, language_text = cells
        errors = []
        paper = papers.get(code)
        if not code:
            errors.append(f"{where(1)}: the paper's code is missing.")
        elif paper is None:
            errors.append(
                f"{where(1)}: no paper of {contest.name} has the code “{code}”; give the "
                "paper's public code or the contestant's code."
            )
        elif paper.source != Paper.Source.HUMAN:
            errors.append(
                f"{where(1)}: “{code}” is an AI system's paper; AI papers are read in the "
                f"contest's working language ({contest.working_language}), set on the "
                "contest's page."
            )
        elif paper.pk in seen:
            errors.append(
                f"{where(1)}: “{code}” is the paper of line {seen[paper.pk]} too; give each "
                "paper one line."
            )
        if paper is not None:
            seen.setdefault(paper.pk, line)
        language, language_errors = answer_language_check(language_text, where=where(2))
        errors += language_errors
        if errors:
            batch.errors += errors
        else:
            batch.lines.append(LanguageLine(line, paper, language))
    return batch


def answer_languages_set(
    *, contest: Contest, text: str, actor, dry_run: bool = False
) -> LanguagesBatch:
    """Set the answer language of every line's paper (`actor` None is the command line).
    ValidationError with every problem, or a refusal for a final contest, writing nothing."""
    access.require(
        actor is None or access.may_run_contest(actor),
        "Only an organizer can set papers' answer languages.",
    )
    if dry_run:
        batch = answer_languages_parse(contest=contest, text=text)
        if batch.errors:
            raise ValidationError(batch.errors)
        return batch
    with transaction.atomic():
        contest = refuse_if_final_now(contest, what="its papers' answer languages")
        batch = answer_languages_parse(contest=contest, text=text)
        if batch.errors:
            raise ValidationError(batch.errors)
        # The preview's "before" is read from the papers as they were; keep it so.
        updated = [Paper(pk=line.paper.pk, answer_language=line.language) for line in batch.lines]
        Paper.objects.bulk_update(updated, ["answer_language"])
    return batch


@dataclass(frozen=True)
class PaperLanguage:
    identity: str
    public_code: str
    delegation: str
    answer_language: str


def human_papers_languages(contest: Contest) -> list[PaperLanguage]:
    """Every human paper of the contest with its delegation's code and its answer language, in
    one query."""
    return [
        PaperLanguage(*row)
        for row in Paper.objects.filter(contest=contest, source=Paper.Source.HUMAN)
        .order_by("identity")
        .values_list("identity", "public_code", "delegation__code", "answer_language")
    ]
