"""The world of the conflicts' tests (tests/test_conflicts.py, tests/test_declared_conflicts.py):
one problem, four papers (two of delegation EST of Estonia, one of NOR of Norway, one AI
paper), assigned to the jurors alice and bob."""

from types import SimpleNamespace

from grading.models import PaperLabel
from grading.rules import roles
from tests.factories import assign, make_contest, make_delegation, make_user


def conflicts_world() -> SimpleNamespace:
    contest = make_contest("conflicts", problems=1, papers=4)
    alice = make_user("alice", roles.JUROR)
    bob = make_user("bob", roles.JUROR)
    papers = list(contest.papers.order_by("pk"))
    est = make_delegation(contest, "EST", papers=papers[:2], country="Estonia")
    make_delegation(contest, "NOR", papers=papers[2:3], country="Norway")
    assign(contest, [alice, bob])
    label_of = dict(
        PaperLabel.objects.filter(problem__contest=contest).values_list("paper_id", "label")
    )
    return SimpleNamespace(
        contest=contest,
        problem=contest.problems.get(),
        alice=alice,
        bob=bob,
        est=est,
        papers=papers,
        label_of=label_of,
        # EST's contestants and the rest (a Norwegian and an AI paper).
        kept=sorted(label_of[paper.pk] for paper in papers[:2]),
        others=sorted(label_of[paper.pk] for paper in papers[2:]),
    )
