"""Reading a system's answer text into the task's items, exactly as the IOL-AI competition's
scorer does: the whole text stripped; if it is a JSON list, its elements (null → empty, others
`str()` then stripped); otherwise one answer per non-empty "\n"-separated line, with a leading
`1.` / `1)` removed before the line is stripped; then padded with empty answers or cut to the item
count.
Importers and the automatic metrics share this so that jurors and metrics see the same items."""

import json
import re

from django.utils.translation import ngettext

# Only at the very start of the line: the scorer removes it before stripping, so " 2. x" keeps
# its numbering, and "1 . x" (a space before the dot) is not numbering.
_NUMBERING = re.compile(r"^\d+[.)]\s*")


def split_answer_text(text: str | None) -> list[str]:
    """The answers in `text`, before padding or cutting."""
    if text is None:
        return []
    stripped = text.strip()
    # Only a list counts: a JSON null, string or object is read as text, as the scorer does.
    # A JSON list cannot start otherwise once stripped, so other texts skip the parse.
    if stripped.startswith("["):
        try:
            value = json.loads(stripped)
        except (ValueError, RecursionError):  # not JSON, a too-long number, too deep
            value = None
        if isinstance(value, list):
            return ["" if item is None else str(item).strip() for item in value]
    # "\n" only: str.splitlines() would also break at U+2028 and others, which the scorer keeps.
    lines = (_NUMBERING.sub("", line).strip() for line in stripped.split("\n"))
    return [line for line in lines if line]


def fit_to_items(answers: list[str], item_count: int) -> tuple[list[str], list[str]]:
    """Pad with empty answers or cut to `item_count`; the notes say what was done."""
    notes = []
    given = ngettext("%d answer", "%d answers", len(answers)) % len(answers)
    if len(answers) < item_count:
        notes.append(
            f"{given} for {ngettext('%d item', '%d items', item_count) % item_count}: padded with "
            f"{ngettext('%d empty answer', '%d empty answers', item_count - len(answers)) % (item_count - len(answers))}."
        )
        answers = answers + [""] * (item_count - len(answers))
    elif len(answers) > item_count:
        notes.append(
            f"{given} for {ngettext('%d item', '%d items', item_count) % item_count}: the last "
            f"{len(answers) - item_count} cut off."
        )
        answers = answers[:item_count]
    return answers, notes
