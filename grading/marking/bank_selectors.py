"""Reads of the comment bank: the notes of a sheet's criteria (with the sheet, in one query) and
a problem's whole bank, proposals included, for the chair's curation page. Notes hold text and suggested points only;
nothing here reads a mark."""

from dataclasses import dataclass, field

from grading.models import BankNote
from grading.rules import bank_access
from grading.rules.domain import points_text
from rubrics.models import Criterion, Problem


@dataclass
class BankEntry:
    """A note as a page shows it: its number in its criterion's bank (1, 2, 3…)."""

    note: BankNote
    number: int

    @property
    def points(self) -> str:
        return points_text(self.note.points)


@dataclass
class CriterionBank:
    criterion: Criterion
    entries: list[BankEntry] = field(default_factory=list)
    # The curation page's jurors' proposals, apart from the numbered bank.
    proposals: list[BankNote] = field(default_factory=list)


def _banks(criteria: list[Criterion], notes, *, proposals_apart: bool) -> list[CriterionBank]:
    banks = {criterion.pk: CriterionBank(criterion) for criterion in criteria}
    for note in notes:
        bank = banks[note.criterion_id]
        note.criterion = bank.criterion
        if proposals_apart and not note.adopted:
            bank.proposals.append(note)
        else:
            bank.entries.append(BankEntry(note, len(bank.entries) + 1))
    return list(banks.values())


def sheet_banks(*, criteria: list[Criterion], reader) -> list[CriterionBank]:
    """The banks of the sheet's criteria (already read with the grid) as `reader` may read them
    (the group's notes and their own proposals), in the criteria's order, each in its own order.
    One query whatever the number of notes; no author: the sheet names no other juror."""
    notes = BankNote.objects.filter(
        bank_access.bank_notes_readable(reader), criterion__in=criteria
    ).order_by("order", "id")
    return _banks(
        criteria,
        notes.only("criterion_id", "text", "points", "uses", "order", "adopted"),
        proposals_apart=False,
    )


def problem_banks(*, problem: Problem) -> list[CriterionBank]:
    """Every criterion of the problem with its bank, the jurors' proposals apart, and each
    note's author, for the chair. Two queries."""
    criteria = list(Criterion.objects.for_problem(problem))
    notes = (
        BankNote.objects.filter(criterion__problem=problem)
        .select_related("author")
        .order_by("order", "id")
    )
    return _banks(criteria, notes, proposals_apart=True)
