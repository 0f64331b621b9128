"""Delegations (a country's team of human contestants), as the organizer sets them up: imported
from a CSV of `delegation, contestant code[, country]` rows, through the console's imports page or
`manage.py import_delegations`, both calling `delegations_import`; and the console's read of
every delegation with its contestants and leaders.

The import is all-or-nothing: every row is checked first (a code that names no human paper of
the contest, an AI paper, a contestant listed twice, a blank cell, two countries for one delegation),
each problem a sentence
naming its row and column, and nothing is written unless none is found; then the missing
delegations are created, each named paper's delegation set, and each delegation given the country
its rows name (the assignment keeps jurors off their own country's contestants), in one
transaction."""

import csv
from dataclasses import dataclass, field

from django.db import transaction
from django.utils.translation import ngettext

from grading.intake.importers.errors import ImportProblems
from grading.models import Delegation, Paper, language_key
from grading.rules import access
from grading.rules.phase import refuse_if_final, refuse_if_final_now
from rubrics.models import Contest

COLUMNS = ("delegation", "contestant code", "country")
MAX_ROWS = 5000
CODE_MAX = Delegation._meta.get_field("code").max_length
COUNTRY_MAX = Delegation._meta.get_field("country").max_length


@dataclass
class DelegationChange:
    """One delegation as the import leaves it: its code, whether it is new, and the codes of
    the contestants the file puts in it (with those that move there from another one)."""

    code: str
    new: bool
    contestants: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    # The country the rows give ("" when none does: the delegation's stays as it is).
    country: str = ""

    def line(self, *, dry_run: bool) -> str:
        count = len(self.contestants)
        people = ngettext("%d contestant", "%d contestants", count) % count
        verb = ("would be created" if dry_run else "created") if self.new else "kept"
        country = f", country {self.country}" if self.country else ""
        text = f"{self.code} ({verb}{country}): {people}, {', '.join(self.contestants)}."
        if self.moved:
            text += f" Moved from another delegation: {', '.join(self.moved)}."
        return text


@dataclass
class DelegationsSummary:
    contest: Contest
    dry_run: bool
    delegations: list[DelegationChange] = field(default_factory=list)

    @property
    def contestants(self) -> int:
        return sum(len(change.contestants) for change in self.delegations)

    def line(self) -> str:
        created = sum(1 for change in self.delegations if change.new)
        delegations = ngettext("%d delegation", "%d delegations", len(self.delegations)) % len(
            self.delegations
        )
        contestants = ngettext("%d contestant", "%d contestants", self.contestants) % (
            self.contestants
        )
        if self.dry_run:
            verb = "would be placed"
        else:
            verb = ngettext("was placed", "were placed", self.contestants)
        return f"{contestants} {verb} in {delegations} ({created} new) of {self.contest.name}."

    def __str__(self) -> str:
        return self.line()

    def detail_lines(self) -> list[str]:
        return [change.line(dry_run=self.dry_run) for change in self.delegations]


def _rows(text: str, name: str) -> list[tuple[int, list[str]]]:
    """(row number as a spreadsheet shows it, cells) of every row holding something, the
    header left out."""
    try:
        rows = [
            (number, [cell.strip() for cell in cells])
            for number, cells in enumerate(csv.reader(text.splitlines()), start=1)
        ]
    except csv.Error as error:
        raise ImportProblems(
            [f"{name} cannot be read as CSV ({error}); check the quotes."]
        ) from None
    rows = [(number, cells) for number, cells in rows if any(cells)]
    if rows and [cell.lower() for cell in rows[0][1][:1]] == ["delegation"]:
        rows = rows[1:]
    return rows


def _check(contest: Contest, text: str, name: str) -> list[tuple[int, str, Paper, str]]:
    """The rows as (row, delegation code, paper, country), and every problem as a sentence;
    ImportProblems when there is any."""
    rows = _rows(text, name)
    if not rows:
        raise ImportProblems(
            [f"{name} lists no contestant: one row per contestant, “delegation, contestant code”."]
        )
    if len(rows) > MAX_ROWS:
        raise ImportProblems([f"{name} has {len(rows)} rows; at most {MAX_ROWS} are read."])
    codes = [cells[1] for _, cells in rows if len(cells) > 1 and cells[1]]
    papers = {
        paper.identity: paper
        for paper in Paper.objects.filter(contest=contest, identity__in=codes).select_related(
            "delegation"
        )
    }
    problems, planned, seen = [], [], {}
    countries: dict[str, tuple[str, int]] = {}
    for row, cells in rows:

        def where(column: int) -> str:
            return f"{name}, row {row}, column {column} ({COLUMNS[column - 1]})"  # noqa: B023

        if len(cells) not in (2, 3):
            count = ngettext("%d column", "%d columns", len(cells)) % len(cells)
            problems.append(
                f"{name}, row {row} has {count}; each row needs 2: delegation, contestant code "
                "(and a third, the country, if you give it)."
            )
            continue
        delegation, code = cells[:2]
        country = " ".join(cells[2].split()) if len(cells) == 3 else ""
        wrong = _country_problems(where(3), delegation, country, row, countries)
        if not delegation:
            wrong.append(f"{where(1)}: the delegation is missing.")
        elif len(delegation) > CODE_MAX:
            wrong.append(f"{where(1)}: “{delegation}” is longer than {CODE_MAX} characters.")
        paper = papers.get(code)
        if not code:
            wrong.append(f"{where(2)}: the contestant code is missing.")
        elif paper is None:
            wrong.append(
                f"{where(2)}: no paper of {contest.name} has the contestant code “{code}”; "
                "import the scanned papers first, or correct the code."
            )
        elif paper.source != Paper.Source.HUMAN:
            wrong.append(
                f"{where(2)}: “{code}” is an AI system's paper; AI papers belong to no delegation."
            )
        elif code in seen:
            wrong.append(
                f"{where(2)}: “{code}” is also on row {seen[code]}; a contestant belongs to "
                "one delegation."
            )
        if code:
            seen.setdefault(code, row)
        problems += wrong
        if not wrong:
            planned.append((row, delegation, paper, country))
    if problems:
        raise ImportProblems(problems)
    return planned


def _country_problems(where: str, delegation: str, country: str, row: int, countries) -> list[str]:
    """A sentence when the row's country is too long or differs from the one an earlier row of
    the delegation gave (case and spaces aside, as the assignment compares them)."""
    if not country:
        return []
    if len(country) > COUNTRY_MAX:
        return [f"{where}: “{country}” is longer than {COUNTRY_MAX} characters."]
    first, first_row = countries.setdefault(delegation, (country, row))
    if language_key(first) != language_key(country):
        return [
            f"{where}: “{country}” is not the country row {first_row} gives delegation "
            f"{delegation} (“{first}”); one delegation's rows name one country."
        ]
    return []


def delegations_import(
    *, contest: Contest, text: str, name: str, actor, dry_run: bool = False
) -> DelegationsSummary:
    """Put each contestant of the CSV's `delegation, contestant code` rows in their delegation,
    creating the delegations the contest does not have yet. `actor` None is the command line.
    ImportProblems with every problem, or a refusal for a final contest, writing nothing."""
    access.require(
        actor is None or access.may_run_contest(actor),
        "Only an organizer can import delegations.",
    )
    refuse_if_final(contest, what="its delegations")
    if dry_run:
        return _apply(contest, text, name, dry_run=True)
    with transaction.atomic():
        contest = refuse_if_final_now(contest, what="its delegations")
        return _apply(contest, text, name, dry_run=False)


def _apply(contest: Contest, text: str, name: str, *, dry_run: bool) -> DelegationsSummary:
    planned = _check(contest, text, name)
    existing = {delegation.code: delegation for delegation in contest.delegations.all()}
    summary = DelegationsSummary(contest=contest, dry_run=dry_run)
    changes: dict[str, DelegationChange] = {}
    for _row, code, paper, country in planned:
        change = changes.get(code)
        if change is None:
            change = changes[code] = DelegationChange(code=code, new=code not in existing)
        change.contestants.append(paper.identity)
        change.country = change.country or country
        if paper.delegation is not None and paper.delegation.code != code:
            change.moved.append(paper.identity)
    summary.delegations = sorted(changes.values(), key=lambda change: change.code)
    if dry_run:
        return summary
    created = Delegation.objects.bulk_create(
        [
            Delegation(contest=contest, code=code, country=change.country)
            for code, change in changes.items()
            if code not in existing
        ]
    )
    recountried = []
    for code, change in changes.items():
        if code in existing and change.country and existing[code].country != change.country:
            existing[code].country = change.country
            recountried.append(existing[code])
    Delegation.objects.bulk_update(recountried, ["country"])
    # bulk_create leaves the ids unset on some databases: read the contest's delegations again.
    if created:
        existing = {delegation.code: delegation for delegation in contest.delegations.all()}
    papers = []
    for _row, code, paper, _country in planned:
        paper.delegation = existing[code]
        papers.append(paper)
    Paper.objects.bulk_update(papers, ["delegation"])
    return summary


@dataclass
class DelegationRow:
    delegation: Delegation
    contestants: list[str]
    leaders: list
    # (contestant's code, answer language or "") of each contestant, in the order of their codes.
    languages: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class DelegationsOverview:
    rows: list[DelegationRow]
    # Human contestants of the contest in no delegation (their codes).
    unplaced: list[str]
    unplaced_languages: list[tuple[str, str]] = field(default_factory=list)

    @property
    def contestants(self) -> int:
        return sum(len(row.contestants) for row in self.rows)

    @property
    def leaders(self) -> int:
        return len({leader.pk for row in self.rows for leader in row.leaders})


def delegations_overview(contest: Contest) -> DelegationsOverview:
    """Every delegation of the contest with its contestants' codes and answer languages and
    its leaders, and the human contestants in none. Three queries whatever the number of
    contestants."""
    delegations = list(contest.delegations.prefetch_related("leaders").order_by("code"))
    entries: dict[int | None, list[tuple[str, str]]] = {}
    for delegation_id, identity, language in (
        Paper.objects.filter(contest=contest, source=Paper.Source.HUMAN)
        .order_by("identity")
        .values_list("delegation_id", "identity", "answer_language")
    ):
        entries.setdefault(delegation_id, []).append((identity, language))
    rows = [
        DelegationRow(
            delegation=delegation,
            contestants=[code for code, _ in entries.get(delegation.pk, [])],
            leaders=sorted(delegation.leaders.all(), key=lambda user: user.username),
            languages=entries.get(delegation.pk, []),
        )
        for delegation in delegations
    ]
    unplaced = entries.get(None, [])
    return DelegationsOverview(
        rows=rows, unplaced=[code for code, _ in unplaced], unplaced_languages=unplaced
    )
