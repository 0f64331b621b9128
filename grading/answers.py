"""Reading a system's answer text into the task's items, exactly as the IOL-AI competition's
scorer does: a JSON list (null → empty), or else one answer per non-empty line with leading
`1.` / `1)` numbering removed; then padded with empty answers or cut to the item count.
Importers and the automatic metrics share this so that jurors and metrics see the same items."""

import json
import re

_NUMBERING = re.compile(r"^\s*\d+\s*[.)]\s*")


def split_answer_text(text: str | None) -> list[str]:
    """The answers in `text`, before padding or cutting."""
    if text is None:
        return []
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            value = json.loads(stripped)
        except ValueError:
            value = None
        if isinstance(value, list):
            return ["" if item is None else str(item) for item in value]
    return [_NUMBERING.sub("", line).strip() for line in stripped.splitlines() if line.strip()]


def fit_to_items(answers: list[str], item_count: int) -> tuple[list[str], list[str]]:
    """Pad with empty answers or cut to `item_count`; the notes say what was done."""
    notes = []
    if len(answers) < item_count:
        notes.append(
            f"{len(answers)} answers for {item_count} items: padded with "
            f"{item_count - len(answers)} empty answer{'s' if item_count - len(answers) != 1 else ''}."
        )
        answers = answers + [""] * (item_count - len(answers))
    elif len(answers) > item_count:
        notes.append(
            f"{len(answers)} answers for {item_count} items: the last "
            f"{len(answers) - item_count} cut off."
        )
        answers = answers[:item_count]
    return answers, notes


def parse_prediction(text: str | None, item_count: int) -> tuple[list[str], list[str]]:
    """Answers fitted to the item count, and notes on any padding or cutting."""
    return fit_to_items(split_answer_text(text), item_count)
