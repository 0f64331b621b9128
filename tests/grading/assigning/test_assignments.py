from collections import Counter
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from grading.assigning.assignments import assignments_create
from grading.models import Assignment, GradingGroup, Mark, Sheet
from grading.rules import roles
from tests.factories import make_contest, make_user


@pytest.fixture
def jurors(db):
    return [make_user(name, roles.JUROR) for name in ("ann", "ben", "cat")]


@pytest.fixture
def seven(jurors):
    """Two problems, seven papers, ann, ben and cat in both grading groups, nothing assigned."""
    contest = make_contest("seven", problems=2, papers=7)
    for problem in contest.problems.all():
        GradingGroup.objects.create(problem=problem).jurors.add(*jurors)
    return contest


def _loads(contest, number: int) -> dict[str, int]:
    return dict(
        Counter(
            Assignment.objects.filter(problem__contest=contest, problem__number=number)
            .values_list("juror__username", flat=True)
            .order_by()
        )
    )


def _jurors_per_paper(contest, number: int) -> list[int]:
    per_paper = Counter(
        Assignment.objects.filter(problem__contest=contest, problem__number=number)
        .values_list("paper_id", flat=True)
        .order_by()
    )
    return [per_paper[paper.pk] for paper in contest.papers.order_by("pk")]


def test_seven_papers_three_jurors_two_each_gives_loads_of_five_five_and_four(seven):
    summary = assignments_create(contest=seven, per_problem=2)

    assert _loads(seven, 1) == {"ann": 5, "ben": 5, "cat": 4}
    assert _jurors_per_paper(seven, 1) == [2] * 7
    assert summary.problems[0].loads == {"ann": 5, "ben": 5, "cat": 4}
    # Ties go to whoever has least in the whole contest, so cat is not short again in problem 2.
    assert _loads(seven, 2) == {"ann": 5, "ben": 4, "cat": 5}
    assert (summary.created, summary.kept) == (28, 0)
    assert str(summary) == "28 assignments created in 2 problems of seven (0 already there)."


def test_no_paper_goes_twice_to_the_same_juror(seven):
    assignments_create(contest=seven)
    rows = list(Assignment.objects.values_list("problem_id", "paper_id", "juror_id"))
    assert len(rows) == len(set(rows)) == 28


def test_each_juror_gets_a_sheet_with_a_blank_mark_per_assigned_paper_and_criterion(seven):
    assignments_create(contest=seven)

    sheets = list(
        Sheet.objects.filter(problem__contest=seven)
        .order_by("problem__number", "juror__username")
        .values_list("problem__number", "juror__username")
    )
    assert sheets == [(1, "ann"), (1, "ben"), (1, "cat"), (2, "ann"), (2, "ben"), (2, "cat")]
    marks = Counter(
        Mark.objects.filter(sheet__problem__number=1)
        .values_list("sheet__juror__username", flat=True)
        .order_by()
    )
    # Two criteria (A1, T1) per paper.
    assert dict(marks) == {"ann": 10, "ben": 10, "cat": 8}
    assert set(Mark.objects.values_list("points", flat=True)) == {None}


def test_running_again_adds_nothing(seven):
    assignments_create(contest=seven)
    assignments = sorted(Assignment.objects.values_list("problem_id", "paper_id", "juror_id"))
    marks = Mark.objects.count()

    summary = assignments_create(contest=seven)

    assert (summary.created, summary.kept) == (0, 28)
    assert sorted(Assignment.objects.values_list("problem_id", "paper_id", "juror_id")) == (
        assignments
    )
    assert Mark.objects.count() == marks


def test_an_override_gives_one_problem_more_jurors_per_paper(seven):
    summary = assignments_create(contest=seven, per_problem=2, overrides={2: 3})

    assert _jurors_per_paper(seven, 1) == [2] * 7
    assert _jurors_per_paper(seven, 2) == [3] * 7
    assert _loads(seven, 2) == {"ann": 7, "ben": 7, "cat": 7}
    assert [str(problem) for problem in summary.problems] == [
        "Problem 1: 7 papers × 2 from a group of 3; 14 new, 0 kept; loads: ann 5, ben 5, cat 4.",
        "Problem 2: 7 papers × 3 from a group of 3; 21 new, 0 kept; loads: ann 7, ben 7, cat 7.",
    ]


def test_only_selected_papers_are_assigned_once_any_is_selected(seven):
    selected = list(seven.papers.order_by("pk")[:4])
    for paper in selected:
        paper.selected_for_jury = True
        paper.save(update_fields=["selected_for_jury"])

    assignments_create(contest=seven)

    assigned = set(Assignment.objects.values_list("paper_id", flat=True))
    assert assigned == {paper.pk for paper in selected}
    assert sorted(_loads(seven, 1).values()) == [2, 3, 3]


def test_existing_assignments_are_kept_and_counted(seven, jurors):
    ann, ben, cat = jurors
    problem = seven.problems.get(number=1)
    first, second = seven.papers.order_by("pk")[:2]
    Assignment.objects.create(paper=first, problem=problem, juror=cat)
    Assignment.objects.create(paper=second, problem=problem, juror=cat)

    summary = assignments_create(contest=seven)

    assert summary.problems[0].kept == 2
    assert summary.problems[0].created == 12
    assert _jurors_per_paper(seven, 1) == [2] * 7
    assert sorted(_loads(seven, 1).values()) == [4, 5, 5]
    kept = Assignment.objects.filter(problem=problem, paper__in=[first, second], juror=cat)
    assert kept.count() == 2


def test_inactive_jurors_are_left_out(seven, jurors):
    jurors[2].is_active = False
    jurors[2].save(update_fields=["is_active"])

    assignments_create(contest=seven)

    assert _loads(seven, 1) == {"ann": 7, "ben": 7}


def test_too_few_jurors_is_refused_naming_the_problem_and_nothing_is_written(seven, jurors):
    seven.problems.get(number=2).group.jurors.remove(jurors[2])

    with pytest.raises(ValidationError) as error:
        assignments_create(contest=seven, per_problem=2, overrides={2: 3})

    assert error.value.messages == [
        "Problem 2 needs 3 jurors per paper, but its grading group has only 2."
    ]
    assert Assignment.objects.count() == 0
    assert Sheet.objects.count() == 0


def test_a_problem_without_a_grading_group_is_refused(seven):
    GradingGroup.objects.filter(problem__number=1).delete()

    with pytest.raises(ValidationError) as error:
        assignments_create(contest=seven)

    assert error.value.messages == ["Problem 1 has no grading group; put its jurors in one first."]
    assert Assignment.objects.count() == 0


def test_bad_counts_and_unknown_problems_are_refused(seven):
    with pytest.raises(ValidationError) as error:
        assignments_create(contest=seven, per_problem=0, overrides={2: 0, 9: 2})

    assert error.value.messages == [
        "The number of jurors per paper must be at least 1, not 0.",
        "Problem 2: the number of jurors per paper must be at least 1, not 0.",
        "Contest seven has no problem 9; its problems are 1, 2.",
    ]


def test_a_dry_run_writes_nothing(seven):
    summary = assignments_create(contest=seven, dry_run=True)

    assert summary.created == 28
    assert str(summary) == (
        "Dry run, nothing written: 28 assignments would be created in 2 problems of seven "
        "(0 already there)."
    )
    assert Assignment.objects.count() == 0
    assert Sheet.objects.count() == 0


def test_the_command_assigns_with_overrides_and_prints_the_loads(seven):
    out = StringIO()
    call_command(
        "assign_jurors", "--contest", "seven", "--per-problem", "2", "--problem", "2=3", stdout=out
    )

    assert out.getvalue().splitlines() == [
        "Problem 1: 7 papers × 2 from a group of 3; 14 new, 0 kept; loads: ann 5, ben 5, cat 4.",
        "Problem 2: 7 papers × 3 from a group of 3; 21 new, 0 kept; loads: ann 7, ben 7, cat 7.",
        "35 assignments created in 2 problems of seven (0 already there).",
    ]
    assert Assignment.objects.count() == 35


def test_the_command_dry_run_writes_nothing(seven):
    out = StringIO()
    call_command("assign_jurors", "--contest", "seven", "--dry-run", stdout=out)
    assert out.getvalue().splitlines()[-1] == (
        "Dry run, nothing written: 28 assignments would be created in 2 problems of seven "
        "(0 already there)."
    )
    assert Assignment.objects.count() == 0


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["--problem", "3:3"],
            "--problem “3:3” is not of the form N=JURORS; write e.g. --problem 3=3 for three "
            "jurors per paper in problem 3.",
        ),
        (["--problem", "2=3", "--problem", "2=2"], "--problem gives problem 2 more than once."),
        (
            ["--per-problem", "4"],
            "Problem 1 needs 4 jurors per paper, but its grading group has only 3.\n"
            "Problem 2 needs 4 jurors per paper, but its grading group has only 3.",
        ),
    ],
)
def test_the_command_fails_with_a_sentence_and_a_non_zero_exit(seven, arguments, message):
    with pytest.raises(CommandError) as error:
        call_command("assign_jurors", "--contest", "seven", *arguments, stdout=StringIO())

    assert str(error.value) == message
    assert error.value.returncode == 1
    assert Assignment.objects.count() == 0


def test_the_command_refuses_an_unknown_contest(db):
    with pytest.raises(CommandError) as error:
        call_command("assign_jurors", "--contest", "nope")
    assert str(error.value) == "There is no contest “nope”."
