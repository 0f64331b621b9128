"""Reading a system's answer text into the task's items, exactly as the IOL-AI competition's
scorer does: a JSON list (null → empty), or else one answer per non-empty line with leading
`1.` / `1)` numbering removed; then padded with empty answers or cut to the item count.
Importers and the automatic metrics share this so that jurors and metrics see the same items."""

import json
import re

_NUMBERING = re.compile(r"^\s*\d+\s*[.)]\s*")
# The start of the notes `fit_to_items` writes, so that the automatic metrics can count item-count
# mismatches from a solution's stored parse notes.
FIT_NOTE = re.compile(r"^(\d+) answers for (\d+) items:")


def split_answer_text(text: str | None) -> list[str]:
    """The answers in `text`, before padding or cutting."""
    if text is None:
        return []
    stripped = text.strip()
    # A JSON null (the competition's "no prediction") is no answer at all, not the word "null".
    if stripped == "null":
        return []
    if stripped.startswith("["):
        try:
            value = json.loads(stripped)
        except (ValueError, RecursionError):  # not JSON, a too-long number, too deep
            value = None
        if isinstance(value, list):
            return ["" if item is None else str(item) for item in value]
    return [_NUMBERING.sub("", line).strip() for line in stripped.splitlines() if line.strip()]


def fit_to_items(answers: list[str], item_count: int) -> tuple[list[str], list[str]]:
    """Pad with empty answers or cut to `item_count`; the notes say what was done."""
    notes = []
    given = _count(len(answers), "answer")
    if len(answers) < item_count:
        notes.append(
            f"{given} for {_count(item_count, 'item')}: padded with "
            f"{_count(item_count - len(answers), 'empty answer')}."
        )
        answers = answers + [""] * (item_count - len(answers))
    elif len(answers) > item_count:
        notes.append(
            f"{given} for {_count(item_count, 'item')}: the last "
            f"{len(answers) - item_count} cut off."
        )
        answers = answers[:item_count]
    return answers, notes


def parse_prediction(text: str | None, item_count: int) -> tuple[list[str], list[str]]:
    """Answers fitted to the item count, and notes on any padding or cutting."""
    return fit_to_items(split_answer_text(text), item_count)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
