"""Anonymous paper labels: a fresh random label for every paper in every problem."""

import secrets

from django.db import transaction

from grading.models import PaperLabel, Seed
from grading.rules.phase import refuse_if_final_now
from rubrics.models import Contest

# No 0/O, 1/I/L, 2/Z, 5/S, 8/B: labels are read aloud in jury discussions and copied by hand.
LABEL_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
LABEL_LENGTH = 4


def draw_label(taken: set[str]) -> str:
    """A fresh random label not in `taken` (which it joins): a paper's in a problem, or a
    seed's (grading.calibration.seeds), drawn the same way so that neither stands out."""
    while True:
        label = "".join(secrets.choice(LABEL_ALPHABET) for _ in range(LABEL_LENGTH))
        if label not in taken:
            taken.add(label)
            return label


@transaction.atomic
def paper_labels_ensure(*, contest: Contest) -> int:
    """Give every paper of the contest a fresh random label in every problem that lacks one.

    Labels are drawn independently per problem, so the same system carries unrelated labels in
    different problems. Returns the number of labels created; refuses (`ContestFinal`) for a
    final contest."""
    contest = refuse_if_final_now(contest, what="its papers' labels")
    problems = list(contest.problems.all())
    papers = list(contest.papers.all())
    existing = PaperLabel.objects.filter(problem__contest=contest)
    taken = {problem.pk: set() for problem in problems}
    has_label = set()
    for paper_id, problem_id, label in existing.values_list("paper_id", "problem_id", "label"):
        taken[problem_id].add(label)
        has_label.add((paper_id, problem_id))
    # A seed's label (grading.calibration.seeds) names a paper in its juror's sheet too.
    seeds = Seed.objects.filter(calibration_paper__round__problem__contest=contest)
    for problem_id, label in seeds.values_list("calibration_paper__round__problem_id", "label"):
        taken[problem_id].add(label)
    new = [
        PaperLabel(paper=paper, problem=problem, label=draw_label(taken[problem.pk]))
        for problem in problems
        for paper in papers
        if (paper.pk, problem.pk) not in has_label
    ]
    PaperLabel.objects.bulk_create(new)
    return len(new)
