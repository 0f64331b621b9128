import csv
import math
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from grading.intake.importers.outputs import outputs_import
from grading.metrics import autoscore
from grading.metrics import rows as autoscore_rows
from grading.metrics.autoscore import (
    aggregate,
    chrf,
    contest_autoscore,
    exact_match,
    normalise,
    score_item,
    score_task,
)
from grading.metrics.jury_selection import papers_select_for_jury
from grading.models import Paper, Solution
from grading.papers.answers import fit_to_items, split_answer_text
from rubrics.models import Contest, Problem, Task
from tests import factories

# --- The competition's vectors -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("prediction", "reference", "expected"),
    [
        # sacrebleu's sentence chrF would give 0.6364 here: it averages per-order F-scores.
        ("ab", "abc", 0.4430),
        ("kpâpî", "kpapi", 0.1700),
        ("ḿbwa", "mbwa", 0.4792),
        ("I held them yesterday", "I held you all yesterday", 0.5114),
    ],
)
def test_chrf_reproduces_the_competition_scorers_vectors(prediction, reference, expected):
    assert round(chrf(prediction, reference), 4) == expected


def test_chrf_composes_a_decomposed_accent_before_counting():
    decomposed = "m\u0301bwa"
    assert round(chrf(decomposed, "mbwa"), 4) == 0.4792
    assert chrf(decomposed, "\u1e3fbwa") == 1.0


def test_chrf_puts_the_prediction_first():
    # The reverse order weighs recall on the other string and gives another figure.
    assert round(chrf("abc", "ab"), 4) == 0.7609


@pytest.mark.parametrize(
    ("prediction", "reference", "expected"),
    [("", "", 1.0), ("", "abc", 0.0), ("abc", "", 0.0), (" . ", "", 1.0), ("xy", "ab", 0.0)],
)
def test_chrf_of_empty_strings_and_no_shared_characters(prediction, reference, expected):
    assert chrf(prediction, reference) == expected


def test_normalise_removes_quotes_case_and_trailing_period():
    assert normalise('  "Tallirraq." ') == "tallirraq"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("‘kelo’", "kelo"),
        ("'kelo'", "kelo"),
        ("\"kelo'", "\"kelo'"),
        ('"', '"'),
        ("The  dog\n sleeps...", "the dog sleeps"),
        ("e\u0301", "\u00e9"),
        (None, ""),
    ],
)
def test_normalise_follows_the_competitions_steps_in_order(text, expected):
    assert normalise(text) == expected


def test_curly_apostrophe_matches_a_straight_one_exactly():
    assert exact_match("they’re here", "they're here") == 1


def test_an_empty_reference_never_counts_as_an_exact_match():
    assert (exact_match("", ""), exact_match(" ", "."), exact_match("x", "y")) == (0, 0, 0)


def _read(text: str, item_count: int) -> tuple[list[str], list[str]]:
    # What the outputs importer does with an answer text before storing it.
    return fit_to_items(split_answer_text(text), item_count)


def test_numbered_lines_are_parsed_and_padded_to_the_item_count():
    answers, notes = _read("1. alpha\n2) beta\n\n3.gamma", 4)
    assert answers == ["alpha", "beta", "gamma", ""]
    assert notes == ["3 answers for 4 items: padded with 1 empty answer."]


def test_a_json_list_is_parsed_with_null_entries_empty_and_a_bare_null_is_text():
    assert _read('["a", null, "c"]', 3) == (["a", "", "c"], [])
    # The scorer reads only a list as JSON: a bare null is the one-line answer "null".
    assert _read("null", 2)[0] == ["null", ""]


def test_the_three_task_aggregate_of_the_issue():
    # A text output is split into answers when it is imported; the stored answers are scored.
    first = score_task(split_answer_text("1. qayaq\n2. arnak"), [["qayaq"], ["arnaq"]])
    assert first[0] == 0.5
    assert first[1] == pytest.approx((1 + 0.5433) / 2, abs=1e-4)
    assert round(chrf("arnak", "arnaq"), 4) == 0.5433
    second = score_task(["english", "eyes"], [["the English language", "English"], ["eye"]])
    assert round(chrf("eyes", "eye"), 4) == 0.8214
    assert second == (0.5, pytest.approx((1 + 0.8214285714) / 2))
    third = score_task(["whatever"], [["Plural: suffix -ri."]])
    result = aggregate([(*first, 1), (*second, 1), (*third, 0)])
    assert (result.exact_match, result.chrf, result.score) == (0.5, 0.8412, 0.6485)


def test_short_predictions_are_padded_with_empty_answers():
    # The missing second item scores 0 on both metrics.
    assert score_task(["qayaq"], [["qayaq"], ["arnaq"]]) == (0.5, 0.5)


def test_long_predictions_are_cut_to_the_item_count():
    assert score_task(["qayaq", "arnaq", "extra", "more"], [["qayaq"], ["arnaq"]]) == (1.0, 1.0)


def test_alternatives_take_the_best_exact_match_and_the_best_chrf_each_on_its_own():
    assert score_item("English", ["the English language", "English"]) == (1, 1.0)
    em, best_chrf = score_item("eyes", ["nose", "eye"])
    assert (em, round(best_chrf, 4)) == (0, 0.8214)
    # A bare string counts as one alternative.
    assert score_item("eye", "eye") == (1, 1.0)


def test_aggregate_weighs_tasks_and_computes_the_score_from_unrounded_means():
    result = aggregate([(1.0, 1.0, Decimal("3")), (0.0, 0.5, Decimal("1"))])
    assert (result.exact_match, result.chrf, result.score) == (
        0.75,
        0.875,
        round(math.sqrt(0.75 * 0.875), 4),
    )


def test_aggregate_without_weight_has_no_figures():
    assert aggregate([(1.0, 1.0, 0)]) == autoscore.Scores(None, None, None)
    assert aggregate([]) == autoscore.Scores(None, None, None)


# --- A contest in the database -----------------------------------------------------------------


def _contest(papers: dict[str, dict[str, dict]] | None = None, slug: str = "ai") -> Contest:
    """Problem 1 with the issue's three tasks: qayaq/arnaq (public, weight 1), the English/eye
    (private, weight 1), and an explanation-only task (weight 0). `papers` maps an identity to
    {task number: solution fields}."""
    contest = Contest.objects.create(slug=slug, name=f"Contest {slug}", state="grading")
    problem = Problem.objects.create(contest=contest, number=1)
    tasks = {
        "1": Task.objects.create(
            problem=problem,
            number=1,
            external_id="12026010100",
            task_type="translation",
            item_count=2,
            answers=[["qayaq"], ["arnaq"]],
            split="public",
            weight=Decimal("1"),
        ),
        "2": Task.objects.create(
            problem=problem,
            number=2,
            external_id="12026010200",
            task_type="translation",
            item_count=2,
            answers=[["the English language", "English"], ["eye"]],
            split="private",
            weight=Decimal("1"),
        ),
        "3": Task.objects.create(
            problem=problem,
            number=3,
            external_id="12026010300",
            task_type="explanation",
            item_count=1,
            answers=[["Plural: suffix -ri."]],
            split="public",
            # Explanation-only weighs 0 even when the file gave it a weight.
            weight=Decimal("5"),
        ),
    }
    for identity, solutions in (papers or {}).items():
        paper = Paper.objects.create(contest=contest, identity=identity)
        for number, fields in solutions.items():
            # As the importer keeps them, unless the paper says otherwise.
            counts = {
                "answers_given": len(fields.get("answers", [])),
                "items_expected": tasks[number].item_count,
            }
            Solution.objects.create(paper=paper, task=tasks[number], **(counts | fields))
    return contest


ISSUE_PAPER = {
    "1": {"answers": ["qayaq", "arnak"], "explanation": "Suffix *-q*."},
    "2": {"answers": ["english", "eyes"], "explanation": ""},
    "3": {"answers": [""], "explanation": "  "},
}
PERFECT_PAPER = {
    "1": {"answers": ["qayaq", "arnaq"], "explanation": "a"},
    "2": {"answers": ["English", "eye"], "explanation": "b"},
    "3": {"answers": ["plural"], "explanation": "c"},
}
WEAK_PAPER = {
    "1": {
        "answers": ["qayak", ""],
        "parse_notes": ["1 answer for 2 items: padded with 1 empty answer."],
        "answers_given": 1,
        "items_expected": 2,
    },
}


def test_contest_autoscore_reproduces_the_issue_aggregate_overall_and_per_split(db):
    contest = _contest({"Team Orca": ISSUE_PAPER})
    (result,) = contest_autoscore(contest=contest)
    assert result.identity == "Team Orca"
    assert result.overall == autoscore.Scores(0.5, 0.8412, 0.6485)
    # Public: the qayaq task alone, chrF (1 + 0.5433) / 2; private: the English task alone.
    assert result.public == autoscore.Scores(0.5, 0.7717, 0.6212)
    assert result.private == autoscore.Scores(0.5, 0.9107, 0.6748)


def test_ranking_orders_papers_by_score_and_diagnoses_their_format(db):
    contest = _contest(
        {"Team Weak": WEAK_PAPER, "Team Orca": ISSUE_PAPER, "Team Best": PERFECT_PAPER}
    )
    results = contest_autoscore(contest=contest)
    assert [(r.rank, r.identity, r.overall.score) for r in results] == [
        (1, "Team Best", 1.0),
        (2, "Team Orca", 0.6485),
        (3, "Team Weak", 0.0),
    ]
    weak = results[2]
    # Only the public task has a solution: chrF("qayak", "qayaq") / 2 over two items.
    assert weak.public == autoscore.Scores(0.0, round(chrf("qayak", "qayaq") / 2, 4), 0.0)
    assert weak.private == autoscore.Scores(0.0, 0.0, 0.0)
    diagnostics = [
        (
            d.tasks,
            d.items,
            d.empty_items,
            d.empty_tasks,
            d.count_mismatches,
            d.line_format_match_rate,
            d.explanation_rate,
        )
        for d in (r.diagnostics for r in results)
    ]
    assert diagnostics == [
        (3, 5, 0, 0, 0, 1.0, 1.0),
        # The explanation-only task left empty; one explanation is only spaces.
        (3, 5, 1, 1, 0, 1.0, 0.3333),
        # Two tasks missing (empty, and 0 answers for their items) plus one padded.
        (3, 5, 4, 2, 3, 0.0, 0.0),
    ]


def test_empty_counts_blank_outputs_as_the_competition_does_not_empty_lists(db):
    # The competition's records say `format.empty` for a blank `pred` only: `[]` and `[""]`
    # are outputs (with empty items), a pred of spaces is empty.
    paper = {
        "1": {"answers": ["", ""], "raw": "[]"},
        "2": {"answers": ["", ""], "raw": '[""]'},
        "3": {"answers": [""], "raw": "  \n"},
    }
    (result,) = contest_autoscore(contest=_contest({"Team Terse": paper}))
    d = result.diagnostics
    assert (d.empty_tasks, d.empty_items, d.items) == (1, 5, 5)


def test_format_figure_is_the_share_of_tasks_answered_with_as_many_answers_as_items(db, tmp_path):
    contest = _contest()
    submission = tmp_path / "kelo-team.csv"
    with submission.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["id", "pred"])
        writer.writerow(["12026010100", "qayaq"])  # 1 answer for 2 items: the singular note
        writer.writerow(["12026010200", "1. English\n2. eye"])
        writer.writerow(["12026010300", "Plural: suffix -ri."])
    outputs_import(contest_slug=contest.slug, paths=[submission])
    (result,) = contest_autoscore(contest=contest)
    assert (result.diagnostics.count_mismatches, result.diagnostics.format_percent) == (1, 66.7)
    assert Solution.objects.get(task__number=1).parse_notes == [
        "1 answer for 2 items: padded with 1 empty answer."
    ]


def test_format_figure_leaves_out_solutions_that_predate_their_counts(db):
    paper = {"1": {"answers": ["qayaq", ""], "answers_given": None, "items_expected": None}}
    contest = _contest({"Team Old": paper | {"2": {"answers": ["English", "eye"]}}})
    (result,) = contest_autoscore(contest=contest)
    # Task 3 is missing (0 answers for 1 item); task 1's counts are unknown.
    assert (result.diagnostics.count_unknown, result.diagnostics.line_format_match_rate) == (
        1,
        0.5,
    )


def test_papers_with_equal_scores_share_a_rank(db):
    contest = _contest({"A": PERFECT_PAPER, "B": PERFECT_PAPER, "C": ISSUE_PAPER})
    assert [r.rank for r in contest_autoscore(contest=contest)] == [1, 1, 3]


def test_contest_without_private_tasks_has_no_private_figures(db):
    contest = _contest({"Team Orca": ISSUE_PAPER})
    Task.objects.filter(split="private").update(split="public")
    (result,) = contest_autoscore(contest=contest)
    assert result.private == autoscore.Scores(None, None, None)
    assert result.public == result.overall
    assert autoscore_rows.csv_rows([result])[0]["private_split_score"] == ""


def test_contest_autoscore_runs_three_queries_whatever_the_number_of_papers(
    db, django_assert_num_queries
):
    contest = _contest({f"S{i}": ISSUE_PAPER for i in range(12)})
    with django_assert_num_queries(3):
        assert len(contest_autoscore(contest=contest)) == 12


# --- The command -------------------------------------------------------------------------------


def _read_csv(path):
    # Written with a byte-order mark, so that Excel on Windows reads names right.
    assert path.read_bytes()[:3] == b"\xef\xbb\xbf"
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        return reader.fieldnames, list(reader)


def test_command_writes_one_csv_row_per_paper_with_the_competitions_columns(db, tmp_path):
    _contest({"Team Weak": WEAK_PAPER, "Team Orca": ISSUE_PAPER})
    path = tmp_path / "scores.csv"
    call_command("autoscore", contest="ai", csv_path=path, verbosity=0)
    columns, rows = _read_csv(path)
    assert columns == [
        "system",
        "score",
        "exact_match",
        "chrf",
        "public_score",
        "public_exact_match",
        "public_chrf",
        "private_split_score",
        "private_split_exact_match",
        "private_split_chrf",
        "explanation_rate",
        "format_match_rate",
        "empty_tasks",
        "app_empty_items",
        "app_format_unknown_tasks",
        "app_rank",
    ]
    assert rows[0] == {
        "system": "Team Orca",
        "score": "0.6485",
        "exact_match": "0.5000",
        "chrf": "0.8412",
        "public_score": "0.6212",
        "public_exact_match": "0.5000",
        "public_chrf": "0.7717",
        "private_split_score": "0.6748",
        "private_split_exact_match": "0.5000",
        "private_split_chrf": "0.9107",
        # The explanation-only task left empty; one explanation is only spaces.
        "explanation_rate": "0.3333",
        "format_match_rate": "1.0000",
        "empty_tasks": "1",
        "app_empty_items": "1",
        "app_format_unknown_tasks": "0",
        "app_rank": "1",
    }
    assert [row["system"] for row in rows] == ["Team Orca", "Team Weak"]


def test_the_csv_names_the_private_split_as_the_competition_does_and_never_private_score(
    db, tmp_path
):
    # The competition's scorer returns `private_score` for the final score over both splits,
    # and its metrics.json says `private_split_*` for the private split alone: a column named
    # `private_score` holding the private split (0.6748 here, against a final 0.6485) gives
    # one word two numbers.
    _contest({"Team Orca": ISSUE_PAPER})
    path = tmp_path / "scores.csv"
    call_command("autoscore", contest="ai", csv_path=path, verbosity=0)
    columns, (row,) = _read_csv(path)
    assert [c for c in columns if c.startswith("private")] == [
        "private_split_score",
        "private_split_exact_match",
        "private_split_chrf",
    ]
    assert (row["score"], row["private_split_score"]) == ("0.6485", "0.6748")


def test_every_csv_column_is_the_competitions_name_or_says_it_is_the_apps():
    competition = {"system", "score", "exact_match", "chrf", "explanation_rate"}
    for column in autoscore_rows.CSV_COLUMNS:
        assert column in competition or column.startswith(
            ("public_", "private_split_", "format_", "empty_", "app_")
        ), column


def test_the_readme_documents_every_autoscore_csv_column():
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    section = readme.split("`autoscore --csv` columns", 1)[1].split("`--per-task`", 1)[0]
    documented = set(re.findall(r"`([a-z_]+)`", section))
    assert set(autoscore_rows.CSV_COLUMNS) - documented == set()


def test_command_writes_a_per_task_csv(db, tmp_path):
    _contest({"Team Orca": ISSUE_PAPER})
    path = tmp_path / "tasks.csv"
    call_command("autoscore", "--contest", "ai", "--per-task", str(path), verbosity=0)
    columns, rows = _read_csv(path)
    assert columns == ["system", "task_id", "split", "weight", "exact_match", "chrf"]
    assert [list(row.values()) for row in rows] == [
        ["Team Orca", "12026010100", "public", "1.00", "0.5000", "0.7717"],
        ["Team Orca", "12026010200", "private", "1.00", "0.5000", "0.9107"],
        ["Team Orca", "12026010300", "public", "0", "0.0000", "0.0000"],
    ]


def test_command_prints_the_ranking_with_identities_and_a_summary(db, capsys):
    _contest({"Team Weak": WEAK_PAPER, "Team Orca": ISSUE_PAPER})
    call_command("autoscore", contest="ai")
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:3] == ["1", "Team", "Orca"]
    assert lines[1].split()[3:6] == ["64.85", "50.00", "84.12"]
    assert lines[-1] == "Scored 2 papers of ai."


def test_command_prints_long_names_whole_in_a_column_as_wide_as_the_longest(db, capsys):
    long_name = "Team Orca with a very long system name, v2.1"
    _contest({"Team Weak": WEAK_PAPER, long_name: ISSUE_PAPER})
    call_command("autoscore", contest="ai")
    header, orca, weak = capsys.readouterr().out.splitlines()[:3]
    assert orca[6 : 6 + len(long_name)] == long_name
    # The figures end under their right-aligned headings whatever the name's length.
    ends = [line.index(word) + len(word) for line, word in ((header, "score"), (weak, "0.00"))]
    assert ends == [orca.index("64.85") + len("64.85")] * 2


def test_csv_and_per_task_cannot_both_go_to_standard_output(db, tmp_path, monkeypatch):
    _contest({"Team Orca": ISSUE_PAPER})
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CommandError) as error:
        call_command("autoscore", "--contest=ai", "--csv=-", "--per-task=-", verbosity=0)
    assert str(error.value) == (
        "Only one of --csv and --per-task can write to standard output (-); give the other a "
        "file name."
    )
    assert list(tmp_path.iterdir()) == []


def test_select_top_marks_the_best_papers_and_unmarks_the_others(db, capsys):
    contest = _contest(
        {"Team Weak": WEAK_PAPER, "Team Orca": ISSUE_PAPER, "Team Best": PERFECT_PAPER}
    )
    Paper.objects.filter(identity="Team Weak").update(selected_for_jury=True)
    call_command("autoscore", contest="ai", select_top=2)
    assert capsys.readouterr().out.splitlines()[-1] == (
        "Scored 3 papers of ai. Selected 2 papers for jury grading."
    )
    assert dict(contest.papers.values_list("identity", "selected_for_jury")) == {
        "Team Best": True,
        "Team Orca": True,
        "Team Weak": False,
    }


def test_select_top_with_dry_run_changes_nothing(db, capsys):
    contest = _contest({"Team Weak": WEAK_PAPER, "Team Best": PERFECT_PAPER})
    call_command("autoscore", contest="ai", select_top=1, dry_run=True)
    assert capsys.readouterr().out.splitlines()[-1] == (
        "Scored 2 papers of ai. Dry run: would select 1 papers for jury grading: Team Best."
    )
    assert list(contest.papers.filter(selected_for_jury=True)) == []


def test_command_refuses_an_unknown_contest_with_a_sentence(db):
    _contest()
    with pytest.raises(CommandError) as error:
        call_command("autoscore", contest="nope", verbosity=0)
    assert str(error.value) == "There is no contest “nope”. Known contests: ai."


def test_selecting_a_paper_of_another_contest_is_refused_and_nothing_changes(db):
    contest = _contest({"A": PERFECT_PAPER})
    other = _contest({"B": PERFECT_PAPER}, slug="other")
    stranger = other.papers.get()
    own = contest.papers.get()
    with pytest.raises(ValidationError) as error:
        papers_select_for_jury(contest=contest, paper_ids=[own.pk, stranger.pk])
    assert error.value.messages == [
        f"Paper #{stranger.pk} is not in contest ai; nothing was changed."
    ]
    assert Paper.objects.filter(selected_for_jury=True).count() == 0


# --- The organizer's page ----------------------------------------------------------------------


@pytest.fixture
def ranked_contest(db):
    return _contest({"Team Weak": WEAK_PAPER, "Team Orca": ISSUE_PAPER})


def _url(contest):
    return reverse("autoscore_ranking", kwargs={"contest": contest.slug})


def test_organizer_sees_the_ranking_with_identities(client, organizer, ranked_contest):
    client.force_login(organizer)
    response = client.get(_url(ranked_contest))
    assert response.status_code == 200
    results = response.context["results"]
    assert [(r.identity, r.overall.display["score"]) for r in results] == [
        ("Team Orca", "64.85"),
        ("Team Weak", "0.00"),
    ]
    assert response.content.decode().count("Team Orca") == 2  # the cell and the checkbox label


@pytest.mark.parametrize("role", ["juror", "chair"])
def test_jurors_and_the_chair_get_a_404(client, request, role, ranked_contest):
    client.force_login(request.getfixturevalue(role))
    assert client.get(_url(ranked_contest)).status_code == 404
    assert client.post(_url(ranked_contest), {"selected": []}).status_code == 404


def test_anonymous_visitor_is_sent_to_the_login_page(client, ranked_contest):
    response = client.get(_url(ranked_contest))
    assert (response.status_code, response.url) == (
        302,
        f"{reverse('login')}?next={_url(ranked_contest)}",
    )


def test_organizer_selects_papers_for_jury_grading(client, organizer, ranked_contest):
    client.force_login(organizer)
    orca = ranked_contest.papers.get(identity="Team Orca")
    Paper.objects.filter(identity="Team Weak").update(selected_for_jury=True)
    response = client.post(_url(ranked_contest), {"selected": [str(orca.pk)]}, follow=True)
    assert response.redirect_chain == [(_url(ranked_contest), 302)]
    assert [str(m) for m in response.context["messages"]] == [
        "1 AI paper selected for jury grading; jurors will be assigned only selected AI "
        "papers and every contestant's paper."
    ]
    assert dict(ranked_contest.papers.values_list("identity", "selected_for_jury")) == {
        "Team Orca": True,
        "Team Weak": False,
    }


def test_selection_without_a_csrf_token_is_refused(organizer, ranked_contest):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    orca = ranked_contest.papers.get(identity="Team Orca")
    assert client.post(_url(ranked_contest), {"selected": [str(orca.pk)]}).status_code == 403
    assert ranked_contest.papers.filter(selected_for_jury=True).count() == 0


def test_home_links_the_ranking_for_the_organizer_only(client, organizer, chair, ranked_contest):
    client.force_login(organizer)
    assert client.get(reverse("home")).content.decode().count(_url(ranked_contest)) == 1
    client.force_login(chair)
    assert client.get(reverse("home")).content.decode().count(_url(ranked_contest)) == 0


@pytest.mark.parametrize("papers", [5, 300])
def test_ranking_page_runs_a_fixed_number_of_queries(
    client, organizer, django_assert_num_queries, papers
):
    contest = factories.make_contest("big", problems=2, papers=papers)
    client.force_login(organizer)
    # With the header's count of unread notifications.
    with django_assert_num_queries(8):
        response = client.get(_url(contest))
    assert len(response.context["results"]) == papers
