"""Loading the demo contest through the real import commands, so that the demo shows exactly
what the IOL-AI data goes through, with four human contestants' scanned papers through the real
scan import (`grading.demo.scans`), then adding users, groups, assignments and some marks so
that every page (sheet, comparison, results) has something real to show, for both kinds."""

from decimal import Decimal
from io import StringIO
from pathlib import Path

from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import transaction
from django.utils import timezone

import rubrics
from grading.assigning.help import help_ask, help_assign
from grading.console.answer_languages import answer_languages_set
from grading.console.delegations import delegations_import
from grading.console.juror_facts import juror_facts_set
from grading.console.leaders import leaders_add
from grading.console.specialists import specialists_add
from grading.demo.scans import demo_scans_import
from grading.marking.marks import mark_set
from grading.marking.sheets import sheet_get_or_create
from grading.models import (
    Assignment,
    GradingGroup,
    JurorLanguage,
    JurorProfile,
    Mark,
    MarkEvent,
    Paper,
    ScanPage,
    Sheet,
)
from grading.papers import images
from grading.rules import roles
from grading.rules.phase import refuse_if_final_now
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, Task

SLUG = "demo"
NAME = "IOL-AI Demo Contest"
PASSWORD = "demo"
DATA = Path(__file__).resolve().parent / "data"
OUTPUTS = DATA / "outputs"
SCHEMES = Path(rubrics.__file__).resolve().parent / "schemes" / SLUG

CUTOFFS = (("gold", "70.0"), ("silver", "58.4"), ("honourable mention", "35.3"))

# username, first name, last name, role
USERS = (
    ("organizer", "Olwen", "Marsh", roles.ORGANIZER),
    ("chair", "Chidi", "Mensah", roles.CHAIR),
    ("juror1", "Amina", "Okafor", roles.JUROR),
    ("juror2", "Bruno", "Castell", roles.JUROR),
    ("juror3", "Chiara", "Lindqvist", roles.JUROR),
    ("juror4", "Dmitri", "Alvarez", roles.JUROR),
    ("juror5", "Eun-ji", "Park", roles.JUROR),
    ("juror6", "Farid", "Haddad", roles.JUROR),
)

# Two jurors per problem and three for the phonology problem; jurors 1–5 serve in two groups.
GROUPS = {
    1: ("juror1", "juror2"),
    2: ("juror3", "juror4"),
    3: ("juror5", "juror6", "juror1"),
    4: ("juror2", "juror3"),
    5: ("juror4", "juror5"),
}
PER_PROBLEM = {3: 3}

# Two delegations of two human contestants each, and their team leaders: who sees which
# contestants once the provisional results are published.
DELEGATIONS = {"EST": ("C-0417", "C-0736"), "NOR": ("C-0582", "C-0921")}
COUNTRIES = {"EST": "Estonia", "NOR": "Norway"}
# The language each contestant answered in (one of them in the working language, English).
ANSWER_LANGUAGES = {
    "C-0417": "Estonian",
    "C-0736": "Estonian",
    "C-0582": "Norwegian",
    "C-0921": "English",
}
# What the assignment knows of each juror: `username, country, capacity, languages` lines, as
# the organizer gives them on the console. None comes from the delegations' countries.
JUROR_FACTS = """\
juror1, Nigeria, , English; Yoruba; Estonian (with help)
juror2, Spain, 10, Spanish; Catalan; English
juror3, Sweden, , Swedish; Norwegian; English
juror4, Mexico, , Spanish; Russian; English; Estonian (with help)
juror5, South Korea, , Korean; English; Norwegian (with help)
juror6, Lebanon, , Arabic; French; English
"""
# username, name, delegation
LEADERS = (("leader1", "Kadri Tamm", "EST"), ("leader2", "Ingrid Dahl", "NOR"))
# A language specialist from outside the jury: `name, username, email, languages`.
SPECIALIST = "Mari Kask, specialist1, specialist1@demo.invalid, Estonian; Norwegian"
# What a juror who reads Estonian only with help asks about an Estonian contestant's paper.
HELP_QUESTION = "In the answer to 3, does “koeraga” mean “with the dog” or “by the dog”?"

RECORDS = ("01_team-aurora", "02_team-basalt", "03_team-cinder")
SUBMISSIONS = (("Team Drift", "team-drift.csv"), ("Team Fjord", "team-fjord.csv"))
RAW = "raw-outputs.jsonl"

# Marks by criterion code, in the scheme's order, following what each system actually wrote
# (see the data files). P1 is graded in full by both jurors, who disagree on three cells;
# P2 is half graded by one juror; the other problems are untouched.
P1_CODES = ("A1", "A2", "T1", "T2", "T3", "T4")
P1_MARKS = {
    "Team Aurora": ("4.5", "6", "2", "2", "3", "2.5"),
    "Team Basalt": ("4", "5", "2", "2", "1.5", "2"),
    "Team Cinder": ("3", "3", "0", "2", "3", "0"),
    "Team Drift": ("3", "4", "1", "0", "1.5", "0"),
    "Team Ember": ("4.5", "6", "2", "2", "3", "2"),
    "Team Fjord": ("2", "0", "0", "0", "0", "0"),
}
# Where the second juror of P1 saw it differently: (system, criterion) → points.
P1_SECOND_OPINIONS = {
    ("Team Basalt", "T3"): "3",
    ("Team Cinder", "A2"): "2",
    ("Team Drift", "T3"): "1",
}
P2_CODES = ("A1", "A2", "T1", "T2", "T3")
P2_MARKS = {
    "Team Aurora": ("6", "6", "3", "2", "3"),
    "Team Cinder": ("4", "5", "1", "2", "1.5"),
    "Team Fjord": ("2", "1", "0", "0", "0"),
}
# The human contestants' scanned papers (by contestant code), graded alike: in full in P1, with
# one more disagreement there, and two of them in juror3's half-graded P2.
HUMAN_P1_MARKS = {
    "C-0417": ("4.5", "6", "2", "2", "3", "1.5"),
    "C-0582": ("4", "4", "2", "2", "1.5", "2"),
    "C-0736": ("3", "2", "1", "2", "1.5", "1"),
    "C-0921": ("1.5", "0", "1", "0", "0", "0"),
}
HUMAN_P1_SECOND_OPINIONS = {("C-0582", "A2"): "5"}
HUMAN_P2_MARKS = {
    "C-0417": ("6", "6", "3", "2", "3"),
    "C-0736": ("3", "2", "1", "2", "0"),
}


@transaction.atomic
def demo_load(*, stdout=None, verbosity: int = 1, dry_run: bool = False) -> dict:
    """Load the demo contest unless it is already there (the contest exists with papers).

    Writes the import commands' output and the table of log-ins to `stdout` (nothing when it
    is None) and returns a summary: `created` (False when the demo was already loaded), the
    counts of what the demo holds, and `logins` (username, password, role, problems). With
    `dry_run`, everything is loaded and then rolled back."""
    out = stdout if stdout is not None else StringIO()
    contest = Contest.objects.filter(slug=SLUG).first()
    created = not (contest and contest.papers.exists())
    if created:
        _import(out, verbosity)
        contest = Contest.objects.get(slug=SLUG)
        _scans(out, verbosity, contest)
        _cutoffs(contest)
        users = _users()
        juror_facts_set(text=JUROR_FACTS, actor=users[USERS[0][0]])
        # Before the assignment, which reads the delegations' countries and answer languages.
        _delegations(contest, users[USERS[0][0]])
        _groups(contest, users)
        _run(
            out,
            verbosity,
            "assign_jurors",
            "--contest",
            SLUG,
            "--per-problem",
            "2",
            *(
                arg
                for number, count in PER_PROBLEM.items()
                for arg in ("--problem", f"{number}={count}")
            ),
        )
        _run(out, verbosity, "open_grading", "--contest", SLUG)
        contest.refresh_from_db()
        _grade(contest, users)
        _language_help(contest, users[USERS[0][0]])
    summary = _summary(contest)
    summary["created"] = created
    if verbosity > 0:
        out.write(logins_table(summary["logins"]))
    if dry_run:
        # The rows go with the rollback; the page images they name must go too.
        for name in ScanPage.objects.filter(paper__contest=contest).values_list("image", flat=True):
            (images.scans_dir() / name).unlink(missing_ok=True)
        transaction.set_rollback(True)
    return summary


@transaction.atomic
def demo_reset(*, stdout=None, verbosity: int = 1) -> dict:
    """Delete the demo contest with everything it owns (papers, marks, resolutions, jobs) and
    load it afresh, so that its figures are the README's again after someone graded it. The
    demo users stay, their password set back to the demo's. A final demo is refused like any
    final contest: reopen it first, on record."""
    contest = Contest.objects.filter(slug=SLUG).first()
    if contest is not None:
        contest = refuse_if_final_now(
            contest, "its papers, marks and results, which --reset would delete,"
        )
        names = list(
            ScanPage.objects.filter(paper__contest=contest).values_list("image", flat=True)
        )
        contest.delete()
        # The page images go once the deletion is committed (prune_scans would find them too).
        transaction.on_commit(
            lambda: [(images.scans_dir() / name).unlink(missing_ok=True) for name in names]
        )
    return demo_load(stdout=stdout, verbosity=verbosity)


def logins_table(rows: list[dict]) -> str:
    """The demo log-ins as a small fixed-width table."""
    header = {
        "username": "username",
        "password": "password",
        "role": "role",
        "problems": "problems",
    }
    columns = list(header)
    widths = {c: max(len(str(row[c])) for row in [header, *rows]) for c in columns}
    lines = ["Demo log-ins:"]
    for row in [header, *rows]:
        lines.append("  " + "  ".join(str(row[c]).ljust(widths[c]) for c in columns).rstrip())
    return "\n".join(lines) + "\n"


def _run(out, verbosity: int, name: str, *args) -> None:
    try:
        call_command(name, *args, stdout=out, stderr=out, verbosity=verbosity)
    except CommandError as error:
        raise ValidationError(
            f"Loading the demo failed in “{name} {' '.join(str(a) for a in args)}”: {error}"
        ) from error


def _import(out, verbosity: int) -> None:
    """The problem set, the schemes and the six systems, through the real import commands."""
    _run(
        out,
        verbosity,
        "import_problemset",
        "--contest",
        SLUG,
        "--name",
        NAME,
        str(DATA / "test.csv"),
        str(DATA / "solution.csv"),
    )
    _run(out, verbosity, "load_schemes", "--contest", SLUG, str(SCHEMES))
    _run(
        out,
        verbosity,
        "import_outputs",
        "--contest",
        SLUG,
        *(str(OUTPUTS / folder) for folder in RECORDS),
    )
    for system, name in SUBMISSIONS:
        _run(
            out,
            verbosity,
            "import_outputs",
            "--contest",
            SLUG,
            "--system",
            system,
            str(OUTPUTS / name),
        )
    _run(out, verbosity, "import_outputs", "--contest", SLUG, str(OUTPUTS / RAW))


def _scans(out, verbosity: int, contest: Contest) -> None:
    """The human contestants' scanned papers, through the organizers' scan import."""
    summary = demo_scans_import(contest)
    if verbosity > 0:
        out.write(summary.line() + "\n")


def _cutoffs(contest: Contest) -> None:
    for order, (name, minimum) in enumerate(CUTOFFS, start=1):
        MedalCutoff.objects.update_or_create(
            contest=contest, order=order, defaults={"name": name, "min_total": Decimal(minimum)}
        )


def _users() -> dict[str, User]:
    roles.ensure_role_groups()
    groups = {group.name: group for group in Group.objects.filter(name__in=roles.ROLES)}
    users = {}
    for username, first_name, last_name, role in USERS:
        user, _ = User.objects.get_or_create(username=username)
        user.first_name, user.last_name = first_name, last_name
        user.email = f"{username}@demo.invalid"
        user.is_staff = role in (roles.ORGANIZER, roles.CHAIR)
        user.set_password(PASSWORD)
        user.save()
        user.groups.add(groups[role])
        users[username] = user
    # A demo juror marked unavailable while someone tried the demo is back for the new one: the
    # fact is the person's, not the contest's, and would outlive --reset.
    JurorProfile.objects.filter(user__in=users.values()).update(unavailable_since=None)
    return users


def _groups(contest: Contest, users: dict[str, User]) -> None:
    for problem in contest.problems.all():
        group, _ = GradingGroup.objects.get_or_create(problem=problem)
        group.jurors.add(*(users[name] for name in GROUPS[problem.number]))


def _grade(contest: Contest, users: dict[str, User]) -> None:
    """Enter the demo's marks as the jurors who give them, then submit P1's two sheets."""
    paper = {p.identity: p for p in Paper.objects.filter(contest=contest)}
    p1, p2 = (contest.problems.get(number=number) for number in (1, 2))
    first, second = (users[name] for name in GROUPS[1])
    second_opinions = {**P1_SECOND_OPINIONS, **HUMAN_P1_SECOND_OPINIONS}
    for juror in (first, second):
        marks = _marks(juror, p1)
        for system, points in {**P1_MARKS, **HUMAN_P1_MARKS}.items():
            for code, value in zip(P1_CODES, points, strict=True):
                if juror == second:
                    value = second_opinions.get((system, code), value)
                _mark(marks[paper[system].pk, code], value, juror)
    Sheet.objects.filter(problem=p1, juror__in=[first, second]).update(
        state=Sheet.State.SUBMITTED, submitted_at=timezone.now()
    )
    p2_juror = users[GROUPS[2][0]]
    marks = _marks(p2_juror, p2)
    for system, points in {**P2_MARKS, **HUMAN_P2_MARKS}.items():
        for code, value in zip(P2_CODES, points, strict=True):
            _mark(marks[paper[system].pk, code], value, p2_juror)


def _marks(juror: User, problem: Problem) -> dict[tuple[int, str], Mark]:
    """The juror's marks for the problem by (paper id, criterion code)."""
    # assign_jurors opens the sheets; asking again only fills in a mark that would be missing.
    sheet = sheet_get_or_create(juror=juror, problem=problem)
    return {
        (mark.paper_id, mark.criterion.code): mark
        for mark in sheet.marks.select_related("criterion")
    }


def _mark(mark: Mark, value: str, juror: User) -> None:
    mark_set(mark=mark, points=Decimal(value), actor=juror, channel=MarkEvent.Channel.IMPORT)


def _delegations(contest: Contest, organizer: User) -> None:
    """The delegations with their countries, the contestants' answer languages and the
    delegations' leaders, through the organizer's imports on the console."""
    rows = [
        f"{code},{contestant},{COUNTRIES[code]}"
        for code, people in DELEGATIONS.items()
        for contestant in people
    ]
    delegations_import(
        contest=contest, text="\n".join(rows), name="the demo's delegations", actor=organizer
    )
    answer_languages_set(
        contest=contest,
        text="\n".join(f"{code},{language}" for code, language in ANSWER_LANGUAGES.items()),
        actor=organizer,
    )
    lines = [
        f"{name},{username},{username}@demo.invalid,{code}" for username, name, code in LEADERS
    ]
    # A new leader's account has no password (one sign-in link); the demo's leaders sign in
    # with the demo's password like everyone else.
    for leader in leaders_add(contest=contest, text="\n".join(lines), actor=organizer):
        leader.set_password(PASSWORD)
        leader.save(update_fields=["password"])


def _language_help(contest: Contest, organizer: User) -> None:
    """The specialist, and a question for them from a juror who reads Estonian with help on an
    Estonian paper of a sheet they are still grading (the first such assignment), given to the
    specialist, unanswered: what the specialist signs in to answer."""
    (specialist,) = specialists_add(contest=contest, text=SPECIALIST, actor=organizer)
    specialist.set_password(PASSWORD)
    specialist.save(update_fields=["password"])
    submitted = set(
        Sheet.objects.submitted()
        .filter(problem__contest=contest)
        .values_list("problem_id", "juror_id")
    )
    candidates = (
        Assignment.objects.filter(
            problem__contest=contest,
            paper__answer_language="Estonian",
            juror__reading_languages__language="Estonian",
            juror__reading_languages__level=JurorLanguage.Level.WITH_HELP,
        )
        .select_related("juror", "problem", "paper")
        .order_by("problem__number", "paper_id", "juror__username")
    )
    assignment = next((a for a in candidates if (a.problem_id, a.juror_id) not in submitted), None)
    if assignment is None:
        return
    request = help_ask(
        actor=assignment.juror,
        problem=assignment.problem,
        paper=assignment.paper,
        question=HELP_QUESTION,
    )
    help_assign(actor=organizer, request=request, helper=specialist)


def _summary(contest: Contest) -> dict:
    problems_of = {}
    for number, names in GROUPS.items():
        for name in names:
            problems_of.setdefault(name, []).append(number)
    logins = (
        [
            {
                "username": username,
                "password": PASSWORD,
                "role": role,
                "problems": ", ".join(f"P{n}" for n in sorted(problems_of.get(username, [])))
                or "all",
            }
            for username, _, _, role in USERS
        ]
        + [
            {
                "username": username,
                "password": PASSWORD,
                "role": roles.LEADER,
                "problems": f"none (leads {code})",
            }
            for username, _, code in LEADERS
        ]
        + [
            {
                "username": SPECIALIST.split(",")[1].strip(),
                "password": PASSWORD,
                "role": roles.SPECIALIST,
                "problems": "none (language help)",
            }
        ]
    )
    return {
        "contest": contest.slug,
        "problems": contest.problems.count(),
        "tasks": Task.objects.filter(problem__contest=contest).count(),
        "criteria": Criterion.objects.filter(problem__contest=contest).count(),
        "papers": contest.papers.count(),
        "assignments": Assignment.objects.filter(problem__contest=contest).count(),
        "marks_entered": Mark.objects.filter(
            sheet__problem__contest=contest, points__isnull=False
        ).count(),
        "sheets_submitted": Sheet.objects.submitted().filter(problem__contest=contest).count(),
        "logins": logins,
    }
