"""Final means final at every management command and importer: on a final contest each writing
command and the service behind it refuses with the one "is final" sentence, on a dry run too,
and nothing the contest owns changes; read-only commands keep working; `reopen_contest` and
`open_grading` move a contest's life from a script."""

from decimal import Decimal
from fractions import Fraction
from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from grading.assigning.assignments import assignments_create
from grading.assigning.moves import juror_leaving_make, juror_leaving_plan
from grading.console.answer_languages import answer_languages_set
from grading.console.delegations import delegations_import
from grading.console.leaders import leaders_add, leaders_parse
from grading.intake.importers import outputs_import, problemset_import
from grading.intake.importers.criterion_rates import criterion_rates_import
from grading.intake.importers.human_scores import human_scores_import
from grading.intake.labels import paper_labels_ensure
from grading.intake.schemes import scheme_load
from grading.metrics.jury_selection import papers_select_for_jury
from grading.models import (
    Appeal,
    AppealCriterion,
    AppealDeadlineChange,
    AppealEvent,
    Assignment,
    AssignmentMove,
    ContestEvent,
    Delegation,
    HumanCriterionRate,
    HumanScore,
    JurorProfile,
    Mark,
    Paper,
    PaperLabel,
    ProvisionalResult,
    Sheet,
    Solution,
)
from grading.resolution.comparison import contest_results
from grading.results.cutoffs import MEDAL_BY_KEY, cutoffs_apply_proposal
from grading.rules import roles
from grading.rules.refusals import ContestFinal
from rubrics.models import Contest, Criterion, Task
from tests.crawl import refetched, shared_data
from tests.factories import make_contest, make_user
from tests.grading import scenario
from tests.grading.appeals_scenario import contest_with_appeals

D = Decimal
SCHEMES = Path(__file__).resolve().parent / "fixtures" / "schemes"
REOPEN = " An organizer can reopen it, with a reason, from its results page."


def final_sentence(what: str) -> str:
    return f"Contest iol is final: {what} are read-only." + REOPEN


OUTPUTS = final_sentence("its papers and solutions")
PROBLEMSET = final_sentence("its problems, tasks and reference answers")
RATES = final_sentence("its human contestants' criterion rates")
HUMANS = final_sentence("its results, equivalent ranks included,")
SCHEMES_FINAL = final_sentence("its grading schemes")
ASSIGNMENTS = final_sentence("its papers' assignments to jurors")
SELECTION = final_sentence("the papers selected for jury grading")
LABELS = final_sentence("its papers' labels")
DELEGATIONS = final_sentence("its delegations")
LEADERS = final_sentence("its delegations and their leaders")
DELEGATIONS_CSV = "delegation, contestant code, country\nEST, C101, Estonia\n"
LANGUAGES = final_sentence("its papers' answer languages")
LANGUAGE_LINES = "C101, Estonian\n"
LEADER_LINES = "Mari Tamm, mari, , EST\n"
CUTOFFS = final_sentence("its medal cut-offs")

# A new system's outputs for the scenario's two tasks, and changed outputs of a graded one.
KITE_CSV = "id,pred,explanation\n12026010100,the dog sleeps,Verb last.\n12026020100,water,\n"
ORCA_CSV = "id,pred,explanation\n12026010100,the cat sleeps,Changed after finalizing.\n"
TEST_CSV = (
    "id,context,query,work_lang,task_lang,task_type,eval_type\n"
    '12026010100,Kelo phrases.,"Translate into English:\n1. kelo mari\n2. vamu",'
    "eng_Latn,['klo_Latn'],translation,single\n"
)
# The reference answer of problem 1's task, changed.
SOLUTION_CSV = (
    "id,answer,split,points,task_type,eval_type\n"
    '12026010100,"[""the cat sleeps"", ""water""]",public,2,translation,single\n'
)
RATES_CSV = "criterion,share_met\nP1.A1,0.5\nP1.T1,0.25\n"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _build_graded():
    """The scenario's contest, resolved and finalized by the chair: three final papers, and
    the delegations, provisional results and appeals of a contest finalized after its appeals."""
    graded = scenario.build()
    scenario.finalize(graded)
    users = graded["users"]
    contest_with_appeals(
        graded["contest"],
        juror=users["alice"],
        other_juror=users["bob"],
        chair=graded["chair"],
        state=Contest.State.FINAL,
    )
    return graded


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield _build_graded()


@pytest.fixture
def graded(graded_once, db):
    return refetched(graded_once)


@pytest.fixture
def files(tmp_path):
    """The input files a late import would bring, written where the commands read them."""
    paths = {
        "kite": tmp_path / "team-kite.csv",
        "orca": tmp_path / "orca.csv",
        "test": tmp_path / "test.csv",
        "solution": tmp_path / "solution.csv",
        "rates": tmp_path / "rates.csv",
        "humans": tmp_path / "humans.csv",
        "delegations": tmp_path / "delegations.csv",
        "languages": tmp_path / "languages.csv",
    }
    contents = {
        "kite": KITE_CSV,
        "orca": ORCA_CSV,
        "test": TEST_CSV,
        "solution": SOLUTION_CSV,
        "rates": RATES_CSV,
        "humans": scenario.HUMANS_CSV,
        "delegations": DELEGATIONS_CSV,
        "languages": LANGUAGE_LINES,
    }
    for name, path in paths.items():
        path.write_text(contents[name], encoding="utf-8")
    return paths


def snapshot(contest: Contest) -> dict:
    """Everything a late write could change: the final results and the rows the contest owns."""
    results = contest_results(contest, identities=True)
    return {
        "results": [
            (paper.identity, paper.total, paper.medal, paper.provisional)
            for paper in results.papers
        ],
        "Paper": list(
            Paper.objects.order_by("pk").values_list("identity", "selected_for_jury", "metadata")
        ),
        "Solution": list(
            Solution.objects.order_by("pk").values_list("paper_id", "task_id", "answers", "raw")
        ),
        "Task answers": list(Task.objects.order_by("pk").values_list("external_id", "answers")),
        "Criterion": list(Criterion.objects.order_by("pk").values_list("code", "points", "title")),
        "Assignment": Assignment.objects.count(),
        "Sheet": Sheet.objects.count(),
        "Mark": list(Mark.objects.order_by("pk").values_list("pk", "points", "version")),
        "PaperLabel": PaperLabel.objects.count(),
        "HumanCriterionRate": HumanCriterionRate.objects.count(),
        "HumanScore": HumanScore.objects.count(),
        "MedalCutoff": list(contest.cutoffs.order_by("order").values_list("name", "min_total")),
        "Paper delegation": list(Paper.objects.order_by("pk").values_list("delegation_id")),
        "Delegation": list(
            Delegation.objects.order_by("code").values_list(
                "code", "name", "country", "leaders__username"
            )
        ),
        "Paper answer_language": list(
            Paper.objects.order_by("pk").values_list("answer_language", flat=True)
        ),
        "ProvisionalResult": list(ProvisionalResult.objects.values_list("paper_id", "total")),
        "AppealDeadlineChange": AppealDeadlineChange.objects.count(),
        "Appeal": list(Appeal.objects.order_by("pk").values_list("pk", "state", "outcome")),
        "AppealCriterion": list(AppealCriterion.objects.values_list("pk", "points_after")),
        "AppealEvent": AppealEvent.objects.count(),
        "AssignmentMove": AssignmentMove.objects.count(),
        "unavailable": list(
            JurorProfile.objects.filter(unavailable_since__isnull=False).values_list("user_id")
        ),
        "state": Contest.objects.get(pk=contest.pk).state,
        "appeals_deadline": Contest.objects.get(pk=contest.pk).appeals_deadline,
    }


def refusal_of(call) -> list[str] | str:
    """The sentences of the `ContestFinal` refusal, or what happened instead; several calls are
    compared at once, so that a failure shows every door that let the write through."""
    try:
        call()
    except ContestFinal as error:
        return error.messages
    except ValidationError as error:
        return f"another refusal: {error.messages}"
    except Exception as error:  # noqa: BLE001 - shown in the comparison instead of stopping it
        return f"{type(error).__name__}: {error}"
    return "accepted"


def command_refusal(*arguments) -> str:
    try:
        call_command(*arguments, stdout=StringIO(), stderr=StringIO())
    except CommandError as error:
        return str(error)
    return "accepted"


# --- services ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dry_run", [False, True])
def test_every_writing_service_refuses_a_final_contest_and_changes_nothing(graded, files, dry_run):
    contest = graded["contest"]
    organizer = make_user("olga", roles.ORGANIZER)
    before = snapshot(contest)
    attempts = {
        "outputs_import new paper": lambda: outputs_import(
            contest_slug="iol", paths=[files["kite"]], system="Team Kite", dry_run=dry_run
        ),
        "outputs_import graded paper": lambda: outputs_import(
            contest_slug="iol", paths=[files["orca"]], system="Team Orca", dry_run=dry_run
        ),
        "problemset_import": lambda: problemset_import(
            contest_slug="iol", paths=[files["test"], files["solution"]], dry_run=dry_run
        ),
        "criterion_rates_import": lambda: criterion_rates_import(
            contest=contest, text=RATES_CSV, dry_run=dry_run
        ),
        "human_scores_import": lambda: human_scores_import(
            contest=contest, text=scenario.HUMANS_CSV, dry_run=dry_run
        ),
        "scheme_load": lambda: scheme_load(contest=contest, directory=SCHEMES, dry_run=dry_run),
        "assignments_create": lambda: assignments_create(contest=contest, dry_run=dry_run),
        # A juror leaving: the plan is its dry run.
        "juror_leaving_make": lambda: (juror_leaving_plan if dry_run else juror_leaving_make)(
            contest=contest,
            juror=graded["users"]["alice"],
            actor=organizer,
            **({} if dry_run else {"reason": "ill"}),
        ),
        "papers_select_for_jury": lambda: papers_select_for_jury(
            contest=contest, paper_ids=[graded["papers"]["Team Lynx"].pk], dry_run=dry_run
        ),
        "delegations_import": lambda: delegations_import(
            contest=contest, text=DELEGATIONS_CSV, name="d.csv", actor=None, dry_run=dry_run
        ),
        "answer_languages_set": lambda: answer_languages_set(
            contest=contest, text=LANGUAGE_LINES, actor=None, dry_run=dry_run
        ),
        # The leaders' lines have no dry run: their preview is `leaders_parse`.
        "leaders_add": lambda: (leaders_parse if dry_run else leaders_add)(
            contest=contest, text=LEADER_LINES, **({} if dry_run else {"actor": None})
        ),
        # The chair's confirmation of cut-offs from the distribution (no dry run of its own).
        "cutoffs_apply_proposal": lambda: cutoffs_apply_proposal(
            contest=contest,
            shares=[(MEDAL_BY_KEY["gold"], Fraction(1, 12))],
            shown={"gold": Decimal("85")},
            actor=graded["chair"],
        ),
    }
    refusals = {name: refusal_of(attempt) for name, attempt in attempts.items()}
    assert refusals == {
        "outputs_import new paper": [OUTPUTS],
        "outputs_import graded paper": [OUTPUTS],
        "problemset_import": [PROBLEMSET],
        "criterion_rates_import": [RATES],
        "human_scores_import": [HUMANS],
        "scheme_load": [SCHEMES_FINAL],
        "assignments_create": [ASSIGNMENTS],
        "juror_leaving_make": [ASSIGNMENTS],
        "papers_select_for_jury": [SELECTION],
        "delegations_import": [DELEGATIONS],
        "answer_languages_set": [LANGUAGES],
        "leaders_add": [LEADERS],
        "cutoffs_apply_proposal": [CUTOFFS],
    }
    assert snapshot(contest) == before


def test_drawing_labels_for_a_paper_slipped_into_a_final_contest_is_refused(graded):
    contest = graded["contest"]
    Paper.objects.create(contest=contest, identity="Team Kite")
    labels = PaperLabel.objects.count()
    assert refusal_of(lambda: paper_labels_ensure(contest=contest)) == [LABELS]
    assert PaperLabel.objects.count() == labels


def test_a_service_handed_a_stale_contest_object_still_sees_it_final(graded):
    # The caller's object was read before finalizing; the service reads the row afresh.
    stale = Contest.objects.get(pk=graded["contest"].pk)
    stale.state = Contest.State.RESOLUTION
    before = snapshot(graded["contest"])
    assert refusal_of(lambda: assignments_create(contest=stale)) == [ASSIGNMENTS]
    assert refusal_of(lambda: criterion_rates_import(contest=stale, text=RATES_CSV)) == [RATES]
    assert snapshot(graded["contest"]) == before


# --- commands ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_every_writing_command_refuses_a_final_contest_with_the_sentence(graded, files, dry_run):
    make_user("olga", roles.ORGANIZER)
    before = snapshot(graded["contest"])
    commands = {
        "import_outputs": ("import_outputs", "--contest=iol", str(files["kite"])),
        "import_problemset": (
            "import_problemset",
            "--contest=iol",
            str(files["test"]),
            str(files["solution"]),
        ),
        "import_criterion_rates": ("import_criterion_rates", "--contest=iol", str(files["rates"])),
        "import_human_scores": ("import_human_scores", "--contest=iol", str(files["humans"])),
        "load_schemes": ("load_schemes", "--contest=iol", str(SCHEMES)),
        "assign_jurors": ("assign_jurors", "--contest=iol"),
        "juror_unavailable": (
            "juror_unavailable",
            "--contest=iol",
            "--juror=alice",
            "--reason=ill",
        ),
        "autoscore --select-top": ("autoscore", "--contest=iol", "--select-top=1"),
        "import_delegations": ("import_delegations", "iol", str(files["delegations"])),
        "set_answer_languages": (
            "set_answer_languages",
            "--contest=iol",
            f"--file={files['languages']}",
        ),
    }
    refusals = {name: command_refusal(*args, *dry_run) for name, args in commands.items()}
    assert refusals == {
        "import_outputs": OUTPUTS,
        "import_problemset": PROBLEMSET,
        "import_criterion_rates": RATES,
        "import_human_scores": HUMANS,
        "load_schemes": SCHEMES_FINAL,
        "assign_jurors": ASSIGNMENTS,
        "juror_unavailable": ASSIGNMENTS,
        "autoscore --select-top": SELECTION,
        "import_delegations": DELEGATIONS,
        "set_answer_languages": LANGUAGES,
    }
    assert snapshot(graded["contest"]) == before


def test_late_outputs_and_jurors_chained_leave_three_final_papers_and_no_provisional_one(
    graded, files
):
    """The issue's chain: a new system imported, then jurors assigned, after finalizing."""
    contest = graded["contest"]
    before = snapshot(contest)
    with pytest.raises(CommandError):
        call_command("import_outputs", "--contest=iol", str(files["kite"]), stdout=StringIO())
    with pytest.raises(CommandError):
        call_command("assign_jurors", "--contest=iol", "--per-problem=2", stdout=StringIO())
    results = contest_results(contest, identities=True)
    assert [(paper.identity, paper.provisional) for paper in results.papers] == [
        ("Team Orca", False),
        ("Team Heron", False),
        ("Team Lynx", False),
    ]
    assert Mark.objects.filter(points__isnull=True).count() == 0
    assert snapshot(contest) == before


def test_read_only_commands_keep_working_on_a_final_contest(graded, tmp_path):
    before = snapshot(graded["contest"])
    out = StringIO()
    call_command("autoscore", "--contest=iol", stdout=out)
    # The two contestants of the appeals' delegations are human papers: not scored.
    assert out.getvalue().splitlines()[-1] == "Scored 1 papers of iol."
    call_command(
        "export_results",
        "--contest=iol",
        "--format=csv",
        f"--out={tmp_path / 'results.csv'}",
        "--identities",
        stdout=StringIO(),
    )
    call_command("export_contest", "--contest=iol", f"--out={tmp_path / 'iol.json'}", stdout=out)
    assert (tmp_path / "results.csv").stat().st_size > 0
    assert (tmp_path / "iol.json").stat().st_size > 0
    assert snapshot(graded["contest"]) == before


# --- reopen_contest and open_grading ----------------------------------------------------------


def test_reopen_contest_records_the_reason_and_lets_the_imports_in_again(graded, files):
    out = StringIO()
    call_command("reopen_contest", "--contest=iol", "--reason=A late appeal on P2.", stdout=out)
    assert out.getvalue() == (
        "Contest iol is reopened, in the resolution phase; the chair can finalize it again.\n"
    )
    event = ContestEvent.objects.filter(contest=graded["contest"]).last()
    assert (event.actor, event.from_state, event.to_state, event.reason) == (
        None,
        "final",
        "resolution",
        "A late appeal on P2.",
    )
    summary = criterion_rates_import(contest=graded["contest"], text=RATES_CSV)
    assert len(summary.rates) == 2


@pytest.mark.parametrize("reason", [[], ["--reason=   "]])
def test_reopen_contest_without_a_reason_is_refused(graded, reason):
    events = ContestEvent.objects.count()
    assert command_refusal("reopen_contest", "--contest=iol", *reason) == (
        "Give the reason for reopening the contest; it stays on record."
    )
    assert Contest.objects.get(slug="iol").state == "final"
    assert ContestEvent.objects.count() == events


# The tests below may run beside the module's contest (built by an earlier test): its events
# are there too, so they count the events recorded since the test began, not all.


def test_reopen_contest_refuses_a_contest_that_is_not_final(db):
    events = ContestEvent.objects.count()
    make_contest("open")
    assert command_refusal("reopen_contest", "--contest=open", "--reason=Why not.") == (
        "Contest open is not final; there is nothing to reopen."
    )
    assert ContestEvent.objects.count() == events


def test_reopen_contest_refuses_an_unknown_contest(db):
    assert command_refusal("reopen_contest", "--contest=nope", "--reason=r") == (
        "There is no contest “nope”."
    )


def test_open_grading_moves_a_set_up_contest_to_grading_on_record(db):
    earlier = list(ContestEvent.objects.values_list("pk", flat=True))
    contest = make_contest("kelo")
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.SETUP)
    out = StringIO()
    call_command("open_grading", "--contest=kelo", stdout=out)
    assert out.getvalue() == "Grading of Contest kelo is open; jurors may submit.\n"
    assert Contest.objects.get(pk=contest.pk).state == "grading"
    recorded = ContestEvent.objects.exclude(pk__in=earlier)
    assert list(recorded.values_list("contest", "actor", "from_state", "to_state")) == [
        (contest.pk, None, "setup", "grading")
    ]


def test_open_grading_refuses_a_contest_past_its_set_up_and_a_final_one(graded):
    make_contest("kelo")
    assert command_refusal("open_grading", "--contest=kelo") == (
        "Contest kelo is already past its set-up."
    )
    assert command_refusal("open_grading", "--contest=iol") == final_sentence(
        "its papers, marks and results"
    )
    assert Contest.objects.get(slug="iol").state == "final"
