"""The olympiad-size contest of bench/scale.py, built the organizer's way. Not a benchmark
itself (`scripts/bench.sh` runs only the others).

A contest is the demo's problem set and six AI systems (its data files, through
`import_problemset`, `load_schemes` and `import_outputs`, as `load_demo` imports them), with the
demo's schemes widened to 15 criteria per problem, and N contestants' scanned papers
(`import_scans`): 2–4 handwritten pages per answer, drawn afresh for every contestant
(bench/_handwriting.py), about 4 % of the problems left blank, most files sorted by a page map
and every eighth behind the answer-sheet covers (`print_covers`' PDF), one in two of those fed
upside down. Then the people and their facts, as the organizer gives them: the delegations
with their countries (`import_delegations`, about 46 at 255 contestants) and their team leaders
(the console's leaders service), the answer languages (`set_answer_languages`), 40 jurors in
grading groups of 8 (the console's jurors service) and their countries and reading languages
(`set_juror_facts`). The assignment runs the solver under those facts (`assign_jurors
--per-problem 2 --problem 3=3`: nobody on their own country's contestants, readers of the
language first); problem 1 has a seeded calibration round (3 papers graded in it, 2 kept for
seeding; the round's services, as its page calls them); `open_grading`; every sheet filled and
submitted. `provisional_with_appeals` then decides the open cells, publishes the provisional
results and has the leaders file appeals (about 100 at 255 contestants)."""

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
# 46 delegations at 255 contestants (about 5.5 contestants each), fewer for a smaller contest.
DELEGATIONS_AT_255 = 46
# The share of (contestant, problem) answers left blank.
BLANK = 0.04
# Pages a contestant writes for one problem (drawn for each answer).
PAGES = (2, 4)
# Every COVERED-th contestant's scans are sorted by their covers, not by the page map; every
# other one of those was fed upside down.
COVERED = 8
SCAN_DPI = 100
# The languages the contestants answer in and the jurors read; each delegation answers in one
# (a few of its contestants in English, the working language).
LANGUAGES = ("Spanish", "Russian", "Estonian", "Korean", "Polish", "Hungarian", "Japanese", "Dutch")
COUNTRIES = (
    "Argentina", "Australia", "Brazil", "Bulgaria", "Canada", "China", "Colombia", "Croatia",
    "Czechia", "Denmark", "Estonia", "Finland", "France", "Germany", "Hungary", "India",
    "Indonesia", "Ireland", "Israel", "Italy", "Japan", "Kazakhstan", "Latvia", "Lithuania",
    "Malaysia", "Mexico", "Netherlands", "Nigeria", "Norway", "Peru", "Philippines", "Poland",
    "Portugal", "Romania", "Serbia", "Singapore", "Slovakia", "Slovenia", "South Korea", "Spain",
    "Sweden", "Switzerland", "Taiwan", "Turkey", "Ukraine", "United Kingdom",
)  # fmt: skip
CALIBRATION_PROBLEM = 1
CALIBRATION_GRADED, CALIBRATION_KEPT = 3, 2
APPEALS_AT_255 = 100


def delegation_count(papers: int) -> int:
    return max(2, round(papers * DELEGATIONS_AT_255 / 255))


def appeal_count(papers: int) -> int:
    return max(1, round(papers * APPEALS_AT_255 / 255))


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


def contestant_code(index: int) -> str:
    return f"C-{index:04d}"


def blank_answers(papers: int, rng: random.Random) -> set[tuple[int, int]]:
    """(contestant index, problem number) of the answers left blank: BLANK of them, at least
    one however small the contest, never a whole paper."""
    answers = [(i, n) for i in range(1, papers + 1) for n in range(1, PROBLEMS + 1)]
    # Problem 1 keeps every answer: its calibration round picks from them.
    answers = [(i, n) for i, n in answers if n != CALIBRATION_PROBLEM]
    return set(rng.sample(answers, max(1, round(BLANK * papers * PROBLEMS))))


def scanned_files(contest, folder: Path, papers: int, *, seed: int) -> dict:
    """One scanned PDF per contestant (`C-0001.pdf`, …) and the page map that sorts those
    without covers. Every answer is 2–4 handwritten pages of its own, each turned a little
    (one of seven angles, as a scanner feeds paper); a blank answer has no page (a page-map row
    without pages, or a cover with nothing after it). Every COVERED-th contestant's file has a
    cover before each answer instead, and every other such file lies upside down, covers and
    all. Returns the files, the page map (None when every file has covers) and the counts."""
    import _handwriting
    from PIL import Image

    from tests.grading.intake.scans import scanmaker

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    blank = blank_answers(papers, rng)
    covered = [i for i in range(1, papers + 1) if i % COVERED == 1]
    cover_images = scanmaker.covers(contest, [contestant_code(i) for i in covered])
    scale = SCAN_DPI / 150
    files, rows, pages_total, upside_down = [], ["file,problem,first_page,last_page"], 0, 0
    for index in range(1, papers + 1):
        code, pile = contestant_code(index), []
        name = f"{code}.pdf"
        for number in range(1, PROBLEMS + 1):
            count = 0 if (index, number) in blank else rng.randint(*PAGES)
            if index in covered:
                pile.append(cover_images[(code, number)])
            elif count:
                rows.append(f"{name},{number},{len(pile) + 1},{len(pile) + count}")
            else:
                rows.append(f"{name},{number},,")
            for _ in range(count):
                page = _handwriting.handwritten_page(rng, scale=scale)
                pile.append(scanmaker.tilt(page, rng.choice((-3, -2, -1, 0, 1, 2, 3)) * 0.2))
            pages_total += count
        if index in covered and (index // COVERED) % 2 == 0:
            pile = [page.transpose(Image.Transpose.ROTATE_180) for page in pile]
            upside_down += 1
        (folder / name).write_bytes(scanmaker.as_pdf(pile))
        files.append(folder / name)
    page_map = None
    if len(rows) > 1:
        page_map = folder / "map.csv"
        page_map.write_text("\n".join(rows) + "\n")
    return {
        "files": files,
        "page_map": page_map,
        "pages": pages_total,
        "blank": len(blank),
        "covered": len(covered),
        "upside_down": upside_down,
    }


def organizer_and_chair():
    """The organizer (`create_organizer`) and the chair (an account the organizer gives the
    chair's role on the people page), shared by every contest."""
    from django.contrib.auth.models import User

    from grading.console.people import person_set_roles
    from grading.rules import roles

    quiet = {"verbosity": 0, "stdout": io.StringIO()}
    site = ("--base-url", "http://localhost")
    call_command("create_organizer", "organizer", "--name", "Olga Organizer", *site, **quiet)
    call_command("create_organizer", "chair", "--name", "Chris Chair", *site, **quiet)
    organizer = User.objects.get(username="organizer")
    chair = person_set_roles(
        person=User.objects.get(username="chair"), actor=organizer, wanted=[roles.CHAIR]
    )
    return organizer, chair


def juror_username(papers: int, number: int) -> str:
    return f"s{papers}-juror{number:02d}"


def people(contest, papers: int, *, organizer, workdir: Path) -> dict:
    """The delegations, their leaders, the answer languages, the 40 jurors in their groups and
    the jurors' facts, as the organizer gives them; returns the delegations' countries by code
    and the leaders by delegation code."""
    from grading.console.leaders import leaders_add
    from grading.console.people import jurors_add

    quiet = {"verbosity": 0, "stdout": io.StringIO()}
    rng = random.Random(f"people-{papers}")
    count = delegation_count(papers)
    delegations = {f"D{d + 1:02d}": COUNTRIES[d % len(COUNTRIES)] for d in range(count)}
    codes = list(delegations)
    language_of = {code: LANGUAGES[d % len(LANGUAGES)] for d, code in enumerate(codes)}
    rows, languages = ["delegation,contestant,country"], []
    for index in range(1, papers + 1):
        # Contestants in runs of about 5.5 per delegation, as teams are.
        code = codes[(index - 1) * count // papers]
        rows.append(f"{code},{contestant_code(index)},{delegations[code]}")
        language = "English" if rng.random() < 0.15 else language_of[code]
        languages.append(f"{contestant_code(index)},{language}")
    folder = workdir / f"people-{papers}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "delegations.csv").write_text("\n".join(rows) + "\n")
    call_command("import_delegations", contest.slug, str(folder / "delegations.csv"), **quiet)
    (folder / "languages.csv").write_text("\n".join(languages) + "\n")
    call_command(
        "set_answer_languages", "--contest", contest.slug, "--file", str(folder / "languages.csv"),
        **quiet,
    )  # fmt: skip
    leaders_add(
        contest=contest,
        text="\n".join(
            f"Leader {code},s{papers}-leader-{code.lower()},,{code}" for code in delegations
        ),
        actor=organizer,
    )
    per_group = JURORS // PROBLEMS
    jurors_add(
        contest=contest,
        text="\n".join(
            f"Juror {n:02d},{juror_username(papers, n)},,{(n - 1) // per_group + 1}"
            for n in range(1, JURORS + 1)
        ),
        actor=organizer,
    )
    # Each juror comes from one of the delegations' countries (so the solver keeps them off its
    # contestants), reads English and two of the languages, and a third one with help.
    facts = []
    for n in range(1, JURORS + 1):
        country = delegations[codes[n % count]]
        reads = [LANGUAGES[n % len(LANGUAGES)], LANGUAGES[(n + 3) % len(LANGUAGES)]]
        helped = LANGUAGES[(n + 5) % len(LANGUAGES)]
        facts.append(
            f"{juror_username(papers, n)},{country},,English; {'; '.join(reads)}; "
            f"{helped} (with help)"
        )
    (folder / "facts.csv").write_text("\n".join(facts) + "\n")
    call_command("set_juror_facts", "--file", str(folder / "facts.csv"), **quiet)
    return delegations


def build(
    papers: int, *, organizer, chair, schemes: Path, workdir: Path, on_grading_open=None
) -> tuple[object, dict]:
    """The contest `scale-<papers>` graded and ready for the chair; returns it and what each
    step took (seconds) and made. `on_grading_open(contest)` runs once grading is open and
    before any mark is given (bench/scale.py copies the database there for the autosave)."""
    from grading.demo.loader import DATA, OUTPUTS, RAW, RECORDS, SUBMISSIONS
    from rubrics.models import Contest

    slug, quiet = f"scale-{papers}", {"verbosity": 0, "stdout": io.StringIO()}
    steps = {}
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
    contest = Contest.objects.get(slug=slug)
    scans = scanned_files(contest, workdir / f"scans-in-{papers}", papers, seed=papers)
    steps["set_up"] = time.perf_counter() - started
    steps.update({key: scans[key] for key in ("pages", "blank", "covered", "upside_down")})

    started = time.perf_counter()
    map_args = ["--page-map", str(scans["page_map"])] if scans["page_map"] else []
    call_command("import_scans", slug, *map(str, scans["files"]), *map_args, **quiet)
    steps["scan_import"] = time.perf_counter() - started

    started = time.perf_counter()
    call_command("set_cutoffs", slug, "gold=70", "silver=58.4", "hm=35.3", **quiet)
    steps["delegations"] = len(people(contest, papers, organizer=organizer, workdir=workdir))
    steps["people"] = time.perf_counter() - started

    started = time.perf_counter()
    out = io.StringIO()
    call_command(
        "assign_jurors", "--contest", slug, "--per-problem", "2", "--problem", "3=3",
        verbosity=1, stdout=out,
    )  # fmt: skip
    steps["assignment"] = time.perf_counter() - started
    steps["assignment_summary"] = out.getvalue().strip().splitlines()[-1]

    started = time.perf_counter()
    calibration_round(contest, chair=chair, seed=papers)
    call_command("open_grading", "--contest", slug, **quiet)
    steps["calibration"] = time.perf_counter() - started
    if on_grading_open is not None:
        on_grading_open(contest)

    started = time.perf_counter()
    steps["marks"] = grade(contest, seed=papers)
    steps["grading"] = time.perf_counter() - started
    contest.refresh_from_db()
    return contest, steps


def _share(criterion, rng: random.Random) -> Decimal:
    from grading.rules.domain import floor_to_step

    return floor_to_step(criterion.points * Decimal(rng.random()), criterion.step)


def calibration_round(contest, *, chair, seed: int):
    """A seeded calibration round of problem 1 as the chair runs it from its page: three of its
    papers graded in the round and two kept for seeding, a reference for every cell,
    the round opened, every juror of the group marking and submitting their calibration sheet,
    and the round closed (which draws the seeds into the live sheets)."""
    from grading.calibration.calibration_marks import calibration_sheet_submit
    from grading.calibration.rounds import (
        references_set,
        round_close,
        round_create,
        round_open_to_jurors,
    )
    from grading.models import CalibrationMark, PaperLabel

    rng = random.Random(f"calibration-{seed}")
    problem = contest.problems.get(number=CALIBRATION_PROBLEM)
    # Problem 1 has no blank answer (`blank_answers`): any of its papers, human or AI, may be
    # graded in the round or kept for seeding.
    labels = list(
        PaperLabel.objects.filter(problem=problem)
        .order_by("label")
        .values_list("label", flat=True)[: CALIBRATION_GRADED + CALIBRATION_KEPT]
    )
    round_ = round_create(
        problem=problem,
        labels=labels[:CALIBRATION_GRADED],
        kept=labels[CALIBRATION_GRADED:],
        seeded=True,
        actor=chair,
    )
    criteria = list(problem.criteria.order_by("order", "code"))
    references_set(
        round_=round_,
        entries=[
            (paper, criterion, _share(criterion, rng), "")
            for paper in round_.papers.order_by("position")
            for criterion in criteria
        ],
        actor=chair,
    )
    round_open_to_jurors(round_=round_, actor=chair)
    marks = list(CalibrationMark.objects.filter(sheet__round=round_).select_related("criterion"))
    for mark in marks:
        mark.points = _share(mark.criterion, rng)
    CalibrationMark.objects.bulk_update(marks, ["points"], batch_size=2000)
    for sheet in round_.sheets.select_related("juror"):
        calibration_sheet_submit(sheet=sheet, actor=sheet.juror)
    round_close(round_=round_, actor=chair)
    return round_


def grade(contest, *, seed: int) -> int:
    """Every sheet filled and submitted. The sheets (`sheet_get_or_create`) and the submission
    (`sheet_submit`) go through the services; the points are written with `bulk_update`, as no
    command enters marks and tens of thousands of `mark_set` calls would time the set-up, not
    the pages. The first juror of a cell gives a share of the points; the others agree but for
    DISAGREE of the cells, where they give two steps more or less (beyond any tolerance; one
    where the scale ends). The seeds in the live sheets get a share of the points too."""
    from django.contrib.auth.models import User

    from grading.marking.sheets import sheet_get_or_create, sheet_submit
    from grading.models import Assignment, CalibrationMark, Mark, Sheet

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
            base[key] = _share(criterion, rng)
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
    seeds = list(
        CalibrationMark.objects.filter(
            seed__calibration_paper__round__problem__contest=contest, points__isnull=True
        ).select_related("criterion")
    )
    for mark in seeds:
        mark.points = _share(mark.criterion, rng)
    CalibrationMark.objects.bulk_update(seeds, ["points"], batch_size=2000)
    for sheet in Sheet.objects.filter(problem__contest=contest).select_related("juror"):
        sheet_submit(sheet=sheet, actor=sheet.juror)
    return len(marks)


def open_cells(contest) -> list[tuple[int, int]]:
    """(paper id, criterion id) of every cell whose jurors disagree, in order."""
    from grading.models import Mark

    seen: dict[tuple[int, int], set] = {}
    for paper, criterion, points in Mark.objects.filter(
        sheet__problem__contest=contest
    ).values_list("paper", "criterion", "points"):
        seen.setdefault((paper, criterion), set()).add(points)
    return [key for key, values in sorted(seen.items()) if len(values) > 1]


def provisional_with_appeals(contest, papers: int, *, chair, organizer) -> int:
    """From the resolution phase: the chair decides every open cell (the lower value), the
    organizer publishes the provisional results, and the leaders file appeals (about 100 at
    255 contestants) on one or two criteria of their contestants' answers, spread over the
    problems. Returns the number of appeals."""
    from datetime import timedelta

    from django.contrib.auth.models import User
    from django.utils import timezone

    from grading.appeals.appeals import appeal_file
    from grading.console.contest_life import contest_provisional_publish
    from grading.models import Mark, Paper
    from grading.resolution.decisions import discrepancy_decide
    from rubrics.models import Criterion

    cells = open_cells(contest)
    papers_by_id = Paper.objects.in_bulk({paper for paper, _ in cells})
    criteria = Criterion.objects.in_bulk({criterion for _, criterion in cells})
    for paper, criterion in cells:
        low = min(
            Mark.objects.filter(paper_id=paper, criterion_id=criterion).values_list(
                "points", flat=True
            )
        )
        discrepancy_decide(
            paper=papers_by_id[paper],
            criterion=criteria[criterion],
            points=low,
            reason="The lower reading: the rule is applied only in part.",
            actor=chair,
        )
    contest = contest_provisional_publish(
        contest=contest, deadline=timezone.now() + timedelta(days=2), actor=organizer
    )
    leaders = {
        username.rsplit("-", 1)[1].upper(): user
        for user in User.objects.filter(username__startswith=f"s{papers}-leader-")
        for username in [user.username]
    }
    humans = list(
        Paper.objects.filter(contest=contest, source=Paper.Source.HUMAN)
        .select_related("delegation")
        .order_by("identity")
    )
    problems = list(contest.problems.order_by("number"))
    count = appeal_count(papers)
    for index in range(count):
        # Seven apart, so that the appeals spread over the delegations; each paper appealed
        # once (there are fewer appeals than papers).
        paper = humans[(index * 7) % len(humans)]
        problem = problems[index % len(problems)]
        chosen = list(problem.criteria.order_by("order", "code")[index % 3 : index % 3 + 2])
        appeal_file(
            paper=paper,
            problem=problem,
            criteria=chosen,
            argument="The answer states the rule in its second paragraph; please look again.",
            actor=leaders[paper.delegation.code],
        )
    return count
