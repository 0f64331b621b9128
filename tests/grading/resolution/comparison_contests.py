"""A wide problem for the comparison's tests: 20 criteria graded by three jurors, the third of
whom may still be drafting, with planted open cells, a chair decision and comments."""

from decimal import Decimal

from grading.models import Mark, PaperLabel, Sheet
from grading.resolution.decisions import comment_add, discrepancy_decide
from grading.rules import roles
from tests.factories import assign, make_contest, make_user

CRITERIA = tuple((f"C{n:02d}", "theory", "1") for n in range(1, 21))


def wide_contest(
    slug: str = "wide", *, papers: int = 12, problems: int = 3, third_submitted: bool = True
) -> dict:
    """`problems` problems of 20 one-point criteria, every paper graded by ann, ben and cy
    (cy's sheets left in draft unless `third_submitted`). Every paper gets 1 everywhere but: ben
    gives 0 on C03 of every other paper (an open cell), and the chair decides the first paper's
    C03 at 1 with a comment on it."""
    chair = make_user(f"{slug}-chair", roles.CHAIR)
    jurors = [make_user(f"{name}-{slug}", roles.JUROR) for name in ("ann", "ben", "cy")]
    contest = make_contest(slug, problems=problems, papers=papers, criteria=CRITERIA)
    assign(contest, jurors)
    Mark.objects.filter(sheet__problem__contest=contest).update(points=Decimal("1"))
    ordered = list(contest.papers.order_by("pk"))
    # One UPDATE for all of them: one per paper costs PostgreSQL a join over the unanalysed
    # marks table each time (seconds at 300 papers).
    Mark.objects.filter(
        sheet__juror=jurors[1], paper__in=ordered[::2], criterion__code="C03"
    ).update(points=Decimal("0"))
    done = jurors if third_submitted else jurors[:2]
    Sheet.objects.filter(problem__contest=contest, juror__in=done).update(state="submitted")
    problem = contest.problems.get(number=1)
    c03 = problem.criteria.get(code="C03")
    comment_add(paper=ordered[0], criterion=c03, author=jurors[0], text="Half the rule.")
    discrepancy_decide(
        paper=ordered[0], criterion=c03, points=Decimal("1"), reason="Rule found.", actor=chair
    )
    labels = dict(PaperLabel.objects.filter(problem=problem).values_list("paper_id", "label"))
    return {
        "contest": contest,
        "chair": chair,
        "jurors": jurors,
        "papers": ordered,
        "labels": [labels[paper.pk] for paper in ordered],
    }
