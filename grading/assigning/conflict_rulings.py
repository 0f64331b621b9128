"""Marks given before a conflict came to light, and the chair's decision on them.

A juror may have graded a paper and submitted the problem before a fact made them conflicted
with it (made the delegation's team leader, their country corrected, a conflict declared). The
paper left their pages at once (`grading.rules.conflicts`); the marks they gave stay on record
and are held: they count for no cell (`grading.rules.counting`) until the chair keeps them (they
count as if the conflict had not been, and the paper stays) or discards them (they never count,
and the console's conflict moves give the paper to a colleague). The decision is a
`ConflictRuling` with its reason, who made it and when; it stands.

A paper the juror had not graded when the conflict came (no mark on a submitted sheet) has
nothing to rule on: it moves."""

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from grading.assigning.in_conflict import (
    conflicted_assignments,
    given_in_conflict,
    graded_among,
    rulings_of,
)
from grading.models import ConflictRuling, Mark, Paper, PaperLabel
from grading.rules import access
from grading.rules.phase import refuse_if_final_now
from rubrics.models import Contest

REFUSED = "Only the jury chair decides on marks given in conflict."
REASON_MAX = ConflictRuling._meta.get_field("reason").max_length


@dataclass
class HeldPaper:
    """One juror's marks on one paper of a problem, given before the juror's conflict with
    the paper came to light."""

    problem_number: int
    problem_id: int
    paper_id: int
    label: str
    juror: object
    # Why the juror is conflicted with the paper (the rule's own words).
    why: str
    # (criterion code, points) of each mark the juror gave it, in the scheme's order.
    marks: list[tuple[str, Decimal]] = field(default_factory=list)
    ruling: ConflictRuling | None = None

    @property
    def waiting(self) -> bool:
        return self.ruling is None


def held_papers(contest: Contest, *, actor) -> list[HeldPaper]:
    """Every juror's marks given in conflict in the contest, decided or not, by problem, juror
    and label: the chair's page (the chair reads every paper). Refused for anyone but the
    chair. At most ten queries, whatever the number of papers."""
    access.require(access.may_decide(actor), REFUSED)
    found = conflicted_assignments(contest)
    given = graded_among(contest, found) if found else set()
    rulings = rulings_of(contest)
    # A decision stands when the assignment has moved since (discarded marks move the paper).
    keys = given | set(rulings)
    if not keys:
        return []
    jurors = get_user_model().objects.in_bulk({key[0] for key in keys})
    labels = {
        (problem_id, paper_id): (number, label)
        for problem_id, paper_id, number, label in PaperLabel.objects.filter(
            problem__contest=contest, paper_id__in={key[2] for key in keys}
        ).values_list("problem_id", "paper_id", "problem__number", "label")
    }
    marks: dict[tuple[int, int, int], list] = defaultdict(list)
    for juror_id, problem_id, paper_id, code, points in (
        Mark.objects.filter(
            sheet__problem__contest=contest,
            sheet__juror_id__in={key[0] for key in keys},
            paper_id__in={key[2] for key in keys},
            points__isnull=False,
        )
        .order_by("criterion__order", "criterion__code")
        .values_list(
            "sheet__juror_id", "sheet__problem_id", "paper_id", "criterion__code", "points"
        )
    ):
        marks[(juror_id, problem_id, paper_id)].append((code, points))
    held = []
    for key in keys:
        juror_id, problem_id, paper_id = key
        number, label = labels.get((problem_id, paper_id), (0, "?"))
        ruling = rulings.get(key)
        held.append(
            HeldPaper(
                problem_number=number,
                problem_id=problem_id,
                paper_id=paper_id,
                label=label,
                juror=jurors[juror_id],
                why=found.get(juror_id, {}).get((problem_id, paper_id), ""),
                marks=marks.get(key, []),
                ruling=ruling,
            )
        )
    return sorted(held, key=lambda h: (h.problem_number, h.juror.username, h.label))


@transaction.atomic
def conflict_ruling_make(
    *,
    contest: Contest,
    problem_id: int,
    paper_id: int,
    juror_id: int,
    keep: bool,
    reason: str,
    actor,
) -> ConflictRuling:
    """The chair keeps (`keep`) or discards one juror's marks on one paper given before their
    conflict with it came to light, with a reason. Refused for anyone but the chair, for a
    chair in conflict with the paper, for a final contest, for marks that are not held (no
    conflict, no mark on a submitted sheet) and for marks already decided on."""
    access.require(access.may_decide(actor), REFUSED)
    contest = refuse_if_final_now(contest, what="its marks")
    paper = Paper.objects.get(pk=paper_id, contest=contest)
    access.require(
        not access.conflicted_with(actor, paper),
        "You are in conflict with this paper yourself; another member of the jury decides on it.",
    )
    reason = " ".join(reason.split())
    if not reason:
        raise ValidationError("Give the reason for the decision; it is kept with it.")
    if len(reason) > REASON_MAX:
        raise ValidationError(
            f"The reason is {len(reason)} characters long; at most {REASON_MAX} are kept."
        )
    key = (juror_id, problem_id, paper_id)
    if ConflictRuling.objects.filter(problem=problem_id, paper=paper_id, juror=juror_id).exists():
        raise ValidationError("These marks were decided on already; the decision stands.")
    if key not in given_in_conflict(contest):
        raise ValidationError(
            "These marks are not held: the juror is not in conflict with the paper, or gave it "
            "no mark on a submitted sheet."
        )
    return ConflictRuling.objects.create(
        problem_id=problem_id,
        paper_id=paper_id,
        juror_id=juror_id,
        kept=keep,
        reason=reason,
        decided_by=actor,
    )
