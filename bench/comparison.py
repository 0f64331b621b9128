"""Contest-wide discrepancy computation: the application's selector over the database against
pandas over a CSV of the same marks.

1,000 papers × 5 problems × 3 jurors × 12 criteria = 180,000 submitted marks in a throw-away
SQLite database (the application's own settings: WAL, immediate transactions). The application
side is `grading.selectors.comparison.contest_discrepancies`; the pandas side reads the CSV and
finds the (paper, criterion) groups whose marks differ by more than the criterion's tolerance.
Both give the same cells (checked). The figure is the best of several runs of each.

Run: .venv/bin/python bench/comparison.py   (prints: name  ratio  goal  met/not met)"""

import os
import random
import shutil
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")
os.environ.pop("DATABASE_URL", None)

PAPERS, PROBLEMS, JURORS, CRITERIA = 1000, 5, 3, 12
RUNS = 5
GOAL = 1.0


def main() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="jury-bench-"))
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = workdir / "bench.sqlite3"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    contest, marks_csv, tolerance = build(workdir)

    import pandas as pd

    from grading.selectors.comparison import contest_discrepancies

    def ours():
        return contest_discrepancies(contest)

    def with_pandas():
        frame = pd.read_csv(marks_csv)
        spread = frame.groupby(["paper", "criterion"], sort=False)["points"].agg(["min", "max"])
        limit = spread.index.get_level_values("criterion").map(tolerance)
        return spread[(spread["max"] - spread["min"]).to_numpy() > limit.to_numpy()]

    ours_cells = {(p, c) for p, c, _, _ in ours()}
    pandas_cells = set(with_pandas().index)
    if ours_cells != pandas_cells:
        sys.exit(f"The two sides disagree: {len(ours_cells)} against {len(pandas_cells)} cells.")
    ours_time = best(ours)
    pandas_time = best(with_pandas)
    ratio = ours_time / pandas_time
    print(
        f"# {PAPERS} papers × {PROBLEMS} problems × {JURORS} jurors × {CRITERIA} criteria, "
        f"{len(ours_cells)} discrepancies; selector {ours_time * 1000:.0f} ms, "
        f"pandas {pandas_time * 1000:.0f} ms (best of {RUNS})",
        file=sys.stderr,
    )
    met = "met" if ratio <= GOAL else "not met"
    print(f"comparison_discrepancies_vs_pandas  {ratio:.2f}x  <={GOAL:g}x  {met}")
    from django.db import connections

    connections.close_all()
    shutil.rmtree(workdir, ignore_errors=True)


def best(function) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def build(workdir: Path):
    """The contest and its marks, written straight with bulk_create (the services' validation
    and history are not what is measured), and the same marks as a CSV."""
    from django.contrib.auth.models import User

    from grading.models import Assignment, Mark, Paper, Sheet
    from rubrics.models import Contest, Criterion, Problem

    rng = random.Random(2026)
    contest = Contest.objects.create(slug="bench", name="Bench", state="resolution")
    problems = Problem.objects.bulk_create(
        Problem(contest=contest, number=n) for n in range(1, PROBLEMS + 1)
    )
    criteria = Criterion.objects.bulk_create(
        Criterion(
            problem=problem,
            code=f"C{index}",
            kind="assignment",
            title=f"criterion {index}",
            points=Decimal("2"),
            step=Decimal("0.5"),
            tolerance=Decimal("0.5") if index % 4 == 0 else Decimal("0"),
            order=index,
        )
        for problem in problems
        for index in range(1, CRITERIA + 1)
    )
    papers = Paper.objects.bulk_create(
        Paper(contest=contest, identity=f"system-{index}") for index in range(PAPERS)
    )
    jurors = {
        problem.pk: User.objects.bulk_create(
            User(username=f"juror-{problem.number}-{j}") for j in range(JURORS)
        )
        for problem in problems
    }
    Assignment.objects.bulk_create(
        Assignment(paper=paper, problem=problem, juror=juror)
        for problem in problems
        for juror in jurors[problem.pk]
        for paper in papers
    )
    sheets = {
        (problem.pk, juror.pk): Sheet.objects.create(
            juror=juror, problem=problem, state=Sheet.State.SUBMITTED
        )
        for problem in problems
        for juror in jurors[problem.pk]
    }
    steps = [Decimal("0"), Decimal("0.5"), Decimal("1"), Decimal("1.5"), Decimal("2")]
    marks, lines = [], ["paper,criterion,juror,points"]
    for criterion in criteria:
        problem_id = criterion.problem_id
        for paper in papers:
            base = rng.randrange(len(steps))
            for juror in jurors[problem_id]:
                # Some 6% of the cells disagree beyond their tolerance.
                shift = rng.choice((-1, 1)) if rng.random() < 0.035 else 0
                points = steps[min(max(base + shift, 0), len(steps) - 1)]
                marks.append(
                    Mark(
                        sheet=sheets[(problem_id, juror.pk)],
                        paper=paper,
                        criterion=criterion,
                        points=points,
                        version=1,
                    )
                )
                lines.append(f"{paper.pk},{criterion.pk},{juror.pk},{points}")
    Mark.objects.bulk_create(marks, batch_size=5000)
    # The marks went in behind the services' back, so their cells' ranges are computed once,
    # as a restore does; the application keeps them from then on, one cell per changed mark.
    from grading.services.cell_spreads import cell_spreads_rebuild

    start = time.perf_counter()
    cell_spreads_rebuild(contest=contest)
    print(
        f"# cell ranges rebuilt from the {len(marks)} marks in "
        f"{time.perf_counter() - start:.2f} s (set-up, not timed in the figure)",
        file=sys.stderr,
    )
    marks_csv = workdir / "marks.csv"
    marks_csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tolerance = {criterion.pk: float(criterion.tolerance) for criterion in criteria}
    return contest, marks_csv, tolerance


if __name__ == "__main__":
    main()
