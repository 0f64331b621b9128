"""The calibration pages as their owner, another juror, the chair and an anonymous visitor,
with query guards whatever the number of papers and jurors."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.asserts import assertContains

from grading.calibration import rounds
from grading.calibration.calibration_marks import calibration_mark_set, calibration_sheet_submit
from grading.models import Assignment, CalibrationRound, CalibrationSheet, ReferenceMark
from grading.rules import access
from tests import factories
from tests.grading.calibration.scenario import close_round, juror_marks, make_round, problem_labels


@pytest.fixture
def problem(contest):
    return contest.problems.get(number=1)


def _url(name, contest, *args):
    return reverse(name, args=[contest.slug, 1, *args])


def test_the_chair_creates_a_round_enters_the_reference_opens_and_closes_it(
    client, contest, problem, chair
):
    client.force_login(chair)
    page = client.get(_url("calibration", contest))
    assert page.status_code == 200 and page.context["labels"] == problem_labels(problem)
    labels = problem_labels(problem)[:2]
    response = client.post(_url("calibration_create", contest), {"labels": labels, "seeded": "on"})
    assert response.status_code == 302
    round_ = CalibrationRound.objects.get()
    assert round_.seeded
    view = client.get(_url("calibration", contest)).context["view"]
    data = {}
    for row in view.rows:
        for cell in row.cells:
            data[f"ref-{row.paper.pk}-{cell.criterion.pk}"] = "2"
            data[f"note-{row.paper.pk}-{cell.criterion.pk}"] = f"{row.label} note"
    response = client.post(_url("calibration_references", contest), data, follow=True)
    assert [str(m) for m in response.context["messages"]] == ["4 references saved."]
    assert sorted(ReferenceMark.objects.values_list("points", flat=True)) == [Decimal("2")] * 4
    response = client.post(_url("calibration_open", contest), follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "The calibration round of P1 is open to the jurors."
    ]
    response = client.post(
        _url("calibration_close", contest),
        {"without": ["alice", "bob"], "confirm": "on"},
        follow=True,
    )
    assert [str(m) for m in response.context["messages"]] == ["Grading of P1 is open."]


def test_the_chair_picks_the_papers_again_until_the_round_opens_and_the_seeded_flag_until_it_closes(
    client, contest, problem, chair
):
    first, second, third = problem_labels(problem)
    round_ = make_round(problem, chair, opened=False)
    kept = round_.papers.get(label="K2")  # the second label's paper, with its references
    client.force_login(chair)
    html = client.get(_url("calibration", contest)).content.decode()
    for label, checked in ((first, True), (second, True), (third, False)):
        box = (
            f'<input type="checkbox" name="labels" value="{label}"{" checked" if checked else ""}>'
        )
        assert box in html

    # Refused as a whole: one paper is too few, and the seeded flag does not change either.
    response = client.post(
        _url("calibration_change", contest), {"labels": [third], "seeded": "on"}, follow=True
    )
    assert [str(m) for m in response.context["messages"]] == [
        "Pick 2 to 5 papers for the calibration round; 1 is picked."
    ]
    round_.refresh_from_db()
    assert not round_.seeded and round_.papers.count() == 2

    response = client.post(
        _url("calibration_change", contest),
        {"labels": [second, third], "seeded": "on"},
        follow=True,
    )
    assert [str(m) for m in response.context["messages"]] == [
        "The calibration round of P1 is changed: papers and seeded checks saved."
    ]
    round_.refresh_from_db()
    assert round_.seeded
    papers = {paper.label: paper for paper in round_.papers.all()}
    assert sorted(papers) == ["K1", "K2"] and papers["K1"].pk == kept.pk
    # The kept paper keeps its references; the one left out took its own with it.
    assert ReferenceMark.objects.filter(calibration_paper=kept).count() == 2
    assert ReferenceMark.objects.filter(calibration_paper=papers["K2"]).count() == 0

    # Once open to the jurors the papers stay; the seeded flag still changes until it closes.
    entries = [(papers["K2"], criterion, Decimal("2"), "") for criterion in problem.criteria.all()]
    rounds.references_set(round_=round_, entries=entries, actor=chair)
    rounds.round_open_to_jurors(round_=round_, actor=chair)
    html = client.get(_url("calibration", contest)).content.decode()
    assert 'name="labels"' not in html
    assert (
        "The round is open to the jurors: the papers graded in it stay as they are until it "
        "closes. The papers kept for seeding may still change: no juror sees them in the round."
    ) in html
    response = client.post(
        _url("calibration_change", contest), {"labels": [first, third]}, follow=True
    )
    assert [str(m) for m in response.context["messages"]] == [
        "The calibration round of P1 is changed: papers kept for seeding and seeded checks saved."
    ]
    round_.refresh_from_db()
    assert not round_.seeded
    assert sorted(round_.papers.values_list("pk", flat=True)) == sorted(
        paper.pk for paper in papers.values()
    )
    close_round(round_, chair)
    assert 'id="change-round"' not in client.get(_url("calibration", contest)).content.decode()


def _reference_data(view, points: dict[tuple[str, str], str]) -> dict[str, str]:
    """The reference form as the chair fills it: `points` by (paper label, criterion code),
    and a note naming each cell."""
    data = {}
    for row in view.rows:
        for cell in row.cells:
            key = (row.label, cell.criterion.code)
            data[f"ref-{row.paper.pk}-{cell.criterion.pk}"] = points[key]
            data[f"note-{row.paper.pk}-{cell.criterion.pk}"] = f"typed {row.label} {key[1]}"
    return data


def test_a_wrong_reference_value_is_marked_and_every_value_typed_is_kept(
    client, contest, problem, chair
):
    round_ = make_round(problem, chair, opened=False)
    before = sorted(ReferenceMark.objects.values_list("pk", "points", "note"))
    client.force_login(chair)
    view = client.get(_url("calibration", contest)).context["view"]
    typed = {("K1", "A1"): "7.25", ("K1", "T1"): "5", ("K2", "A1"): "13", ("K2", "T1"): "3,5"}
    response = client.post(_url("calibration_references", contest), _reference_data(view, typed))

    # The page comes back with what was typed, not a redirect to an emptied grid; nothing saved.
    assert response.status_code == 422
    assert sorted(ReferenceMark.objects.values_list("pk", "points", "note")) == before
    k1, k2 = (round_.papers.get(label=label).pk for label in ("K1", "K2"))
    a1, t1 = (problem.criteria.get(code=code).pk for code in ("A1", "T1"))
    assertContains(
        response,
        f'<ul><li id="ref-{k1}-{a1}-error">Paper K1, criterion A1: 7.25 is not a multiple of '
        f'the step 0.5.</li><li id="ref-{k2}-{a1}-error">Paper K2, criterion A1: 13 is more '
        "than the 12 points this criterion allows.</li></ul>",
        html=True,
        status_code=422,
    )
    assertContains(
        response,
        "<p>Nothing is saved: 2 values below are wrong and marked. Everything you typed is kept: "
        "fix the marked values and save again.</p>",
        html=True,
        status_code=422,
    )
    for paper, criterion, value, wrong in (
        (k1, a1, "7.25", True),
        (k1, t1, "5", False),
        (k2, a1, "13", True),
        (k2, t1, "3,5", False),
    ):
        label = "K1" if paper == k1 else "K2"
        code = "A1" if criterion == a1 else "T1"
        marked = (
            f' aria-invalid="true" aria-describedby="ref-{paper}-{criterion}-error"'
            if wrong
            else ""
        )
        assertContains(
            response,
            f'<input name="ref-{paper}-{criterion}" value="{value}" size="4" inputmode="decimal" '
            f'autocomplete="off" aria-label="{label} {code} reference points"{marked}>',
            html=True,
            status_code=422,
        )
        assertContains(
            response,
            f'<input name="note-{paper}-{criterion}" value="typed {label} {code}" maxlength="500" '
            f'autocomplete="off" aria-label="{label} {code} reference note">',
            html=True,
            status_code=422,
        )

    # Corrected, the whole grid saves at once, the comma read as a decimal point.
    typed.update({("K1", "A1"): "7.5", ("K2", "A1"): "12"})
    response = client.post(
        _url("calibration_references", contest), _reference_data(view, typed), follow=True
    )
    assert [str(m) for m in response.context["messages"]] == ["4 references saved."]
    assert sorted(
        ReferenceMark.objects.values_list("calibration_paper__label", "criterion__code", "points")
    ) == [
        ("K1", "A1", Decimal("7.5")),
        ("K1", "T1", Decimal("5")),
        ("K2", "A1", Decimal("12")),
        ("K2", "T1", Decimal("3.5")),
    ]


def _submit(round_, juror, points: dict[tuple[str, str], str]) -> None:
    for key, mark in juror_marks(round_, juror).items():
        calibration_mark_set(mark=mark, points=Decimal(points[key]), actor=juror)
    calibration_sheet_submit(sheet=CalibrationSheet.objects.get(juror=juror), actor=juror)


def test_closing_with_calibration_sheets_missing_names_the_jurors_and_asks_to_confirm(
    client, contest, problem, chair, juror, other_juror
):
    round_ = make_round(problem, chair)
    client.force_login(chair)

    # Nobody submitted: both are named, and a close without the tick is refused.
    missing = client.get(_url("calibration", contest))
    assertContains(
        missing,
        '<input type="checkbox" name="confirm" value="on" id="close-without" required>',
        html=True,
    )
    assert "2 jurors have not submitted a calibration sheet: <strong>alice</strong> and " in (
        missing.content.decode()
    )
    response = client.post(_url("calibration_close", contest), follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "alice and bob have not submitted a calibration sheet of P1, and cannot once the round "
        "is closed: tick “Close the round without their sheets” to close it anyway."
    ]
    round_.refresh_from_db()
    assert round_.is_open

    # Alice submits: only bob is named; confirming for him alone closes the round.
    _submit(round_, juror, dict.fromkeys(juror_marks(round_, juror), "4"))
    page = client.get(_url("calibration", contest))
    assert page.context["view"].sheets_missing == ["bob"]
    assert (
        "1 juror has not submitted a calibration sheet: <strong>bob</strong>. Once the round is "
        "closed, no calibration sheet can be submitted, and their marks are never compared with "
        "your reference."
    ) in page.content.decode()
    assertContains(page, '<input type="hidden" name="without" value="bob">', html=True)
    # A name left unticked is no confirmation.
    response = client.post(_url("calibration_close", contest), {"without": ["bob"]}, follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "bob has not submitted a calibration sheet of P1, and cannot once the round is closed: "
        "tick “Close the round without their sheets” to close it anyway."
    ]
    round_.refresh_from_db()
    assert round_.is_open
    response = client.post(
        _url("calibration_close", contest), {"without": ["bob"], "confirm": "on"}, follow=True
    )
    assert [str(m) for m in response.context["messages"]] == ["Grading of P1 is open."]
    round_.refresh_from_db()
    assert not round_.is_open


def test_the_round_closes_without_a_question_once_every_sheet_is_submitted(
    client, contest, problem, chair, juror, other_juror
):
    round_ = make_round(problem, chair)
    for user in (juror, other_juror):
        _submit(round_, user, dict.fromkeys(juror_marks(round_, user), "4"))
    client.force_login(chair)
    assert 'id="sheets-missing"' not in client.get(_url("calibration", contest)).content.decode()
    response = client.post(_url("calibration_close", contest), follow=True)
    assert [str(m) for m in response.context["messages"]] == ["Grading of P1 is open."]


def test_the_spread_puts_the_widest_disagreement_first_and_says_it_in_words(
    client, contest, problem, chair, juror, other_juror
):
    # The reference: K1 A1 10, K1 T1 6, K2 A1 4.5, K2 T1 8 (tolerance 0, step 0.5).
    round_ = make_round(problem, chair)
    _submit(
        round_,
        juror,
        {("K1", "A1"): "10", ("K1", "T1"): "4", ("K2", "A1"): "4.5", ("K2", "T1"): "8"},
    )
    _submit(
        round_,
        other_juror,
        {("K1", "A1"): "10", ("K1", "T1"): "6", ("K2", "A1"): "5", ("K2", "T1"): "5"},
    )
    client.force_login(chair)
    page = client.get(_url("calibration", contest))
    lines = page.context["view"].by_disagreement
    # T1 has 2 of its 4 marks off the reference, A1 1 of 4: T1 first, though the scheme lists
    # A1 first.
    assert [(line.criterion.code, line.sentence) for line in lines] == [
        ("T1", "2 of 4 marks differ from the reference; 1.25 points from it on average"),
        ("A1", "1 of 4 marks differs from the reference; 0.13 points from it on average"),
    ]
    assertContains(
        page,
        '<ul id="widest"><li><strong>T1</strong>: 2 of 4 marks differ from the reference; 1.25 '
        "points from it on average.</li><li><strong>A1</strong>: 1 of 4 marks differs from the "
        "reference; 0.13 points from it on average.</li></ul>",
        html=True,
    )
    html = page.content.decode()
    assert html.index('<tr data-code="T1"><th scope="row">T1') < html.index(
        '<tr data-code="A1"><th scope="row">A1'
    )
    # Each cell in words, not "2 · 4–6 · median 5 · 1 = ref".
    assert [cell.spread.sentence for _, cell in lines[0].cells] == [
        "2 marks from 4 to 6, median 5; 1 of 2 equals the reference",
        "2 marks from 5 to 8, median 6.5; 1 of 2 equals the reference",
    ]
    assert [cell.spread.sentence for _, cell in lines[1].cells] == [
        "2 marks, all 10; all equal the reference",
        "2 marks from 4.5 to 5, median 4.75; 1 of 2 equals the reference",
    ]
    assert "2 marks from 4 to 6, median 5; 1 of 2 equals the reference" in html
    assert " = ref" not in html


@pytest.mark.parametrize("who", ["juror", "outside_juror", None])
def test_the_chairs_page_is_the_chairs_and_the_organizers(
    client, contest, problem, chair, who, request
):
    make_round(problem, chair)
    if who:
        client.force_login(request.getfixturevalue(who))
    response = client.get(_url("calibration", contest))
    assert response.status_code == (404 if who else 302)
    assert client.post(_url("calibration_close", contest)).status_code == (404 if who else 302)
    assert CalibrationRound.objects.get().is_open


def test_the_juror_grades_by_the_autosave_and_submits(client, contest, problem, chair, juror):
    round_ = make_round(problem, chair)
    client.force_login(juror)
    page = client.get(_url("calibration_sheet", contest))
    assert page.status_code == 200
    assert [row.label for row in page.context["rows"]] == ["K1", "K2"]
    for label, code in juror_marks(round_, juror):
        response = client.post(
            _url("calibration_cell_save", contest, label, code), {"points": "4", "version": "0"}
        )
        assert response.json() == {"points": "4", "note": "", "version": 1, "saved": True}
    response = client.post(
        _url("calibration_note_save", contest, "K1", "A1"), {"note": "half", "version": "1"}
    )
    assert response.json()["note"] == "half"
    stale = client.post(
        _url("calibration_cell_save", contest, "K1", "A1"), {"points": "3", "version": "0"}
    )
    assert stale.status_code == 409 and stale.json()["saved"] is False
    response = client.post(_url("calibration_submit", contest), follow=True)
    assert CalibrationSheet.objects.get(juror=juror).is_submitted
    assert response.context["grid"].agreed == 0


def test_the_calibration_sheet_is_the_groups_only(
    client, contest, problem, chair, outside_juror, organizer
):
    make_round(problem, chair)
    for user in (outside_juror, chair, organizer):
        client.force_login(user)
        assert client.get(_url("calibration_sheet", contest)).status_code == 404
        assert (
            client.post(
                _url("calibration_cell_save", contest, "K1", "A1"), {"points": "1", "version": "0"}
            ).status_code
            == 404
        )
    client.logout()
    assert client.get(_url("calibration_sheet", contest)).status_code == 302


def test_no_calibration_sheet_before_the_round_is_open_to_the_jurors(
    client, contest, problem, chair, juror
):
    make_round(problem, chair, opened=False)
    client.force_login(juror)
    assert client.get(_url("calibration_sheet", contest)).status_code == 404


def test_a_juror_reads_a_calibration_paper_they_are_not_assigned_only_while_the_round_is_open(
    client, contest, chair, juror
):
    problem = contest.problems.get(number=1)
    round_ = make_round(problem, chair)
    paper = round_.papers.get(label="K1")
    Assignment.objects.filter(juror=juror, paper_id=paper.paper_id, problem=problem).delete()
    client.force_login(juror)
    response = client.get(_url("calibration_solution", contest, "K1"))
    assert response.status_code == 200
    assert "explanation" in response.content.decode()
    close_round(round_, chair)
    assert not access.may_read_paper(juror, problem=problem, paper=paper.paper)


# The chair's page counts the calibration marks an amendment reopened and lists the changes
# of the reference (a query each); a submitted sheet reads the references' changes since its
# submission (one query). While the round is open, the chair's page reads the problem's labels
# with the round's papers among them (one query): the papers kept for seeding may change.
EXPECTED_QUERIES = (16, 16, 19)


def _big_round(contest, chair, jurors: int):
    problem = contest.problems.get(number=1)
    extra = [factories.make_user(f"extra{n}", "juror") for n in range(jurors)]
    factories.assign(contest, extra, problems=[1])
    round_ = make_round(problem, chair)
    for user in extra:
        for mark in juror_marks(round_, user).values():
            calibration_mark_set(mark=mark, points=Decimal("2"), actor=user)
        calibration_sheet_submit(sheet=CalibrationSheet.objects.get(juror=user), actor=user)
    return round_


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def _page_queries(client, contest, chair, juror, jurors: int) -> tuple[int, int, int]:
    round_ = _big_round(contest, chair, jurors)
    client.force_login(chair)
    chair_page = _queries(client, _url("calibration", contest))
    for mark in juror_marks(round_, juror).values():
        calibration_mark_set(mark=mark, points=Decimal("2"), actor=juror)
    client.force_login(juror)
    draft = _queries(client, _url("calibration_sheet", contest))
    calibration_sheet_submit(sheet=CalibrationSheet.objects.get(juror=juror), actor=juror)
    submitted = _queries(client, _url("calibration_sheet", contest))
    return chair_page, draft, submitted


@pytest.mark.parametrize("jurors", [1, 12])
def test_the_pages_run_a_fixed_number_of_queries(client, contest, chair, juror, jurors):
    # The chair's page: session, user, roles, problem with its round, the contest's problems,
    # criteria, papers, references, submitted marks, sheets, group's jurors. The juror's
    # sheet: the same lookups, the draft's own marks, the solution panel; once submitted,
    # the reference, its changes since and the group's marks too.
    assert _page_queries(client, contest, chair, juror, jurors) == EXPECTED_QUERIES


def test_the_home_page_and_the_inbox_lead_the_juror_to_the_calibration_sheet(
    client, contest, chair, juror
):
    round_ = make_round(contest.problems.get(number=1), chair)
    client.force_login(juror)
    home = client.get(reverse("home"))
    assert [sheet.round_id for sheet in home.context["calibration_sheets"]] == [round_.pk]
    assert _url("calibration_sheet", contest) in home.content.decode()
    inbox = client.get(reverse("inbox"))
    [group] = inbox.context["groups"]
    assert group.headline == (
        "P1: a calibration round waits for you; grade its papers in your calibration sheet "
        "before grading opens."
    )
    assert [entry.url for entry in group.entries] == [_url("calibration_sheet", contest)]
    close_round(round_, chair)
    assert client.get(reverse("home")).context["calibration_sheets"] == []
    groups = client.get(reverse("inbox")).context["groups"]
    assert [(g.kind, [e.url for e in g.entries]) for g in groups] == [
        ("grading_opened", [_url("sheet", contest)]),
        ("calibration_open", [_url("calibration_sheet", contest)]),
    ]


@pytest.mark.parametrize("who", ["chair", "organizer"])
def test_the_admin_reads_a_round_with_its_papers_and_changes_nothing(
    client, contest, chair, who, request
):
    round_ = make_round(contest.problems.get(number=1), chair)
    user = request.getfixturevalue(who)
    client.force_login(user)
    listing = client.get(reverse("admin:grading_calibrationround_changelist"))
    assert listing.status_code == 200
    page = client.get(reverse("admin:grading_calibrationround_change", args=[round_.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "K1" in html and "K2" in html
    assert "Team Orca" not in html and "Team Heron" not in html and "Team Lynx" not in html
    response = client.post(
        reverse("admin:grading_calibrationround_change", args=[round_.pk]), {"state": "closed"}
    )
    assert response.status_code == 403
    assert CalibrationRound.objects.get().is_open


def test_the_round_page_links_the_group_and_the_seeds_once_grading_opened_and_the_comparison_links_my_calibration(
    client, contest, problem, chair, juror
):
    round_ = make_round(problem, chair, seeded=True)
    links = [_url("calibration_jurors", contest), _url("calibration_seeds", contest)]
    client.force_login(chair)

    def linked(page) -> list[int]:
        html = page.content.decode()
        return [html.count(f'href="{link}"') for link in links]

    assert linked(client.get(_url("calibration", contest))) == [0, 0]
    client.force_login(juror)
    for label, code in juror_marks(round_, juror):
        client.post(
            _url("calibration_cell_save", contest, label, code), {"points": "4", "version": "0"}
        )
    mine = f'href="{_url("calibration_mine", contest)}"'
    assert client.get(_url("calibration_sheet", contest)).content.decode().count(mine) == 0
    client.post(_url("calibration_submit", contest))
    assert client.get(_url("calibration_sheet", contest)).content.decode().count(mine) == 1
    client.force_login(chair)
    client.post(_url("calibration_close", contest), {"without": ["bob"], "confirm": "on"})
    page = client.get(_url("calibration", contest))
    assert linked(page) == [1, 1]
    for link in links:
        assert client.get(link).status_code == 200
    # The live sheet has its own link once submitted (grading/marking's sheet.html).
    client.force_login(juror)
    assert client.get(_url("sheet", contest)).content.decode().count(mine) == 0
