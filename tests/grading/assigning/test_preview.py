"""What the assignment preview shows of a plan: each paper's jurors with why one is flagged
(reads the language with help, or not at all), the flagged papers first; each juror's load and
languages; in a fixed number of queries."""

from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from grading.assigning.preview import fit_reason, preview_problems
from grading.models import JurorLanguage, Paper, PaperLabel
from grading.rules import roles
from tests.factories import make_contest, make_user


def test_a_flag_says_how_the_juror_reads_the_papers_language():
    assert [fit_reason(fit, "Tagalog") for fit in ("reads", "with_help", "no_reader")] == [
        "",
        "reads Tagalog with help",
        "reads no Tagalog: needs a helper",
    ]
    assert fit_reason("no_reader", "") == (
        "the paper's answer language is not recorded: needs a helper"
    )


def _plan(contest, picks_by_label):
    problem = contest.problems.get()
    return SimpleNamespace(
        problems=[
            SimpleNamespace(
                number=problem.number,
                picks=picks_by_label,
                problems=["P1: 1 paper in Tagalog and no juror of the group reads Tagalog."],
                short=0,
                optimal=True,
                loads={"ann": 2, "ben": 2},
            )
        ]
    )


@pytest.mark.parametrize("papers", [3, 30])
def test_flagged_papers_come_first_with_why_in_a_fixed_number_of_queries(db, papers):
    contest = make_contest(f"p{papers}", problems=1, papers=papers)
    ann, ben = make_user("ann", roles.JUROR), make_user("ben", roles.JUROR)
    JurorLanguage.objects.create(user=ann, language="Tagalog", level="with_help")
    JurorLanguage.objects.create(user=ben, language="English")
    first = contest.papers.order_by("pk").first()
    Paper.objects.filter(pk=first.pk).update(source=Paper.Source.HUMAN, answer_language="Tagalog")
    labels = list(
        PaperLabel.objects.filter(problem__contest=contest)
        .order_by("label")
        .values_list("label", "paper_id")
    )
    picks = []
    for label, paper_id in labels:
        fit = "with_help" if paper_id == first.pk else "reads"
        picks += [(label, "ann", fit), (label, "ben", "no_reader" if fit != "reads" else "reads")]
    plan = _plan(contest, picks)
    with CaptureQueriesContext(connection) as queries:
        [problem] = preview_problems(contest, plan)
    assert len(queries) == 2
    flagged = next(label for label, paper_id in labels if paper_id == first.pk)
    top = problem.papers[0]
    assert (top.name, top.flagged, top.language) == (flagged, True, "Tagalog")
    assert [(j.username, j.reason) for j in top.jurors] == [
        ("ann", "reads Tagalog with help"),
        ("ben", "reads no Tagalog: needs a helper"),
    ]
    assert [paper.flagged for paper in problem.papers] == [True] + [False] * (papers - 1)
    # The others are AI papers, in the contest's working language.
    assert {paper.language for paper in problem.papers[1:]} == {"English"}
    assert [(j.username, j.load, j.languages) for j in problem.jurors] == [
        ("ann", 2, "Tagalog (with help)"),
        ("ben", 2, "English"),
    ]
    assert (problem.flagged, problem.sentences) == (
        1,
        ["P1: 1 paper in Tagalog and no juror of the group reads Tagalog."],
    )
