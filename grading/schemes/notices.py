"""The notices of a scheme's amendment, written inside `scheme_amend`'s transaction: every
juror of the problem's group learns that the scheme changed (wording applies at once), and each
juror whose marks reopened learns how many and why. A notice names no paper: the juror's sheet
shows which of their cells reopened."""

from collections import Counter

from django.utils.translation import ngettext

from grading.models import Assignment, Notification
from grading.resolution.inbox import write_notices

SENTENCE_MAX_LENGTH = Notification._meta.get_field("sentence").max_length


def _fields_changed(changes: list[dict]) -> str:
    """ "guidance of A1, points of A2 and B1": what an amendment changed, in a few words."""
    by_field: dict[str, list[str]] = {}
    for change in changes:
        by_field.setdefault(change["field"], []).append(change["criterion"])
    return ", ".join(f"{name} of {' and '.join(codes)}" for name, codes in by_field.items())


def _with_reason(sentence: str, reason: str) -> str:
    """The sentence and the amendment's reason, the reason shortened to fit the notice."""
    room = SENTENCE_MAX_LENGTH - len(sentence) - len(" Reason: ")
    shown = reason if len(reason) <= room else reason[: max(room - 1, 0)].rstrip() + "…"
    return f"{sentence} Reason: {shown}"


def notify_scheme_amended(*, problem, version, actor) -> list[Notification]:
    """Every juror of the group but the one who amended: what changed, and what it means."""
    jurors = (
        Assignment.objects.filter(problem=problem)
        .order_by()
        .values_list("juror_id", flat=True)
        .distinct()
    )
    changed = _fields_changed(version.changes)
    if version.reopens_marks:
        effect = "the marks it affects reopen for their jurors to re-confirm or re-mark."
    else:
        effect = "it applies at once."
    sentence = (
        f"{problem.code}: the grading scheme is amended (version {version.number}: {changed}); "
        f"{effect}"
    )
    return write_notices(
        [juror for juror in jurors if juror != getattr(actor, "pk", None)],
        kind=Notification.Kind.SCHEME_AMENDED,
        contest_id=problem.contest_id,
        problem_id=problem.pk,
        sentence=_with_reason(sentence, version.reason),
    )


def notify_marks_reopened(*, problem, version, marks) -> list[Notification]:
    """One notice to each juror whose marks reopened (their live sheet's, a seed's among
    them): how many, by which version, and why."""
    return _notify_reopened(
        problem,
        version,
        marks,
        "%(where)s: %(n)d of your marks reopened with scheme version %(version)d; "
        "re-confirm or re-mark it in your sheet.",
        "%(where)s: %(n)d of your marks reopened with scheme version %(version)d; "
        "re-confirm or re-mark them in your sheet.",
    )


def notify_calibration_marks_reopened(*, problem, version, marks) -> list[Notification]:
    """One notice to each juror whose calibration-sheet marks reopened (the inbox links it to
    their calibration sheet while the round is open): how many, by which version, and why."""
    return _notify_reopened(
        problem,
        version,
        marks,
        "%(where)s: %(n)d of your calibration marks reopened with scheme version "
        "%(version)d; re-confirm or re-mark it in your calibration sheet.",
        "%(where)s: %(n)d of your calibration marks reopened with scheme version "
        "%(version)d; re-confirm or re-mark them in your calibration sheet.",
    )


def _notify_reopened(problem, version, marks, singular: str, plural: str) -> list[Notification]:
    written = []
    for juror_id, n in sorted(Counter(mark.juror_id for mark in marks).items()):
        sentence = ngettext(singular, plural, n) % {
            "where": problem.code,
            "n": n,
            "version": version.number,
        }
        written += write_notices(
            [juror_id],
            kind=Notification.Kind.MARKS_REOPENED,
            contest_id=problem.contest_id,
            problem_id=problem.pk,
            sentence=_with_reason(sentence, version.reason),
        )
    return written
