"""Collecting every problem in an input before anything is written, as sentences that name the
file, the row or line, and the field, so that one run tells the organizer everything to fix."""

from collections.abc import Callable, Iterable

from django.core.exceptions import ValidationError

# Wraps the write loop of an import: `progress(items, total, description)` yields the items.
# Commands pass a tqdm bar on a terminal; services work the same without one.
type Progress = Callable[[Iterable, int, str], Iterable]


def no_progress[T](items: Iterable[T], total: int, description: str) -> Iterable[T]:
    return items


class ImportProblems(ValidationError):
    """Everything wrong with an import, one sentence each; raised before anything is written."""

    def __init__(self, sentences: list[str]):
        self.sentences = list(sentences)
        super().__init__(self.sentences)


def at(name: str, *, row: int | None = None, line: int | None = None, field: str = "") -> str:
    """Where a problem is: "test.csv, row 3, answer" (CSV rows count the header as row 1, as a
    spreadsheet shows them; JSONL files count lines)."""
    parts = [name]
    if row is not None:
        parts.append(f"row {row}")
    if line is not None:
        parts.append(f"line {line}")
    if field:
        parts.append(field)
    return ", ".join(parts)


class Problems:
    """The sentences collected so far."""

    def __init__(self):
        self.sentences: list[str] = []

    def add(self, where: str, text: str) -> None:
        self.sentences.append(f"{where}: {text}" if where else text)

    def __bool__(self) -> bool:
        return bool(self.sentences)

    def __len__(self) -> int:
        return len(self.sentences)

    def raise_if_any(self) -> None:
        if self.sentences:
            raise ImportProblems(self.sentences)
