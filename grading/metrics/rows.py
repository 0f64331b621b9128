"""The automatic ranking's CSV rows (`manage.py autoscore --csv`, `--per-task`): output made from
what `grading.metrics.autoscore` returns, figures with 4 decimals on the competition's 0–1 scale.

Columns are named as the competition's own files name the figures: `score`, `exact_match` and
`chrf` over every task (the final score), `public_*` over the public split, `private_split_*`
over the private split alone, `explanation_rate`, `format_*` and `empty_*`. A figure the
competition does not publish starts with `app_`. There is no `private_score` column: the
competition's scorer returns `private_score` for the final score over both splits (`score`
here), while this CSV once used it for the private split alone; one word, two numbers, so
neither file says it now. No command reads these files back."""

from collections.abc import Sequence

from grading.metrics.autoscore import DECIMALS, PaperResult, Scores

# Column → what it means; the README's table is checked against it.
COLUMN_MEANINGS = {
    "system": "the system's identity (the organizer's alone)",
    "score": "√(exact_match × chrf) over every task, both splits: the competition's final score",
    "exact_match": "weighted mean exact match over every task",
    "chrf": "weighted mean chrF over every task",
    "public_score": "score over the public split's tasks",
    "public_exact_match": "exact match over the public split's tasks",
    "public_chrf": "chrF over the public split's tasks",
    "private_split_score": "score over the private split's tasks alone (not the final score)",
    "private_split_exact_match": "exact match over the private split's tasks alone",
    "private_split_chrf": "chrF over the private split's tasks alone",
    "explanation_rate": "share of tasks with a non-empty explanation",
    "format_match_rate": (
        "share of tasks whose output had as many answers as items, over the tasks whose "
        "counts were kept at import"
    ),
    "empty_tasks": "tasks with no output or a blank one (an output of [] is not empty)",
    "app_empty_items": "items whose normalised answer is empty, over every task",
    "app_format_unknown_tasks": (
        "tasks left out of format_match_rate: imported before answer counts were kept"
    ),
    "app_rank": "rank by score among the contest's AI papers (equal scores share a rank)",
}
CSV_COLUMNS = list(COLUMN_MEANINGS)
PER_TASK_COLUMNS = ["system", "task_id", "split", "weight", "exact_match", "chrf"]

# The splits' column prefixes: the private split's is the competition's `private_split_`.
_PREFIXES = (("", "overall"), ("public_", "public"), ("private_split_", "private"))


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.{DECIMALS}f}"


def _figures(prefix: str, scores: Scores) -> dict:
    return {
        f"{prefix}score": _fmt(scores.score),
        f"{prefix}exact_match": _fmt(scores.exact_match),
        f"{prefix}chrf": _fmt(scores.chrf),
    }


def csv_rows(results: Sequence[PaperResult]) -> list[dict]:
    """One row per paper with the columns of `CSV_COLUMNS`, figures with 4 decimals."""
    rows = []
    for result in results:
        row = {"system": result.identity}
        for prefix, split in _PREFIXES:
            row.update(_figures(prefix, getattr(result, split)))
        diagnostics = result.diagnostics
        row.update(
            {
                "explanation_rate": _fmt(diagnostics.explanation_rate),
                "format_match_rate": _fmt(diagnostics.line_format_match_rate),
                "empty_tasks": diagnostics.empty_tasks,
                "app_empty_items": diagnostics.empty_items,
                "app_format_unknown_tasks": diagnostics.count_unknown,
                "app_rank": result.rank,
            }
        )
        rows.append(row)
    return rows


def per_task_rows(results: Sequence[PaperResult]) -> list[dict]:
    """One row per paper and task with the columns of `PER_TASK_COLUMNS`."""
    return [
        {
            "system": result.identity,
            "task_id": task.task.external_id,
            "split": task.task.split,
            "weight": str(task.task.effective_weight),
            "exact_match": _fmt(round(task.exact_match, DECIMALS)),
            "chrf": _fmt(round(task.chrf, DECIMALS)),
        }
        for result in results
        for task in result.tasks
    ]
