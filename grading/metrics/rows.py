"""The automatic ranking's CSV rows (`manage.py autoscore --csv`, `--per-task`): output made from
what `grading.metrics.autoscore` returns, the competition's column names, figures with 4 decimals."""

from collections.abc import Sequence

from grading.metrics.autoscore import DECIMALS, PaperResult

CSV_COLUMNS = [
    "system",
    "exact_match",
    "chrf",
    "score",
    "public_exact_match",
    "public_chrf",
    "public_score",
    "private_exact_match",
    "private_chrf",
    "private_score",
]
PER_TASK_COLUMNS = ["system", "task_id", "split", "weight", "exact_match", "chrf"]


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.{DECIMALS}f}"


def csv_rows(results: Sequence[PaperResult]) -> list[dict]:
    """One row per paper with the columns of `CSV_COLUMNS`, figures with 4 decimals."""
    rows = []
    for result in results:
        row = {"system": result.identity}
        for prefix, scores in (
            ("", result.overall),
            ("public_", result.public),
            ("private_", result.private),
        ):
            row[f"{prefix}exact_match"] = _fmt(scores.exact_match)
            row[f"{prefix}chrf"] = _fmt(scores.chrf)
            row[f"{prefix}score"] = _fmt(scores.score)
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
