"""Typed refusals: what services raise when a change may not happen, each with the sentence the
user reads and the HTTP status it becomes.

They are `ValidationError`s, so forms, importers and commands that already report validation
errors report these the same way; views let them rise, and one middleware turns them into
answers, `grading.web.errors.RefusalMiddleware`. A plain `ValidationError` stays what it
was: bad input (422)."""

from django.core.exceptions import ValidationError


class Refusal(ValidationError):
    """A change refused for a reason other than the input's form."""

    status = 422


class MalformedRequest(Refusal):
    """The request itself is not what the page sends (a missing or garbled field)."""

    status = 400


class NotAllowed(Refusal):
    """The user's role or group does not allow this."""

    status = 403


class ContestFinal(Refusal):
    """The contest is final: nothing it owns changes until an organizer reopens it."""

    status = 403


class SheetLocked(Refusal):
    """The juror's sheet is submitted (outside the resolution phase) or otherwise read-only."""

    status = 403


class DecidedByChair(Refusal):
    """The chair decided this cell; only the chair changes it."""

    status = 403


class Stale(Refusal):
    """The thing changed since the writer loaded it; reload before changing it."""

    status = 409


class WrongState(Refusal):
    """The contest is not in the phase this action belongs to."""

    status = 409


def http_status(error: ValidationError) -> int:
    """The HTTP status of a refusal; 422 for plain bad input."""
    return getattr(error, "status", 422)
