"""Importers: a problem set (competition CSVs or Linguini JSONL) into a contest's problems and
tasks, and AI systems' outputs (record folders, submission CSVs, raw-output JSONL) into papers.
Both check everything first, raise ImportProblems with one sentence per problem, and write in
one transaction."""

from grading.intake.importers.errors import ImportProblems
from grading.intake.importers.outputs import (
    OutputsSummary,
    SystemSummary,
    outputs_import,
    outputs_read,
)
from grading.intake.importers.problemset import (
    ProblemsetSummary,
    problemset_import,
    problemset_read,
    problemset_read_csv,
    problemset_read_jsonl,
)

__all__ = [
    "ImportProblems",
    "OutputsSummary",
    "ProblemsetSummary",
    "SystemSummary",
    "outputs_import",
    "outputs_read",
    "problemset_import",
    "problemset_read",
    "problemset_read_csv",
    "problemset_read_jsonl",
]
