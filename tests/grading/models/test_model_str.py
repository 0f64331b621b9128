"""No model's `__str__` tells what a juror must not see: a paper's database id (it counts papers
in import order), its identity, or anything that pairs its labels across problems. With DEBUG
on, a 500's traceback prints these strings; so do logs and the admin's history."""

import re

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError

from grading.models import (
    Assignment,
    Comment,
    Mark,
    MarkEvent,
    Paper,
    PaperLabel,
    Resolution,
    ResolutionEvent,
    Solution,
)
from grading.resolution.decisions import comment_add
from tests.factories import make_contest
from tests.grading import scenario
from tests.grading.papers.test_public_code import FIRST_PAPER_ID, _papers_start_at


@pytest.fixture
def graded(db):
    _papers_start_at(FIRST_PAPER_ID)
    graded = scenario.build()
    comment_add(
        paper=graded["papers"]["Team Heron"],
        criterion=graded["problems"][2].criteria.get(code="T1"),
        author=graded["users"]["erin"],
        text="Within tolerance.",
    )
    scenario.resolve(graded)
    return graded


def _every_instance():
    for app in ("grading", "rubrics"):
        for model in apps.get_app_config(app).get_models():
            yield from model.objects.all()


def test_no_models_string_carries_a_paper_id_an_identity_or_a_code_outside_the_paper(graded):
    papers = list(Paper.objects.all())
    assert sorted(p.pk for p in papers) == [FIRST_PAPER_ID + i for i in range(3)]
    ids = re.compile(rf"(?<!\d)(?:{'|'.join(str(p.pk) for p in papers)})(?!\d)")
    counted = {}
    leaks = []
    for obj in _every_instance():
        text = str(obj)
        counted[type(obj).__name__] = counted.get(type(obj).__name__, 0) + 1
        told = [p.identity for p in papers if p.identity in text] + ids.findall(text)
        if not isinstance(obj, Paper):
            # The code is the same in every problem: it would pair one paper's labels.
            told += [p.public_code for p in papers if p.public_code in text]
        if told:
            leaks.append((type(obj).__name__, text, told))
    assert leaks == []
    # The scenario holds a row of every kind that names a paper.
    for name in ("Paper", "PaperLabel", "Solution", "Assignment", "Mark", "MarkEvent"):
        assert counted.get(name, 0) > 0, name
    for name in ("Comment", "Resolution", "ResolutionEvent"):
        assert counted.get(name, 0) > 0, name


def _label(paper_id, problem_id) -> str:
    return PaperLabel.objects.get(paper_id=paper_id, problem_id=problem_id).label


def test_a_row_of_one_problem_names_its_paper_by_the_label_its_jurors_know(graded):
    orca = graded["papers"]["Team Orca"]
    p1 = graded["problems"][1]
    label = scenario.label(graded, "Team Orca", 1)
    assert str(orca) == f"paper {orca.public_code}"
    assert str(PaperLabel.objects.get(paper=orca, problem=p1)) == f"P1 {label}"
    solution = Solution.objects.get(paper=orca, task__problem=p1)
    assert str(solution) == f"Solution of paper {label} to P1.1 (12026010100)"
    assignment = Assignment.objects.get(paper=orca, problem=p1, juror__username="alice")
    assert str(assignment) == f"P1: paper {label} → alice"
    mark = Mark.objects.get(
        paper=orca, criterion__problem=p1, criterion__code="T1", sheet__juror__username="dan"
    )
    assert str(mark) == f"Sheet of dan for P1 · paper {label} · T1 = 6.00"
    first = MarkEvent.objects.filter(mark=mark).order_by("version").first()
    assert str(first) == f"{mark} v1: None → 6.00 (browser)"
    resolution = Resolution.objects.get(paper=orca)
    assert str(resolution) == f"Chair decision: P1 paper {label} T1 = 7.00"
    event = ResolutionEvent.objects.get(resolution=resolution)
    assert str(event) == f"{resolution}: None → 7.00 (chair)"
    heron = graded["papers"]["Team Heron"]
    comment = Comment.objects.get(paper=heron)
    assert str(comment) == (
        f"Comment by erin on P2 paper {scenario.label(graded, 'Team Heron', 2)} T1"
    )


def test_a_paper_of_another_contest_is_refused_without_its_id(graded):
    stranger = make_contest("other", papers=1).papers.get()
    with pytest.raises(ValidationError) as refused:
        comment_add(
            paper=stranger,
            criterion=graded["problems"][1].criteria.get(code="T1"),
            author=graded["chair"],
            text="Which paper is this?",
        )
    assert refused.value.messages == ["This paper is not one of Contest iol's papers."]
