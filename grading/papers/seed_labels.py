"""A seed's label, read where a paper's label is: a calibration paper back in a juror's live
sheet (a `Seed`) is named there by its own fresh label, which resolves to the calibration
paper for that juror only (`access.may_read_seed`), and to nothing for anyone else."""

from grading.models import Seed
from grading.rules import access


def juror_seed(*, user, problem, label: str) -> Seed | None:
    """The user's seed labelled `label` in the problem, with its calibration paper and paper,
    while they may read it; else None. One query (none for a user who is not a juror)."""
    if not access.is_juror(user):
        return None
    seed = (
        Seed.objects.select_related("calibration_paper__paper")
        .filter(juror=user, label=label, calibration_paper__round__problem=problem)
        .first()
    )
    return seed if seed is not None and access.may_read_seed(user, seed) else None
