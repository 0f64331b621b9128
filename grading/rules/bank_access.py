"""Who reads and curates the comment bank: a criterion's shared notes, written by the group's
jurors and curated by the chair. It holds text and suggested points only, never a juror's mark
of a paper, so reading it tells nobody how another juror graded (independence). Split from
`grading.rules.access`, whose roles it asks."""

from django.db.models import Q

from grading.rules.access import is_chair, is_organizer, may_grade


def may_use_bank(user, problem) -> bool:
    """The problem's jurors (those who grade it) and the chair read its criteria's comment
    banks, insert their notes and add to them."""
    return is_chair(user) or may_grade(user, problem)


def bank_notes_readable(user) -> Q:
    """The bank notes a juror reads (on the sheet, and may insert): the group's bank and their
    own proposals. Another juror's proposal is none of theirs until the chair adopts it: it was
    written on a paper they may be grading too. Whoever curates reads them all."""
    if may_curate_bank(user):
        return Q()
    return Q(adopted=True) | Q(adopted=False, author_id=user.pk)


def may_curate_bank(user) -> bool:
    """The chair (and the organizer) edit, remove and reorder the banks' notes and read who
    wrote each."""
    return is_chair(user) or is_organizer(user)
