from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from grading.console.contest_life import (
    contest_finalize,
    contest_resolution_open,
    provisional_blockers,
)
from grading.intake.importers.human_scores import human_scores_import
from grading.marking.marks import mark_set
from grading.marking.reconcile import cell_reconcile
from grading.models import (
    Comment,
    Mark,
    MarkEvent,
    PaperLabel,
    Resolution,
    ResolutionEvent,
    Sheet,
)
from grading.resolution.comparison import contest_results
from grading.resolution.decisions import comment_add, discrepancy_decide, mark_revise
from rubrics.models import Contest
from tests.crawl import refetched, shared_data
from tests.grading import scenario

D = Decimal


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture(scope="module")
def entered_once(django_db_setup, django_db_blocker, pdf_cache):
    """scenario.build(submit_sheets=False), built once for the module; each test runs in a
    savepoint of it (tests/crawl.py). Its names are scenario.build's, fixed: the tests of
    drafts take it rather than build another beside it."""
    with shared_data(django_db_blocker, pdf_cache):
        yield scenario.build(submit_sheets=False)


@pytest.fixture
def entered(entered_once, db):
    return refetched(entered_once)


@pytest.fixture
def graded(entered):
    """scenario.build(): the module's scenario with its sheets submitted in this test."""
    return scenario.submit_all(entered)


def _mark(graded, juror, identity, code, number=1):
    return Mark.objects.get(
        sheet__juror=graded["users"][juror],
        sheet__problem=graded["problems"][number],
        paper=graded["papers"][identity],
        criterion__code=code,
    )


def _criterion(graded, number, code):
    return graded["problems"][number].criteria.get(code=code)


def _summary(results):
    return {
        paper.identity or paper.paper_id: (
            paper.problem_points[1],
            paper.problem_points[2],
            paper.total,
            paper.medal,
            paper.rank,
            paper.percentile,
            paper.provisional,
        )
        for paper in results.papers
    }


def test_full_scenario_from_marks_to_final_results(graded):
    contest, users, chair, papers = (
        graded["contest"],
        graded["users"],
        graded["chair"],
        graded["papers"],
    )
    orca, heron = papers["Team Orca"], papers["Team Heron"]
    p1_a1, p1_t1 = _criterion(graded, 1, "A1"), _criterion(graded, 1, "T1")

    human_scores_import(contest=contest, text=scenario.HUMANS_CSV)

    # The two planted discrepancies, and nothing within tolerance.
    assert sorted(scenario.discrepancies(contest)) == sorted(
        [(orca.pk, p1_t1.pk, D("6"), D("8")), (heron.pk, p1_a1.pk, D("8"), D("9"))]
    )
    before = contest_results(contest, identities=True)
    # Open cells count at the plain mean while provisional: Orca P1 T1 (8+8+6)/3 = 7.33,
    # Heron P1 A1 (8+9+8)/3 = 8.33; Heron P2 T1 (2, 2.5 within 0.5) is 2, rounded down.
    assert _summary(before) == {
        "Team Orca": (D("19.33"), D("16.00"), D("88.33"), "gold", 2, D("75.0"), True),
        "Team Heron": (D("12.33"), D("8.00"), D("50.83"), "honourable mention", 3, D("50.0"), True),
        "Team Lynx": (D("6.00"), D("3.00"), D("22.50"), "", 4, D("25.0"), False),
    }
    assert [p.identity for p in before.papers] == ["Team Orca", "Team Heron", "Team Lynx"]

    with pytest.raises(ValidationError) as error:
        contest_finalize(contest=contest, actor=chair)
    heron_label = scenario.label(graded, "Team Heron", 1)
    orca_label = scenario.label(graded, "Team Orca", 1)
    expected_examples = sorted([f"P1 A1 of paper {heron_label}", f"P1 T1 of paper {orca_label}"])
    message = error.value.messages[0]
    assert message.startswith(
        "Contest iol cannot be finalized yet: 2 discrepancies are still open ("
    )
    assert sorted(message.split("(")[1].rstrip(").").split(", ")) == expected_examples

    # Revisions wait for the chair to open the resolution phase.
    bob_mark = _mark(graded, "bob", "Team Heron", "A1")
    with pytest.raises(ValidationError) as error:
        mark_revise(mark=bob_mark, points=D("8"), actor=users["bob"])
    assert error.value.messages == [
        "Revisions open when the chair starts the resolution phase of Contest iol."
    ]
    contest_resolution_open(contest=contest, actor=chair)

    # Discussion, then bob revises: the cell closes as consensus; his original stays readable.
    comment_add(paper=heron, criterion=p1_a1, author=users["alice"], text="Item 2 is wrong.")
    comment_add(paper=heron, criterion=p1_a1, author=users["bob"], text="Agreed, 8 then.")
    assert list(
        Comment.objects.filter(paper=heron, criterion=p1_a1).values_list("author__username", "text")
    ) == [("alice", "Item 2 is wrong."), ("bob", "Agreed, 8 then.")]
    bob_mark = _mark(graded, "bob", "Team Heron", "A1")
    mark_revise(mark=bob_mark, points=D("8"), actor=users["bob"], expected_version=1)
    assert list(
        MarkEvent.objects.filter(mark=bob_mark).values_list("old_points", "new_points", "version")
    ) == [(None, D("9"), 1), (D("9"), D("8"), 2)]
    consensus = Resolution.objects.get(paper=heron, criterion=p1_a1)
    assert (consensus.kind, consensus.points, consensus.decided_by) == (
        "consensus",
        D("8"),
        users["bob"],
    )

    # The chair decides, then changes their mind; both decisions are on record.
    discrepancy_decide(
        paper=orca, criterion=p1_t1, points=D("7.5"), reason="Rule 2 half met.", actor=chair
    )
    discrepancy_decide(
        paper=orca,
        criterion=p1_t1,
        points=D("7"),
        reason="Rule 2 stated, not applied.",
        actor=chair,
    )
    decision = Resolution.objects.get(paper=orca, criterion=p1_t1)
    assert (decision.kind, decision.points, decision.reason) == (
        "chair",
        D("7"),
        "Rule 2 stated, not applied.",
    )
    assert list(
        ResolutionEvent.objects.filter(resolution=decision).values_list(
            "old_points", "new_points", "old_kind", "new_kind", "reason"
        )
    ) == [
        (None, D("7.5"), "", "chair", "Rule 2 half met."),
        (D("7.5"), D("7"), "chair", "chair", "Rule 2 stated, not applied."),
    ]
    with pytest.raises(ValidationError) as error:
        mark_revise(mark=_mark(graded, "dan", "Team Orca", "T1"), points=D("8"), actor=users["dan"])
    assert error.value.messages == [
        "The chair decided criterion T1 for this paper (7 points); only the chair can change it."
    ]

    assert scenario.discrepancies(contest) == []
    after = contest_results(contest, identities=True)
    assert _summary(after) == {
        "Team Orca": (D("19.00"), D("16.00"), D("87.50"), "gold", 2, D("75.0"), False),
        "Team Heron": (
            D("12.00"),
            D("8.00"),
            D("50.00"),
            "honourable mention",
            3,
            D("25.0"),
            False,
        ),
        "Team Lynx": (D("6.00"), D("3.00"), D("22.50"), "", 4, D("25.0"), False),
    }
    statuses = {
        (paper.identity, cell.criterion.problem.number, cell.criterion.code): (
            cell.status,
            cell.points,
        )
        for paper in after.papers
        for cell in paper.cells.values()
        if paper.identity != "Team Lynx"
    }
    assert statuses == {
        ("Team Orca", 1, "A1"): ("agreed", D("12.00")),
        ("Team Orca", 1, "T1"): ("chair", D("7.00")),
        ("Team Orca", 2, "A1"): ("agreed", D("10.00")),
        ("Team Orca", 2, "T1"): ("agreed", D("6.00")),
        ("Team Heron", 1, "A1"): ("consensus", D("8.00")),
        ("Team Heron", 1, "T1"): ("agreed", D("4.00")),
        ("Team Heron", 2, "A1"): ("agreed", D("6.00")),
        ("Team Heron", 2, "T1"): ("agreed", D("2.00")),
    }

    contest_finalize(contest=contest, actor=chair)
    contest.refresh_from_db()
    assert contest.state == "final"


def test_every_write_is_refused_once_the_contest_is_final(graded):
    contest, users, chair, papers = (
        graded["contest"],
        graded["users"],
        graded["chair"],
        graded["papers"],
    )
    orca, heron = papers["Team Orca"], papers["Team Heron"]
    p1_a1, p1_t1 = _criterion(graded, 1, "A1"), _criterion(graded, 1, "T1")
    scenario.open_resolution(graded)
    discrepancy_decide(paper=orca, criterion=p1_t1, points=D("7"), reason="Half.", actor=chair)
    discrepancy_decide(paper=heron, criterion=p1_a1, points=D("8"), reason="Item 2.", actor=chair)
    contest_finalize(contest=contest, actor=chair)
    reopen = " An organizer can reopen it, with a reason, from its results page."
    final = "Contest iol is final: its marks, resolutions and comments are read-only." + reopen
    attempts = {
        "mark_set": lambda: mark_set(
            mark=_mark(graded, "alice", "Team Lynx", "A1"),
            points=D("5"),
            actor=users["alice"],
            channel="browser",
        ),
        "mark_revise": lambda: mark_revise(
            mark=_mark(graded, "alice", "Team Lynx", "A1"), points=D("5"), actor=users["alice"]
        ),
        "comment_add": lambda: comment_add(paper=orca, criterion=p1_t1, author=chair, text="Late."),
        "discrepancy_decide": lambda: discrepancy_decide(
            paper=orca, criterion=p1_t1, points=D("8"), reason="Changed.", actor=chair
        ),
        "contest_finalize": lambda: contest_finalize(contest=contest, actor=chair),
        "human_scores_import": lambda: human_scores_import(
            contest=contest, text=scenario.HUMANS_CSV
        ),
    }
    refusals = {}
    for name, attempt in attempts.items():
        with pytest.raises(ValidationError) as error:
            attempt()
        refusals[name] = error.value.messages
    assert refusals == {
        "mark_set": ["Contest iol is final: its marks are read-only." + reopen],
        "mark_revise": [final],
        "comment_add": [final],
        "discrepancy_decide": [final],
        "contest_finalize": ["Contest iol is already final."],
        "human_scores_import": [
            "Contest iol is final: its results, equivalent ranks included, are read-only." + reopen
        ],
    }
    assert _mark(graded, "alice", "Team Lynx", "A1").points == D("4")
    assert Resolution.objects.get(paper=orca, criterion=p1_t1).points == D("7")
    assert Comment.objects.count() == 0


def test_a_consensus_that_falls_apart_is_withdrawn_and_keeps_its_history(graded):
    scenario.open_resolution(graded)
    users, heron = graded["users"], graded["papers"]["Team Heron"]
    p1_a1 = _criterion(graded, 1, "A1")
    mark_revise(mark=_mark(graded, "bob", "Team Heron", "A1"), points=D("8"), actor=users["bob"])
    assert Resolution.objects.get(paper=heron, criterion=p1_a1).kind == "consensus"
    mark_revise(
        mark=_mark(graded, "alice", "Team Heron", "A1"), points=D("10"), actor=users["alice"]
    )
    resolution = Resolution.objects.get(paper=heron, criterion=p1_a1)
    assert resolution.kind == "withdrawn"
    assert [(p, c) for p, c, _, _ in scenario.discrepancies(graded["contest"])].count(
        (heron.pk, p1_a1.pk)
    ) == 1
    # Agreeing again closes it as consensus once more; every step stays on record.
    mark_revise(
        mark=_mark(graded, "alice", "Team Heron", "A1"), points=D("8"), actor=users["alice"]
    )
    assert list(resolution.events.values_list("old_kind", "new_kind", "actor__username")) == [
        ("", "consensus", "bob"),
        ("consensus", "withdrawn", "alice"),
        ("withdrawn", "consensus", "alice"),
    ]
    open_cells = [d[:2] for d in scenario.discrepancies(graded["contest"])]
    assert (heron.pk, p1_a1.pk) not in open_cells


def test_a_revision_on_an_agreed_cell_creates_no_resolution(graded):
    scenario.open_resolution(graded)
    users = graded["users"]
    mark_revise(mark=_mark(graded, "alice", "Team Lynx", "A1"), points=D("4"), actor=users["alice"])
    assert Resolution.objects.count() == 0


def test_revising_someone_elses_mark_or_a_draft_is_refused(entered):
    graded = entered
    users = graded["users"]
    scenario.submit(users["alice"], graded["problems"][1])
    with pytest.raises(ValidationError) as error:
        mark_revise(
            mark=_mark(graded, "bob", "Team Heron", "A1"), points=D("8"), actor=users["alice"]
        )
    assert error.value.messages == ["You can revise only your own marks."]
    with pytest.raises(ValidationError) as error:
        mark_revise(
            mark=_mark(graded, "bob", "Team Heron", "A1"), points=D("8"), actor=users["bob"]
        )
    assert error.value.messages == [
        "Your sheet for this problem is still a draft: change the mark in your sheet."
    ]


@pytest.mark.parametrize(
    ("points", "reason", "message"),
    [
        (
            D("7"),
            "  ",
            "Criterion T1: give the reason for your decision; the jurors and the record need it.",
        ),
        (
            D("9"),
            "Too generous.",
            "Criterion T1: 9 is more than the 8 points this criterion allows.",
        ),
        (D("6.25"), "Quarter.", "Criterion T1: 6.25 is not a multiple of the step 0.5."),
        (None, "No value.", "Criterion T1: give the points you decide."),
    ],
)
def test_a_chair_decision_needs_a_valid_value_and_a_reason(graded, points, reason, message):
    with pytest.raises(ValidationError) as error:
        discrepancy_decide(
            paper=graded["papers"]["Team Orca"],
            criterion=_criterion(graded, 1, "T1"),
            points=points,
            reason=reason,
            actor=graded["chair"],
        )
    assert error.value.messages == [message]
    assert Resolution.objects.count() == 0


def test_only_the_chair_decides_or_finalizes(graded):
    alice = graded["users"]["alice"]
    with pytest.raises(ValidationError) as error:
        discrepancy_decide(
            paper=graded["papers"]["Team Orca"],
            criterion=_criterion(graded, 1, "T1"),
            points=D("7"),
            reason="I say so.",
            actor=alice,
        )
    assert error.value.messages == ["Only the jury chair can decide a discrepancy."]
    with pytest.raises(ValidationError) as error:
        contest_finalize(contest=graded["contest"], actor=alice)
    assert error.value.messages == ["Only the jury chair can finalize a contest."]


def test_a_blank_comment_is_refused(graded):
    with pytest.raises(ValidationError) as error:
        comment_add(
            paper=graded["papers"]["Team Orca"],
            criterion=_criterion(graded, 1, "T1"),
            author=graded["chair"],
            text="   ",
        )
    assert error.value.messages == ["Write something before posting a comment."]


def test_finalize_is_refused_while_a_sheet_is_missing(entered):
    graded = entered
    for name in ("alice", "bob", "dan"):
        scenario.submit(graded["users"][name], graded["problems"][1])
    scenario.submit(graded["users"]["charlie"], graded["problems"][2])
    chair = graded["chair"]
    discrepancy_decide(
        paper=graded["papers"]["Team Orca"],
        criterion=_criterion(graded, 1, "T1"),
        points=D("7"),
        reason="Half.",
        actor=chair,
    )
    discrepancy_decide(
        paper=graded["papers"]["Team Heron"],
        criterion=_criterion(graded, 1, "A1"),
        points=D("8"),
        reason="Item 2.",
        actor=chair,
    )
    with pytest.raises(ValidationError) as error:
        contest_finalize(contest=graded["contest"], actor=chair)
    # Issue 31, finding 17: the cells are named (the first three), so that one can be found.
    p2 = graded["problems"][2]
    labels = list(
        PaperLabel.objects.filter(problem=p2).order_by("paper_id").values_list("label", flat=True)
    )
    assert error.value.messages == [
        "Contest iol cannot be finalized yet: 6 cells lack a submitted mark from every assigned "
        f"juror (P2 A1 of paper {labels[0]}, P2 T1 of paper {labels[0]}, P2 A1 of paper "
        f"{labels[1]}, …)."
    ]
    # The sheets still in draft are named too, where publishing would be refused.
    drafts = Sheet.objects.exclude(state=Sheet.State.SUBMITTED).order_by(
        "problem__number", "juror__username"
    )
    whose = ", ".join(f"{sheet.juror.username}'s P{sheet.problem.number}" for sheet in drafts)
    blockers = provisional_blockers(graded["contest"], contest_results(graded["contest"]))
    assert (
        blockers[-1]
        == f"{len(drafts)} sheet{'s are' if len(drafts) > 1 else ' is'} still in draft ({whose})."
    )


def test_only_the_chair_opens_the_resolution_phase_once(graded):
    with pytest.raises(ValidationError) as error:
        contest_resolution_open(contest=graded["contest"], actor=graded["users"]["alice"])
    assert error.value.messages == ["Only the jury chair can start the resolution phase."]
    contest_resolution_open(contest=graded["contest"], actor=graded["chair"])
    with pytest.raises(ValidationError) as error:
        contest_resolution_open(contest=graded["contest"], actor=graded["chair"])
    assert error.value.messages == ["Contest iol is already in the resolution phase."]
    graded["contest"].refresh_from_db()
    assert graded["contest"].state == "resolution"


def test_a_revision_through_the_sheet_closes_as_consensus_once_reconciled(graded):
    """The sheet page writes with mark_set directly; cell_reconcile brings the record in line."""
    scenario.open_resolution(graded)
    bob = graded["users"]["bob"]
    heron, p1_a1 = graded["papers"]["Team Heron"], _criterion(graded, 1, "A1")
    mark_set(
        mark=_mark(graded, "bob", "Team Heron", "A1"), points=D("8"), actor=bob, channel="browser"
    )
    assert Resolution.objects.count() == 0
    cell_reconcile(paper=heron, criterion=p1_a1, actor=bob)
    assert list(Resolution.objects.values_list("kind", "points")) == [("consensus", D("8"))]
    # Reconciling an untouched agreed cell records nothing.
    cell_reconcile(paper=graded["papers"]["Team Lynx"], criterion=p1_a1, actor=bob)
    assert Resolution.objects.count() == 1


def test_the_chair_cannot_decide_a_cell_before_any_juror_has_submitted(entered):
    graded = entered
    paper = graded["contest"].papers.get(identity="Team Heron")
    with pytest.raises(ValidationError) as error:
        discrepancy_decide(
            paper=paper,
            criterion=_criterion(graded, 1, "A1"),
            points=D("4"),
            reason="Early.",
            actor=graded["chair"],
        )
    assert error.value.messages == [
        "Criterion A1: no juror has submitted a mark for this cell yet; decide once the sheets are in."
    ]
    assert Resolution.objects.count() == 0


def test_the_queues_door_to_the_resolution_phase_asks_for_the_same_confirmation(graded, client):
    """Issue 31, finding 17: the queue's button opened the phase on one click, while the life
    page asks "I understand"; unticked, nothing changes and the queue says why."""
    contest = graded["contest"]
    client.force_login(graded["chair"])
    url = reverse("resolution_open", args=[contest.slug])
    response = client.post(url, follow=True)
    contest.refresh_from_db()
    assert contest.state == Contest.State.GRADING
    assert [str(m) for m in response.context["messages"]] == [
        "Tick “I understand that jurors will be able to revise their submitted marks.” to open "
        "the resolution phase."
    ]
    client.post(url, {"confirm": "on"})
    contest.refresh_from_db()
    assert contest.state == Contest.State.RESOLUTION
