"""Conflicts the organizer declares (issue 31), as a conference declares one between a reviewer
and an author: a juror × a delegation keeps all its contestants from the juror as leading it
does (tests/test_conflicts.py tries every door with it as one more fact that changes during
grading); a juror × one contestant keeps that one paper only. Declared in the admin during
grading, it acts at once at every door: the sheet, autosave, notes, downloads and printouts,
the comparison and discussions, the admin's assignment form, the solver, and the console's
conflict moves, which propose where the paper goes. Backups carry them."""

import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from grading.admin.assigning import DeclaredConflictAdmin
from grading.assigning.assignments import assignments_create
from grading.assigning.facts import problem_facts
from grading.backup.export import contest_export
from grading.backup.restore import contest_import
from grading.marking.marks import mark_set
from grading.models import (
    AssignmentMove,
    DeclaredConflict,
    GradingGroup,
    Mark,
    Paper,
    Sheet,
)
from grading.models.juror_facts import BOTH_OR_NEITHER
from grading.resolution.decisions import comment_add
from grading.rules import access, conflicts, roles
from grading.rules.refusals import NotAllowed
from rubrics.models import Contest
from tests.conflicts_scenario import conflicts_world
from tests.crawl import response_text
from tests.factories import make_contest, make_delegation, make_user
from tests.grading.backup.backup_helpers import forget_everything

BACKUPS = Path(__file__).resolve().parent / "fixtures" / "backups"
COUSIN = "has a declared conflict with the paper's contestant: Her cousin"
COACHED = "has a declared conflict with the paper's delegation: Coached them"


@pytest.fixture
def world(db):
    return conflicts_world()


@pytest.fixture
def olga(db):
    return make_user("olga", roles.ORGANIZER)


def _url(name, world, *args):
    return reverse(name, args=[world.contest.slug, 1, *args])


def _declare_in_the_admin(client, organizer, **fields):
    client.force_login(organizer)
    form = {"juror": "", "delegation": "", "paper": "", "reason": "", **fields}
    return client.post(reverse("admin:grading_declaredconflict_add"), form)


def test_a_conflict_declared_with_one_contestant_during_grading_takes_that_paper_only_from_every_door(
    client, world, olga
):
    target, sibling = world.papers[0], world.papers[1]
    label, sibling_label = world.label_of[target.pk], world.label_of[sibling.pk]
    client.force_login(world.alice)
    save = client.post(_url("sheet_cell_save", world, label, "A1"), {"points": "3", "version": 0})
    assert save.json()["saved"] is True

    response = _declare_in_the_admin(
        client, olga, juror=world.alice.pk, paper=target.pk, reason="Her cousin."
    )
    assert response.status_code == 302
    declared = DeclaredConflict.objects.get()
    assert (declared.juror, declared.paper, declared.declared_by) == (world.alice, target, olga)

    client.force_login(world.alice)
    sheet = client.get(_url("sheet", world)).content.decode()
    home = client.get(reverse("home")).content.decode()
    xlsx = response_text(client.get(_url("sheet_xlsx", world)))
    bundle = response_text(client.get(_url("problem_pdf_bundle", world)))
    # Her delegation's other contestant stays hers, as every other paper does.
    for other in [sibling_label, *world.others]:
        assert f'data-label="{other}"' in sheet
        assert other in home and other in xlsx and other in bundle
    assert [label in page for page in (sheet, home, xlsx, bundle)] == [False] * 4
    refused = {
        "autosave": client.post(
            _url("sheet_cell_save", world, label, "A1"), {"points": "4", "version": 1}
        ),
        "note": client.post(
            _url("sheet_note_save", world, label, "A1"), {"note": "x", "version": 1}
        ),
        "history": client.get(_url("sheet_cell_history", world, label, "A1")),
        "solution": client.get(_url("sheet_solution", world, label)),
        "paper": client.get(_url("paper_detail", world, label)),
        "printout": client.get(_url("paper_pdf", world, label)),
    }
    assert {door: r.status_code for door, r in refused.items()} == dict.fromkeys(refused, 404)
    saved = client.post(
        _url("sheet_cell_save", world, sibling_label, "A1"), {"points": "2", "version": 0}
    )
    assert saved.json()["saved"] is True

    # The sheet is complete without the paper: it submits.
    for mark in Mark.objects.filter(sheet__juror=world.alice, points=None).exclude(paper=target):
        mark_set(mark=mark, points=Decimal("2"), actor=world.alice, channel="browser")
    client.post(_url("sheet_submit", world))
    assert Sheet.objects.get(juror=world.alice).is_submitted
    comparison = client.get(_url("comparison", world)).content.decode()
    assert sibling_label in comparison and label not in comparison
    assert client.get(_url("discussion", world, label, "A1")).status_code == 404
    assert client.get(_url("discussion", world, sibling_label, "A1")).status_code == 200
    response = client.post(_url("discussion_comment", world, label, "A1"), {"text": "hi"})
    assert response.status_code == 404
    criterion = world.problem.criteria.get(code="A1")
    with pytest.raises(NotAllowed):
        comment_add(paper=target, criterion=criterion, author=world.alice, text="mine")

    # The positive control: bob, with no conflict, reads the paper in the comparison.
    Sheet.objects.filter(juror=world.bob).update(
        state=Sheet.State.SUBMITTED, submitted_at=timezone.now()
    )
    client.force_login(world.bob)
    assert label in client.get(_url("comparison", world)).content.decode()

    # Removed in the admin, the declaration gives the paper back at once.
    client.force_login(olga)
    delete = reverse("admin:grading_declaredconflict_delete", args=[declared.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 302
    client.force_login(world.alice)
    assert label in client.get(_url("comparison", world)).content.decode()


def test_the_rule_names_each_declared_conflict_and_every_question_of_it_follows(
    world, django_assert_num_queries
):
    alice, bob, papers = world.alice, world.bob, world.papers
    DeclaredConflict.objects.create(juror=alice, delegation=world.est, reason="Coached them.")
    DeclaredConflict.objects.create(juror=bob, paper=papers[2], reason=" Her cousin. ")

    assert conflicts.conflicted_delegations(alice, contest=world.contest) == {world.est.pk: COACHED}
    assert conflicts.conflicted_delegations(bob, contest=world.contest) == {}
    with django_assert_num_queries(1):
        assert conflicts.paper_conflict(bob, papers[2]) == COUSIN
    with django_assert_num_queries(1):
        assert conflicts.paper_conflict(alice, papers[1]) == COACHED
    assert [conflicts.paper_conflict(bob, paper) for paper in papers[:2]] == [None, None]
    with django_assert_num_queries(0):
        assert conflicts.paper_conflict(bob, papers[3]) is None
    with django_assert_num_queries(1):
        kept_from_bob = conflicts.conflicted(bob, contest=world.contest, paper="")
    assert list(Paper.objects.filter(kept_from_bob)) == [papers[2]]
    kept_from_alice = conflicts.conflicted(alice, contest=world.contest, paper="")
    assert list(Paper.objects.filter(kept_from_alice).order_by("pk")) == papers[:2]
    bobs = world.problem.assignments.filter(juror=bob)
    assert list(bobs.filter(conflicts.conflicted(bob)).values_list("paper", flat=True)) == [
        papers[2].pk
    ]
    ids = [alice.pk, bob.pk]
    with django_assert_num_queries(4):
        assert conflicts.jurors_conflicted_with(papers[2], ids) == {bob.pk}
    assert conflicts.jurors_conflicted_with(papers[0], ids) == {alice.pk}
    assert conflicts.jurors_conflicted_with(papers[3], ids) == set()
    assert [access.conflicted_with(bob, paper) for paper in papers] == [False, False, True, False]
    assert not access.may_mark(bob, problem=world.problem, paper=papers[2])
    assert access.may_mark(bob, problem=world.problem, paper=papers[0])
    assert [access.may_mark(alice, problem=world.problem, paper=p) for p in papers] == [
        False,
        False,
        True,
        True,
    ]


def test_a_contestant_of_no_delegation_can_be_declared_in_conflict(world):
    # A human paper whose delegation is not on record yet.
    Paper.objects.filter(pk=world.papers[2].pk).update(delegation=None)
    paper = Paper.objects.get(pk=world.papers[2].pk)
    DeclaredConflict.objects.create(juror=world.alice, paper=paper, reason="Her cousin.")
    assert conflicts.paper_conflict(world.alice, paper) == COUSIN
    assert conflicts.jurors_conflicted_with(paper, [world.alice.pk]) == {world.alice.pk}
    assert not access.may_mark(world.alice, problem=world.problem, paper=paper)


def test_the_solver_gives_no_juror_a_paper_they_have_a_declared_conflict_with(db):
    contest = make_contest("declared", problems=1, papers=4)
    papers = list(contest.papers.order_by("pk"))
    est = make_delegation(contest, "EST", papers=papers[:2], country="Estonia")
    make_delegation(contest, "NOR", papers=papers[2:3], country="Norway")
    ann, ben, cat = (make_user(name, roles.JUROR) for name in ("ann", "ben", "cat"))
    problem = contest.problems.get()
    GradingGroup.objects.create(problem=problem).jurors.add(ann, ben, cat)
    DeclaredConflict.objects.create(juror=ann, delegation=est, reason="Coached them.")
    DeclaredConflict.objects.create(juror=ben, paper=papers[2], reason="Her cousin.")

    (facts,) = problem_facts(contest, [problem], required={1: 2})
    excluded = {paper.id: paper.excluded for paper in facts.papers}
    assert excluded == {
        papers[0].pk: {ann.pk: COACHED},
        papers[1].pk: {ann.pk: COACHED},
        papers[2].pk: {ben.pk: COUSIN},
        papers[3].pk: {},
    }
    summary = assignments_create(contest=contest, per_problem=2)
    assert summary.short == 0
    assigned = {
        paper.pk: set(problem.assignments.filter(paper=paper).values_list("juror__username"))
        for paper in papers
    }
    assert [sorted(name for (name,) in assigned[paper.pk]) for paper in papers[:3]] == [
        ["ben", "cat"],
        ["ben", "cat"],
        ["ann", "cat"],
    ]


def test_the_console_proposes_and_makes_the_move_of_a_paper_declared_in_conflict(
    client, world, olga
):
    """Declared during grading, the conflict takes the paper from alice's sheet at once; the
    cell still waits for her until the organizer moves it: the assignments page says so, the
    leaving page previews where it goes, one confirmation moves it, the reason on record."""
    carol = make_user("carol", roles.JUROR)
    world.problem.group.jurors.add(carol)
    target = world.papers[2]
    DeclaredConflict.objects.create(
        juror=world.alice, paper=target, reason="Her cousin.", declared_by=olga
    )
    client.force_login(olga)
    page = client.get(reverse("console:assignments", args=[world.contest.slug])).content.decode()
    assert "1 paper sits with a juror in conflict with it" in page
    page = client.get(reverse("console:juror_leaving", args=[world.contest.slug])).content.decode()
    assert f"alice {COUSIN}".replace("'", "&#x27;") in page
    assert "P1: 1 paper moves from alice to colleagues (carol 1)." in page

    response = client.post(reverse("console:conflict_moves", args=[world.contest.slug]))
    assert response.status_code == 302
    assert list(
        AssignmentMove.objects.values_list("paper_id", "from_juror__username", "to_juror__username")
    ) == [(target.pk, "alice", "carol")]
    assert AssignmentMove.objects.get().reason == f"alice {COUSIN}"
    assert sorted(
        world.problem.assignments.filter(paper=target).values_list("juror__username", flat=True)
    ) == ["bob", "carol"]


def test_the_admin_refuses_a_declaration_that_names_both_or_neither_or_one_twice(
    client, world, olga
):
    alice, est, paper = world.alice, world.est, world.papers[0]

    def refused(**fields):
        response = _declare_in_the_admin(client, olga, reason="Coached them.", **fields)
        assert response.status_code == 200
        form = response.context["adminform"].form
        return list(form.non_field_errors()), sorted(form.errors)

    assert refused(juror=alice.pk, delegation=est.pk, paper=paper.pk) == (
        [BOTH_OR_NEITHER],
        ["__all__"],
    )
    assert refused(juror=alice.pk) == ([BOTH_OR_NEITHER], ["__all__"])
    # An AI system's paper is no contestant: the form does not offer it.
    assert refused(juror=alice.pk, paper=world.papers[3].pk)[1] == ["paper"]
    DeclaredConflict.objects.create(juror=alice, delegation=est, reason="Coached them.")
    assert refused(juror=alice.pk, delegation=est.pk) == (
        ["This juror has a conflict declared with this delegation already."],
        ["__all__"],
    )
    assert DeclaredConflict.objects.count() == 1


def test_the_database_holds_one_declaration_per_juror_and_delegation_or_paper(world):
    alice, est, paper = world.alice, world.est, world.papers[0]
    DeclaredConflict.objects.create(juror=alice, delegation=est, reason="Coached them.")
    DeclaredConflict.objects.create(juror=alice, paper=paper, reason="Her cousin.")
    for fields in (
        {"delegation": est},
        {"paper": paper},
        {"delegation": est, "paper": world.papers[2]},
        {},
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            DeclaredConflict.objects.create(juror=alice, reason="Again.", **fields)
    assert DeclaredConflict.objects.count() == 2


def test_the_chair_reads_the_declarations_without_the_contestant_and_a_final_contest_keeps_them(
    client, world, olga
):
    chair = make_user("chen", roles.CHAIR)
    DeclaredConflict.objects.create(juror=world.alice, delegation=world.est, reason="Coached.")
    on_paper = DeclaredConflict.objects.create(
        juror=world.bob, paper=world.papers[0], reason="Cousin."
    )
    client.force_login(chair)
    response = client.get(reverse("admin:grading_declaredconflict_changelist"))
    assert response.status_code == 200
    assert "paper" not in response.context["cl"].list_display
    assert world.papers[0].identity not in response.content.decode()
    assert response.context["cl"].result_count == 2
    assert _declare_in_the_admin(client, chair, juror=world.alice.pk).status_code == 403

    Contest.objects.filter(pk=world.contest.pk).update(state=Contest.State.FINAL)
    request = RequestFactory().get("/admin/")
    request.user = olga
    model_admin = DeclaredConflictAdmin(DeclaredConflict, None)
    rights = {
        declared.reason: (
            model_admin.has_change_permission(request, declared),
            model_admin.has_delete_permission(request, declared),
        )
        for declared in DeclaredConflict.objects.all()
    }
    assert rights == {"Coached.": (False, False), "Cousin.": (False, False)}
    response = _declare_in_the_admin(
        client, olga, juror=world.alice.pk, paper=world.papers[1].pk, reason="Friend."
    )
    assert response.status_code == 200
    assert on_paper.pk == DeclaredConflict.objects.get(paper=world.papers[0]).pk
    assert DeclaredConflict.objects.count() == 2


# Backups.


def _declared() -> list[tuple]:
    return list(
        DeclaredConflict.objects.order_by("juror__username", "id").values_list(
            "juror__username",
            "delegation__code",
            "paper__identity",
            "reason",
            "declared_by__username",
            "declared_at",
        )
    )


def test_declared_conflicts_are_backed_up_and_restored_to_the_same_bytes(world, olga, tmp_path):
    DeclaredConflict.objects.create(
        juror=world.alice, delegation=world.est, reason="Coached them.", declared_by=olga
    )
    DeclaredConflict.objects.create(juror=world.bob, paper=world.papers[2], reason="Her cousin.")
    document = contest_export(contest=world.contest)
    assert [
        {key: value for key, value in row.items() if key != "declared_at"}
        for row in document["declared_conflicts"]
    ] == [
        {
            "juror": "alice",
            "delegation": "EST",
            "paper": None,
            "reason": "Coached them.",
            "declared_by": "olga",
        },
        {
            "juror": "bob",
            "delegation": None,
            "paper": world.papers[2].identity,
            "reason": "Her cousin.",
            "declared_by": None,
        },
    ]
    assert "olga" in {row["username"] for row in document["users"]}
    first = tmp_path / "backup.zip"
    call_command("export_contest", contest=world.contest.slug, out=str(first), verbosity=0)
    declared = _declared()
    connection.check_constraints()
    call_command("flush", interactive=False, verbosity=0)

    call_command("import_contest", str(first), verbosity=0)
    second = tmp_path / "again.zip"
    call_command("export_contest", contest=world.contest.slug, out=str(second), verbosity=0)

    assert second.read_bytes() == first.read_bytes()
    assert _declared() == declared
    # Restored, they act at every door as before.
    alice = User.objects.get(username="alice")
    assert len(conflicts.conflicted_delegations(alice)) == 1


def test_a_contest_without_declared_conflicts_exports_as_before(world):
    document = contest_export(contest=world.contest)
    assert "declared_conflicts" not in document
    # Another contest's declaration stays out of this one's backup.
    other = make_contest("other", problems=1, papers=1)
    elsewhere = make_delegation(other, "EST", papers=list(other.papers.all()))
    DeclaredConflict.objects.create(juror=world.alice, delegation=elsewhere, reason="Coached.")
    assert json.dumps(contest_export(contest=world.contest), sort_keys=True) == json.dumps(
        document, sort_keys=True
    )


def test_the_restore_names_every_broken_declared_conflict_and_writes_nothing(world):
    DeclaredConflict.objects.create(juror=world.alice, delegation=world.est, reason="Coached.")
    document = contest_export(contest=world.contest)
    good = document["declared_conflicts"][0]
    ai = world.papers[3].identity
    document["declared_conflicts"] += [
        good | {"paper": world.papers[0].identity},
        good | {"delegation": None},
        good | {"delegation": "XYZ"},
        good | {"delegation": None, "paper": ai},
        good | {"delegation": None, "paper": "Nobody"},
        good | {"juror": "mallory", "reason": ""},
        good,
    ]
    forget_everything()

    with pytest.raises(ValidationError) as caught:
        contest_import(document=document, source="backup.json")

    where = "backup.json, declared_conflicts"
    both_or_neither = (
        "a declared conflict names either a delegation or one contestant's paper; give one of "
        "“delegation” and “paper”, and null for the other."
    )
    assert caught.value.messages == [
        f"{where}[1]: {both_or_neither}",
        f"{where}[2]: {both_or_neither}",
        f"{where}[3]: the delegation “XYZ” is not in the file's list of delegations.",
        f"{where}[4]: “{ai}” is an AI system's paper; a conflict is declared with a contestant.",
        f"{where}[5]: the paper is not in the file's list of papers.",
        f"{where}[6]: the user “mallory” is not in the file's list of users.",
        f"{where}[6]: reason: This field cannot be blank.",
        f"{where}[7]: the conflict of “alice” with the delegation “EST” appears twice.",
    ]
    assert (DeclaredConflict.objects.count(), Contest.objects.count()) == (0, 0)


def test_a_backup_written_before_declared_conflicts_restores_with_none(db, settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    call_command("import_contest", str(BACKUPS / "demo-34bfedc.zip"), verbosity=0)
    assert Contest.objects.filter(slug="demo").exists()
    assert DeclaredConflict.objects.count() == 0
