"""Choosing the AI papers the jury grades. The IOL-AI organizers sent only the strongest systems
(by the automatic score, with explanations) to the jury; once any AI paper of a contest is
selected, jurors are assigned only the selected AI papers, and every human contestant's paper
(`PaperQuerySet.for_jury`)."""

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import ngettext

from grading.models import Paper
from grading.rules.phase import refuse_if_final, refuse_if_final_now
from rubrics.models import Contest

SELECTION = "the papers selected for jury grading"


def jury_selection_refuse_if_final(contest: Contest) -> None:
    """Refuse (`ContestFinal`) before the slow part of a selection (scoring every paper) when
    the contest is final; `papers_select_for_jury` checks again under the row lock."""
    refuse_if_final(contest, what=SELECTION)


@transaction.atomic
def papers_select_for_jury(
    *, contest: Contest, paper_ids: Iterable[int], dry_run: bool = False
) -> int:
    """Mark exactly these AI papers of the contest as selected for jury grading and every other
    AI paper of the contest as not selected. An empty selection clears it (then every paper is
    assigned). A human contestant's paper is always graded, so it is no choice: naming one is
    refused. Returns the number of selected papers. A dry run checks the same (a final
    contest, unknown papers) and writes nothing."""
    contest = refuse_if_final_now(contest, what=SELECTION)
    wanted = set()
    for value in paper_ids:
        try:
            wanted.add(int(value))
        except (TypeError, ValueError):
            raise ValidationError(
                f"“{value}” is not a paper number; choose papers from the list."
            ) from None
    papers = Paper.objects.filter(contest=contest, source=Paper.Source.AI)
    known = set(papers.filter(pk__in=wanted).values_list("pk", flat=True))
    human = sorted(
        Paper.objects.filter(
            contest=contest, source=Paper.Source.HUMAN, pk__in=wanted - known
        ).values_list("pk", flat=True)
    )
    if human:
        listed = ", ".join(f"#{pk}" for pk in human)
        raise ValidationError(
            ngettext(
                "Paper %(listed)s is a human contestant's: every contestant's paper goes to the "
                "jury, and only AI papers are chosen; nothing was changed.",
                "Papers %(listed)s are human contestants': every contestant's paper goes to the "
                "jury, and only AI papers are chosen; nothing was changed.",
                len(human),
            )
            % {"listed": listed}
        )
    unknown = sorted(wanted - known)
    if unknown:
        listed = ", ".join(f"#{pk}" for pk in unknown)
        raise ValidationError(
            ngettext(
                "Paper %(listed)s is not in contest %(contest)s; nothing was changed.",
                "Papers %(listed)s are not in contest %(contest)s; nothing was changed.",
                len(unknown),
            )
            % {"listed": listed, "contest": contest.slug}
        )
    if not dry_run:
        papers.filter(pk__in=wanted).update(selected_for_jury=True)
        papers.exclude(pk__in=wanted).update(selected_for_jury=False)
    return len(wanted)
