"""The assignment under constraints at a real jury's size: `assignments_create(dry_run=True)`
(the preview: the facts read, each problem planned by the solver) on a contest of 255 human
papers × 5 problems against the same jury with 25 papers.

The jury: 40 jurors, 8 in each problem's group, from 12 countries, each reading two or three
of the ten languages most papers are in (some only with help), a few reading one of the three
rare ones; one juror in five with a capacity. The papers: contestants of delegations of four
from 40 countries, each delegation answering in its language (nine in ten in the ten common
languages). Two jurors a paper, three on problem 3. A throw-away SQLite database, DEBUG off;
the rounds alternate sizes, best of 3 after a warm-up.

assignment_preview_255_vs_25_papers: the large preview's best time against the small one's.
Goal <= 20x (the papers grow 10.2x; the solver works on classes of papers, not papers).

Run: .venv/bin/python bench/assignment.py   (prints: name  ratio  goal  met/not met)"""

import random
import sys
import time

# bench/ is on the path when a script runs, as Python puts its folder first.
from _throwaway import throwaway_database

GOAL = 20.0
ROUNDS = 3
JURORS = 40
PROBLEMS = 5
COMMON = ["English", "Russian", "Spanish", "Estonian", "Polish", "Korean", "Chinese",
          "Portuguese", "Bulgarian", "Japanese"]  # fmt: skip
RARE = ["Tagalog", "Yoruba", "Basque"]
COUNTRIES = [f"Country {n:02d}" for n in range(1, 41)]


def jury(rng: random.Random) -> list:
    """The 40 jurors with their countries, languages and capacities."""
    from grading.models import JurorLanguage, JurorProfile
    from grading.rules import roles
    from tests.factories import make_user

    jurors = []
    for n in range(1, JURORS + 1):
        juror = make_user(f"juror{n:02d}", roles.JUROR)
        capacity = rng.choice([60, 80, 100]) if n % 5 == 0 else None
        JurorProfile.objects.create(user=juror, country=COUNTRIES[n % 12], capacity=capacity)
        languages = rng.sample(COMMON, rng.choice([2, 3]))
        if n % 7 == 0:
            languages.append(RARE[n % len(RARE)])
        for index, language in enumerate(languages):
            level = JurorLanguage.Level.WITH_HELP if index == 2 else JurorLanguage.Level.READS
            JurorLanguage.objects.create(user=juror, language=language, level=level)
        jurors.append(juror)
    return jurors


def contest_of(papers: int, jurors: list, rng: random.Random):
    from grading.models import Delegation, GradingGroup
    from tests.factories import make_contest, make_delegation

    contest = make_contest(f"assign-{papers}", problems=PROBLEMS, papers=papers)
    contest_papers = list(contest.papers.order_by("pk"))
    for start in range(0, papers, 4):
        index = start // 4
        delegation = make_delegation(
            contest, f"D{index:02d}", papers=contest_papers[start : start + 4]
        )
        Delegation.objects.filter(pk=delegation.pk).update(
            country=COUNTRIES[index % len(COUNTRIES)]
        )
        language = rng.choice(RARE) if rng.random() < 0.1 else rng.choice(COMMON)
        contest.papers.filter(delegation=delegation).update(answer_language=language)
    per_group = JURORS // PROBLEMS
    for problem in contest.problems.order_by("number"):
        first = (problem.number - 1) * per_group
        GradingGroup.objects.create(problem=problem).jurors.add(*jurors[first : first + per_group])
    return contest


def preview_seconds(contest) -> float:
    from grading.assigning.assignments import assignments_create

    started = time.perf_counter()
    summary = assignments_create(contest=contest, per_problem=2, overrides={3: 3}, dry_run=True)
    seconds = time.perf_counter() - started
    assert summary.short == 0, [s for p in summary.problems for s in p.problems]
    return seconds, summary


def main() -> None:
    with throwaway_database():
        rng = random.Random(255)
        jurors = jury(rng)
        small, large = contest_of(25, jurors, rng), contest_of(255, jurors, rng)
        preview_seconds(small)  # warm-up: scipy's import, the first queries
        times = {25: [], 255: []}
        for _ in range(ROUNDS):
            for size, contest in ((25, small), (255, large)):
                seconds, summary = preview_seconds(contest)
                times[size].append(seconds)
                flagged = sum(len(problem.flagged) for problem in summary.problems)
                optimal = all(problem.optimal for problem in summary.problems)
                print(
                    f"# {size} papers: {seconds:.2f} s, {summary.created} picks, {flagged} "
                    f"flagged, optimal {optimal}",
                    file=sys.stderr,
                )
        ratio = min(times[255]) / min(times[25])
        print(
            f"# best: 255 papers {min(times[255]):.2f} s, 25 papers {min(times[25]):.2f} s",
            file=sys.stderr,
        )
        print(
            f"assignment_preview_255_vs_25_papers  {ratio:.2f}x  <= {GOAL}x  "
            f"{'met' if ratio <= GOAL else 'not met'}"
        )


if __name__ == "__main__":
    main()
