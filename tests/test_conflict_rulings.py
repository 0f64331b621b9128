"""Marks given before a conflict came to light (issue 31): alice graded EST's papers and submitted
the problem, then a fact made her conflicted with EST (made its team leader, her country set to
Estonia, a conflict declared). Her marks on those papers are held: on record, counted for no
cell, until the chair keeps them (they count again and the paper stays with her) or discards
them (they never count and the paper moves to a colleague), each decision recorded with its
reason and standing. Every read that counts marks asks one rule
(`grading.rules.counting.counted_marks`)."""

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection
from django.urls import reverse
from django.utils.html import escape

from grading.assigning.conflict_moves import conflict_moves_plan
from grading.assigning.conflict_rulings import conflict_ruling_make, held_papers
from grading.backup.export import contest_export
from grading.models import AssignmentMove, ConflictRuling, Delegation
from grading.resolution.comparison import contest_results
from grading.rules import roles
from grading.rules.counting import counted_marks
from grading.rules.refusals import NotAllowed
from rubrics.models import Contest
from tests.conflicts_scenario import conflicts_world
from tests.factories import make_user
from tests.grading.scenario import grade, submit
from tests.test_conflicts import FACTS, REASONS


@pytest.fixture
def world(db):
    world = conflicts_world()
    for juror in (world.alice, world.bob):
        for paper in world.papers:
            grade(juror, world.problem, paper, "4", "2")
        submit(juror, world.problem)
    world.chen = make_user("chen", roles.CHAIR)
    world.carol = make_user("carol", roles.JUROR)
    world.problem.group.jurors.add(world.carol)
    return world


def _counted(world) -> set[tuple[str, int]]:
    """(juror, paper id) of every counted mark of criterion A1."""
    return set(
        counted_marks()
        .filter(criterion__code="A1")
        .values_list("sheet__juror__username", "paper_id")
    )


def _decide(world, paper, *, keep, reason="Graded before the appointment; checked.", actor=None):
    return conflict_ruling_make(
        contest=world.contest,
        problem_id=world.problem.pk,
        paper_id=paper.pk,
        juror_id=world.alice.pk,
        keep=keep,
        reason=reason,
        actor=actor or world.chen,
    )


@pytest.mark.parametrize("fact", FACTS)
def test_marks_given_before_a_conflict_are_held_until_the_chair_keeps_or_discards_them(
    client, world, fact
):
    est = {paper.pk for paper in world.papers[:2]}
    everyone = {(name, paper.pk) for name in ("alice", "bob") for paper in world.papers}
    assert _counted(world) == everyone
    pending_before = len(contest_results(world.contest).pending_cells)

    FACTS[fact][0](world)
    # Held: alice's marks on EST's papers count for no cell, which now wait for her.
    assert _counted(world) == {pair for pair in everyone if pair[0] == "bob" or pair[1] not in est}
    assert len(contest_results(world.contest).pending_cells) == pending_before + 4
    # Nothing moves before the chair decides: the papers were graded.
    organizer = make_user("olga", roles.ORGANIZER)
    assert conflict_moves_plan(contest=world.contest, actor=organizer) == []

    client.force_login(world.chen)
    page = client.get(reverse("conflict_rulings", args=[world.contest.slug])).content.decode()
    for label in world.kept:
        assert label in page
    assert escape(f"alice {REASONS[fact]}") in page
    assert "A1 4 · T1 2" in page

    kept, discarded = world.papers[:2]
    response = client.post(
        reverse("conflict_ruling", args=[world.contest.slug]),
        {
            "problem": world.problem.pk,
            "paper": kept.pk,
            "juror": world.alice.pk,
            "decision": "keep",
            "reason": "Graded before the appointment; checked.",
        },
    )
    assert response.status_code == 302
    _decide(world, discarded, keep=False, reason="Cannot be sure.")
    assert _counted(world) == everyone - {("alice", discarded.pk)}
    assert sorted(
        ConflictRuling.objects.values_list("paper_id", "kept", "reason", "decided_by__username")
    ) == sorted(
        [
            (kept.pk, True, "Graded before the appointment; checked.", "chen"),
            (discarded.pk, False, "Cannot be sure.", "chen"),
        ]
    )
    page = client.get(reverse("conflict_rulings", args=[world.contest.slug])).content.decode()
    assert "No marks given in conflict wait for your decision." in page
    assert "Kept: they count" in page and "Discarded: they never count" in page

    # The discarded paper moves to a colleague; the kept one stays with alice.
    client.force_login(organizer)
    response = client.post(reverse("console:conflict_moves", args=[world.contest.slug]))
    assert response.status_code == 302
    assert list(AssignmentMove.objects.values_list("paper_id", "to_juror__username")) == [
        (discarded.pk, "carol")
    ]
    assert world.problem.assignments.filter(paper=kept, juror=world.alice).exists()
    # The decision stands: the kept marks still count, the discarded ones never again.
    assert ("alice", kept.pk) in _counted(world)
    assert ("alice", discarded.pk) not in _counted(world)


def test_the_console_says_which_graded_papers_wait_for_the_chair(client, world):
    FACTS["made a leader of EST"][0](world)
    client.force_login(make_user("olga", roles.ORGANIZER))
    page = client.get(reverse("console:juror_leaving", args=[world.contest.slug])).content.decode()
    assert (
        "2 papers graded before their juror&#x27;s conflict came to light wait for the chair"
        in page
    )
    page = client.get(reverse("console:life", args=[world.contest.slug])).content.decode()
    assert "2 papers&#x27; marks wait: the chair keeps or discards them" in page
    for paper in world.papers[:2]:
        _decide(world, paper, keep=True)
    page = client.get(reverse("console:juror_leaving", args=[world.contest.slug])).content.decode()
    assert "wait for the chair" not in page
    assert "No paper sits with a juror in conflict with it." in page


def test_only_the_chair_decides_once_with_a_reason_on_marks_that_are_held(client, world):
    FACTS["conflict with EST declared"][0](world)
    paper = world.papers[0]
    for person in (world.bob, make_user("olga", roles.ORGANIZER)):
        with pytest.raises(NotAllowed):
            _decide(world, paper, keep=True, actor=person)
        client.force_login(person)
        url = reverse("conflict_rulings", args=[world.contest.slug])
        assert client.get(url).status_code == 404
        with pytest.raises(NotAllowed):
            held_papers(world.contest, actor=person)
    with pytest.raises(ValidationError, match="Give the reason"):
        _decide(world, paper, keep=True, reason="   ")
    # A Norwegian paper: alice is in no conflict with it, so nothing of hers is held.
    with pytest.raises(ValidationError, match="not held"):
        _decide(world, world.papers[2], keep=True)
    _decide(world, paper, keep=False)
    with pytest.raises(ValidationError, match="decision stands"):
        _decide(world, paper, keep=True)
    # A chair who leads the paper's delegation does not decide on it.
    Delegation.objects.get(code="EST").leaders.add(world.chen)
    with pytest.raises(NotAllowed, match="in conflict with this paper yourself"):
        _decide(world, world.papers[1], keep=True)
    Delegation.objects.get(code="EST").leaders.remove(world.chen)
    # A final contest keeps its marks as they are.
    Contest.objects.filter(pk=world.contest.pk).update(state=Contest.State.FINAL)
    with pytest.raises(ValidationError, match="final"):
        _decide(world, world.papers[1], keep=True)


def test_marks_of_a_draft_sheet_are_not_held_and_the_paper_moves(world):
    """Only marks on a submitted sheet are the chair's to rule on: a draft's never counted."""
    sheet = world.alice.sheets.get()
    sheet.state = "draft"
    sheet.save()
    FACTS["made a leader of EST"][0](world)
    assert held_papers(world.contest, actor=world.chen) == []
    organizer = make_user("olga", roles.ORGANIZER)
    [plan] = conflict_moves_plan(contest=world.contest, actor=organizer)
    assert len(plan.plan.moves) == 2


def test_the_chairs_decisions_are_backed_up_and_restored_to_the_same_bytes(world, tmp_path):
    FACTS["made a leader of EST"][0](world)
    _decide(world, world.papers[0], keep=True)
    _decide(world, world.papers[1], keep=False, reason="Cannot be sure.")
    document = contest_export(contest=world.contest)
    assert [
        {key: value for key, value in row.items() if key != "decided_at"}
        for row in document["conflict_rulings"]
    ] == [
        {
            "problem": 1,
            "paper": paper.identity,
            "juror": "alice",
            "kept": kept,
            "reason": reason,
            "decided_by": "chen",
        }
        for paper, kept, reason in (
            (world.papers[0], True, "Graded before the appointment; checked."),
            (world.papers[1], False, "Cannot be sure."),
        )
    ]
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest=world.contest.slug, out=str(first), verbosity=0)
    counted = _counted(world)
    # PostgreSQL truncates nothing while deferred constraints wait to be checked.
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)
    call_command("import_contest", str(first), verbosity=0)
    second = tmp_path / "again.zip"
    call_command("export_contest", contest=world.contest.slug, out=str(second), verbosity=0)
    assert second.read_bytes() == first.read_bytes()
    alice = User.objects.get(username="alice")
    restored = {
        (name, paper_id)
        for name, paper_id in counted_marks()
        .filter(criterion__code="A1")
        .values_list("sheet__juror__username", "paper_id")
    }
    assert len(restored) == len(counted)
    assert ConflictRuling.objects.filter(juror=alice).count() == 2


def test_a_contest_without_decisions_exports_as_before(world):
    assert "conflict_rulings" not in contest_export(contest=world.contest)


def test_marks_of_a_paper_of_no_conflict_count_whatever_the_jurors_facts(world):
    """The positive control: a juror with a country counts on every other country's papers, and
    an AI paper belongs to no delegation."""
    FACTS["country set to Estonia"][0](world)
    counted = _counted(world)
    for paper in world.papers[2:]:
        assert ("alice", paper.pk) in counted
    assert counted_marks().filter(points=Decimal("4"), sheet__juror=world.alice).count() == 2
