from collections import Counter
from decimal import Decimal
from io import StringIO

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command

from grading.console.contest_life import contest_finalize
from grading.demo.grading import demo_finish_grading
from grading.demo.loader import demo_load
from grading.models import (
    Assignment,
    GradingGroup,
    Mark,
    MarkEvent,
    Paper,
    PaperLabel,
    Resolution,
    Sheet,
    Solution,
)
from grading.resolution.comparison import contest_results
from grading.resolution.decisions import discrepancy_decide
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, Task
from rubrics.validators import validate_points
from tests.grading import scenario

SYSTEMS = ["Team Aurora", "Team Basalt", "Team Cinder", "Team Drift", "Team Ember", "Team Fjord"]
HUMANS = ["C-0417", "C-0582", "C-0736", "C-0921"]
MODELS = (
    User,
    Group,
    Contest,
    MedalCutoff,
    Problem,
    Task,
    Criterion,
    Paper,
    PaperLabel,
    Solution,
    GradingGroup,
    Assignment,
    Sheet,
    Mark,
    MarkEvent,
)


@pytest.fixture
def demo(db):
    out = StringIO()
    call_command("load_demo", stdout=out)
    return Contest.objects.get(slug="demo"), out.getvalue()


def _counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


def _criterion_marks(problem_number: int, username: str) -> dict[tuple[str, str], Decimal]:
    return {
        (identity, code): points
        for identity, code, points in Mark.objects.filter(
            sheet__problem__number=problem_number, sheet__juror__username=username
        ).values_list("paper__identity", "criterion__code", "points")
    }


def test_load_demo_creates_the_contest_its_five_problems_and_their_tasks(demo):
    contest, _ = demo
    assert (contest.name, contest.state) == ("IOL-AI Demo Contest", "grading")
    assert list(contest.problems.values_list("number", "language")) == [
        (1, "Merevi"),
        (2, "Kuttal"),
        (3, "Ŋanduri"),
        (4, "Sabatu"),
        (5, "Hoyelin"),
    ]
    tasks = Counter(Task.objects.filter(problem__contest=contest).values_list("problem__number"))
    assert dict(tasks) == {(1,): 3, (2,): 2, (3,): 2, (4,): 2, (5,): 3}
    explanation_only = Task.objects.get(problem__contest=contest, weight=0)
    assert (explanation_only.external_id, explanation_only.item_count) == ("12026010300", 1)
    assert list(contest.cutoffs.values_list("order", "name", "min_total")) == [
        (1, "gold", Decimal("70.0")),
        (2, "silver", Decimal("58.4")),
        (3, "honourable mention", Decimal("35.3")),
    ]


def test_every_demo_scheme_adds_up_to_twenty_and_mixes_assignment_and_theory(demo):
    contest, _ = demo
    for problem in contest.problems.all():
        criteria = list(problem.criteria.all())
        assert sum(criterion.points for criterion in criteria) == Decimal("20")
        assert {criterion.kind for criterion in criteria} == {"assignment", "theory"}
        assert all(criterion.points % criterion.step == 0 for criterion in criteria)
        # Every task with an assignment criterion is one of this problem's.
        assert all(
            criterion.task.problem_id == problem.pk for criterion in criteria if criterion.task
        )
    tolerant = Criterion.objects.filter(problem__contest=contest, tolerance__gt=0)
    assert list(tolerant.values_list("problem__number", "code", "tolerance")) == [
        (3, "A2", Decimal("0.5"))
    ]


def test_six_systems_and_four_human_contestants_become_papers_labelled_in_every_problem(demo):
    contest, _ = demo
    kinds = dict(contest.papers.values_list("identity", "source"))
    assert kinds == {**dict.fromkeys(SYSTEMS, "ai"), **dict.fromkeys(HUMANS, "human")}
    labels = Counter(
        PaperLabel.objects.filter(problem__contest=contest).values_list("problem__number")
    )
    assert dict(labels) == {(number,): 10 for number in range(1, 6)}
    for paper in contest.papers.all():
        assert sorted(paper.labels.values_list("problem__number", flat=True)) == [1, 2, 3, 4, 5]
    aurora = Paper.objects.get(identity="Team Aurora")
    assert aurora.metadata["submission_repo"] == "aurora-labs/lingua-reasoner"


def test_raw_outputs_are_repaired_and_short_answers_padded(demo):
    ember = Solution.objects.get(paper__identity="Team Ember", task__external_id="12026030100")
    assert ember.answers == ["ŋ̂kérɑ̃", "ŋ́gùte", "gùt͡ʃi", "ŋ̂gùtẽ"]
    assert ember.parse_notes == ["Removed a code fence around the answer."]
    assert ember.explanation.startswith("| form | prefix | why |\n|---|---|---|\n")
    drift = Solution.objects.get(paper__identity="Team Drift", task__external_id="12026040200")
    assert drift.answers == ["pau ne tori", "pau sipu", "", ""]
    assert drift.parse_notes == ["2 answers for 4 items: padded with 2 empty answers."]


def test_demo_users_have_their_roles_and_the_password_demo(demo):
    roles = {
        user.username: (sorted(user.groups.values_list("name", flat=True)), user.is_staff)
        for user in User.objects.all()
    }
    assert roles == {
        "organizer": (["organizer"], True),
        "chair": (["chair"], True),
        **{f"juror{n}": (["juror"], False) for n in range(1, 7)},
    }
    assert all(user.check_password("demo") for user in User.objects.all())


def test_grading_groups_have_two_jurors_and_three_for_problem_three(demo):
    groups = {
        group.problem.number: sorted(group.jurors.values_list("username", flat=True))
        for group in GradingGroup.objects.select_related("problem")
    }
    assert groups == {
        1: ["juror1", "juror2"],
        2: ["juror3", "juror4"],
        3: ["juror1", "juror5", "juror6"],
        4: ["juror2", "juror3"],
        5: ["juror4", "juror5"],
    }


def test_every_paper_is_assigned_to_two_jurors_per_problem_and_three_in_problem_three(demo):
    per_paper = Counter(Assignment.objects.values_list("problem__number", "paper_id"))
    expected = {1: 2, 2: 2, 3: 3, 4: 2, 5: 2}
    assert dict(per_paper) == {
        (number, paper_id): expected[number]
        for number in expected
        for paper_id in Paper.objects.values_list("pk", flat=True)
    }


def test_problem_one_is_graded_and_submitted_by_both_jurors_with_four_disagreements(demo):
    first, second = _criterion_marks(1, "juror1"), _criterion_marks(1, "juror2")
    assert len(first) == len(second) == 60
    assert None not in first.values() and None not in second.values()
    disagreements = {
        cell: (first[cell], second[cell]) for cell in first if first[cell] != second[cell]
    }
    assert disagreements == {
        ("Team Basalt", "T3"): (Decimal("1.5"), Decimal("3")),
        ("Team Cinder", "A2"): (Decimal("3"), Decimal("2")),
        ("Team Drift", "T3"): (Decimal("1.5"), Decimal("1")),
        ("C-0582", "A2"): (Decimal("4"), Decimal("5")),
    }
    submitted = Sheet.objects.submitted().values_list("problem__number", "juror__username")
    assert sorted(submitted) == [(1, "juror1"), (1, "juror2")]
    assert Sheet.objects.submitted().filter(submitted_at__isnull=True).count() == 0


def test_problem_one_totals_follow_the_systems_and_contestants_quality(demo):
    totals = Counter()
    for (identity, _), points in _criterion_marks(1, "juror1").items():
        totals[identity] += points
    assert [identity for identity, _ in totals.most_common()] == [
        "Team Aurora",
        "Team Ember",
        "C-0417",
        "Team Basalt",
        "C-0582",
        "Team Cinder",
        "C-0736",
        "Team Drift",
        "C-0921",
        "Team Fjord",
    ]


def test_problem_two_is_half_graded_by_one_juror_and_the_rest_is_untouched(demo):
    graded = Mark.objects.filter(points__isnull=False)
    by_sheet = Counter(graded.values_list("sheet__problem__number", "sheet__juror__username"))
    assert dict(by_sheet) == {(1, "juror1"): 60, (1, "juror2"): 60, (2, "juror3"): 25}
    p2 = _criterion_marks(2, "juror3")
    assert sorted({identity for (identity, _), points in p2.items() if points is not None}) == [
        "C-0417",
        "C-0736",
        "Team Aurora",
        "Team Cinder",
        "Team Fjord",
    ]
    assert Sheet.objects.get(problem__number=2, juror__username="juror3").state == "draft"


def test_every_demo_mark_is_valid_and_recorded_as_an_import(demo):
    for mark in Mark.objects.filter(points__isnull=False).select_related("criterion"):
        validate_points(mark.points, mark.criterion)
    events = MarkEvent.objects.values_list("channel", "old_points", "mark__sheet__juror_id")
    assert Counter(channel for channel, _, _ in events) == {"import": 145}
    assert {old for _, old, _ in events} == {None}
    actors = set(MarkEvent.objects.values_list("actor_id", flat=True))
    assert actors == set(
        User.objects.filter(username__in=["juror1", "juror2", "juror3"]).values_list(
            "pk", flat=True
        )
    )


def test_load_demo_prints_the_log_ins(demo):
    _, output = demo
    table = output[output.index("Demo log-ins:") :].splitlines()[1:10]
    assert [line.split()[:3] for line in table] == [
        ["username", "password", "role"],
        ["organizer", "demo", "organizer"],
        ["chair", "demo", "chair"],
        *[[f"juror{n}", "demo", "juror"] for n in range(1, 7)],
    ]
    assert table[3].split(maxsplit=3)[3] == "P1, P3"
    assert output.splitlines()[-1].startswith("Loaded the demo contest: 5 problems, 12 tasks")


def test_a_second_load_demo_changes_nothing_and_says_so(demo):
    before = _counts()
    marks_before = list(Mark.objects.order_by("pk").values_list("pk", "points", "version"))
    out = StringIO()
    call_command("load_demo", stdout=out)
    assert _counts() == before
    assert list(Mark.objects.order_by("pk").values_list("pk", "points", "version")) == marks_before
    assert out.getvalue().splitlines()[-1] == (
        "The demo contest is already loaded; nothing changed."
    )


def test_dry_run_loads_nothing(db, settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    summary = demo_load(dry_run=True, verbosity=0)
    assert (summary["created"], summary["papers"], summary["marks_entered"]) == (True, 10, 145)
    assert (Contest.objects.count(), Paper.objects.count(), User.objects.count()) == (0, 0, 0)
    # Nor leaves a page image behind.
    assert list((tmp_path / "scans").glob("*.png")) == []


# What PLANTS in grading/demo/grading.py leaves open: P1's four disagreements (one on a human
# contestant's paper) and eight of the ten plants (the two one-step plants on P3 A2 are within
# that criterion's tolerance).
PLANTED_OPEN = 12


@pytest.fixture
def finished(demo):
    out = StringIO()
    call_command("load_demo", "--finish-grading", stdout=out)
    return demo[0], out.getvalue()


def test_finish_grading_submits_every_sheet_and_leaves_no_blank_mark(finished):
    contest, out = finished
    assert Sheet.objects.filter(problem__contest=contest).exclude(state="submitted").count() == 0
    assert Mark.objects.filter(sheet__problem__contest=contest, points__isnull=True).count() == 0
    assert out.splitlines()[-1] == (
        "Finished the demo's grading: 9 sheets submitted, 475 marks entered, "
        f"{PLANTED_OPEN} open discrepancies for the chair."
    )


def test_finish_grading_opens_exactly_the_planted_discrepancies(finished):
    contest, _ = finished
    assert len(scenario.discrepancies(contest)) == PLANTED_OPEN


def test_every_mark_after_finish_grading_is_valid_and_an_import(finished):
    for mark in Mark.objects.select_related("criterion"):
        validate_points(mark.points, mark.criterion)
    assert set(MarkEvent.objects.values_list("channel", flat=True)) == {"import"}


def test_a_second_finish_grading_changes_nothing_and_says_so(finished):
    before = _counts()
    out = StringIO()
    call_command("load_demo", "--finish-grading", stdout=out)
    assert _counts() == before
    assert out.getvalue().splitlines()[-1] == (
        f"Every sheet of the demo is already submitted; nothing changed "
        f"({PLANTED_OPEN} open discrepancies)."
    )


def test_finish_grading_loads_the_demo_when_it_is_absent(db):
    summary = demo_finish_grading()
    assert (summary["already_done"], summary["open_discrepancies"]) == (False, PLANTED_OPEN)


def test_the_chair_can_decide_every_planted_discrepancy_and_finalize(finished):
    contest, _ = finished
    chair = User.objects.get(username="chair")
    for paper_id, criterion_id, lo, _hi in scenario.discrepancies(contest):
        discrepancy_decide(
            paper=Paper.objects.get(pk=paper_id),
            criterion=Criterion.objects.get(pk=criterion_id),
            points=lo,
            reason="The stricter reading matches the guidance.",
            actor=chair,
        )
    assert scenario.discrepancies(contest) == []
    contest_finalize(contest=contest, actor=chair)
    contest.refresh_from_db()
    assert contest.state == Contest.State.FINAL
    results = contest_results(contest, identities=True)
    assert {p.identity: (p.total, p.medal) for p in results.papers} == {
        "Team Aurora": (Decimal("87.00"), "gold"),
        "Team Ember": (Decimal("81.50"), "gold"),
        "Team Basalt": (Decimal("66.00"), "silver"),
        "Team Cinder": (Decimal("49.50"), "honourable mention"),
        "Team Drift": (Decimal("30.00"), ""),
        "Team Fjord": (Decimal("9.00"), ""),
        "C-0417": (Decimal("87.00"), "gold"),
        "C-0582": (Decimal("68.00"), "silver"),
        "C-0736": (Decimal("44.50"), "honourable mention"),
        "C-0921": (Decimal("9.50"), ""),
    }


def test_team_basalts_open_cells_straddle_the_gold_cut_off(finished):
    contest, _ = finished
    results = contest_results(contest, identities=True)
    straddling = {p.identity: (p.low, p.high) for p in results.papers if p.straddle}
    assert straddling == {"Team Basalt": (Decimal("66.00"), Decimal("72.50"))}


def test_reset_loads_a_demo_someone_has_graded_anew_with_the_readmes_figures(finished):
    contest, _ = finished
    chair = User.objects.get(username="chair")
    paper_id, criterion_id, lo, _hi = scenario.discrepancies(contest)[0]
    discrepancy_decide(
        paper=Paper.objects.get(pk=paper_id),
        criterion=Criterion.objects.get(pk=criterion_id),
        points=lo,
        reason="Rehearsed.",
        actor=chair,
    )
    again = StringIO()
    call_command("load_demo", "--finish-grading", stdout=again)
    assert again.getvalue().splitlines()[-1].endswith(f"({PLANTED_OPEN - 1} open discrepancies).")
    out = StringIO()
    call_command("load_demo", "--reset", "--finish-grading", stdout=out)
    assert out.getvalue().splitlines()[-1] == (
        "Finished the demo's grading: 9 sheets submitted, 475 marks entered, "
        f"{PLANTED_OPEN} open discrepancies for the chair."
    )
    assert (Contest.objects.filter(slug="demo").count(), Resolution.objects.count()) == (1, 0)


def test_reset_refuses_a_final_demo_as_every_command_refuses_a_final_contest(demo):
    contest, _ = demo
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    before = _counts()
    with pytest.raises(CommandError) as error:
        call_command("load_demo", "--reset", stdout=StringIO())
    assert str(error.value) == (
        "IOL-AI Demo Contest is final: its papers, marks and results, which --reset would "
        "delete, are read-only. An organizer can reopen it, with a reason, from its results page."
    )
    assert _counts() == before
