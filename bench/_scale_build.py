"""The olympiad-size contest of bench/scale.py, built through the documented commands. Not a
benchmark itself (`scripts/bench.sh` runs only the others).

A contest is the demo's problem set and six AI systems (its data files, through
`import_problemset`, `load_schemes` and `import_outputs`, as `load_demo` imports them), with the
demo's schemes widened to 15 criteria per problem, N contestants' scanned papers
(`import_scans` with a page map), 40 jurors in groups of 8 (`assign_jurors --per-problem 2
--problem 3=3`, `open_grading`) and every sheet filled and submitted."""

import io
import json
import random
import time
from decimal import Decimal
from pathlib import Path

from django.core.management import call_command

PROBLEMS = 5
CRITERIA_PER_PROBLEM = 15
JURORS = 40
# The cells where the second juror (or third, on problem 3) gives two steps more or less.
DISAGREE = 0.03


def widened_schemes(folder: Path) -> Path:
    """The demo's scheme files with 15 criteria a problem (the issue's size): the assignment
    criteria kept, the theory points shared out in half (or quarter) points over T1, T2, …
    so that each problem is still worth what its problem set says."""
    import tomllib

    from grading.demo.loader import SCHEMES

    folder.mkdir(parents=True, exist_ok=True)
    for source in sorted(SCHEMES.glob("*.toml")):
        scheme = tomllib.loads(source.read_text())
        kept = [c for c in scheme["criteria"] if c["kind"] == "assignment"]
        theory_points = sum(Decimal(str(c["points"])) for c in scheme["criteria"] if c not in kept)
        count = CRITERIA_PER_PROBLEM - len(kept)
        # Half points where the problem has enough theory points, quarter points otherwise.
        step = Decimal("0.5") if theory_points * 2 >= count else Decimal("0.25")
        units = int(theory_points / step)
        assert units >= count, f"{source.name}: too few theory points for {count} criteria"
        theory = [
            {"code": f"T{n + 1}", "kind": "theory", "title": f"Rule {n + 1}",
             "points": (units // count + (n < units % count)) * step, "step": step}
            for n in range(count)
        ]  # fmt: skip
        lines = [f"{key} = {_toml(value)}" for key, value in scheme.items() if key != "criteria"]
        for criterion in kept + theory:
            lines += ["", "[[criteria]]", *(f"{k} = {_toml(v)}" for k, v in criterion.items())]
        (folder / source.name).write_text("\n".join(lines) + "\n")
    return folder


def _toml(value) -> str:
    # A JSON string is a TOML basic string (the same escapes).
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)


def scanned_files(folder: Path, papers: int) -> tuple[list[Path], Path]:
    """One scanned PDF per contestant (`C-0001.pdf`, …), a page per problem, and the page map
    that sorts them (the import's way for scans without covers). The five answer pages are
    typeset once (tests/grading/intake/scans/scanmaker.py) and each contestant's copy is turned a
    little (one of seven angles), as a scanner feeds paper."""
    from tests.grading.intake.scans import scanmaker

    folder.mkdir(parents=True, exist_ok=True)
    pages = [scanmaker.answer_pages("C-0000", number, 1)[0] for number in range(1, PROBLEMS + 1)]
    files, rows = [], ["file,problem,first_page,last_page"]
    for index in range(1, papers + 1):
        name = f"C-{index:04d}.pdf"
        tilt = ((index * 5) % 7 - 3) * 0.2
        pile = [scanmaker.tilt(page, tilt) for page in pages]
        (folder / name).write_bytes(scanmaker.as_pdf(pile))
        files.append(folder / name)
        rows += [f"{name},{number},{number},{number}" for number in range(1, PROBLEMS + 1)]
    page_map = folder / "map.csv"
    page_map.write_text("\n".join(rows) + "\n")
    return files, page_map


def jurors_and_chair():
    """The 40 jurors (juror01 … juror40) and the chair, shared by every contest."""
    from grading.rules import roles
    from tests import factories

    jurors = [factories.make_user(f"juror{n:02d}", roles.JUROR) for n in range(1, JURORS + 1)]
    return jurors, factories.make_user("chair", roles.CHAIR)


def build(papers: int, *, jurors, schemes: Path, workdir: Path) -> tuple[object, dict]:
    """The contest `scale-<papers>` ready for the chair; returns it and the seconds each step
    took (`scan_import` among them)."""
    from grading.demo.loader import DATA, OUTPUTS, RAW, RECORDS, SUBMISSIONS
    from grading.models import GradingGroup
    from rubrics.models import Contest

    slug, quiet = f"scale-{papers}", {"verbosity": 0, "stdout": io.StringIO()}
    seconds = {}
    started = time.perf_counter()
    call_command(
        "import_problemset", "--contest", slug, "--name", f"Scale {papers}",
        str(DATA / "test.csv"), str(DATA / "solution.csv"), **quiet,
    )  # fmt: skip
    call_command("load_schemes", "--contest", slug, str(schemes), **quiet)
    call_command("import_outputs", "--contest", slug, *(str(OUTPUTS / f) for f in RECORDS), **quiet)
    for system, name in SUBMISSIONS:
        call_command(
            "import_outputs", "--contest", slug, "--system", system, str(OUTPUTS / name), **quiet
        )
    call_command("import_outputs", "--contest", slug, str(OUTPUTS / RAW), **quiet)
    files, page_map = scanned_files(workdir / f"scans-in-{papers}", papers)
    seconds["set_up"] = time.perf_counter() - started

    started = time.perf_counter()
    call_command("import_scans", slug, *map(str, files), "--page-map", str(page_map), **quiet)
    seconds["scan_import"] = time.perf_counter() - started

    started = time.perf_counter()
    call_command("set_cutoffs", slug, "gold=70", "silver=58.4", "hm=35.3", **quiet)
    contest = Contest.objects.get(slug=slug)
    # Grading groups have no command (the organizer sets them in the admin): 8 jurors a problem.
    per_group = JURORS // PROBLEMS
    for problem in contest.problems.order_by("number"):
        group, _ = GradingGroup.objects.get_or_create(problem=problem)
        first = (problem.number - 1) * per_group
        group.jurors.add(*jurors[first : first + per_group])
    call_command(
        "assign_jurors", "--contest", slug, "--per-problem", "2", "--problem", "3=3", **quiet
    )
    call_command("open_grading", "--contest", slug, **quiet)
    marks = grade(contest, seed=papers)
    seconds["grading"] = time.perf_counter() - started
    contest.refresh_from_db()
    return contest, {**seconds, "marks": marks}


def grade(contest, *, seed: int) -> int:
    """Every sheet filled and submitted. The sheets (`sheet_get_or_create`) and the submission
    (`sheet_submit`) go through the services; the points are written with `bulk_update`, as no
    command enters marks and tens of thousands of `mark_set` calls would time the set-up, not
    the pages. The first juror of a cell gives a share of the points; the others agree but for
    DISAGREE of the cells, where they give two steps more or less (beyond any tolerance; one
    where the scale ends)."""
    from django.contrib.auth.models import User

    from grading.marking.sheets import sheet_get_or_create, sheet_submit
    from grading.models import Assignment, Mark, Sheet
    from grading.rules.domain import floor_to_step

    rng = random.Random(seed)
    pairs = set(Assignment.objects.filter(problem__contest=contest).values_list("juror", "problem"))
    users = User.objects.in_bulk({juror for juror, _ in pairs})
    for problem in contest.problems.order_by("number"):
        for juror in sorted({j for j, p in pairs if p == problem.pk}):
            sheet_get_or_create(juror=users[juror], problem=problem)
    marks = list(
        Mark.objects.filter(sheet__problem__contest=contest)
        .select_related("criterion", "sheet")
        .order_by("paper_id", "criterion_id", "sheet_id")
    )
    base: dict[tuple[int, int], Decimal] = {}
    planted: set[int] = set()
    for mark in marks:
        criterion, key = mark.criterion, (mark.paper_id, mark.criterion_id)
        if key not in base:
            base[key] = floor_to_step(criterion.points * Decimal(rng.random()), criterion.step)
            mark.points = base[key]
            continue
        points = base[key]
        # At least one open cell a problem, however small the contest, for the discussion page.
        if rng.random() < DISAGREE or mark.sheet.problem_id not in planted:
            planted.add(mark.sheet.problem_id)
            up = points + 2 * criterion.step
            points = up if up <= criterion.points else max(points - 2 * criterion.step, 0)
        mark.points = points
    Mark.objects.bulk_update(marks, ["points"], batch_size=2000)
    for sheet in Sheet.objects.filter(problem__contest=contest).select_related("juror"):
        sheet_submit(sheet=sheet, actor=sheet.juror)
    return len(marks)
