"""The importers' summaries word each count in the singular for one and the plural otherwise,
word for word as before they went through ngettext."""

import pytest

from grading.intake.importers.criterion_rates import RateImport
from grading.intake.importers.human_scores import HumanImport
from grading.intake.importers.outputs import OutputsSummary, SystemSummary
from grading.intake.importers.problemset import ProblemsetSummary
from grading.intake.importers.repair import repair_answer
from grading.models import HumanCriterionRate, HumanScore
from rubrics.models import Contest

CONTEST = Contest(slug="iol", name="IOL 2026")


@pytest.mark.parametrize(
    ("count", "sentence"),
    [
        (1, "Imported human rates for 1 criterion of IOL 2026 (replacing 0)."),
        (2, "Imported human rates for 2 criteria of IOL 2026 (replacing 0)."),
    ],
)
def test_criterion_rates_summary_counts_criteria(count, sentence):
    rates = [HumanCriterionRate() for _ in range(count)]
    assert str(RateImport(contest=CONTEST, rates=rates, replaced=0, dry_run=False)) == sentence


@pytest.mark.parametrize(
    ("count", "sentence"),
    [
        (1, "Would import 1 human contestant for IOL 2026 (replacing 3)."),
        (2, "Would import 2 human contestants for IOL 2026 (replacing 3)."),
    ],
)
def test_human_scores_summary_counts_contestants(count, sentence):
    scores = [HumanScore() for _ in range(count)]
    assert str(HumanImport(contest=CONTEST, scores=scores, replaced=3, dry_run=True)) == sentence


@pytest.mark.parametrize(
    ("count", "sentence"),
    [
        (1, "heron: created; 1 solution created, 0 changed, 0 unchanged."),
        (2, "heron: created; 2 solutions created, 0 changed, 0 unchanged."),
    ],
)
def test_a_systems_line_counts_its_solutions(count, sentence):
    assert SystemSummary(identity="heron", created=True, solutions_created=count).line() == sentence


@pytest.mark.parametrize(
    ("count", "sentence"),
    [
        (
            1,
            "Dry run, nothing written. Contest “oru30”: 1 paper would be created, 0 would be "
            "updated; 1 solution would be created, 0 would be changed, 0 unchanged; 1 label "
            "would be drawn.",
        ),
        (
            2,
            "Dry run, nothing written. Contest “oru30”: 2 papers would be created, 0 would be "
            "updated; 2 solutions would be created, 0 would be changed, 0 unchanged; 2 labels "
            "would be drawn.",
        ),
    ],
)
def test_the_outputs_summary_counts_papers_solutions_and_labels(count, sentence):
    systems = [
        SystemSummary(identity=f"system {n}", created=True, solutions_created=1)
        for n in range(count)
    ]
    summary = OutputsSummary(
        contest_slug="oru30", systems=systems, labels_created=count, dry_run=True
    )
    assert summary.line() == sentence


@pytest.mark.parametrize(
    ("count", "sentence"),
    [
        (1, "Contest “oru30”: nothing to change; 1 task already matches the files."),
        (2, "Contest “oru30”: nothing to change; 2 tasks already match the files."),
    ],
)
def test_a_problem_set_that_changes_nothing_counts_the_tasks_that_match(count, sentence):
    summary = ProblemsetSummary(
        contest_slug="oru30",
        contest_created=False,
        problems_created=0,
        tasks_created=0,
        tasks_unchanged=count,
    )
    assert summary.line() == sentence


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ("**kelo**\nmari", "Removed markdown emphasis around 1 answer."),
        ("**kelo**\n*mari*", "Removed markdown emphasis around 2 answers."),
    ],
)
def test_the_repair_note_counts_the_emphasised_answers(text, note):
    assert repair_answer(text)[1] == [note]
