import json
import shutil
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from grading.intake.importers import ImportProblems, outputs_import, problemset_import
from grading.intake.importers.human_scores import human_scores_parse
from grading.intake.importers.repair import split_raw_output
from grading.models import Paper, PaperLabel, Solution
from rubrics.models import Contest, Problem, Task

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "importers"
TEST_CSV = FIXTURES / "problemset" / "test.csv"
SOLUTION_CSV = FIXTURES / "problemset" / "solution.csv"
LINGUINI = FIXTURES / "problemset" / "linguini.jsonl"
OUTPUTS = FIXTURES / "outputs"
KESTREL = OUTPUTS / "records" / "04_team-kestrel"
ANONYMOUS = OUTPUTS / "records" / "11_anonymous-run"
HERON = OUTPUTS / "heron.csv"
RAW = OUTPUTS / "raw.jsonl"

ORU_CONTEXT = (
    "Here are some phrases in Oru (an invented language) with their English translations:\n\n"
    "1. pake | canoe\n2. pakeru | canoes\n3. pake tiru | red canoe\n4. nipake | my canoe"
)
TESU_CONTEXT = "Some numbers in Tesu (an invented language):\n\n1 | sir\n5 | tam\n6 | tam sir"


NOTHING = dict.fromkeys(("Contest", "Problem", "Task", "Paper", "Solution", "PaperLabel"), 0)


def row_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Contest, Problem, Task, Paper, Solution, PaperLabel)
    }


def refused(**kwargs) -> list[str]:
    """The sentences an import is refused with."""
    importer = outputs_import if kwargs.pop("outputs", False) else problemset_import
    with pytest.raises(ImportProblems) as error:
        importer(**kwargs)
    return error.value.messages


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.fixture
def oru(db):
    """The fixture problem set imported as contest "oru30"."""
    problemset_import(contest_slug="oru30", paths=[TEST_CSV, SOLUTION_CSV])
    return Contest.objects.get(slug="oru30")


def solutions_of(identity: str) -> dict[str, tuple]:
    return {
        solution.task.external_id: (
            solution.answers,
            solution.explanation,
            solution.raw,
            solution.parse_notes,
        )
        for solution in Solution.objects.filter(paper__identity=identity).select_related("task")
    }


# --- problem set: the competition's CSVs -------------------------------------------------------


def test_competition_csvs_create_the_contest_its_problems_and_tasks(db):
    summary = problemset_import(contest_slug="oru30", paths=[TEST_CSV, SOLUTION_CSV])

    assert summary.line() == "Contest “oru30” created with 2 problems and 5 tasks."
    contest = Contest.objects.get()
    assert (contest.slug, contest.name, contest.state) == ("oru30", "oru30", "setup")
    assert list(contest.problems.values_list("number", "max_points", "language")) == [
        (1, Decimal("20"), "oru_Latn"),
        (2, Decimal("20"), "tsu_Latn"),
    ]
    tasks = Task.objects.filter(problem__contest=contest).order_by("problem__number", "number")
    assert [
        (
            task.problem.number,
            task.number,
            task.external_id,
            task.task_type,
            task.eval_type,
            task.item_count,
            task.split,
            task.weight,
            task.task_lang,
        )
        for task in tasks
    ] == [
        (1, 1, "12030010100", "translation", "single", 3, "public", Decimal("1"), ["oru_Latn"]),
        (1, 2, "12030010200", "translation", "multi", 2, "public", Decimal("1"), ["oru_Latn"]),
        (1, 3, "12030010300", "explanation", "single", 0, "private", Decimal("0"), ["oru_Latn"]),
        (2, 1, "12030020100", "text_to_num", "single", 2, "private", Decimal("2"), ["tsu_Latn"]),
        (
            2,
            2,
            "12030020200",
            "match_letters",
            "single",
            3,
            "public",
            Decimal("1.5"),
            ["tsu_Latn", "eng_Latn"],
        ),
    ]
    assert tasks[0].query == "Translate into Oru:\n\n5. the red canoe\n6. the canoes\n7. my canoe"
    assert tasks[0].work_lang == "eng_Latn"


def test_same_context_as_above_is_resolved_in_every_spelling(oru):
    contexts = list(
        Task.objects.filter(problem__contest=oru)
        .order_by("problem__number", "number")
        .values_list("context", flat=True)
    )
    # "(same context as above)", "Same Context As Above", "(Same context as above.)"
    assert contexts == [ORU_CONTEXT, ORU_CONTEXT, ORU_CONTEXT, TESU_CONTEXT, TESU_CONTEXT]


def test_answers_are_lists_of_alternatives_per_item_with_multi_keeping_every_alternative(oru):
    answers = dict(Task.objects.filter(problem__contest=oru).values_list("external_id", "answers"))
    assert answers == {
        "12030010100": [["pake tiru"], ["pakeru"], ["nipake"]],
        "12030010200": [["canoes", "the canoes"], ["my canoe"]],
        "12030010300": [],
        "12030020100": [["10"], ["1"]],
        "12030020200": [["A"], ["B"], ["C"]],
    }


def test_reimporting_the_same_files_changes_nothing(oru):
    before = list(Task.objects.order_by("pk").values())
    counts = row_counts()

    summary = problemset_import(contest_slug="oru30", paths=[TEST_CSV, SOLUTION_CSV])

    assert summary.line() == "Contest “oru30”: nothing to change; 5 tasks already match the files."
    assert list(Task.objects.order_by("pk").values()) == before
    assert row_counts() == counts


def test_reimporting_changed_files_updates_the_tasks_and_says_how_many_changed(oru, tmp_path):
    solution = SOLUTION_CSV.read_text(encoding="utf-8")
    solution = solution.replace('""10"", ""1""]",private,2', '""10"", ""1"", ""16""]",public,3')
    changed = write(tmp_path / "solution.csv", solution)
    pks = list(Task.objects.order_by("pk").values_list("pk", flat=True))

    summary = problemset_import(contest_slug="oru30", paths=[TEST_CSV, changed])

    assert summary.line() == (
        "Contest “oru30”: 0 problems and 0 tasks created, 1 changed, 4 unchanged."
    )
    assert summary.tasks_changed == ["12030020100"]
    task = Task.objects.get(external_id="12030020100")
    assert (task.answers, task.item_count, task.split, task.weight) == (
        [["10"], ["1"], ["16"]],
        3,
        "public",
        Decimal("3"),
    )
    assert list(Task.objects.order_by("pk").values_list("pk", flat=True)) == pks


def test_the_two_csv_files_are_recognised_in_either_order(db):
    problemset_import(contest_slug="oru30", paths=[SOLUTION_CSV, TEST_CSV])
    assert Task.objects.count() == 5


def test_a_utf8_byte_order_mark_is_accepted(db, tmp_path):
    test = write(tmp_path / "test.csv", b"\xef\xbb\xbf" + TEST_CSV.read_bytes())
    problemset_import(contest_slug="oru30", paths=[test, SOLUTION_CSV])
    assert Task.objects.filter(external_id="12030010100").count() == 1


def test_an_unknown_task_type_is_explanation_only_when_worth_zero_points(oru):
    # "essay" is not a type of ours; with 0 points the task is explanation-only.
    task = Task.objects.get(external_id="12030010300")
    assert (task.task_type, task.weight, task.item_count) == ("explanation", Decimal("0"), 0)


def test_dry_run_of_a_problem_set_reports_and_writes_nothing(db):
    summary = problemset_import(contest_slug="oru30", paths=[TEST_CSV, SOLUTION_CSV], dry_run=True)
    assert summary.line() == (
        "Dry run, nothing written. Contest “oru30” would be created with 2 problems and 5 tasks."
    )
    assert row_counts() == NOTHING


# --- problem set: Linguini's JSONL --------------------------------------------------------------


def test_linguini_jsonl_with_leading_zero_ids_defaults_split_and_weight(db):
    summary = problemset_import(contest_slug="linguini", paths=[LINGUINI], name="Linguini sample")

    assert summary.line() == "Contest “linguini” created with 1 problem and 3 tasks."
    assert Contest.objects.get().name == "Linguini sample"
    tasks = Task.objects.order_by("number")
    assert [
        (
            task.number,
            task.external_id,
            task.task_type,
            task.answers,
            task.split,
            task.weight,
            task.task_lang,
        )
        for task in tasks
    ] == [
        (
            1,
            "02030010100",
            "translation",
            [["nipakeru"], ["pake"]],
            "public",
            Decimal("1"),
            ["oru_Latn"],
        ),
        (
            2,
            "02030010200",
            "translation",
            [["canoes", "the canoes"]],
            "public",
            Decimal("1"),
            ["oru_Latn"],
        ),
        (3, "02030010300", "explanation", [], "public", Decimal("0"), ["oru_Latn"]),
    ]
    assert len({task.context for task in tasks}) == 1
    # Linguini's explanation of the official solution is kept for the jurors.
    assert [task.reference_explanation for task in tasks][:2] == ["Plural -ru, possessive ni-.", ""]


def test_outputs_with_competition_ids_match_a_linguini_problem_set(db, tmp_path):
    problemset_import(contest_slug="linguini", paths=[LINGUINI])
    submission = write(tmp_path / "sys.csv", 'id,pred\n12030010100,"[""nipakeru"", ""pake""]"\n')

    outputs_import(contest_slug="linguini", paths=[submission])

    assert solutions_of("sys")["02030010100"][0] == ["nipakeru", "pake"]


# --- problem set: refused input ----------------------------------------------------------------

TEST_HEADER = "id,context,query,work_lang,task_lang,task_type,eval_type\n"
SOLUTION_HEADER = "id,answer,split,points,task_type,eval_type\n"
TEST_ROWS = (
    "12030010100,Words of Oru.,Translate.,eng_Latn,['oru_Latn'],translation,single\n"
    "12030010200,(same context as above),Translate back.,eng_Latn,['oru_Latn'],translation,multi\n"
)
SOLUTION_ROWS = (
    '12030010100,"[""pake""]",public,1,translation,single\n'
    '12030010200,"[[""canoe"", ""a canoe""]]",public,1,translation,multi\n'
)


@pytest.mark.parametrize(
    ("test", "solution", "sentences"),
    [
        pytest.param(
            "",
            SOLUTION_HEADER + SOLUTION_ROWS,
            ["test.csv: the file is empty."],
            id="empty file",
        ),
        pytest.param(
            TEST_HEADER,
            SOLUTION_HEADER + SOLUTION_ROWS,
            ["test.csv: the file has a header but no rows."],
            id="header only",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS,
            (SOLUTION_HEADER + SOLUTION_ROWS.replace("canoe", "canoé")).encode("latin-1"),
            [
                "solution.csv, line 3: the file is not UTF-8 text (byte 0xE9 cannot be read); "
                "save it as UTF-8."
            ],
            id="not UTF-8",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS,
            SOLUTION_HEADER.replace(",points", "") + SOLUTION_ROWS.replace(",1,", ","),
            ["solution.csv, row 1: the column “points” is missing."],
            id="missing column",
        ),
        pytest.param(
            TEST_HEADER.replace("query,", "")
            + TEST_ROWS.replace("Translate.,", "").replace("Translate back.,", ""),
            SOLUTION_HEADER.replace("split,", "") + SOLUTION_ROWS.replace("public,", ""),
            [
                "test.csv, row 1: the column “query” is missing.",
                "solution.csv, row 1: the column “split” is missing.",
            ],
            id="missing columns in both files",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS + '12030010300,"Unclosed,Q,eng_Latn,[],translation,single\n',
            SOLUTION_HEADER + SOLUTION_ROWS,
            ["test.csv, row 4: malformed CSV (unexpected end of data)."],
            id="malformed CSV: open quote",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS,
            SOLUTION_HEADER
            + SOLUTION_ROWS.replace("public,1,translation,single", "public,1,x,y,z"),
            ["solution.csv, row 2: malformed CSV: 7 cells where the header has 6 columns."],
            id="malformed CSV: too many cells",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS,
            SOLUTION_HEADER + SOLUTION_ROWS.replace('[""pake""]', '[""pake"" ""tiru""]'),
            ["solution.csv, row 2, answer: not a JSON list (Expecting ',' delimiter at column 9)."],
            id="malformed JSON answer",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS,
            SOLUTION_HEADER
            + SOLUTION_ROWS
            + '12030010100,"[""pako""]",public,1,translation,single\n',
            ["solution.csv, row 4, id: 12030010100 appears twice (first in row 2)."],
            id="duplicate id",
        ),
        pytest.param(
            TEST_HEADER
            + TEST_ROWS
            + "012030010100,Again.,Translate.,eng_Latn,['oru_Latn'],translation,single\n",
            SOLUTION_HEADER + SOLUTION_ROWS,
            ["test.csv, row 4, id: 012030010100 appears twice (first in row 2)."],
            id="duplicate id with a leading zero",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS,
            SOLUTION_HEADER + SOLUTION_ROWS + '12030010300,"[""x""]",public,1,translation,single\n',
            ["solution.csv, row 4, id: 12030010300 has no row in test.csv."],
            id="task without a question",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS.replace("12030010200", "12031010200"),
            SOLUTION_HEADER + SOLUTION_ROWS.replace("12030010200", "12031010200"),
            [
                "test.csv, row 3, id: 12031010200 is from the 2031 problem set, but 12030010100 "
                "(test.csv, row 2) is from the 2030 one."
            ],
            id="ids of two problem sets",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS.replace("12030010200", "task-2"),
            SOLUTION_HEADER + SOLUTION_ROWS.replace("12030010200", "task-2"),
            [
                "test.csv, row 3, id: “task-2” is not a task id (1 + year + two-digit problem + "
                "two-digit task + 00, e.g. 12026030200).",
                "solution.csv, row 3, id: “task-2” is not a task id (1 + year + two-digit problem + "
                "two-digit task + 00, e.g. 12026030200).",
            ],
            id="not an id",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS.replace(",translation,single", ",poem,single"),
            SOLUTION_HEADER + SOLUTION_ROWS.replace(",translation,single", ",poem,single"),
            [
                "test.csv, row 2, task_type: “poem” is not a known task type (translation, "
                "fill_blanks, match_letters, text_to_num, num_to_text, explanation); only a task "
                "worth 0 points may have another type, which is read as explanation-only."
            ],
            id="unknown task type worth points",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS,
            SOLUTION_HEADER + SOLUTION_ROWS.replace("translation,multi", "fill_blanks,multi"),
            [
                "solution.csv, row 3, task_type: “fill_blanks” differs from “translation” in "
                "test.csv, row 3."
            ],
            id="task types disagree",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS,
            SOLUTION_HEADER
            + SOLUTION_ROWS.replace("public,1,translation,single", "secret,-1,translation,single"),
            [
                "solution.csv, row 2, split: “secret” is not one of public, private.",
                "solution.csv, row 2, points: “-1” is not a number of points from 0 to 9999.99.",
            ],
            id="bad split and points",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS.replace("translation,multi", "translation,single"),
            SOLUTION_HEADER + SOLUTION_ROWS.replace("translation,multi", "translation,single"),
            [
                "solution.csv, row 3, answer: item 1 is a list of alternatives, but eval_type is "
                "“single”; alternatives need eval_type “multi”."
            ],
            id="alternatives without multi",
        ),
        pytest.param(
            TEST_HEADER + TEST_ROWS.replace("Words of Oru.", "(same context as above)"),
            SOLUTION_HEADER + SOLUTION_ROWS,
            [
                "test.csv, row 2, context: “(same context as above)” refers to the task above, "
                "but task 12030010100 is the first of problem 1."
            ],
            id="same context with nothing above",
        ),
    ],
)
def test_a_bad_problem_set_is_refused_with_one_sentence_per_problem_and_nothing_written(
    oru, tmp_path, test, solution, sentences
):
    test_path = write(tmp_path / "test.csv", test)
    solution_path = write(tmp_path / "solution.csv", solution)
    counts = row_counts()

    assert refused(contest_slug="new", paths=[test_path, solution_path]) == sentences
    assert row_counts() == counts


def test_a_problem_set_of_another_year_is_refused_for_an_existing_contest(oru, tmp_path):
    test = write(tmp_path / "test.csv", TEST_HEADER + TEST_ROWS.replace("12030", "12031"))
    solution = write(
        tmp_path / "solution.csv", SOLUTION_HEADER + SOLUTION_ROWS.replace("12030", "12031")
    )
    counts = row_counts()

    assert refused(contest_slug="oru30", paths=[test, solution]) == [
        "test.csv, row 2, id: 12031010100 is from the 2031 problem set, but contest “oru30” "
        "holds the 2030 one.",
        "test.csv, row 3, id: 12031010200 is from the 2031 problem set, but contest “oru30” "
        "holds the 2030 one.",
    ]
    assert row_counts() == counts


@pytest.mark.parametrize(
    ("lines", "sentences"),
    [
        pytest.param(
            "\n\n",
            ["data.jsonl: the file is empty."],
            id="empty file",
        ),
        pytest.param(
            '{"id": "02030010100", "context": "c", "query": "q", "answer": "[\\"a\\"]", '
            '"work_lang": "eng_Latn", "task_lang": "[]", "task_type": "translation", '
            '"eval_type": "single"}\n{"id": "02030010200", "context": \n',
            ["data.jsonl, line 2: malformed JSON (Expecting value at column 33)."],
            id="malformed JSON",
        ),
        pytest.param(
            '{"id": "02030010100", "context": "c", "query": "q", "answer": "[\\"a\\"]", '
            '"task_lang": "[]", "task_type": "translation"}\n',
            [
                "data.jsonl, line 1: the field “work_lang” is missing.",
                "data.jsonl, line 1: the field “eval_type” is missing.",
            ],
            id="missing fields",
        ),
        pytest.param(
            '["02030010100", "c"]\n',
            ["data.jsonl, line 1: expected a JSON object, found a list."],
            id="not an object",
        ),
        pytest.param(
            '{"id": "02030010100", "context": "c", "query": "q", "answer": "[\\"a\\"]", '
            '"work_lang": "eng_Latn", "task_lang": "[]", "task_type": "translation", '
            '"eval_type": "single", "explanation": ["not", "text"]}\n',
            ["data.jsonl, line 1, explanation: expected text, found a list."],
            id="explanation not text",
        ),
    ],
)
def test_a_bad_linguini_file_is_refused_and_nothing_written(db, tmp_path, lines, sentences):
    path = write(tmp_path / "data.jsonl", lines)
    assert refused(contest_slug="linguini", paths=[path]) == sentences
    assert row_counts() == NOTHING


def test_one_csv_file_alone_is_refused(db):
    assert refused(contest_slug="oru30", paths=[TEST_CSV]) == [
        "Give either the two files test.csv and solution.csv, or one JSONL file; got test.csv."
    ]


# --- AI outputs: competition record folders --------------------------------------------------


def test_a_record_folder_becomes_one_paper_named_by_its_team_with_its_metadata(oru):
    summary = outputs_import(contest_slug="oru30", paths=[KESTREL])

    assert summary.line() == (
        "Contest “oru30”: 1 paper created, 0 updated; 5 solutions created, 0 changed, "
        "0 unchanged; 2 labels drawn."
    )
    paper = Paper.objects.get()
    assert (paper.identity, paper.source) == ("team-kestrel", "ai")
    assert paper.metadata == json.loads((KESTREL / "metadata.json").read_text())
    assert solutions_of("team-kestrel") == {
        "12030010100": (
            ["pake tiru", "pakeru", "nipak"],
            "- **Plural**: suffix *-ru*.\n- **My**: prefix *ni-*.",
            '["pake tiru", "pakeru", "nipak"]',
            [],
        ),
        "12030010200": (
            ["canoes", ""],
            "Read the rules backwards.",
            '["canoes"]',
            ["1 answer for 2 items: padded with 1 empty answer."],
        ),
        "12030010300": ([], "Nouns take *-ru* in the plural.", "[]", []),
        "12030020100": (
            ["10", "1"],
            "",
            '["10", "1", "5"]',
            ["3 answers for 2 items: the last 1 cut off."],
        ),
        "12030020200": (["A", "B", "C"], "", '["A", "B", "C"]', []),
    }
    assert sorted(PaperLabel.objects.values_list("problem__number", flat=True)) == [1, 2]


def test_a_record_without_a_team_is_named_by_its_folder_and_ids_match_without_leading_digits(oru):
    outputs_import(contest_slug="oru30", paths=[ANONYMOUS / "predictions.json"])

    assert list(Paper.objects.values_list("identity", flat=True)) == ["11_anonymous-run"]
    assert solutions_of("11_anonymous-run") == {
        # The id was written "2030010100", without the competition's leading 1.
        "12030010100": (
            ["pake tiru", "pakeru", "nipake"],
            "Noun first, then the adjective.",
            '["pake tiru", "pakeru", "nipake"]',
            [],
        ),
        # The id was a JSON number; the pred a broken JSON list, read line by line.
        "12030020200": (
            ['["A", "C"', "", ""],
            "",
            '["A", "C"',
            [
                "The answer starts like a JSON list but is not valid JSON; it was read one answer "
                "per line.",
                "1 answer for 3 items: padded with 2 empty answers.",
            ],
        ),
    }


# --- AI outputs: submission CSVs ---------------------------------------------------------------


def test_a_submission_csv_is_named_by_its_file_and_has_numbering_removed(oru):
    outputs_import(contest_slug="oru30", paths=[HERON])

    assert list(Paper.objects.values_list("identity", "metadata")) == [("heron", {})]
    assert solutions_of("heron") == {
        "12030010100": (
            ["pake tiru", "pakeru", "nipake"],
            "The adjective follows the noun.",
            "1. pake tiru\n2) pakeru\n3. nipake",
            [],
        ),
        # Written "012030010200" in the file: leading zeros do not matter.
        "12030010200": (
            ["the canoes", "my canoe"],
            "",
            '["the canoes", "my canoe"]',
            [],
        ),
        "12030020100": (
            ["10", ""],
            "Counting goes in fives.",
            "10",
            ["1 answer for 2 items: padded with 1 empty answer."],
        ),
    }


def test_the_system_option_names_the_system_of_a_submission_csv(oru):
    outputs_import(contest_slug="oru30", paths=[HERON], system="Heron v2")
    assert list(Paper.objects.values_list("identity", flat=True)) == ["Heron v2"]


# --- AI outputs: raw model text ----------------------------------------------------------------


def test_raw_outputs_of_several_systems_become_one_paper_each_with_their_repairs_noted(oru):
    summary = outputs_import(contest_slug="oru30", paths=[RAW])

    assert summary.line() == (
        "Contest “oru30”: 2 papers created, 0 updated; 4 solutions created, 0 changed, "
        "0 unchanged; 4 labels drawn."
    )
    assert sorted(Paper.objects.values_list("identity", flat=True)) == ["lark-7b", "owl-2"]
    lark = solutions_of("lark-7b")
    assert {external_id: value[0] for external_id, value in lark.items()} == {
        "12030010100": ["pake tiru", "pakeru", "nipake"],
        "12030010200": ["canoes", "my canoe"],
        "12030020200": ["A", "B", "C"],
    }
    assert {external_id: value[3] for external_id, value in lark.items()} == {
        "12030010100": ["Removed a code fence around the answer."],
        "12030010200": [
            "Removed markdown emphasis around the “Answer:” label.",
            "Removed markdown emphasis around the “Explanation:” label.",
            "Removed item labels at the start of 2 lines (“8.”, “9.”).",
        ],
        "12030020200": [],
    }
    assert lark["12030010100"][1] == (
        "| rule | example |\n|---|---|\n| plural *-ru* | pake → pakeru |"
    )
    assert lark["12030010100"][2].startswith("Answer:\n```json\n")
    assert solutions_of("owl-2") == {
        "12030020100": (
            ["10", "1"],
            "*tam* is five.",
            "Answer:\na) 10\nb) 1\n\nExplanation:\n*tam* is five.",
            ["Removed item labels at the start of 2 lines (“a)”, “b)”)."],
        )
    }


@pytest.mark.parametrize(
    ("output", "answer_text", "explanation", "notes"),
    [
        pytest.param(
            'Answer: ["C", "B", "A"]\nExplanation: bigger first.',
            '["C", "B", "A"]',
            "bigger first.",
            [],
            id="one-line JSON list",
        ),
        pytest.param(
            "## Answer\n- houses\n- my birds\n\n## Explanation\nPlural *-ri*.",
            "houses\nmy birds",
            "Plural *-ri*.",
            [
                "Removed markdown emphasis around the “Answer:” label.",
                "Removed markdown emphasis around the “Explanation:” label.",
                "Removed list markers at the start of 2 lines.",
            ],
            id="headings and bullets",
        ),
        pytest.param(
            "**Answer**:\n1) **houses**\n(2) my birds\nExplanation:\nsee above",
            "houses\nmy birds",
            "see above",
            [
                "Removed markdown emphasis around the “Answer:” label.",
                "Removed item labels at the start of 2 lines (“1)”, “(2)”).",
                "Removed markdown emphasis around 1 answer.",
            ],
            id="bold label outside the colon, mixed labels, a bold answer",
        ),
        pytest.param(
            "Answer:\nsome text\n```\nC\nB\n```\nExplanation: x",
            "some text\nC\nB",
            "x",
            ["Removed code fence lines from the answer."],
            id="fence not around the whole answer",
        ),
        pytest.param(
            "Answer: 1.5\nExplanation: one and a half",
            "1.5",
            "one and a half",
            [],
            id="a decimal number is not an item label",
        ),
        pytest.param(
            "I think it is C.\nAnswer: C",
            "C",
            "I think it is C.",
            ["No “Explanation:” label: the text before “Answer:” was kept as the explanation."],
            id="no explanation label",
        ),
        pytest.param(
            "C\nB\nExplanation: because",
            "C\nB",
            "because",
            ["No “Answer:” label: the text before “Explanation:” was read as the answer."],
            id="no answer label",
        ),
        pytest.param(
            "C\nB",
            "C\nB",
            "",
            ["No “Answer:” or “Explanation:” label: the whole output was read as the answer."],
            id="no labels",
        ),
    ],
)
def test_raw_output_is_split_and_lightly_repaired(output, answer_text, explanation, notes):
    raw = split_raw_output(output)
    assert (raw.answer_text, raw.explanation, raw.notes) == (answer_text, explanation, notes)


# --- AI outputs: re-import, dry run, several paths ----------------------------------------------


def test_reimporting_a_system_updates_its_solutions_instead_of_duplicating_the_paper(oru, tmp_path):
    outputs_import(contest_slug="oru30", paths=[HERON])
    paper = Paper.objects.get()
    labels = list(PaperLabel.objects.values_list("paper_id", "problem_id", "label"))
    changed = write(
        tmp_path / "heron.csv",
        HERON.read_text(encoding="utf-8").replace("10,Counting", "11,Counting"),
    )

    summary = outputs_import(contest_slug="oru30", paths=[changed])

    assert summary.line() == (
        "Contest “oru30”: 0 papers created, 1 updated; 0 solutions created, 1 changed, "
        "2 unchanged; 0 labels drawn."
    )
    assert list(Paper.objects.values_list("pk", flat=True)) == [paper.pk]
    assert Solution.objects.count() == 3
    assert solutions_of("heron")["12030020100"][0] == ["11", ""]
    assert list(PaperLabel.objects.values_list("paper_id", "problem_id", "label")) == labels


def test_reimporting_the_same_outputs_changes_nothing(oru):
    outputs_import(contest_slug="oru30", paths=[KESTREL, RAW])
    before = list(Solution.objects.order_by("pk").values())

    summary = outputs_import(contest_slug="oru30", paths=[KESTREL, RAW])

    assert summary.line() == (
        "Contest “oru30”: 0 papers created, 3 updated; 0 solutions created, 0 changed, "
        "9 unchanged; 0 labels drawn."
    )
    assert list(Solution.objects.order_by("pk").values()) == before


def test_several_paths_of_every_shape_import_together_with_a_fresh_label_per_problem(oru):
    outputs_import(contest_slug="oru30", paths=[KESTREL, ANONYMOUS, HERON, RAW])

    assert Paper.objects.count() == 5
    assert Solution.objects.count() == 5 + 2 + 3 + 4
    for problem in oru.problems.all():
        labels = list(problem.paper_labels.values_list("label", flat=True))
        assert (len(labels), len(set(labels))) == (5, 5)


def test_a_folder_of_record_folders_imports_each_record(oru):
    outputs_import(contest_slug="oru30", paths=[OUTPUTS / "records"])
    assert sorted(Paper.objects.values_list("identity", flat=True)) == [
        "11_anonymous-run",
        "team-kestrel",
    ]


def test_the_write_loop_reports_its_progress(oru):
    seen = []

    def progress(items, total, description):
        seen.append((total, description))
        return items

    outputs_import(contest_slug="oru30", paths=[RAW], progress=progress)
    problemset_import(contest_slug="oru30", paths=[TEST_CSV, SOLUTION_CSV], progress=progress)
    assert seen == [(4, "Solutions"), (5, "Tasks")]


def test_a_problem_added_after_papers_were_imported_gets_labels_for_them(oru, tmp_path):
    outputs_import(contest_slug="oru30", paths=[RAW])
    test = write(
        tmp_path / "test.csv",
        TEST_CSV.read_text(encoding="utf-8")
        + "12030030100,Words of Mbe.,Translate.,eng_Latn,['mbe_Latn'],translation,single\n",
    )
    solution = write(
        tmp_path / "solution.csv",
        SOLUTION_CSV.read_text(encoding="utf-8")
        + '12030030100,"[""a""]",public,1,translation,single\n',
    )

    summary = problemset_import(contest_slug="oru30", paths=[test, solution])

    assert summary.line() == (
        "Contest “oru30”: 1 problem and 1 task created, 0 changed, 5 unchanged."
    )
    assert PaperLabel.objects.filter(problem__number=3).count() == 2


def test_dry_run_of_outputs_reports_and_writes_nothing(oru):
    counts = row_counts()
    summary = outputs_import(contest_slug="oru30", paths=[KESTREL, RAW], dry_run=True)
    assert summary.line() == (
        "Dry run, nothing written. Contest “oru30”: 3 papers would be created, 0 would be "
        "updated; 9 solutions would be created, 0 would be changed, 0 unchanged; 6 labels would "
        "be drawn."
    )
    assert row_counts() == counts


# --- AI outputs: refused input -----------------------------------------------------------------

PREDICTION = {"id": "12030010100", "pred": '["a", "b", "c"]', "explanation": ""}


# Python's json words a trailing comma as its version has it: 3.13 "Illegal trailing comma before
# end of object at column 13", 3.12 "Expecting property name enclosed in double quotes at column
# 14". The sentence quotes it as it comes; the test expects what this Python says.
TRAILING_COMMA = '{"team": "x",}'


def json_complaint(text: str) -> str:
    """What this Python's json says of `text`, as the importers' sentences quote it."""
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return f"{error.msg} at column {error.colno}"
    raise AssertionError(f"{text!r} is valid JSON")


@pytest.mark.parametrize(
    ("files", "sentences"),
    [
        pytest.param(
            {"sub.csv": "id,pred\n12030010100,a\n12030090100,b\n"},
            ["sub.csv, row 3, id: contest “oru30” has no task 12030090100."],
            id="unknown task id",
        ),
        pytest.param(
            {"raw.jsonl": '{"system": "s", "id": "12031010100", "output": "Answer: a"}\n'},
            [
                "raw.jsonl, line 1, id: 12031010100 is from the 2031 problem set, but contest "
                "“oru30” holds the 2030 one."
            ],
            id="id of another contest",
        ),
        pytest.param(
            {"07_x/predictions.json": '[\n  {"id": "12030010100", "pred": "[]"\n]\n'},
            [
                "07_x/predictions.json, line 3: malformed JSON (Expecting ',' delimiter at column 1)."
            ],
            id="malformed JSON",
        ),
        pytest.param(
            {
                "07_x/predictions.json": json.dumps([PREDICTION]),
                "07_x/metadata.json": TRAILING_COMMA,
            },
            [f"07_x/metadata.json, line 1: malformed JSON ({json_complaint(TRAILING_COMMA)})."],
            id="malformed metadata",
        ),
        pytest.param(
            {
                "raw.jsonl": '{"system": "s", "id": "12030010100", "output": "Answer: a"}\n{"system": "s",\n'
            },
            [
                "raw.jsonl, line 2: malformed JSON (Expecting property name enclosed in double quotes at column 16)."
            ],
            id="malformed JSONL line",
        ),
        pytest.param(
            {
                "raw.jsonl": '{"system": "s", "id": "12030010100"}\n{"system": "s",\n'
                '{"system": "s", "id": "12030090100", "output": "a"}\n'
            },
            [
                "raw.jsonl, line 2: malformed JSON (Expecting property name enclosed in double quotes at column 16).",
                "raw.jsonl, line 1: the field “output” is missing.",
                "raw.jsonl, line 3, id: contest “oru30” has no task 12030090100.",
            ],
            id="malformed JSONL line and problems on the other lines",
        ),
        pytest.param(
            {
                "07_x/predictions.json": json.dumps([PREDICTION]),
                "07_x/metadata.json": '{"team": ["a"]}',
            },
            ["07_x/metadata.json, team: expected text, found a list."],
            id="team not text",
        ),
        pytest.param(
            {"sub.csv": 'id,pred\n12030010100,"a\n'},
            ["sub.csv, row 2: malformed CSV (unexpected end of data)."],
            id="malformed CSV",
        ),
        pytest.param(
            {"sub.csv": "id,answer\n12030010100,a\n"},
            ["sub.csv, row 1: the column “pred” is missing."],
            id="missing column",
        ),
        pytest.param(
            {"raw.jsonl": '{"system": "s", "id": "12030010100"}\n'},
            ["raw.jsonl, line 1: the field “output” is missing."],
            id="missing field",
        ),
        pytest.param(
            {"07_x/predictions.json": json.dumps([{"id": "12030010100"}])},
            ["07_x/predictions.json, row 1: the field “pred” is missing."],
            id="missing pred",
        ),
        pytest.param(
            {"sub.csv": ""},
            ["sub.csv: the file is empty."],
            id="empty CSV",
        ),
        pytest.param(
            {"07_x/predictions.json": "[]"},
            ["07_x/predictions.json: the list of predictions is empty."],
            id="empty predictions",
        ),
        pytest.param(
            {"raw.jsonl": "\n"},
            ["raw.jsonl: the file is empty."],
            id="empty JSONL",
        ),
        pytest.param(
            {"sub.csv": "id,pred\n12030010100,caf\xe9\n".encode("latin-1")},
            [
                "sub.csv, line 2: the file is not UTF-8 text (byte 0xE9 cannot be read); "
                "save it as UTF-8."
            ],
            id="not UTF-8",
        ),
        pytest.param(
            {"sub.csv": "id,pred\n12030010100,a\n012030010100,b\n"},
            [
                "sub.csv, row 3, id: a second output of “sub” for task 12030010100 "
                "(the first is in sub.csv, row 2)."
            ],
            id="duplicate id",
        ),
        pytest.param(
            {
                "a.jsonl": '{"system": "s", "id": "12030010100", "output": "Answer: a"}\n',
                "b.jsonl": '{"system": "s", "id": "12030010100", "output": "Answer: b"}\n',
            },
            [
                "b.jsonl, line 1, id: a second output of “s” for task 12030010100 "
                "(the first is in a.jsonl, line 1)."
            ],
            id="duplicate id across files",
        ),
        pytest.param(
            {"notes.txt": "hello"},
            [
                "notes.txt: not an output file: give a competition record folder (with "
                "predictions.json), a submission .csv or a .jsonl of raw outputs."
            ],
            id="unknown shape",
        ),
        pytest.param(
            {
                "sub.csv": "id,pred\nabc,a\n",
                "raw.jsonl": '{"id": "12030010100", "output": 3.5, "system": ["s"]}\n',
            },
            [
                "sub.csv, row 2, id: “abc” is not a task id (1 + year + two-digit problem + "
                "two-digit task + 00, e.g. 12026030200).",
                "raw.jsonl, line 1, system: expected text, found a list.",
            ],
            id="several files, several problems",
        ),
    ],
)
def test_bad_outputs_are_refused_with_one_sentence_per_problem_and_nothing_written(
    oru, tmp_path, files, sentences
):
    outputs_import(contest_slug="oru30", paths=[HERON])
    heron = solutions_of("heron")
    paths = []
    for name, content in files.items():
        write(tmp_path / name, content)
        top = tmp_path / Path(name).parts[0]
        if top not in paths:
            paths.append(top)
    counts = row_counts()

    assert refused(outputs=True, contest_slug="oru30", paths=paths) == sentences
    assert row_counts() == counts
    assert solutions_of("heron") == heron


def test_a_path_that_does_not_exist_is_refused(oru, tmp_path):
    missing = tmp_path / "nowhere.csv"
    assert refused(outputs=True, contest_slug="oru30", paths=[missing]) == [
        f"{missing}: no such file or folder."
    ]


def test_outputs_for_a_contest_that_does_not_exist_are_refused(db):
    assert refused(outputs=True, contest_slug="nope", paths=[HERON]) == [
        "There is no contest “nope”; import its problem set first (manage.py import_problemset)."
    ]
    assert row_counts() == NOTHING


# --- management commands -----------------------------------------------------------------------


def test_import_problemset_command_creates_the_contest_and_prints_a_summary(db):
    out = StringIO()
    call_command(
        "import_problemset",
        "--contest",
        "oru30",
        "--name",
        "Oru 2030",
        str(TEST_CSV),
        str(SOLUTION_CSV),
        stdout=out,
    )
    assert out.getvalue() == "Contest “oru30” created with 2 problems and 5 tasks.\n"
    assert Contest.objects.get().name == "Oru 2030"


def test_import_problemset_command_lists_changed_tasks_at_verbosity_2(oru, tmp_path):
    changed = write(
        tmp_path / "solution.csv",
        SOLUTION_CSV.read_text(encoding="utf-8").replace("public,1.5", "private,1.5"),
    )
    out = StringIO()
    call_command(
        "import_problemset",
        "--contest=oru30",
        "--verbosity=2",
        str(TEST_CSV),
        str(changed),
        stdout=out,
    )
    assert out.getvalue() == (
        "Task 12030020200 changed.\n"
        "Contest “oru30”: 0 problems and 0 tasks created, 1 changed, 4 unchanged.\n"
    )


def test_import_problemset_command_dry_run_writes_nothing(db):
    out = StringIO()
    call_command("import_problemset", "--contest=oru30", "--dry-run", str(LINGUINI), stdout=out)
    assert out.getvalue() == (
        "Dry run, nothing written. Contest “oru30” would be created with 1 problem and 3 tasks.\n"
    )
    assert Contest.objects.count() == 0


def test_import_problemset_command_refuses_bad_input_with_every_sentence(db, tmp_path):
    test = write(tmp_path / "test.csv", "")
    solution = write(tmp_path / "solution.csv", "id,answer\n")
    with pytest.raises(CommandError) as error:
        call_command("import_problemset", "--contest=oru30", str(test), str(solution))
    assert str(error.value) == (
        "Nothing was imported; fix these first:\n"
        "  - test.csv: the file is empty.\n"
        "  - solution.csv: the file has a header but no rows."
    )
    assert row_counts() == NOTHING


def test_import_outputs_command_imports_every_shape_and_prints_a_summary(oru):
    out = StringIO()
    call_command(
        "import_outputs",
        "--contest=oru30",
        str(KESTREL),
        str(ANONYMOUS),
        str(HERON),
        str(RAW),
        stdout=out,
    )
    assert out.getvalue() == (
        "Contest “oru30”: 5 papers created, 0 updated; 14 solutions created, 0 changed, "
        "0 unchanged; 10 labels drawn.\n"
    )
    assert Paper.objects.count() == 5


def test_import_outputs_command_says_updated_per_system_at_verbosity_2(oru, tmp_path):
    call_command("import_outputs", "--contest=oru30", str(HERON), stdout=StringIO())
    renamed = tmp_path / "other.csv"
    shutil.copy(HERON, renamed)
    out = StringIO()
    call_command(
        "import_outputs", "--contest=oru30", "--system=heron", "-v", "2", str(renamed), stdout=out
    )
    assert out.getvalue() == (
        "heron: updated; 0 solutions created, 0 changed, 3 unchanged.\n"
        "Contest “oru30”: 0 papers created, 1 updated; 0 solutions created, 0 changed, "
        "3 unchanged; 0 labels drawn.\n"
    )
    assert Paper.objects.count() == 1


def test_import_outputs_command_refuses_an_unknown_contest(db):
    with pytest.raises(CommandError) as error:
        call_command("import_outputs", "--contest=nope", str(HERON))
    assert str(error.value) == (
        "Nothing was imported; fix these first:\n"
        "  - There is no contest “nope”; import its problem set first "
        "(manage.py import_problemset)."
    )


def test_import_outputs_command_dry_run_writes_nothing(oru):
    counts = row_counts()
    out = StringIO()
    call_command("import_outputs", "--contest=oru30", "--dry-run", str(HERON), stdout=out)
    assert out.getvalue() == (
        "Dry run, nothing written. Contest “oru30”: 1 paper would be created, 0 would be "
        "updated; 3 solutions would be created, 0 would be changed, 0 unchanged; 2 labels would "
        "be drawn.\n"
    )
    assert row_counts() == counts


def test_human_scores_with_an_unbalanced_quote_are_refused_as_malformed_with_the_line(oru):
    text = 'contestant,p1,p2\nAda,10,5\n"Bob,7,2\nCy,3,1\n'
    with pytest.raises(ValidationError) as refusal:
        human_scores_parse(contest=Contest.objects.get(slug="oru30"), text=text, name="h.csv")
    assert refusal.value.messages == [
        "h.csv, line 3: malformed CSV (unexpected end of data), in the row that starts on this "
        "line; check its quotes."
    ]
