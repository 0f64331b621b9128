"""A paper's answer beside the official ones, for the discussion page: whether it matches (by
the competition's own normalisation, `grading.metrics.autoscore.exact_match`, so the page and the
automatic metrics never disagree about a match) and, where it does not, which characters
differ from the nearest accepted answer. Pure: no ORM."""

from dataclasses import dataclass
from difflib import SequenceMatcher

from grading.metrics.autoscore import exact_match, normalise

# Below this similarity (difflib's ratio, 0 to 1) an answer is marked as different as a whole
# rather than letter by letter.
UNRELATED = 0.5


@dataclass(frozen=True, slots=True)
class Piece:
    """A run of characters, and whether it differs from the other side."""

    text: str
    differs: bool


@dataclass(frozen=True, slots=True)
class ItemComparison:
    matches: bool
    # The answer and the nearest accepted answer in runs; empty when the item matches or
    # there is nothing to compare with.
    answer_pieces: tuple[Piece, ...]
    reference_pieces: tuple[Piece, ...]


def _pieces(text: str, spans: list[tuple[int, int, bool]]) -> tuple[Piece, ...]:
    merged: list[Piece] = []
    for start, end, differs in spans:
        if start == end:
            continue
        if merged and merged[-1].differs == differs:
            merged[-1] = Piece(merged[-1].text + text[start:end], differs)
        else:
            merged.append(Piece(text[start:end], differs))
    return tuple(merged)


def compare_item(answer: str, alternatives: list[str]) -> ItemComparison:
    """The answer against an item's accepted alternatives: a match if any alternative matches
    as the competition's scorer counts it; otherwise the character runs that differ from the
    alternative nearest to it (compared as typed, so a case or accent slip shows)."""
    alternatives = [str(option) for option in alternatives or [] if option is not None]
    if any(exact_match(answer, option) for option in alternatives):
        return ItemComparison(True, (), ())
    if not alternatives or not answer:
        return ItemComparison(False, (), ())

    def closeness(option: str) -> float:
        return SequenceMatcher(None, normalise(answer), normalise(option), autojunk=False).ratio()

    nearest = max(alternatives, key=closeness)
    matcher = SequenceMatcher(None, answer, nearest, autojunk=False)
    if matcher.ratio() < UNRELATED:
        # Scattered letters in common say nothing: the answers are simply different.
        return ItemComparison(False, (Piece(answer, True),), (Piece(nearest, True),))
    ours, theirs = [], []
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        ours.append((a1, a2, tag != "equal"))
        theirs.append((b1, b2, tag != "equal"))
    return ItemComparison(False, _pieces(answer, ours), _pieces(nearest, theirs))
