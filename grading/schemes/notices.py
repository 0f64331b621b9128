"""The notices of a scheme's amendment, written inside `scheme_amend`'s transaction: every
juror of the problem's group learns that the scheme changed (wording applies at once), and each
juror whose marks reopened learns how many, how many of them need new points (above the new
maximum, off the new step: Enter cannot re-confirm those) and why. A notice names no paper:
the juror's sheet shows which of their cells reopened, and why each needs new points."""

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
    unfit = Counter(mark.juror_id for mark in marks if mark.unfit)
    for juror_id, n in sorted(Counter(mark.juror_id for mark in marks).items()):
        sentence = ngettext(singular, plural, n) % {
            "where": problem.code,
            "n": n,
            "version": version.number,
        }
        if unfit[juror_id]:
            sentence += " " + _needing_new_points(unfit[juror_id], n)
        written += write_notices(
            [juror_id],
            kind=Notification.Kind.MARKS_REOPENED,
            contest_id=problem.contest_id,
            problem_id=problem.pk,
            sentence=_with_reason(sentence, version.reason),
        )
    return written


def _needing_new_points(unfit: int, n: int) -> str:
    """How many of a juror's `n` reopened marks no longer fit their criterion (above its new
    maximum or off its new step): re-confirming keeps the points, so those are re-marked."""
    if unfit == n:
        return ngettext(
            "It no longer fits the criterion (above the new maximum or off the step): re-mark it.",
            "None of them fits the criterion any more (above the new maximum or off the step): "
            "re-mark them.",
            n,
        )
    return (
        ngettext(
            "%d of them no longer fits the criterion (above the new maximum or off the step): "
            "re-mark it.",
            "%d of them no longer fit the criterion (above the new maximum or off the step): "
            "re-mark those.",
            unfit,
        )
        % unfit
    )
