"""A juror who leaves during grading: only their ungraded papers move, to colleagues who may
take them; their marks stay on record; both sides are told; a refusal writes nothing; a
submitted sheet is never reopened."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse

from grading.assigning.help import help_answer, help_ask, help_assign
from grading.assigning.moves import juror_leaving_make, juror_leaving_plan
from grading.marking.marks import mark_set
from grading.marking.sheets import sheet_get_or_create
from grading.models import (
    Assignment,
    AssignmentMove,
    GradingGroup,
    HelpRequest,
    JurorProfile,
    Mark,
    Notification,
    Paper,
    PaperLabel,
    Sheet,
)
from grading.rules import roles
from grading.rules.refusals import ContestFinal, NotAllowed
from tests.factories import make_contest, make_delegation, make_user
from tests.grading.scenario import grade, submit


@pytest.fixture
def people(db):
    return {name: make_user(name, roles.JUROR) for name in ("ann", "ben", "cat", "dov", "eve")}


@pytest.fixture
def contest(db, people):
    """One problem, four papers, each graded by ann and ben; cat, dov and eve are in the group
    with no paper. Papers 3 and 4 are Estonia's contestants, and dov comes from Estonia; eve has
    submitted her (empty) sheet. ann has graded papers 1 and 2, half of 3 and nothing of 4."""
    contest = make_contest("iol", problems=1, papers=4)
    problem = contest.problems.get()
    papers = list(contest.papers.order_by("pk"))
    GradingGroup.objects.create(problem=problem).jurors.add(*people.values())
    Assignment.objects.bulk_create(
        Assignment(paper=paper, problem=problem, juror=people[name])
        for paper in papers
        for name in ("ann", "ben")
    )
    for juror in people.values():
        sheet_get_or_create(juror=juror, problem=problem)
    submit(people["eve"], problem)
    estonia = make_delegation(contest, "EST", papers=papers[2:])
    estonia.country = "Estonia"
    estonia.save(update_fields=["country"])
    JurorProfile.objects.create(user=people["dov"], country="Estonia")
    ann = people["ann"]
    grade(ann, problem, papers[0], "12", "8")
    grade(ann, problem, papers[1], "6", "4")
    mark = Mark.objects.get(sheet__juror=ann, paper=papers[2], criterion__code="A1")
    mark_set(mark=mark, points=Decimal("3"), actor=ann, channel="browser")
    return contest


def _label(contest, index: int) -> str:
    paper = contest.papers.order_by("pk")[index]
    return PaperLabel.objects.get(paper=paper, problem__contest=contest).label


def _assigned(contest) -> list[tuple[str, str]]:
    return sorted(
        Assignment.objects.filter(problem__contest=contest).values_list(
            "paper__labels__label", "juror__username"
        )
    )


def test_the_plan_moves_only_ungraded_papers_and_to_whoever_may_take_them(
    contest, people, organizer
):
    before = _assigned(contest)
    plan = juror_leaving_plan(contest=contest, juror=people["ann"], actor=organizer)
    # Papers 3 (half marked) and 4 (untouched) move; ben has them, dov is Estonian, eve has
    # submitted the problem: cat alone may take them.
    assert [(move.label, move.to_username) for move in plan.moves] == sorted(
        [(_label(contest, 2), "cat"), (_label(contest, 3), "cat")]
    )
    assert plan.sentences() == [
        "P1: 2 ungraded papers move to colleagues (cat 2).",
        "P1: 2 graded papers stay with ann; those marks count once their sheet is submitted, "
        "or the chair decides.",
    ]
    assert _assigned(contest) == before
    assert not AssignmentMove.objects.exists()
    assert not JurorProfile.objects.filter(user=people["ann"]).exists()


def test_leaving_moves_the_ungraded_papers_and_keeps_every_mark_on_record(
    contest, people, organizer
):
    ann, cat = people["ann"], people["cat"]
    marks_before = sorted(
        Mark.objects.filter(sheet__juror=ann).values_list("paper_id", "criterion__code", "points")
    )
    juror_leaving_make(contest=contest, juror=ann, actor=organizer, reason="ill from Tuesday")
    assert JurorProfile.objects.get(user=ann).unavailable_since is not None
    mine = set(Assignment.objects.filter(juror=ann).values_list("paper__labels__label", flat=True))
    assert mine == {_label(contest, 0), _label(contest, 1)}
    theirs = set(
        Assignment.objects.filter(juror=cat).values_list("paper__labels__label", flat=True)
    )
    assert theirs == {_label(contest, 2), _label(contest, 3)}
    # The marks, the half-marked paper's too, stay as they were.
    assert (
        sorted(
            Mark.objects.filter(sheet__juror=ann).values_list(
                "paper_id", "criterion__code", "points"
            )
        )
        == marks_before
    )
    # cat's sheet has a blank mark per criterion of each new paper.
    assert Mark.objects.filter(sheet__juror=cat, points__isnull=True).count() == 4
    assert (
        sorted(
            AssignmentMove.objects.values_list(
                "from_juror__username", "to_juror__username", "actor__username", "reason"
            )
        )
        == [("ann", "cat", "olga", "ill from Tuesday")] * 2
    )


def test_the_receiver_and_the_leaving_juror_are_told_without_names(contest, people, organizer):
    juror_leaving_make(contest=contest, juror=people["ann"], actor=organizer, reason="ill")
    assert sorted(
        Notification.objects.filter(kind=Notification.Kind.PAPERS_MOVED).values_list(
            "recipient__username", "sentence"
        )
    ) == [
        ("ann", "P1: your 2 ungraded papers were given to colleagues."),
        ("cat", "P1: 2 papers moved to you from a colleague."),
    ]


def test_the_receivers_inbox_links_the_notice_to_their_sheet(contest, people, organizer, client):
    juror_leaving_make(contest=contest, juror=people["ann"], actor=organizer, reason="ill")
    client.force_login(people["cat"])
    page = client.get("/inbox/")
    [group] = page.context["groups"]
    assert (group.headline, [entry.url for entry in group.entries]) == (
        "P1: 2 papers moved to you from a colleague.",
        ["/contests/iol/p1/sheet/"],
    )


def test_a_paper_no_colleague_may_take_stays_and_says_so(contest, people, organizer):
    # cat is now from Estonia too: nobody may take papers 3 and 4.
    JurorProfile.objects.create(user=people["cat"], country="Estonia")
    plan = juror_leaving_make(contest=contest, juror=people["ann"], actor=organizer, reason="ill")
    assert plan.moves == []
    labels = ", ".join(sorted([_label(contest, 2), _label(contest, 3)]))
    assert plan.sentences()[-1] == (
        f"P1: 2 papers ({labels}) can go to no colleague of the group, each having submitted "
        "the problem, being in conflict with the paper or having it already; they stay with "
        "ann. Add a juror to the problem's grading group first, then mark them unavailable "
        "again."
    )
    assert Assignment.objects.filter(juror=people["ann"]).count() == 4


def test_a_submitted_sheet_is_never_reopened_and_its_papers_stay(contest, people, organizer):
    ben = people["ben"]
    problem = contest.problems.get()
    for paper in contest.papers.all():
        grade(ben, problem, paper, "1", "1")
    submit(ben, problem)
    plan = juror_leaving_make(contest=contest, juror=ben, actor=organizer, reason="gone home")
    assert plan.moves == []
    assert plan.sentences() == [
        "P1: ben has submitted this problem, so nothing of it moves (a submitted sheet is "
        "never reopened); their 4 papers stay theirs."
    ]
    assert Sheet.objects.get(juror=ben).state == Sheet.State.SUBMITTED
    assert Assignment.objects.filter(juror=ben).count() == 4
    assert Sheet.objects.get(juror=people["eve"]).state == Sheet.State.SUBMITTED


@pytest.mark.parametrize("refusal", ["final", "juror", "reason"])
def test_a_refusal_writes_nothing(contest, people, organizer, refusal):
    before = _assigned(contest)
    actor, reason = organizer, "ill"
    if refusal == "final":
        contest.state = "final"
        contest.save(update_fields=["state"])
        expected = ContestFinal
    elif refusal == "juror":
        actor, expected = people["ben"], NotAllowed
    else:
        reason, expected = "  ", ValidationError
    with pytest.raises(expected):
        juror_leaving_make(contest=contest, juror=people["ann"], actor=actor, reason=reason)
    assert _assigned(contest) == before
    assert not AssignmentMove.objects.exists()
    assert not Notification.objects.exists()
    assert not JurorProfile.objects.filter(user=people["ann"]).exists()


def test_the_command_previews_with_dry_run_then_moves(contest, people, organizer, capsys):
    call_command("juror_unavailable", contest="iol", juror="ann", dry_run=True)
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "Dry run, nothing written: 2 papers would move from ann."
    assert not AssignmentMove.objects.exists()
    call_command("juror_unavailable", contest="iol", juror="ann", reason="ill")
    assert (
        capsys.readouterr().out.splitlines()[-1] == "ann is unavailable from now; 2 papers moved."
    )
    assert AssignmentMove.objects.count() == 2


def test_a_colleague_who_helped_on_a_paper_or_had_it_moved_from_them_does_not_take_it(
    contest, people, organizer
):
    problem = contest.problems.get()
    papers = list(contest.papers.order_by("pk"))
    HelpRequest.objects.create(
        paper=papers[2], problem=problem, asked_by=people["ben"], question="?", helper=people["cat"]
    )
    AssignmentMove.objects.create(
        paper=papers[3],
        problem=problem,
        from_juror=people["cat"],
        to_juror=people["ann"],
        actor=organizer,
        reason="earlier",
    )
    plan = juror_leaving_plan(contest=contest, juror=people["ann"], actor=organizer)
    # cat alone could have taken them (ben has them, dov is Estonian, eve has submitted).
    assert (plan.moves, plan.problems[0].stuck) == (
        [],
        sorted([_label(contest, 2), _label(contest, 3)]),
    )


def test_a_moved_papers_old_marks_count_for_no_cell_once_the_leaving_juror_submits(
    contest, people, organizer
):
    """ann half-marked paper 3 (A1 = 3) before it moved to cat; when she later submits her
    sheet of the two papers left to her, that 3 stays on record but is no mark of the cell."""
    from grading.resolution.cells import submitted_marks

    ann = people["ann"]
    juror_leaving_make(contest=contest, juror=ann, actor=organizer, reason="ill")
    submit(ann, contest.problems.get())
    moved = contest.papers.order_by("pk")[2]
    assert Mark.objects.get(sheet__juror=ann, paper=moved, criterion__code="A1").points == 3
    assert not submitted_marks(contest).filter(sheet__juror=ann, paper=moved).exists()
    assert submitted_marks(contest).filter(sheet__juror=ann).count() == 4


def test_a_file_previewed_before_the_move_writes_nothing_on_a_moved_paper(
    contest, people, organizer
):
    """ann's upload was previewed while paper 4 was hers; confirmed after it moved, the file
    is refused on that cell, and her marks there stay as they were."""
    from grading.marking.sheets import SheetChange, sheet_xlsx_apply

    ann = people["ann"]
    moved = contest.papers.order_by("pk")[3]
    mark = Mark.objects.get(sheet__juror=ann, paper=moved, criterion__code="A1")
    change = SheetChange(
        row=5, column="B", label=_label(contest, 3), code="A1", old=None, new=Decimal("4"),
        version=mark.version,
    )  # fmt: skip
    juror_leaving_make(contest=contest, juror=ann, actor=organizer, reason="ill")
    with pytest.raises(ValidationError, match="no longer on your sheet"):
        sheet_xlsx_apply(sheet=mark.sheet, changes=[change], actor=ann)
    mark.refresh_from_db()
    assert mark.points is None


def test_a_moved_papers_old_mark_is_not_revised_in_the_resolution_phase(contest, people, organizer):
    from grading.console.contest_life import contest_resolution_open
    from grading.resolution.decisions import mark_revise

    ann, ben = people["ann"], people["ben"]
    problem = contest.problems.get()
    juror_leaving_make(contest=contest, juror=ann, actor=organizer, reason="ill")
    for juror in (ann, ben, people["cat"]):
        for paper in Paper.objects.filter(assignments__juror=juror, assignments__problem=problem):
            grade(juror, problem, paper, "6", "4")
        if juror != people["eve"]:
            submit(juror, problem)
    contest_resolution_open(contest=contest, actor=make_user("chen", roles.CHAIR))
    moved = contest.papers.order_by("pk")[2]
    mark = Mark.objects.get(sheet__juror=ann, paper=moved, criterion__code="A1")
    with pytest.raises(NotAllowed, match="no longer assigned to you"):
        mark_revise(mark=mark, points=Decimal("5"), actor=ann)
    mark.refresh_from_db()
    assert mark.points == 3


def test_a_juror_who_left_comes_back_through_the_console_and_takes_new_papers_only(
    contest, people, organizer, client
):
    """Issue 31, finding 8: a juror marked unavailable could never be brought back."""
    ann = people["ann"]
    juror_leaving_make(contest=contest, juror=ann, actor=organizer, reason="ill")
    moved = sorted(AssignmentMove.objects.values_list("paper_id", "to_juror__username"))
    client.force_login(organizer)
    page = client.get(reverse("console:juror_leaving", args=["iol"])).content.decode()
    assert "Marked unavailable: ann (since" in page
    response = client.post(reverse("console:juror_back", args=["iol"]), {"juror": "ann"})
    assert response.status_code == 302
    assert JurorProfile.objects.get(user=ann).unavailable_since is None
    # Nothing moves back; from now she takes new papers like anyone.
    assert sorted(AssignmentMove.objects.values_list("paper_id", "to_juror__username")) == moved
    page = client.get(reverse("console:juror_leaving", args=["iol"])).content.decode()
    assert "No juror of this contest is marked unavailable." in page
    paper = Paper.objects.get(pk=moved[0][0])
    problem = contest.problems.get()
    Assignment.objects.filter(paper=paper, juror=people["cat"]).delete()
    response = client.post(
        reverse("admin:grading_assignment_add"),
        {"problem": problem.pk, "juror": ann.pk, "paper": paper.pk},
    )
    assert response.status_code == 302
    # Coming back twice is refused with a sentence, and writes nothing.
    response = client.post(reverse("console:juror_back", args=["iol"]), {"juror": "ann"})
    assert response.status_code == 422
    assert (
        "Choose one of the contest&#x27;s jurors marked unavailable." in response.content.decode()
    )


def test_the_command_brings_a_juror_back_and_refuses_one_who_never_left(
    contest, people, organizer, capsys
):
    call_command("juror_unavailable", contest="iol", juror="ann", reason="ill")
    call_command("juror_unavailable", contest="iol", juror="ann", back=True)
    assert capsys.readouterr().out.splitlines()[-1] == "ann is available again from now."
    assert JurorProfile.objects.get(user=people["ann"]).unavailable_since is None
    with pytest.raises(CommandError, match="^ann is not marked unavailable; nothing changes.$"):
        call_command("juror_unavailable", contest="iol", juror="ann", back=True)


def test_the_leaving_jurors_home_counts_only_the_papers_still_theirs(
    contest, people, organizer, client
):
    """Issue 31, finding 17: a home page read "60 of 12 cells graded": the marks of papers
    moved away (kept on record) were counted against the cells of the papers left."""
    juror_leaving_make(contest=contest, juror=people["ann"], actor=organizer, reason="ill")
    client.force_login(people["ann"])
    home = client.get(reverse("home")).content.decode()
    # Papers 1 and 2 stay (graded, 2 criteria each); paper 3's one mark moved away with it.
    assert "4 of 4 cells graded" in home


def test_a_question_asked_on_a_paper_that_then_moved_follows_it_to_its_new_juror(
    contest, people, organizer, client
):
    """Finding 8: ann's question on paper 4 stayed hers after the paper moved to cat, who never
    saw it, nor its answer; now cat reads it on the paper's row and is told of the answer."""
    problem = contest.problems.get()
    paper = contest.papers.order_by("pk")[3]
    request = help_ask(actor=people["ann"], problem=problem, paper=paper, question="Is -ir plural?")
    sam = make_user("sam", roles.SPECIALIST)
    request = help_assign(actor=organizer, request=request, helper=sam)
    juror_leaving_make(contest=contest, juror=people["ann"], actor=organizer, reason="ill")
    assert Assignment.objects.filter(paper=paper, juror=people["cat"]).exists()
    help_answer(actor=sam, request=request, answer="Yes, -ir marks the plural.")
    label = _label(contest, 3)
    assert list(
        Notification.objects.filter(kind=Notification.Kind.HELP_ANSWERED)
        .order_by("recipient__username")
        .values_list("recipient__username", "sentence")
    ) == [
        ("ann", f"Your question on P1 paper {label} is answered: read it in your sheet."),
        (
            "cat",
            f"A question asked on P1 paper {label} before it came to you is answered: read it "
            "in your sheet.",
        ),
    ]
    url = reverse("sheet", args=["iol", 1]) + f"?row={label}"
    for name, shown in (("cat", True), ("ben", False)):
        client.force_login(people[name])
        page = client.get(url).content.decode()
        assert ("Yes, -ir marks the plural." in page) is shown, name


def test_papers_that_stayed_with_a_juror_who_left_are_said_on_the_console_until_they_move(
    contest, people, organizer, client
):
    """Finding 8: papers no colleague could take stayed with the juror who left, said once in
    the confirmation's messages and nowhere after; the console's page says so until they go."""
    JurorProfile.objects.create(user=people["cat"], country="Estonia")
    juror_leaving_make(contest=contest, juror=people["ann"], actor=organizer, reason="ill")
    client.force_login(organizer)
    url = reverse("console:juror_leaving", args=["iol"])
    page = client.get(url)
    labels = ", ".join(sorted([_label(contest, 2), _label(contest, 3)]))
    assert page.status_code == 200
    assert f"P1: 2 papers ({labels}) can go to no colleague of the group" in page.content.decode()
    # cat's country corrected: the papers can move now, and the page says where they would go.
    JurorProfile.objects.filter(user=people["cat"]).update(country="")
    page = client.get(url).content.decode()
    assert "P1: 2 ungraded papers move to colleagues (cat 2)." in page
    juror_leaving_make(contest=contest, juror=people["ann"], actor=organizer, reason="ill")
    assert 'id="still-holding"' not in client.get(url).content.decode()
