"""Conflicts of interest at every door (issue 31). A fact that changes during grading (a juror
made a team leader of a delegation, a juror's country set to a delegation's) takes that
delegation's papers from the juror at once, at every door they grade or read through: the
sheet and its counts, autosave and notes, the cell's history and solution, the paper's page and
printouts, the XLSX download, the comparison and the discussions after submitting. Undoing the
fact gives the papers back. The admin's assignment form asks the same rule."""

from decimal import Decimal

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import timezone

from grading.marking.marks import mark_set
from grading.models import (
    Assignment,
    AssignmentMove,
    DeclaredConflict,
    HelpRequest,
    JurorProfile,
    Mark,
    Notification,
    Sheet,
)
from grading.resolution.decisions import comment_add, discrepancy_decide
from grading.resolution.revision_requests import revision_request
from grading.rules import access, appeal_access, conflicts, roles
from grading.rules.refusals import NotAllowed
from rubrics.models import Contest
from tests.conflicts_scenario import conflicts_world
from tests.crawl import crawl, response_text
from tests.factories import make_user
from tests.grading.scenario import grade, submit


@pytest.fixture
def world(db):
    return conflicts_world()


def _make_leader(world):
    world.alice.groups.add(Group.objects.get(name=roles.LEADER))
    world.est.leaders.add(world.alice)


def _undo_leader(world):
    world.est.leaders.remove(world.alice)


def _set_country(world):
    # As typed in the console: case and spaces do not matter.
    JurorProfile.objects.update_or_create(user=world.alice, defaults={"country": " estonia"})


def _undo_country(world):
    JurorProfile.objects.filter(user=world.alice).update(country="Latvia")


def _declare(world):
    # As the organizer declares it in the admin (tests/test_declared_conflicts.py).
    DeclaredConflict.objects.create(juror=world.alice, delegation=world.est, reason="Coached them.")


def _undo_declared(world):
    DeclaredConflict.objects.filter(juror=world.alice).delete()


FACTS = {
    "made a leader of EST": (_make_leader, _undo_leader),
    "country set to Estonia": (_set_country, _undo_country),
    "conflict with EST declared": (_declare, _undo_declared),
}
# What the rule says of each fact.
REASONS = {
    "made a leader of EST": conflicts.LEADS,
    "country set to Estonia": conflicts.from_country(" estonia"),
    "conflict with EST declared": "has a declared conflict with the paper's delegation: "
    "Coached them",
}


def _url(name, world, *args):
    return reverse(name, args=[world.contest.slug, 1, *args])


def _fill_others(world):
    for mark in Mark.objects.filter(sheet__juror=world.alice).select_related("criterion"):
        if mark.paper.delegation_id != world.est.pk:
            mark_set(mark=mark, points=Decimal("2"), actor=world.alice, channel="browser")


@pytest.mark.parametrize("fact", FACTS)
def test_a_fact_changed_during_grading_takes_the_papers_from_every_door_and_undoing_it_gives_them_back(
    client, world, fact
):
    make_fact, undo_fact = FACTS[fact]
    client.force_login(world.alice)
    # Before: EST's papers are alice's like any other.
    sheet = client.get(_url("sheet", world)).content.decode()
    assert all(f'data-label="{label}"' in sheet for label in world.kept + world.others)

    make_fact(world)
    sheet = client.get(_url("sheet", world)).content.decode()
    home = client.get(reverse("home")).content.decode()
    xlsx = response_text(client.get(_url("sheet_xlsx", world)))
    bundle = response_text(client.get(_url("problem_pdf_bundle", world)))
    for label in world.others:
        assert f'data-label="{label}"' in sheet
        assert label in home and label in xlsx and label in bundle
    for label in world.kept:
        assert label not in sheet and label not in home and label not in xlsx
        assert label not in bundle
        refused = {
            "autosave": client.post(
                _url("sheet_cell_save", world, label, "A1"), {"points": "2", "version": 0}
            ),
            "note": client.post(
                _url("sheet_note_save", world, label, "A1"), {"note": "x", "version": 0}
            ),
            "history": client.get(_url("sheet_cell_history", world, label, "A1")),
            "solution": client.get(_url("sheet_solution", world, label)),
            "paper": client.get(_url("paper_detail", world, label)),
            "printout": client.get(_url("paper_pdf", world, label)),
        }
        assert {door: r.status_code for door, r in refused.items()} == dict.fromkeys(refused, 404)
    assert not Mark.objects.filter(sheet__juror=world.alice, points__isnull=False).exists()
    # The sheet is complete without them: it submits.
    _fill_others(world)
    client.post(_url("sheet_submit", world))
    assert Sheet.objects.get(juror=world.alice).is_submitted

    # After submitting, the comparison and discussions show alice nothing of EST's papers,
    # and bob (a colleague with no conflict) all of them: the positive control.
    comparison = client.get(_url("comparison", world)).content.decode()
    assert all(label in comparison for label in world.others)
    assert not any(label in comparison for label in world.kept)
    for label in world.kept:
        assert client.get(_url("discussion", world, label, "A1")).status_code == 404
        response = client.post(_url("discussion_comment", world, label, "A1"), {"text": "hi"})
        assert response.status_code == 404
    paper = world.papers[0]
    criterion = world.problem.criteria.get(code="A1")
    with pytest.raises(NotAllowed):
        comment_add(paper=paper, criterion=criterion, author=world.alice, text="mine")
    bob_sheet = Sheet.objects.get(juror=world.bob)
    bob_sheet.state, bob_sheet.submitted_at = Sheet.State.SUBMITTED, timezone.now()
    bob_sheet.save()
    client.force_login(world.bob)
    comparison = client.get(_url("comparison", world)).content.decode()
    assert all(label in comparison for label in world.kept + world.others)

    # The fact undone: the papers come back to alice's pages.
    undo_fact(world)
    client.force_login(world.alice)
    comparison = client.get(_url("comparison", world)).content.decode()
    assert all(label in comparison for label in world.kept)
    assert client.get(_url("paper_detail", world, world.kept[0])).status_code == 200


def test_a_draft_sheet_gets_its_papers_back_with_their_marks_when_the_fact_is_undone(client, world):
    client.force_login(world.alice)
    label = world.kept[0]
    assert (
        client.post(
            _url("sheet_cell_save", world, label, "A1"), {"points": "3", "version": 0}
        ).status_code
        == 200
    )
    _make_leader(world)
    assert label not in client.get(_url("sheet", world)).content.decode()
    _undo_leader(world)
    sheet = client.get(_url("sheet", world)).content.decode()
    assert f'data-label="{label}"' in sheet
    response = client.post(
        _url("sheet_cell_save", world, label, "A1"), {"points": "4", "version": 1}
    )
    assert response.json()["saved"] is True


@pytest.mark.parametrize("fact", FACTS)
def test_the_rule_names_the_conflict_and_the_appeal_doors_ask_it(world, fact):
    FACTS[fact][0](world)
    reason = conflicts.conflicted_delegations(world.alice, contest=world.contest)
    assert reason == {world.est.pk: REASONS[fact]}
    assert conflicts.conflicted_delegations(world.bob, contest=world.contest) == {}
    paper = world.papers[0]
    Sheet.objects.filter(juror=world.alice).update(state=Sheet.State.SUBMITTED)
    assert not appeal_access.may_handle_appeal(world.alice, problem=world.problem, paper=paper)
    assert not access.may_mark(world.alice, problem=world.problem, paper=paper)
    assert access.may_mark(world.alice, problem=world.problem, paper=world.papers[2])


@pytest.mark.parametrize(
    ("why", "sentence"),
    [
        ("leads", "alice leads the paper's delegation. Choose another juror."),
        ("country", "alice comes from Estonia, the paper's country. Choose another juror."),
        (
            "declared",
            "alice has a declared conflict with the paper's delegation: Coached them. "
            "Choose another juror.",
        ),
        (
            "declared on the paper",
            "alice has a declared conflict with the paper's contestant: Her cousin. "
            "Choose another juror.",
        ),
        ("unavailable", "alice is unavailable and takes no new paper. Choose another juror."),
        (
            "helper",
            "alice has seen this paper in another role: they helped with its language in P1. "
            "Choose another juror.",
        ),
    ],
)
def test_the_admins_assignment_form_refuses_what_the_solver_would_not_do(
    client, world, why, sentence
):
    paper = world.papers[0]
    world.problem.assignments.filter(juror=world.alice, paper=paper).delete()
    if why == "leads":
        _make_leader(world)
    elif why == "country":
        JurorProfile.objects.create(user=world.alice, country="Estonia")
    elif why == "declared":
        _declare(world)
    elif why == "declared on the paper":
        DeclaredConflict.objects.create(juror=world.alice, paper=paper, reason="Her cousin.")
    elif why == "unavailable":
        JurorProfile.objects.create(user=world.alice, unavailable_since=timezone.now())
    else:
        HelpRequest.objects.create(
            problem=world.problem,
            paper=paper,
            asked_by=world.bob,
            helper=world.alice,
            question="?",
        )
    organizer = make_user("olga", roles.ORGANIZER)
    client.force_login(organizer)
    before = set(Assignment.objects.values_list("pk", flat=True))
    response = client.post(
        reverse("admin:grading_assignment_add"),
        {"problem": world.problem.pk, "juror": world.alice.pk, "paper": paper.pk},
    )
    assert response.status_code == 200
    assert list(response.context["adminform"].form.non_field_errors()) == [sentence]
    assert set(Assignment.objects.values_list("pk", flat=True)) == before
    # A paper of no conflict goes through the same door.
    world.problem.assignments.filter(juror=world.bob, paper=world.papers[3]).delete()
    response = client.post(
        reverse("admin:grading_assignment_add"),
        {"problem": world.problem.pk, "juror": world.bob.pk, "paper": world.papers[3].pk},
    )
    assert response.status_code == 302
    assert world.problem.assignments.filter(juror=world.bob, paper=world.papers[3]).exists()


def test_a_juror_who_leads_a_delegation_reaches_nothing_of_it_on_the_jury_side(client, world):
    """Crawled as alice, juror and EST's leader at once, with her sheet submitted (so that the
    comparison and discussions are open to her): no jury page, download or image names an EST
    paper's label. The same crawl as bob finds them (the positive control)."""
    _make_leader(world)
    Sheet.objects.update(state=Sheet.State.SUBMITTED, submitted_at=timezone.now())

    def jury_side(user):
        client.force_login(user)
        pages = crawl(client)
        return {
            url: response_text(response)
            for url, response in pages.items()
            if url.startswith("/contests/")
        }

    alice_pages = jury_side(world.alice)
    assert any("/comparison/" in url for url in alice_pages)
    found = {
        url: [label for label in world.kept if label in text] for url, text in alice_pages.items()
    }
    assert {url: labels for url, labels in found.items() if labels} == {}
    bob_pages = jury_side(world.bob)
    assert all(any(label in text for text in bob_pages.values()) for label in world.kept)


def test_the_console_moves_the_papers_of_a_juror_now_in_conflict_to_a_colleague(client, world):
    """The papers left alice's sheet at once; the cell still waits for her until the organizer
    moves them: the assignments page says so, the leaving page previews where they go, one
    confirmation moves them (graded or not), on record with the conflict as the reason."""
    carol = make_user("carol", roles.JUROR)
    world.problem.group.jurors.add(carol)
    client.force_login(world.alice)
    label = world.kept[0]
    client.post(_url("sheet_cell_save", world, label, "A1"), {"points": "3", "version": 0})
    _make_leader(world)
    organizer = make_user("olga", roles.ORGANIZER)
    client.force_login(organizer)
    page = client.get(reverse("console:assignments", args=[world.contest.slug])).content.decode()
    assert "2 papers sit with jurors in conflict with them" in page
    page = client.get(reverse("console:juror_leaving", args=[world.contest.slug])).content.decode()
    assert "alice leads the paper&#x27;s delegation" in page
    assert "P1: 2 papers move from alice to colleagues (carol 2)." in page
    assert not AssignmentMove.objects.exists()
    response = client.post(reverse("console:conflict_moves", args=[world.contest.slug]))
    assert response.status_code == 302
    assert sorted(
        AssignmentMove.objects.values_list("paper_id", "to_juror__username", "reason")
    ) == [(paper.pk, "carol", "alice leads the paper's delegation") for paper in world.papers[:2]]
    kept = {paper.pk for paper in world.papers[:2]}
    assert set(
        world.problem.assignments.filter(paper_id__in=kept).values_list(
            "juror__username", flat=True
        )
    ) == {"bob", "carol"}
    # Her mark stays on record; carol's sheet has the papers, blank.
    mark = Mark.objects.get(
        sheet__juror=world.alice, paper__labels__label=label, criterion__code="A1"
    )
    assert mark.points == Decimal("3")
    assert Mark.objects.filter(sheet__juror=carol, paper_id__in=kept, points=None).count() == 4
    page = client.get(reverse("console:juror_leaving", args=[world.contest.slug])).content.decode()
    assert "No paper sits with a juror in conflict with it." in page


def test_a_juror_now_in_conflict_hears_nothing_of_the_papers_cells_in_their_inbox(world):
    """Found by the permission matrix's juror-and-leader column: once both sheets were in and
    the fact changed, alice's inbox still named her delegation's paper in the comments, the
    chair's decision (with its points) and a request to revise."""
    for juror, a1 in ((world.alice, "4"), (world.bob, "9")):
        for paper in world.papers:
            grade(juror, world.problem, paper, a1, "2")
        submit(juror, world.problem)
    Contest.objects.filter(pk=world.contest.pk).update(state=Contest.State.RESOLUTION)
    _make_leader(world)
    chair = make_user("chen", roles.CHAIR)
    paper, criterion = world.papers[0], world.problem.criteria.get(code="A1")
    comment_add(paper=paper, criterion=criterion, author=world.bob, text="Look again.")
    discrepancy_decide(paper=paper, criterion=criterion, points=5, reason="Split.", actor=chair)
    with pytest.raises(NotAllowed):
        revision_request(paper=paper, criterion=criterion, juror=world.alice, actor=chair, text="?")
    assert not Notification.objects.filter(recipient=world.alice).exists()
    # The positive control: the same on a Norwegian paper reaches her.
    other = world.papers[2]
    comment_add(paper=other, criterion=criterion, author=world.bob, text="Look again.")
    assert Notification.objects.filter(recipient=world.alice).count() == 1


def test_two_jurors_in_conflict_with_one_paper_hand_it_to_two_colleagues(client, world):
    colleagues = [make_user(name, roles.JUROR) for name in ("carol", "dave")]
    world.problem.group.jurors.add(*colleagues)
    for juror in (world.alice, world.bob):
        JurorProfile.objects.create(user=juror, country="Estonia")
    client.force_login(make_user("olga", roles.ORGANIZER))
    response = client.post(reverse("console:conflict_moves", args=[world.contest.slug]))
    assert response.status_code == 302
    for paper in world.papers[:2]:
        jurors = world.problem.assignments.filter(paper=paper).values_list(
            "juror__username", flat=True
        )
        assert sorted(jurors) == ["carol", "dave"]
    assert AssignmentMove.objects.count() == 4
