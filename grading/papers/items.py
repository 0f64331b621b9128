"""The names of a task's items, as the problem writes them: one rule for every place that shows
items (the paper page, the sheet's solution pane, the printouts), so that a juror reading
answer (e) on screen finds (e) on paper and in the problem's text. Pure: no ORM."""

import re

# An item line of a query: "(a) Anem kikiri", "7. my houses", "b) ...", "A. 4".
_ITEM_LINE = re.compile(
    r"^\s*(?:\((?P<paren>\d{1,3}[a-z]?|[A-Za-z])\)|(?P<bare>\d{1,3}[a-z]?|[A-Za-z])[.)])\s+\S"
)
# A range of items named in a sentence: "Fill in the gaps (a)–(d)", "the phrases (1–6)".
_ITEM_RANGE = re.compile(r"\(?\b([a-z]|\d{1,3})\)?\s*[–-]\s*\(?([a-z]|\d{1,3})\b\)?")


def _expand(first: str, last: str) -> list[str]:
    if first.isdigit() and last.isdigit():
        return [str(n) for n in range(int(first), int(last) + 1)]
    if first.isalpha() and last.isalpha():
        return [chr(c) for c in range(ord(first), ord(last) + 1)]
    return []


def item_labels(query: str, count: int) -> list[str]:
    """The items' names as the problem writes them ("a".."c", "7".."9"), read from the task's
    query, so that a juror finds answer (e) where the problem asks (e); 1..count when the query
    does not name exactly `count` items in one style."""
    groups: dict[tuple, list[str]] = {}
    for line in (query or "").splitlines():
        match = _ITEM_LINE.match(line)
        if match:
            label = match["paren"] or match["bare"]
            style = (match["paren"] is not None, label[0].isdigit(), label[0].isupper())
            groups.setdefault(style, []).append(label)
    for labels in groups.values():
        if len(labels) == count and len(set(labels)) == count:
            return labels
    for match in _ITEM_RANGE.finditer(query or ""):
        labels = _expand(match[1], match[2])
        if len(labels) == count:
            return labels
    return [str(n) for n in range(1, count + 1)]
