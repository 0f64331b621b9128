import re
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.models import Comment, HumanScore, Mark, Sheet
from grading.resolution.comparison import chair_queue, contest_results
from grading.resolution.decisions import discrepancy_decide
from grading.rules import roles
from grading.rules.domain import floor_to_step, medal_for
from rubrics.models import MedalCutoff
from tests.crawl import refetched, shared_data
from tests.factories import assign, make_contest, make_user
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


def _by_identity(results):
    return {paper.identity: paper for paper in results.papers}


def test_within_tolerance_marks_give_their_mean_rounded_down_to_the_step():
    assert floor_to_step(D("2.25"), D("0.5")) == D("2.00")
    assert floor_to_step(D("3.75"), D("0.5")) == D("3.50")
    assert floor_to_step(D("19") / 3, D("1")) == D("6.00")
    assert floor_to_step(D("4"), D("0.5")) == D("4.00")


def test_the_best_medal_whose_minimum_the_total_reaches_is_given(db):
    contest = make_contest("m", problems=1, papers=0)
    cutoffs = list(MedalCutoff.objects.filter(contest=contest))
    got = [
        medal_for(D(total), cutoffs)
        for total in ("100", "70", "69.99", "58.4", "35.3", "35.29", "0")
    ]
    assert got == ["gold", "gold", "silver", "silver", "honourable mention", "", ""]


def test_a_paper_within_tolerance_everywhere_is_flagged_when_jurors_totals_straddle_a_cutoff(db):
    marks = {
        # P1: alice 8 + 6 = 14, bob 7.5 + 5.5 = 13: every criterion within 0.5, but with P2's 14
        # the totals are 28 (70, gold) against 27 (67.5, silver).
        "Team Close": {
            1: {"alice": ("8", "6"), "bob": ("7.5", "5.5"), "dan": ("8", "6")},
            2: {"charlie": ("10", "4"), "erin": ("10", "4")},
        },
        "Team Clear": {
            1: {"alice": ("12", "8"), "bob": ("11.5", "8"), "dan": ("12", "8")},
            2: {"charlie": ("10", "4"), "erin": ("10", "4")},
        },
    }
    # Beside the module's scenario, under names of its own.
    graded = scenario.build(
        marks=marks, tolerances={(1, "A1"): "0.5", (1, "T1"): "0.5"}, suffix="2"
    )
    results = _by_identity(contest_results(graded["contest"], identities=True))
    close, clear = results["Team Close"], results["Team Clear"]
    assert (close.low, close.total, close.high, close.straddle) == (
        D("67.50"),
        D("67.50"),
        D("70.00"),
        True,
    )
    assert (close.medal, close.provisional) == ("silver", False)
    assert (clear.low, clear.total, clear.high, clear.straddle) == (
        D("83.75"),
        D("83.75"),
        D("85.00"),
        False,
    )
    assert [c.status for c in close.cells.values()] == ["agreed"] * 4
    items, _ = chair_queue(graded["contest"])
    assert items == []


def test_a_chair_decision_fixes_the_value_in_every_jurors_total_for_the_straddle(graded):
    orca = graded["papers"]["Team Orca"]
    discrepancy_decide(
        paper=orca,
        criterion=graded["problems"][1].criteria.get(code="T1"),
        points=D("8"),
        reason="Full marks.",
        actor=graded["chair"],
    )
    result = _by_identity(contest_results(graded["contest"], identities=True))["Team Orca"]
    # Every juror's P1 total is then 12 + 8 = 20, P2 16: 36 of 40 = 90.
    assert (result.low, result.total, result.high) == (D("90.00"), D("90.00"), D("90.00"))


def test_results_are_provisional_while_a_sheet_is_unsubmitted_and_no_marks_leak_from_drafts(
    entered,
):
    graded = entered
    for name in ("alice", "bob", "dan"):
        scenario.submit(graded["users"][name], graded["problems"][1])
    scenario.submit(graded["users"]["charlie"], graded["problems"][2])
    results = _by_identity(contest_results(graded["contest"], identities=True))
    heron = results["Team Heron"]
    p2_cells = [
        (c.criterion.code, c.status, c.points, c.n)
        for c in heron.problem_cells(graded["problems"][2].pk)
    ]
    # erin's draft (2.5 on T1) is not counted: only charlie's submitted 6 and 2.
    assert p2_cells == [("A1", "pending", D("6.00"), 1), ("T1", "pending", D("2.00"), 1)]
    assert {name: paper.provisional for name, paper in results.items()} == {
        "Team Orca": True,
        "Team Heron": True,
        "Team Lynx": True,
    }
    assert results["Team Lynx"].pending_count == 2
    assert results["Team Lynx"].open_count == 0


def test_totals_are_scaled_when_the_problems_do_not_add_up_to_the_contest_maximum(graded):
    contest = graded["contest"]
    contest.max_total = D("40")
    contest.save()
    results = _by_identity(contest_results(contest, identities=True))
    assert results["Team Lynx"].total == D("9.00")
    contest.max_total = D("50")
    contest.save()
    assert _by_identity(contest_results(contest, identities=True))["Team Lynx"].total == D("11.25")


def test_import_human_scores_command_sets_equivalent_ranks(graded, tmp_path):
    path = tmp_path / "humans.csv"
    path.write_text("contestant,1,2\nH1,20,20\nH2,15,15\nH3,10,10\nH4,5,3\n", encoding="utf-8")
    call_command("import_human_scores", str(path), contest="iol", verbosity=0)
    assert list(HumanScore.objects.values_list("contestant", "total", "problem_points")) == [
        ("H1", D("100.00"), {"1": "20", "2": "20"}),
        ("H2", D("75.00"), {"1": "15", "2": "15"}),
        ("H3", D("50.00"), {"1": "10", "2": "10"}),
        ("H4", D("20.00"), {"1": "5", "2": "3"}),
    ]
    lynx = _by_identity(contest_results(graded["contest"], identities=True))["Team Lynx"]
    assert (lynx.total, lynx.rank, lynx.percentile) == (D("22.50"), 4, D("25.0"))


def test_import_human_scores_refuses_a_bad_file_with_row_and_column_and_writes_nothing(
    graded, tmp_path
):
    HumanScore.objects.create(contest=graded["contest"], contestant="Old", total=D("10"))
    path = tmp_path / "humans.csv"
    path.write_text("contestant,p1,p2\nH1,20,21\nH1,5,x\n,3,3\nH4,,2\n", encoding="utf-8")
    with pytest.raises(CommandError) as error:
        call_command("import_human_scores", str(path), contest="iol", verbosity=0)
    assert str(error.value).split("\n") == [
        "humans.csv, row 2, column “p2”: 21 is outside 0 to 20, the points of problem 2.",
        "humans.csv, row 3: contestant “H1” is already on row 2.",
        "humans.csv, row 3, column “p2”: “x” is not a number of points.",
        "humans.csv, row 4: the contestant is blank.",
        "humans.csv, row 5, column “p1”: the points are blank; write 0 for no points.",
    ]
    path.write_text("contestant,p1,p7\nH1,1,1\n", encoding="utf-8")
    with pytest.raises(CommandError) as error:
        call_command("import_human_scores", str(path), contest="iol", verbosity=0)
    assert str(error.value).split("\n") == [
        "humans.csv, row 1, column “p7”: Contest iol has no problem 7.",
        "humans.csv, row 1: there is no column for problem 2 (“p2”).",
    ]
    assert list(HumanScore.objects.values_list("contestant", flat=True)) == ["Old"]


# Access --------------------------------------------------------------------------------------


def _client(client, user):
    client.force_login(user)
    return client


def _urls(graded):
    orca_label = scenario.label(graded, "Team Orca", 1)
    return {
        "comparison": reverse("comparison", args=["iol", 1]),
        "discussion": reverse("discussion", args=["iol", 1, orca_label, "T1"]),
        "queue": reverse("chair_queue", args=["iol"]),
        "results": reverse("results", args=["iol"]),
        "reveal": reverse("reveal", args=["iol"]),
        "export": reverse("results_export", args=["iol", "csv"]),
    }


def _statuses(client, graded, user):
    if user is not None:
        _client(client, user)
    return {name: client.get(url).status_code for name, url in _urls(graded).items()}


def test_each_role_reaches_exactly_its_pages(entered, client):
    graded = entered
    scenario.submit(graded["users"]["alice"], graded["problems"][1])
    organizer = make_user("olga", roles.ORGANIZER)
    users = graded["users"]
    got = {
        "anonymous": _statuses(client, graded, None),
        "chair": _statuses(client, graded, graded["chair"]),
        "organizer": _statuses(client, graded, organizer),
        "alice (submitted)": _statuses(client, graded, users["alice"]),
        "bob (draft)": _statuses(client, graded, users["bob"]),
        "charlie (other group)": _statuses(client, graded, users["charlie"]),
    }
    redirect = dict.fromkeys(_urls(graded), 302)
    assert got == {
        "anonymous": redirect,
        "chair": {
            "comparison": 200,
            "discussion": 200,
            "queue": 200,
            "results": 200,
            "reveal": 403,
            "export": 200,
        },
        "organizer": {
            "comparison": 200,
            "discussion": 200,
            "queue": 404,
            "results": 200,
            "reveal": 200,
            "export": 200,
        },
        "alice (submitted)": {
            "comparison": 200,
            "discussion": 200,
            "queue": 404,
            "results": 404,
            "reveal": 404,
            "export": 404,
        },
        "bob (draft)": {
            "comparison": 403,
            "discussion": 403,
            "queue": 404,
            "results": 404,
            "reveal": 404,
            "export": 404,
        },
        "charlie (other group)": {
            "comparison": 404,
            "discussion": 404,
            "queue": 404,
            "results": 404,
            "reveal": 404,
            "export": 404,
        },
    }


def test_a_juror_who_has_not_submitted_is_told_to_submit_first_and_sees_no_marks(entered, client):
    graded = entered
    response = _client(client, graded["users"]["bob"]).get(reverse("comparison", args=["iol", 1]))
    html = response.content.decode()
    assert response.status_code == 403
    assert "Submit your sheet first" in html
    assert scenario.label(graded, "Team Orca", 1) not in html


def test_the_comparison_shows_submitted_marks_side_by_side_without_identities(graded, client):
    response = _client(client, graded["users"]["alice"]).get(reverse("comparison", args=["iol", 1]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Team " not in html
    assert "<strong>2</strong> open discrepancies · <strong>0</strong> resolved" in html
    data = response.context["data"]
    assert data.jurors == ["alice", "bob", "dan"]
    rows = {row.label: row for row in data.rows}
    orca = rows[scenario.label(graded, "Team Orca", 1)]
    assert [
        (c["criterion"].code, [m.points for m in c["marks"]], c["cell"].status) for c in orca.cells
    ] == [
        ("A1", [D("12"), D("12"), D("12")], "agreed"),
        ("T1", [D("8"), D("8"), D("6")], "open"),
    ]
    assert [total.points for total in orca.juror_totals] == [D("20"), D("20"), D("18")]


def test_the_comparison_filters_discrepancies_papers_and_criteria(graded, client):
    _client(client, graded["chair"])
    url = reverse("comparison", args=["iol", 1])
    only = client.get(url, {"only": "discrepancies"}).context["data"]
    assert sorted(row.label for row in only.rows) == sorted(
        [scenario.label(graded, "Team Orca", 1), scenario.label(graded, "Team Heron", 1)]
    )
    heron = scenario.label(graded, "Team Heron", 1)
    by_paper = client.get(url, {"paper": heron.lower(), "criterion": "A1"}).context["data"]
    assert [(row.label, [c["criterion"].code for c in row.cells]) for row in by_paper.rows] == [
        (heron, ["A1"])
    ]
    assert (by_paper.open_count, by_paper.resolved_count) == (2, 0)


def test_a_juror_cannot_decide_and_the_chair_decides_through_the_page(graded, client):
    orca = scenario.label(graded, "Team Orca", 1)
    url = reverse("discussion_decide", args=["iol", 1, orca, "T1"])
    response = _client(client, graded["users"]["alice"]).post(
        url, {"points": "7", "reason": "Mine."}
    )
    assert response.status_code == 403
    client.logout()
    _client(client, graded["chair"])
    response = client.post(url, {"points": "7", "reason": "Rule 2 stated.", "next": "queue"})
    assert response.status_code == 302
    assert response["Location"] == reverse("chair_queue", args=["iol"])
    items = client.get(reverse("chair_queue", args=["iol"])).context["items"]
    assert [(item.label, item.cell.criterion.code) for item in items] == [
        (scenario.label(graded, "Team Heron", 1), "A1")
    ]


def test_a_juror_comments_and_revises_through_the_page(graded, client):
    scenario.open_resolution(graded)
    heron = scenario.label(graded, "Team Heron", 1)
    _client(client, graded["users"]["bob"])
    client.post(
        reverse("discussion_comment", args=["iol", 1, heron, "A1"]), {"text": "I was wrong."}
    )
    mark = Mark.objects.get(
        sheet__juror=graded["users"]["bob"],
        paper=graded["papers"]["Team Heron"],
        criterion__code="A1",
    )
    client.post(
        reverse("discussion_revise", args=["iol", 1, heron, "A1"]),
        {"points": "8", "version": str(mark.version)},
    )
    page = client.get(reverse("discussion", args=["iol", 1, heron, "A1"]))
    d = page.context["d"]
    assert [c.text for c in d.comments] == ["I was wrong."]
    assert (d.cell.status, d.cell.points) == ("consensus", D("8.00"))
    assert [(e.old_points, e.new_points) for e in d.events if e.mark_id == mark.pk] == [
        (None, D("9")),
        (D("9"), D("8")),
    ]


def test_a_refusal_is_the_sites_own_page_saying_why(graded, client):
    _client(client, graded["chair"])
    response = client.get(reverse("reveal", args=["iol"]))
    html = response.content.decode()
    why = "Identities are revealed to the chair once the contest is final."
    assert (response.status_code, '<main id="content">' in html, why in html) == (403, True, True)
    assert [name in html for name in ("Team Orca", "Team Heron", "Team Lynx")] == [False] * 3


def test_the_reveal_page_shows_identities_to_the_chair_once_final(graded, client):
    chair = graded["chair"]
    discrepancy_decide(
        paper=graded["papers"]["Team Orca"],
        criterion=graded["problems"][1].criteria.get(code="T1"),
        points=D("7"),
        reason="Half.",
        actor=chair,
    )
    discrepancy_decide(
        paper=graded["papers"]["Team Heron"],
        criterion=graded["problems"][1].criteria.get(code="A1"),
        points=D("8"),
        reason="Item 2.",
        actor=chair,
    )
    _client(client, chair)
    assert "Team Orca" not in client.get(reverse("results", args=["iol"])).content.decode()
    # Without the confirmation, the post is sent to the page that asks for it; nothing changes.
    response = client.post(reverse("finalize", args=["iol"]))
    assert response["Location"] == reverse("console:life_step", args=["iol", "finalize"])
    assert "Team Orca" not in client.get(reverse("results", args=["iol"])).content.decode()
    response = client.post(reverse("finalize", args=["iol"]), {"confirm": "on"})
    assert response["Location"] == reverse("reveal", args=["iol"])
    html = client.get(reverse("reveal", args=["iol"])).content.decode()
    assert [name in html for name in ("Team Orca", "Team Heron", "Team Lynx")] == [True] * 3
    home = client.get(reverse("home")).content.decode()
    assert "results are final; marks are read-only" in home


# Query-count guards ----------------------------------------------------------------------------


def _graded_contest(papers: int):
    alice = make_user(f"alice{papers}", roles.JUROR)
    bob = make_user(f"bob{papers}", roles.JUROR)
    contest = make_contest(f"q{papers}", problems=1, papers=papers)
    assign(contest, [alice, bob])
    Mark.objects.filter(sheet__juror=alice).update(points=D("2"))
    Mark.objects.filter(sheet__juror=bob).update(points=D("2"))
    # Every other paper has a discrepancy on T1, in one UPDATE: one per paper costs
    # PostgreSQL a join over the unanalysed marks table each time (over a minute at 300 papers).
    every_other = contest.papers.order_by("pk")[::2]
    Mark.objects.filter(sheet__juror=bob, paper__in=every_other, criterion__code="T1").update(
        points=D("4")
    )
    Sheet.objects.filter(problem__contest=contest).update(state="submitted")
    return contest


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_comparison_and_queue_run_the_same_number_of_queries_for_5_and_300_papers(db, client):
    # Not chen: the module's scenario may be there already.
    chair = make_user("cleo", roles.CHAIR)
    _client(client, chair)
    counts = {}
    for papers in (5, 300):
        contest = _graded_contest(papers)
        counts[papers] = (
            _queries(client, reverse("comparison", args=[contest.slug, 1])),
            _queries(client, reverse("chair_queue", args=[contest.slug])),
            _queries(client, reverse("results", args=[contest.slug])),
        )
        items, _ = chair_queue(contest)
        assert len(items) == (papers + 1) // 2
    # The header's unread-notices count is one query on every page; the jurors' countries for
    # the marks that count one more (`grading.rules.counting`); the comparison's straddles of
    # the papers shown one more (`comparison.read_straddles`).
    assert counts[5] == counts[300] == (16, 16, 15)


def test_the_organizer_reads_a_discussion_but_cannot_comment(graded, client):
    organizer = make_user("olga", roles.ORGANIZER)
    orca = scenario.label(graded, "Team Orca", 1)
    client.force_login(organizer)
    page = client.get(reverse("discussion", args=["iol", 1, orca, "T1"]))
    assert (page.status_code, 'id="comment-form"' in page.content.decode()) == (200, False)
    response = client.post(
        reverse("discussion_comment", args=["iol", 1, orca, "T1"]), {"text": "Hi"}
    )
    assert response.status_code == 403
    assert Comment.objects.count() == 0


def test_import_human_scores_lists_each_contestant_at_verbosity_2(graded, tmp_path):
    import io

    path = tmp_path / "humans.csv"
    path.write_text("contestant,1,2\nH1,20,20\nH2,15,15\n", encoding="utf-8")
    out = io.StringIO()
    call_command("import_human_scores", str(path), contest="iol", verbosity=2, stdout=out)
    assert out.getvalue().splitlines()[:2] == ["H1: 100.00", "H2: 75.00"]


def test_the_results_page_shows_a_dash_for_a_problem_with_nothing_submitted_yet(entered, client):
    graded = entered
    for name in ("alice", "bob", "dan"):
        scenario.submit(graded["users"][name], graded["problems"][1])
    results = contest_results(graded["contest"])
    assert {frozenset(paper.problems_graded) for paper in results.papers} == {frozenset({1})}
    _client(client, graded["chair"])
    page = client.get(reverse("results", args=[graded["contest"].slug])).content.decode()
    cells = re.findall(r'<td class="num" data-problem="(\d)">([^<]*)(<span[^>]*>–</span>)?', page)
    assert {(problem, dash != "") for problem, _, dash in cells} == {("1", False), ("2", True)}
    assert all(points.strip() == "" for problem, points, _ in cells if problem == "2")
