"""load_demo: the contest, its papers, people and marks as the README describes them. The
demo is loaded once for this module; --finish-grading is tested in test_demo_finished.py and
the commands on an empty database in test_demo_on_an_empty_database.py."""

from collections import Counter
from decimal import Decimal
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains

from grading.console.juror_facts import facts_of
from grading.models import (
    Assignment,
    Delegation,
    GradingGroup,
    HelpRequest,
    JurorProfile,
    Mark,
    MarkEvent,
    Paper,
    PaperLabel,
    Sheet,
    Solution,
)
from rubrics.models import Contest, Criterion, Task
from rubrics.validators import validate_points
from tests.crawl import database_state, shared_data
from tests.grading.demo.shared import counts, signed_in

SYSTEMS = ["Team Aurora", "Team Basalt", "Team Cinder", "Team Drift", "Team Ember", "Team Fjord"]
HUMANS = ["C-0417", "C-0582", "C-0736", "C-0921"]


@pytest.fixture(scope="module")
def loaded_demo(django_db_setup, django_db_blocker, pdf_cache):
    """load_demo, run once for the module (seconds each time): its tests read the demo, and
    each runs in a savepoint of the module's transaction (tests/crawl.py `shared_data`), which
    undoes what a test writes (a second load, a contest made final) before the next."""
    with shared_data(django_db_blocker, pdf_cache):
        out = StringIO()
        call_command("load_demo", stdout=out)
        yield out.getvalue(), database_state()


@pytest.fixture
def demo(db, loaded_demo):
    output, state = loaded_demo
    # Were a test's writes not rolled back with its savepoint, the next would read other data.
    assert database_state() == state
    return Contest.objects.get(slug="demo"), output


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
        "leader1": (["leader"], False),
        "leader2": (["leader"], False),
        "specialist1": (["specialist"], False),
    }
    assert all(user.check_password("demo") for user in User.objects.all())


def test_the_specialist_has_a_question_to_answer_from_a_juror_who_reads_it_with_help(demo):
    contest, _ = demo
    (request,) = HelpRequest.objects.filter(problem__contest=contest)
    assert (request.helper.username, request.state) == ("specialist1", "assigned")
    assert request.paper.answer_language == "Estonian"
    assert request.asked_by.reading_languages.get(language="Estonian").level == "with_help"
    assert not request.problem.sheets.submitted().filter(juror=request.asked_by).exists()


def test_two_delegations_of_two_contestants_each_have_one_team_leader_each(demo):
    contest, _ = demo
    delegations = {
        delegation.code: (
            sorted(delegation.papers.values_list("identity", flat=True)),
            list(delegation.leaders.values_list("username", flat=True)),
        )
        for delegation in Delegation.objects.filter(contest=contest)
    }
    assert delegations == {
        "EST": (["C-0417", "C-0736"], ["leader1"]),
        "NOR": (["C-0582", "C-0921"], ["leader2"]),
    }
    assert Paper.objects.filter(contest=contest, delegation__isnull=True).count() == len(SYSTEMS)


def test_the_demo_knows_countries_answer_languages_and_jurors_languages(demo):
    contest, _ = demo
    assert dict(Delegation.objects.filter(contest=contest).values_list("code", "country")) == {
        "EST": "Estonia",
        "NOR": "Norway",
    }
    assert dict(
        Paper.objects.filter(contest=contest, source=Paper.Source.HUMAN).values_list(
            "identity", "answer_language"
        )
    ) == {"C-0417": "Estonian", "C-0582": "Norwegian", "C-0736": "Estonian", "C-0921": "English"}
    assert contest.working_language == "English"
    juror1 = User.objects.get(username="juror1")
    assert (juror1.juror_profile.country, facts_of(juror1).languages_text) == (
        "Nigeria",
        "English; Estonian (with help); Yoruba",
    )
    assert JurorProfile.objects.filter(user__username__startswith="juror").count() == 6


@pytest.mark.parametrize(("username", "delegation"), [("leader1", "EST"), ("leader2", "NOR")])
def test_a_leader_signs_in_with_demo_and_finds_their_delegation_not_published_yet(
    demo, username, delegation
):
    contest, _ = demo
    client = signed_in(username)
    home = client.get(reverse("home"))
    assertContains(home, "<h2>My delegation</h2>", html=True)
    assertContains(
        home,
        f'<a class="delegation-link" href="{reverse("leader_delegation", args=[contest.slug])}">'
        f"{delegation} at IOL-AI Demo Contest</a>",
        html=True,
    )
    page = client.get(reverse("leader_delegation", args=[contest.slug]))
    assertContains(
        page,
        f"<h1>My delegation: {delegation} <small>IOL-AI Demo Contest</small></h1>",
        html=True,
    )
    assertContains(page, '<p class="notice" id="not-published">', count=1)
    for code in HUMANS:
        assertNotContains(page, code)


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
    leaders = output[output.index("Demo log-ins:") :].splitlines()[10:12]
    assert [line.split(maxsplit=3) for line in leaders] == [
        ["leader1", "demo", "leader", "none (leads EST)"],
        ["leader2", "demo", "leader", "none (leads NOR)"],
    ]
    assert output.splitlines()[-1].startswith("Loaded the demo contest: 5 problems, 12 tasks")


def test_a_second_load_demo_changes_nothing_and_says_so(demo):
    before = counts()
    marks_before = list(Mark.objects.order_by("pk").values_list("pk", "points", "version"))
    out = StringIO()
    call_command("load_demo", stdout=out)
    assert counts() == before
    assert list(Mark.objects.order_by("pk").values_list("pk", "points", "version")) == marks_before
    assert out.getvalue().splitlines()[-1] == (
        "The demo contest is already loaded; nothing changed."
    )


def test_reset_refuses_a_final_demo_as_every_command_refuses_a_final_contest(demo):
    contest, _ = demo
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    before = counts()
    with pytest.raises(CommandError) as error:
        call_command("load_demo", "--reset", stdout=StringIO())
    assert str(error.value) == (
        "IOL-AI Demo Contest is final: its papers, marks and results, which --reset would "
        "delete, are read-only. An organizer can reopen it, with a reason, from its results page."
    )
    assert counts() == before
