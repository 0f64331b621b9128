"""The console and the restore word their counts in the singular for one and the plural
otherwise: the scans' page plan and a restore's summary of the users it created."""

import pytest

from grading.backup.reader import ImportSummary
from grading.console.imports import _plan_lines
from rubrics.models import Contest


@pytest.mark.parametrize(("pages", "said"), [(1, "1 page"), (2, "2 pages")])
def test_the_scans_plan_counts_a_problems_pages(pages, said):
    assert _plan_lines([("C101", 3, pages)]) == [f"C101, problem 3: {said}."]


@pytest.mark.parametrize(
    ("users", "said"),
    [(["ana"], "created 1 user"), (["ana", "ben"], "created 2 users")],
)
def test_a_restores_summary_counts_the_users_it_created(users, said):
    summary = ImportSummary(
        contest=Contest(slug="iol", name="IOL 2026"),
        papers=3,
        marks=12,
        mark_events=14,
        users_created=users,
    )
    assert str(summary) == (
        f"Restored IOL 2026 (iol): 3 papers, 12 marks, 14 mark events; {said} with unusable "
        "passwords."
    )
