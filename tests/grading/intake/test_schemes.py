from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from grading.intake.schemes import scheme_load
from grading.marking.marks import mark_set
from grading.models import Mark, MarkEvent, PaperLabel, ReferenceMark
from rubrics.models import Criterion, Problem
from tests.factories import make_contest
from tests.grading.calibration.scenario import make_round

SAMPLE = Path(__file__).parents[2] / "fixtures" / "schemes"

VALID_P1 = """\
problem = 1
title = "Kelo greetings"

[[criteria]]
code = "A1"
kind = "assignment"
title = "Translations"
points = 12
task = "12026010100"

[[criteria]]
code = "T1"
kind = "theory"
title = "Word order"
points = 8
"""


@pytest.fixture
def blank(db):
    """Two problems with their tasks and no scheme yet."""
    return make_contest("schemes", problems=2, papers=2, criteria=())


def _folder(tmp_path: Path, **files: str) -> Path:
    for name, text in files.items():
        (tmp_path / name.replace("_", ".")).write_text(text, encoding="utf-8")
    return tmp_path


def _criteria(contest) -> list[tuple]:
    return list(
        Criterion.objects.filter(problem__contest=contest)
        .order_by("problem__number", "order")
        .values_list(
            "problem__number",
            "code",
            "kind",
            "points",
            "step",
            "tolerance",
            "task__external_id",
            "order",
        )
    )


def _writes(queries) -> list[str]:
    return [
        query["sql"]
        for query in queries
        if query["sql"].split(" ", 1)[0] in ("INSERT", "UPDATE", "DELETE")
    ]


def test_loading_the_sample_creates_the_criteria_in_file_order(blank):
    summary = scheme_load(contest=blank, directory=SAMPLE)

    assert _criteria(blank) == [
        (1, "A1", "assignment", Decimal("10"), Decimal("0.5"), Decimal("0"), "12026010100", 0),
        (1, "T1", "theory", Decimal("6"), Decimal("0.5"), Decimal("0"), None, 1),
        (1, "T2", "theory", Decimal("4"), Decimal("1"), Decimal("1"), None, 2),
        (2, "A1", "assignment", Decimal("12"), Decimal("0.5"), Decimal("0"), "12026020100", 0),
        (2, "T1", "theory", Decimal("8"), Decimal("0.5"), Decimal("0"), None, 1),
    ]
    assert list(Problem.objects.filter(contest=blank).values_list("title", "language")) == [
        ("Kelo greetings", "Kelo"),
        ("Vamuri numerals", ""),
    ]
    guidance = Criterion.objects.get(problem__number=1, code="T1").guidance
    assert guidance == "Full points only when the rule is stated, not just applied."
    assert str(summary) == (
        "2 scheme files for schemes loaded: 5 criteria created, 0 updated, 0 removed in 2 problems."
    )


def test_reloading_an_unchanged_scheme_writes_nothing(blank):
    scheme_load(contest=blank, directory=SAMPLE)
    before = _criteria(blank)

    with CaptureQueriesContext(connection) as queries:
        summary = scheme_load(contest=blank, directory=SAMPLE)

    assert _writes(queries) == []
    assert summary.unchanged is True
    assert str(summary) == "2 scheme files for schemes checked: all unchanged, nothing written."
    assert _criteria(blank) == before


def test_a_dry_run_reports_the_changes_and_writes_nothing(blank):
    with CaptureQueriesContext(connection) as queries:
        summary = scheme_load(contest=blank, directory=SAMPLE, dry_run=True)

    assert _writes(queries) == []
    assert Criterion.objects.count() == 0
    assert [str(change) for change in summary.problems] == [
        "p1.toml: problem 1: created A1, T1, T2; problem title and language updated.",
        "p2.toml: problem 2: created A1, T1; problem title updated.",
    ]
    assert str(summary) == (
        "Dry run, nothing written: 2 scheme files for schemes would leave 5 criteria created, "
        "0 updated, 0 removed in 2 problems."
    )


def test_task_ids_match_with_or_without_leading_zeros_and_as_numbers(blank, tmp_path):
    text = VALID_P1.replace('task = "12026010100"', "task = 12026010100")
    scheme_load(contest=blank, directory=_folder(tmp_path, p1_toml=text))
    assert Criterion.objects.get(code="A1").task.external_id == "12026010100"


def test_a_scheme_with_a_utf8_byte_order_mark_loads_as_csv_and_json_files_do(blank, tmp_path):
    scheme_load(contest=blank, directory=_folder(tmp_path, p1_toml="\ufeff" + VALID_P1))
    assert Criterion.objects.get(code="A1").points == Decimal("12")


# VALID_P1 with the `contest` fixture's own titles: loaded there, it changes nothing.
AS_GIVEN_P1 = VALID_P1.replace('title = "Translations"', 'title = "assignment A1"').replace(
    'title = "Word order"', 'title = "theory T1"'
)


def _given_marks(contest, juror, other_juror):
    """alice gives A1 to two papers of problem 1, bob to one; returns the labels in order."""
    problem = contest.problems.get(number=1)
    marks = list(
        Mark.objects.filter(sheet__problem=problem, criterion__code="A1")
        .select_related("sheet__juror")
        .order_by("paper_id")
    )
    alice = [mark for mark in marks if mark.sheet.juror == juror]
    bob = [mark for mark in marks if mark.sheet.juror == other_juror]
    mark_set(mark=alice[0], points=Decimal("4"), actor=juror, channel="browser")
    mark_set(mark=alice[1], points=Decimal("1"), actor=juror, channel="browser")
    mark_set(mark=bob[0], points=Decimal("0"), actor=other_juror, channel="browser")
    return {link.paper_id: link.label for link in PaperLabel.objects.filter(problem=problem)}, [
        alice[0].paper_id,
        alice[1].paper_id,
        bob[0].paper_id,
    ]


def test_changing_points_where_marks_exist_is_refused_listing_the_marks(
    contest, juror, other_juror, tmp_path
):
    labels, (first, second, bobs) = _given_marks(contest, juror, other_juror)
    text = AS_GIVEN_P1.replace("points = 12", "points = 10").replace("points = 8", "points = 10")
    expected_lines = sorted(
        [
            (labels[first], "alice", "4 points"),
            (labels[second], "alice", "1 point"),
            (labels[bobs], "bob", "0 points"),
        ]
    )

    with pytest.raises(ValidationError) as error:
        scheme_load(contest=contest, directory=_folder(tmp_path, p1_toml=text))

    assert error.value.messages == [
        "p1.toml, criterion A1: cannot change the points from 12 to 10 while 3 marks are given; "
        "clear them first or keep the scheme as it was, or amend the scheme from the problem's "
        "“Amend the scheme” page (/contests/test/p1/scheme/), which makes a new version and "
        "reopens these marks for their jurors.",
        *(
            f"Problem 1, paper {label}, juror {username}, criterion A1: {value}."
            for label, username, value in expected_lines
        ),
        # T1 has no mark of its own, but its problem's scheme is under marks all the same.
        "p1.toml, criterion T1: cannot change the points from 8 to 10 while marks are given "
        "under the scheme of problem 1; keep it as it was, or amend the scheme from the "
        "problem's “Amend the scheme” page (/contests/test/p1/scheme/), which makes a new "
        "version and reopens the marks it affects for their jurors.",
    ]
    assert list(
        Criterion.objects.filter(problem__number=1, problem__contest=contest).values_list(
            "code", "points", "title"
        )
    ) == [("A1", Decimal("12"), "assignment A1"), ("T1", Decimal("8"), "theory T1")]


def test_changing_the_step_where_marks_exist_is_refused(contest, juror, other_juror, tmp_path):
    _given_marks(contest, juror, other_juror)
    text = AS_GIVEN_P1.replace("points = 12\n", "points = 12\nstep = 1\n")

    with pytest.raises(ValidationError) as error:
        scheme_load(contest=contest, directory=_folder(tmp_path, p1_toml=text))

    assert error.value.messages[0] == (
        "p1.toml, criterion A1: cannot change the step from 0.5 to 1 while 3 marks are given; "
        "clear them first or keep the scheme as it was, or amend the scheme from the problem's "
        "“Amend the scheme” page (/contests/test/p1/scheme/), which makes a new version and "
        "reopens these marks for their jurors."
    )
    assert len(error.value.messages) == 4


def test_changing_title_guidance_or_tolerance_while_marks_exist_is_refused_for_the_amend_page(
    contest, juror, other_juror, tmp_path
):
    # Under marks a scheme changes only as a version (rules.schemes): the amend page tells the
    # group of a wording change and reopens the marks a tolerance change affects.
    _given_marks(contest, juror, other_juror)
    text = AS_GIVEN_P1.replace('title = "assignment A1"', 'title = "Translations into English"')
    text = text.replace("points = 8\n", 'points = 8\ntolerance = 1\nguidance = "Rule stated."\n')
    before = _criteria(contest)

    with pytest.raises(ValidationError) as error:
        scheme_load(contest=contest, directory=_folder(tmp_path, p1_toml=text))

    page = "the problem's “Amend the scheme” page (/contests/test/p1/scheme/)"
    assert error.value.messages == [
        "p1.toml, criterion A1: cannot change the title while marks are given under the scheme "
        f"of problem 1; keep it as it was, or amend the scheme from {page}, which makes a new "
        "version and tells the group.",
        "p1.toml, criterion T1: cannot change the guidance and the tolerance from 0 to 1 while "
        f"marks are given under the scheme of problem 1; keep it as it was, or amend the scheme "
        f"from {page}, which makes a new version and reopens the marks it affects for their "
        "jurors.",
    ]
    assert _criteria(contest) == before
    assert list(Criterion.objects.filter(code="T1").values_list("guidance", flat=True)) == [
        "",
        "",
    ]


def test_the_problems_title_order_and_the_schemes_of_unmarked_problems_change_under_marks(
    contest, juror, other_juror, tmp_path
):
    _given_marks(contest, juror, other_juror)
    # T1 before A1, a new problem title; problem 2 has no mark and takes new guidance.
    a1, t1 = AS_GIVEN_P1.split("[[criteria]]")[1:]
    p1 = 'problem = 1\ntitle = "Kelo greetings again"\n\n[[criteria]]' + t1 + "[[criteria]]" + a1
    p2 = (
        'problem = 2\n\n[[criteria]]\ncode = "A1"\nkind = "assignment"\ntitle = "assignment A1"\n'
        'points = 12\nguidance = "New words."\n\n[[criteria]]\ncode = "T1"\nkind = "theory"\n'
        'title = "theory T1"\npoints = 8\n'
    )

    summary = scheme_load(contest=contest, directory=_folder(tmp_path, p1_toml=p1, p2_toml=p2))

    assert [str(change) for change in summary.problems] == [
        "p1.toml: problem 1: updated T1, A1; problem title updated.",
        "p2.toml: problem 2: updated A1.",
    ]
    assert list(
        Criterion.objects.filter(problem__number=1).order_by("order").values_list("code", flat=True)
    ) == ["T1", "A1"]
    assert Criterion.objects.get(problem__number=2, code="A1").guidance == "New words."


def test_changing_points_under_calibration_marks_only_is_refused(contest, chair, tmp_path):
    # No live mark yet: the chair's references of the calibration round are marks under the
    # scheme, and a file that moved points would leave them unfit without anyone being told.
    make_round(contest.problems.get(number=1), chair)
    text = AS_GIVEN_P1.replace("points = 12", "points = 10").replace("points = 8", "points = 10")
    before = _criteria(contest)

    with pytest.raises(ValidationError) as error:
        scheme_load(contest=contest, directory=_folder(tmp_path, p1_toml=text))

    assert error.value.messages[0] == (
        "p1.toml, criterion A1: cannot change the points from 12 to 10 while marks are given "
        "under the scheme of problem 1; keep it as it was, or amend the scheme from the "
        "problem's “Amend the scheme” page (/contests/test/p1/scheme/), which makes a new "
        "version and reopens the marks it affects for their jurors."
    )
    assert len(error.value.messages) == 2
    assert _criteria(contest) == before


def test_removing_a_criterion_a_calibration_round_has_blank_marks_of_is_refused(
    contest, chair, tmp_path
):
    # A round picked but not yet referenced or opened: no mark has points, so the scheme is
    # not under marks, but the round's blank marks keep the criterion (refused in a sentence,
    # where deleting it would fail in the database).
    problem = contest.problems.get(number=1)
    round_ = make_round(problem, chair, opened=False)
    ReferenceMark.objects.filter(calibration_paper__round=round_).update(points=None)
    text = AS_GIVEN_P1.split('[[criteria]]\ncode = "T1"')[0].replace("points = 12", "points = 20")

    with pytest.raises(ValidationError) as error:
        scheme_load(contest=contest, directory=_folder(tmp_path, p1_toml=text))

    assert error.value.messages == [
        "p1.toml: cannot remove criterion T1: the problem's calibration round has marks of it; "
        "keep the criterion."
    ]
    assert Criterion.objects.filter(problem=problem).count() == 2


def test_removing_a_criterion_with_marks_is_refused(contest, juror, tmp_path):
    problem = contest.problems.get(number=1)
    mark = Mark.objects.filter(sheet__juror=juror, criterion__code="T1").order_by("paper_id")[0]
    mark_set(mark=mark, points=Decimal("8"), actor=juror, channel="browser")
    label = PaperLabel.objects.get(problem=problem, paper_id=mark.paper_id).label
    text = AS_GIVEN_P1.split('[[criteria]]\ncode = "T1"')[0].replace("points = 12", "points = 20")

    with pytest.raises(ValidationError) as error:
        scheme_load(contest=contest, directory=_folder(tmp_path, p1_toml=text))

    # A1 takes T1's points, a change of points under marks, refused first.
    assert error.value.messages[0].startswith(
        "p1.toml, criterion A1: cannot change the points from 12 to 20 while marks are given"
    )
    assert error.value.messages[1:] == [
        "p1.toml: cannot remove criterion T1 while 1 mark is given; clear it first or keep the "
        "criterion.",
        f"Problem 1, paper {label}, juror alice, criterion T1: 8 points.",
    ]
    assert Criterion.objects.filter(problem=problem).count() == 2


def test_removing_a_criterion_whose_blank_mark_has_history_is_refused(contest, juror, tmp_path):
    problem = contest.problems.get(number=1)
    mark = Mark.objects.filter(sheet__juror=juror, criterion__code="T1").order_by("paper_id")[0]
    mark_set(mark=mark, points=Decimal("8"), actor=juror, channel="browser")
    mark_set(mark=mark, points=None, actor=juror, channel="browser")
    label = PaperLabel.objects.get(problem=problem, paper_id=mark.paper_id).label
    text = AS_GIVEN_P1.split('[[criteria]]\ncode = "T1"')[0].replace("points = 12", "points = 20")

    with pytest.raises(ValidationError) as error:
        scheme_load(contest=contest, directory=_folder(tmp_path, p1_toml=text))

    assert error.value.messages[-1] == (
        f"Problem 1, paper {label}, juror alice, criterion T1: blank now, 2 recorded changes."
    )
    assert MarkEvent.objects.filter(mark=mark).count() == 2


def test_removing_a_criterion_with_only_blank_marks_deletes_them(contest, tmp_path):
    text = VALID_P1.split('[[criteria]]\ncode = "T1"')[0].replace("points = 12", "points = 20")

    summary = scheme_load(contest=contest, directory=_folder(tmp_path, p1_toml=text))

    assert [str(change) for change in summary.problems] == [
        "p1.toml: problem 1: updated A1; removed T1; problem title updated."
    ]
    problem = contest.problems.get(number=1)
    assert list(Criterion.objects.filter(problem=problem).values_list("code", "points")) == [
        ("A1", Decimal("20"))
    ]
    # Two jurors × three papers, one criterion left.
    assert Mark.objects.filter(sheet__problem=problem).count() == 6


def test_a_new_criterion_gets_a_blank_mark_in_every_sheet(contest, tmp_path):
    text = VALID_P1.replace("points = 8", "points = 4") + (
        '\n[[criteria]]\ncode = "T2"\nkind = "theory"\ntitle = "Plural"\npoints = 4\n'
    )

    scheme_load(contest=contest, directory=_folder(tmp_path, p1_toml=text))

    new = Mark.objects.filter(criterion__code="T2", criterion__problem__number=1)
    assert new.count() == 6
    assert set(new.values_list("points", flat=True)) == {None}


def _criterion(code="T1", **fields) -> str:
    code = None if code is None else f'"{code}"'
    values = {"code": code, "kind": '"theory"', "title": '"A rule"', "points": "8"}
    values.update(fields)
    lines = [f"{key} = {value}" for key, value in values.items() if value is not None]
    return "\n[[criteria]]\n" + "\n".join(lines) + "\n"


A1 = _criterion("A1", kind='"assignment"', points="12", task='"12026010100"')


@pytest.mark.parametrize(
    ("files", "messages"),
    [
        pytest.param(
            {"p1.toml": 'problem = 1\ntitle = "Kelo\n'},
            ["p1.toml, line 2, column 14: this is not valid TOML (illegal character '\\n')."],
            id="toml-syntax",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n[[criteria]]\ncode = \n"},
            ["p1.toml, line 3, column 8: this is not valid TOML (invalid value)."],
            id="toml-syntax-invalid-value",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n[[criteria]]\ncode = "},
            ["p1.toml, line 3 (the end of the file): this is not valid TOML (invalid value)."],
            id="toml-syntax-at-end",
        ),
        pytest.param(
            {"p1.toml": b'problem = 1\ntitle = "caf\xe9"\n'},
            ["p1.toml, line 2: the file is not UTF-8 text; save it as UTF-8."],
            id="encoding",
        ),
        pytest.param(
            {"p7.toml": "problem = 7\n" + A1 + _criterion()},
            ["p7.toml: contest schemes has no problem 7; its problems are 1, 2."],
            id="unknown-problem",
        ),
        pytest.param(
            {"problem1.toml": "problem = 1\n" + A1 + _criterion()},
            [
                "problem1.toml: a scheme file must be named p<N>.toml after its problem, e.g. p1.toml."
            ],
            id="file-name",
        ),
        pytest.param(
            {
                "p1.toml": "problem = 1\n" + A1 + _criterion(),
                "p01.toml": "problem = 1\n" + A1 + _criterion(),
            },
            ["p1.toml: problem 1 already has a scheme in p01.toml."],
            id="two-files-for-one-problem",
        ),
        pytest.param(
            {"p1.toml": "problem = 2\n" + A1 + _criterion()},
            ["p1.toml: problem = 2 does not match the file name, which is for problem 1."],
            id="problem-mismatch",
        ),
        pytest.param(
            {"p1.toml": A1 + _criterion()},
            ["p1.toml: the key “problem” is missing; it must be 1, the number in the file name."],
            id="problem-missing",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\nmax_points = 25\n" + A1 + _criterion()},
            ["p1.toml: max_points = 25 does not match problem 1, which is worth 20 points."],
            id="max-points-mismatch",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion(points="6")},
            ["p1.toml: the criteria add up to 18 points, but problem 1 is worth 20."],
            id="sum",
        ),
        pytest.param(
            {
                "p1.toml": "problem = 1\n"
                + A1
                + _criterion(points="5.7", step="0.1")
                + _criterion("T2", points="2.3")
            },
            ["p1.toml, criterion T2: 2.3 points is not a multiple of the step 0.5."],
            id="off-step",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion(points="-8")},
            ["p1.toml, criterion T1: the points must be more than 0, not -8."],
            id="negative-points",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion(step="0")},
            ["p1.toml, criterion T1: the step must be more than 0, not 0."],
            id="zero-step",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion(tolerance="-0.5")},
            ["p1.toml, criterion T1: the tolerance must be 0 or more, not -0.5."],
            id="negative-tolerance",
        ),
        # Issue 31, finding 13: tolerance 99 was taken on a criterion worth 4.5.
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion(tolerance="99")},
            ["p1.toml, criterion T1: the tolerance 99 is more than the criterion's 8 points."],
            id="tolerance-past-the-points",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion(points='"eight"')},
            ["p1.toml, criterion T1: the points “eight” is not a number."],
            id="points-not-a-number",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion(points="7.995", step="0.005")},
            [
                "p1.toml, criterion T1: the points 7.995 has more than two decimals.",
                "p1.toml, criterion T1: the step 0.005 has more than two decimals.",
            ],
            id="three-decimals",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion("A1", points="8")},
            [
                "p1.toml, criterion A1: the code is used twice; codes must be unique within a problem."
            ],
            id="duplicate-code",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion(kind='"practice"')},
            [
                "p1.toml, criterion T1: the kind “practice” is not known; use “assignment” or “theory”."
            ],
            id="unknown-kind",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion(task='"12026020100"')},
            [
                "p1.toml, criterion T1: task 12026020100 is not a task of problem 1; its tasks "
                "are 12026010100."
            ],
            id="task-of-another-problem",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion(points=None, pionts="8")},
            [
                "p1.toml, criterion T1: unknown key “pionts” (did you mean “points”?); the keys "
                "are code, kind, title, guidance, points, step, tolerance, task.",
                "p1.toml, criterion T1: the points are missing.",
            ],
            id="typo-in-a-criterion-key",
        ),
        pytest.param(
            {"p1.toml": 'problem = 1\ntitel = "Kelo"\n' + A1 + _criterion()},
            [
                "p1.toml: unknown key “titel” (did you mean “title”?); the keys are problem, "
                "title, language, max_points, criteria."
            ],
            id="typo-in-a-problem-key",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion(code=None)},
            ['p1.toml, criterion #2: the code is missing, e.g. code = "A1".'],
            id="code-missing",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n" + A1 + _criterion(title=None, kind=None)},
            [
                "p1.toml, criterion T1: the kind is missing; use “assignment” or “theory”.",
                "p1.toml, criterion T1: the title is missing.",
            ],
            id="kind-and-title-missing",
        ),
        pytest.param(
            {"p1.toml": "problem = 1\n"},
            ["p1.toml: there are no criteria; list them as [[criteria]] tables."],
            id="no-criteria",
        ),
        pytest.param(
            {"p1.toml": 'problem = 1\n[criteria]\ncode = "A1"\n'},
            ["p1.toml: “criteria” must be a list of [[criteria]] tables."],
            id="criteria-not-a-list",
        ),
        pytest.param(
            {
                "p1.toml": "problem = 1\n" + A1 + _criterion(points="6"),
                "p2.toml": "problem = 2\n" + _criterion("A1", points="20", kind='"essay"'),
            },
            [
                "p1.toml: the criteria add up to 18 points, but problem 1 is worth 20.",
                "p2.toml, criterion A1: the kind “essay” is not known; use “assignment” or "
                "“theory”.",
            ],
            id="errors-in-several-files-together",
        ),
    ],
)
def test_each_invalid_scheme_is_refused_with_its_sentence_and_nothing_written(
    blank, tmp_path, files, messages
):
    for name, content in files.items():
        if isinstance(content, bytes):
            (tmp_path / name).write_bytes(content)
        else:
            (tmp_path / name).write_text(content, encoding="utf-8")

    with pytest.raises(ValidationError) as error:
        scheme_load(contest=blank, directory=tmp_path)

    assert error.value.messages == messages
    assert Criterion.objects.count() == 0
    assert list(Problem.objects.filter(contest=blank).values_list("title", flat=True)) == [
        "Problem 1",
        "Problem 2",
    ]


def test_a_missing_or_empty_folder_is_refused(blank, tmp_path):
    with pytest.raises(ValidationError) as error:
        scheme_load(contest=blank, directory=tmp_path / "nowhere")
    assert error.value.messages == [f"The folder {tmp_path / 'nowhere'} does not exist."]

    (tmp_path / "README.md").write_text("Not a scheme.")
    with pytest.raises(ValidationError) as error:
        scheme_load(contest=blank, directory=tmp_path)
    assert error.value.messages == [f"The folder {tmp_path} holds no p<N>.toml scheme files."]


def test_the_command_loads_the_schemes_and_prints_a_summary(blank):
    out = StringIO()
    call_command("load_schemes", "--contest", "schemes", str(SAMPLE), stdout=out)
    assert out.getvalue().splitlines() == [
        "p1.toml: problem 1: created A1, T1, T2; problem title and language updated.",
        "p2.toml: problem 2: created A1, T1; problem title updated.",
        "2 scheme files for schemes loaded: 5 criteria created, 0 updated, 0 removed in 2 problems.",
    ]
    assert Criterion.objects.count() == 5

    out = StringIO()
    call_command("load_schemes", "--contest", "schemes", str(SAMPLE), stdout=out)
    assert out.getvalue() == "2 scheme files for schemes checked: all unchanged, nothing written.\n"


def test_the_command_dry_run_writes_nothing(blank):
    out = StringIO()
    call_command("load_schemes", "--contest", "schemes", "--dry-run", str(SAMPLE), stdout=out)
    assert out.getvalue().splitlines()[-1].startswith("Dry run, nothing written:")
    assert Criterion.objects.count() == 0


def test_the_command_fails_with_the_sentences_and_a_non_zero_exit(blank, tmp_path):
    folder = _folder(tmp_path, p1_toml="problem = 1\n" + A1 + _criterion(points="6"))
    with pytest.raises(CommandError) as error:
        call_command("load_schemes", "--contest", "schemes", str(folder), stdout=StringIO())
    assert str(error.value) == (
        "p1.toml: the criteria add up to 18 points, but problem 1 is worth 20."
    )
    assert error.value.returncode == 1
    assert Criterion.objects.count() == 0


def test_the_command_refuses_an_unknown_contest(db):
    with pytest.raises(CommandError) as error:
        call_command("load_schemes", "--contest", "nope", str(SAMPLE))
    assert str(error.value) == "There is no contest “nope”."


def test_a_final_contest_refuses_any_scheme_load(db):
    from django.core.exceptions import ValidationError

    from grading.intake.schemes import scheme_load
    from tests.factories import make_contest

    contest = make_contest("finished")
    contest.state = "final"
    contest.save()
    with pytest.raises(ValidationError) as error:
        scheme_load(contest=contest, directory=SAMPLE)
    assert error.value.messages == [
        "Contest finished is final: its grading schemes are read-only. An organizer can reopen "
        "it, with a reason, from its results page."
    ]
