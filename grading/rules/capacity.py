"""A juror's capacity: the most papers of one problem they take (`JurorProfile.capacity`; none,
no limit). The solver keeps to it when it assigns, but papers kept from before a capacity was
set, moved in from a colleague or added in the admin can go past it; the pages that show loads
(the assignments page, the progress page, the person's page) say so with `over_capacity`."""

from dataclasses import dataclass

from django.db.models import Count

from grading.models import Assignment, JurorProfile


@dataclass(frozen=True)
class OverCapacity:
    username: str
    contest: str
    problem: int
    held: int
    capacity: int

    def sentence(self) -> str:
        return (
            f"{self.username} holds {self.held} papers of P{self.problem}, more than their "
            f"capacity of {self.capacity}."
        )


def over_capacity(*, contest=None, juror=None) -> list[OverCapacity]:
    """Every juror × problem (of `contest`, of `juror`, or all) whose papers outnumber the
    juror's capacity, by username and problem. Two queries."""
    profiles = JurorProfile.objects.filter(capacity__isnull=False)
    if juror is not None:
        profiles = profiles.filter(user=juror)
    capacities = dict(profiles.values_list("user_id", "capacity"))
    if not capacities:
        return []
    loads = Assignment.objects.filter(juror_id__in=capacities)
    if contest is not None:
        loads = loads.filter(problem__contest=contest)
    found = [
        OverCapacity(username, slug, number, held, capacities[juror_id])
        for juror_id, username, slug, number, held in loads.values(
            "juror_id", "juror__username", "problem__contest__slug", "problem__number"
        )
        .annotate(held=Count("id"))
        .order_by()
        .values_list(
            "juror_id", "juror__username", "problem__contest__slug", "problem__number", "held"
        )
        if held > capacities[juror_id]
    ]
    return sorted(found, key=lambda o: (o.contest, o.username, o.problem))
