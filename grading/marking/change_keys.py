"""A change the sheet's page sent before: recognised by its key, answered again, never applied twice.

The page gives every change it sends (a cell's points, a note) a random key and keeps the change
until the server has answered it; a save whose answer was lost on the way (the server wrote it,
the browser never heard) is sent again with the same key and the same version it was based on.
The write records the key on the history event it writes (`MarkEvent.change_key`,
`CalibrationMarkEvent.change_key`, unique per mark). The key is looked up only once a save has
been refused: a change already applied is always refused on its way back (its version is stale
by then, or the sheet locked since), so the save that goes through costs no extra query, and
every rule on the write stays where it is, checked once."""

from grading.rules.domain import points_text


def applied_change(mark, change_key: str | None) -> dict | None:
    """The answer the server gave when it applied the change `change_key` to `mark` (a mark or a
    calibration mark), as the save's JSON: points, note, version, saved; None when it never did."""
    if not change_key:
        return None
    event = mark.events.filter(change_key=change_key).only("new_points", "new_note", "version")
    event = event.first()
    if event is None:
        return None
    return {
        "points": points_text(event.new_points),
        "note": event.new_note,
        "version": event.version,
        "saved": True,
    }
