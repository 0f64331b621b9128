"""The people the organizer adds in bulk, one per line (jurors, team leaders): the lines read as
CSV, why none can be, and the usernames among them that exist already."""

import csv

from django.contrib.auth import get_user_model
from django.db.models.functions import Lower

User = get_user_model()

# More lines at once than any jury has people: a pasted file gone wrong, said as such.
MAX_LINES = 1000


def person_lines(text: str, *, who: str, shape: str) -> tuple[list[tuple[int, list[str]]], str]:
    """The bulk lines of people to add (`bulk_lines`), or none and why, in a sentence: lines that
    are not CSV, no line at all, or more than MAX_LINES. `who` names the people in the plural
    ("jurors"), `shape` a line's columns."""
    try:
        rows = bulk_lines(text)
    except csv.Error as error:
        return [], f"The lines cannot be read as CSV ({error}); check the quotes."
    if not rows:
        one = who.removesuffix("s")
        return [], f"There is no {one} to add: give one line per {one}, “{shape}”."
    if len(rows) > MAX_LINES:
        return [], f"There are {len(rows)} lines; add at most {MAX_LINES} {who} at a time."
    return rows, ""


def usernames_taken(rows: list[tuple[int, list[str]]]) -> dict[str, str]:
    """The existing usernames among the lines' second cells, by their lower case: compared
    without case, as Django's log-in is case-sensitive but "Alice" beside "alice" confuses
    people."""
    wanted = [cells[1] for _, cells in rows if len(cells) > 1 and cells[1]]
    return dict(
        User.objects.annotate(lower=Lower("username"))
        .filter(lower__in=[username.lower() for username in wanted])
        .values_list("lower", "username")
    )


def bulk_lines(text: str) -> list[tuple[int, list[str]]]:
    """(line number, cells) of every line that holds something, a header line left out."""
    rows = []
    for index, cells in enumerate(csv.reader(text.splitlines(), skipinitialspace=True), start=1):
        cells = [cell.strip() for cell in cells]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if not rows and [cell.lower() for cell in cells[:2]] == ["name", "username"]:
            continue
        rows.append((index, cells))
    return rows
