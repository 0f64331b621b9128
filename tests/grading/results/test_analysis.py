"""The jury-versus-automatic analysis: figures computed by hand on a small contest, Krippendorff's
alpha on a textbook-sized example, criterion rates import, access per role, anonymity, query
count and the SVG charts."""

import math
import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from grading.console.contest_life import contest_finalize
from grading.intake.importers.criterion_rates import criterion_rates_import
from grading.models import HumanCriterionRate, Mark, Paper, Sheet, Solution
from grading.resolution.decisions import discrepancy_decide, mark_revise
from grading.results.analysis import contest_analysis, correlation, krippendorff_alpha_interval
from grading.results.analysis_selectors import analysis_data
from grading.rules import roles
from rubrics.models import Task
from tests.crawl import refetched, shared_data
from tests.factories import assign, make_contest, make_user
from tests.grading import scenario

D = Decimal
SVG = "{http://www.w3.org/2000/svg}"
IDENTITIES = ["Team Walrus", "Team Xerus", "Team Yak", "Team Zebu"]

# Each problem has one task of four one-letter items, so a paper answering k of them exactly
# (the others blank) scores EM = chrF = k/4 and a score of 25·k on the task.
ANSWERED = {  # paper: (items right in P1, items right in P2)
    "Team Walrus": (4, 3),
    "Team Xerus": (3, 3),
    "Team Yak": (2, 3),
    "Team Zebu": (1, 1),
}
# Marks as submitted, (A1 of 12, T1 of 8) per problem, the same from alice and bob except
# Xerus P1 T1 (bob 6, then revised to 4) and Yak P2 A1 (bob 11; the chair decides 12).
MARKS = {
    "Team Walrus": {1: ("12", "8"), 2: ("12", "4")},
    "Team Xerus": {1: ("12", "4"), 2: ("6", "4")},
    "Team Yak": {1: ("6", "8"), 2: ("12", "6")},
    "Team Zebu": {1: ("0", "2"), 2: ("3", "1")},
}
BOB_DIFFERS = {("Team Xerus", 1): ("12", "6"), ("Team Yak", 2): ("11", "6")}


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _build_graded():
    alice = make_user("alice", roles.JUROR, first_name="Alice", last_name="Ames")
    bob = make_user("bob", roles.JUROR, first_name="Bob", last_name="Baird")
    chair = make_user("chen", roles.CHAIR)
    contest = make_contest("iol", identities=IDENTITIES)
    Task.objects.filter(problem__contest=contest).update(
        item_count=4, answers=[["a"], ["b"], ["c"], ["d"]]
    )
    papers = {paper.identity: paper for paper in contest.papers.all()}
    for identity, right in ANSWERED.items():
        for number, k in enumerate(right, start=1):
            Solution.objects.filter(paper=papers[identity], task__problem__number=number).update(
                answers=["a", "b", "c", "d"][:k] + [""] * (4 - k)
            )
    assign(contest, [alice, bob])
    problems = {problem.number: problem for problem in contest.problems.all()}
    for identity, per_problem in MARKS.items():
        for number, (a1, t1) in per_problem.items():
            scenario.grade(alice, problems[number], papers[identity], a1, t1)
            b1, bt = BOB_DIFFERS.get((identity, number), (a1, t1))
            scenario.grade(bob, problems[number], papers[identity], b1, bt)
    for juror in (alice, bob):
        for problem in problems.values():
            scenario.submit(juror, problem)
    scenario.open_resolution({"contest": contest, "chair": chair})
    mark_revise(
        mark=Mark.objects.get(
            sheet__juror=bob,
            paper=papers["Team Xerus"],
            criterion__problem=problems[1],
            criterion__code="T1",
        ),
        points=D("4"),
        actor=bob,
    )
    discrepancy_decide(
        paper=papers["Team Yak"],
        criterion=problems[2].criteria.get(code="A1"),
        points=D("12"),
        reason="The answer is right; the missing diacritic is a typo.",
        actor=chair,
    )
    contest.refresh_from_db()
    return {
        "contest": contest,
        "alice": alice,
        "bob": bob,
        "chair": chair,
        "papers": papers,
        "problems": problems,
    }


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield _build_graded()


@pytest.fixture
def graded(graded_once, db):
    return refetched(graded_once)


def _analysis(graded, *, identities=True, calibration=True):
    data = analysis_data(graded["contest"], identities=identities)
    return contest_analysis(data, identities=identities, calibration=calibration)


def _close(value, expected):
    return value == pytest.approx(expected, abs=1e-9)


# --- Figures by hand ---------------------------------------------------------------------------


def test_each_paper_shows_automatic_and_jury_percentages_per_problem_and_in_total(graded):
    analysis = _analysis(graded)
    got = [
        (
            row.index,
            row.name,
            [(f.auto, f.jury) for f in row.problems],
            (row.auto_total, row.jury_total, row.difference),
        )
        for row in analysis.papers
    ]
    # Jury totals: Walrus 36 of 40 = 90, Yak 32 = 80, Xerus 26 = 65, Zebu 6 = 15. The automatic
    # total is the weighted mean over both tasks (equal weights): (100 + 75) / 2 = 87.5 etc.
    assert got == [
        (1, "Team Walrus", [(100.0, 100.0), (75.0, 80.0)], (87.5, 90.0, 2.5)),
        (2, "Team Yak", [(50.0, 70.0), (75.0, 90.0)], (62.5, 80.0, 17.5)),
        (3, "Team Xerus", [(75.0, 80.0), (75.0, 50.0)], (75.0, 65.0, -10.0)),
        (4, "Team Zebu", [(25.0, 10.0), (25.0, 20.0)], (25.0, 15.0, -10.0)),
    ]
    assert analysis.compared == [1, 2]


def test_totals_correlate_as_computed_by_hand_and_show_the_compressed_scale(graded):
    totals = _analysis(graded).totals
    # Automatic 87.5, 75, 62.5, 25 against jury 90, 65, 80, 15 (Walrus, Xerus, Yak, Zebu).
    # Ranks: automatic 4, 3, 2, 1; jury 4, 2, 3, 1; Σd² = 2; ρ = 1 − 6·2 / (4·(16 − 1)) = 0.8.
    # Deviations from the means (62.5 each): x = 25, 12.5, 0, −37.5; y = 27.5, 2.5, 17.5, −47.5;
    # Σxy = 2500, Σx² = 2187.5, Σy² = 3325.
    assert totals.n == 4
    assert _close(totals.spearman, 1 - 6 * 2 / (4 * 15))
    assert _close(totals.pearson, 2500 / math.sqrt(2187.5 * 3325))
    assert (totals.auto_range.low, totals.auto_range.high) == (25.0, 87.5)
    assert (totals.jury_range.low, totals.jury_range.high) == (15.0, 90.0)
    assert _close(totals.compression, 62.5 / 75)
    # Jury − automatic (the competition's sign): 2.5, −10, 17.5, −10; the weaker half (Zebu,
    # Xerus) is over-credited by 10 on average, the stronger half (Yak, Walrus) under-credited.
    assert (
        totals.mean_difference,
        totals.weaker_half_difference,
        totals.stronger_half_difference,
    ) == (0.0, -10.0, 10.0)


def test_each_problem_has_its_own_correlation_including_tied_ranks(graded):
    p1, p2 = _analysis(graded).by_problem
    # P1: automatic 100, 75, 50, 25 and jury 100, 80, 70, 10 rank alike: ρ = 1. Deviations
    # x = 37.5, 12.5, −12.5, −37.5 and y = 35, 15, 5, −55: Σxy = 3500, Σx² = 3125, Σy² = 4500.
    assert (p1.correlation.n, p1.correlation.spearman) == (4, 1.0)
    assert _close(p1.correlation.pearson, 3500 / math.sqrt(3125 * 4500))
    # P2: automatic 75, 75, 75, 25 (Walrus, Xerus, Yak, Zebu) ranks 3, 3, 3, 1; jury 80, 50, 90,
    # 20 ranks 3, 2, 4, 1. Pearson on the ranks: Σxy = 3, Σx² = 3, Σy² = 5, ρ = 3 / √15.
    assert _close(p2.correlation.spearman, 3 / math.sqrt(15))
    assert (p2.correlation.auto_range.span, p2.correlation.jury_range.span) == (50.0, 70.0)


def test_correlation_needs_three_pairs_with_both_sides_varying():
    assert correlation([10.0, 20.0], [1.0, 2.0]).spearman is None
    assert correlation([10.0, 20.0, None, 30.0], [1.0, 2.0, 5.0, None]).n == 2
    flat = correlation([50.0, 50.0, 50.0], [1.0, 2.0, 3.0])
    assert (flat.n, flat.spearman, flat.pearson, flat.auto_range.span) == (3, None, None, 0.0)
    assert correlation([], []).n == 0


# --- Agreement before resolution ---------------------------------------------------------------


def test_krippendorff_alpha_interval_matches_a_hand_computed_example():
    # Units (1, 1), (2, 3), (3, 3), and (5) with one value, which is not pairable. n = 6 values.
    # Observed: only unit (2, 3) disagrees, (2−3)² + (3−2)² = 2 over m − 1 = 1: D_o = 2 / 6.
    # Expected: over all ordered pairs of the values 1, 1, 2, 3, 3, 3 the squared differences
    # add up to 2 · (2·1 + 6·4 + 3·1) = 58: D_e = 58 / (6 · 5). α = 1 − D_o / D_e = 24 / 29.
    alpha = krippendorff_alpha_interval([[1, 1], [2, 3], [3, 3], [5]])
    assert _close(alpha, 24 / 29)


def test_krippendorff_alpha_is_undefined_without_pairs_or_variation():
    assert krippendorff_alpha_interval([[1], [2]]) is None
    assert krippendorff_alpha_interval([[2, 2], [2, 2]]) is None
    assert _close(krippendorff_alpha_interval([[0, 0], [4, 4]]), 1.0)


def test_agreement_counts_the_marks_as_submitted_before_any_revision(graded):
    analysis = _analysis(graded)
    by_problem = [(r.label, r.cells, r.exact, r.rate) for r in analysis.agreement_by_problem]
    # Bob's 6 for Xerus P1 T1 was revised to 4 in the resolution phase, yet it still counts.
    assert by_problem == [
        ("P1", 8, 7, 0.875),
        ("P2", 8, 7, 0.875),
        ("All problems", 16, 14, 0.875),
    ]
    by_kind = [(r.label, r.cells, r.exact) for r in analysis.agreement_by_kind]
    assert by_kind == [("Assignment", 8, 7), ("Theory", 8, 7)]
    p1_units = [[12, 12], [8, 8], [12, 12], [4, 6], [6, 6], [8, 8], [0, 0], [2, 2]]
    p2_units = [[12, 12], [4, 4], [6, 6], [4, 4], [12, 11], [6, 6], [3, 3], [1, 1]]
    alphas = [r.alpha for r in analysis.agreement_by_problem[:2]]
    assert alphas == [
        pytest.approx(krippendorff_alpha_interval(p1_units)),
        pytest.approx(krippendorff_alpha_interval(p2_units)),
    ]
    assert 0.9 < alphas[0] < 1 and 0.9 < alphas[1] < 1


def test_calibration_is_each_jurors_mean_signed_deviation_from_the_agreed_value(graded):
    calibration = _analysis(graded).calibration
    # Every cell is agreed; alice's marks all equal the agreed values. Bob gave 6 where 4 was
    # agreed (+2) and 11 where the chair decided 12 (−1): over 16 cells, +1/16 and 3/16 absolute.
    assert [(c.name, c.n, c.mean_deviation, c.mean_absolute_deviation) for c in calibration] == [
        ("Alice Ames", 16, 0.0, 0.0),
        ("Bob Baird", 16, 1 / 16, 3 / 16),
    ]


def test_calibration_is_left_out_unless_asked_for(graded):
    assert _analysis(graded, calibration=False).calibration is None


# --- Criterion difficulty ----------------------------------------------------------------------


def test_criterion_difficulty_is_the_share_of_papers_meeting_it_in_full(graded):
    analysis = _analysis(graded)
    got = [
        (f"{d.criterion.problem.code}.{d.criterion.code}", d.n, d.met, d.share, d.human)
        for d in analysis.difficulty
    ]
    # Agreed values: P1 A1 12, 12, 6, 0; P1 T1 8, 4, 8, 2; P2 A1 12, 6, 12, 3; P2 T1 4, 4, 6, 1.
    assert got == [
        ("P1.A1", 4, 2, 0.5, None),
        ("P1.T1", 4, 2, 0.5, None),
        ("P2.A1", 4, 2, 0.5, None),
        ("P2.T1", 4, 0, 0.0, None),
    ]
    assert (analysis.difficulty_spearman, analysis.difficulty_pairs) == (None, 0)


def test_imported_human_rates_give_the_ai_versus_human_difficulty_correlation(graded, tmp_path):
    csv_file = tmp_path / "rates.csv"
    csv_file.write_text("criterion,share_met\nP1.A1,0.9\nP1.T1,0.6\nP2.A1,0.7\nP2.T1,0.2\n")
    call_command("import_criterion_rates", "--contest", "iol", str(csv_file), verbosity=0)
    analysis = _analysis(graded)
    assert [d.human for d in analysis.difficulty] == [0.9, 0.6, 0.7, 0.2]
    # AI shares 0.5, 0.5, 0.5, 0 rank 3, 3, 3, 1; human 0.9, 0.6, 0.7, 0.2 rank 4, 2, 3, 1:
    # Σxy = 3, Σx² = 3, Σy² = 5 on the centred ranks.
    assert _close(analysis.difficulty_spearman, 3 / math.sqrt(15))
    assert analysis.difficulty_pairs == 4


def test_criterion_rates_read_a_problem_column_and_replace_earlier_rates(graded):
    contest = graded["contest"]
    criterion_rates_import(contest=contest, text="criterion,share_met\nP1.A1,0.5\nP2.T1,0.5\n")
    summary = criterion_rates_import(
        contest=contest, text="problem,criterion,share_met\nP1,A1,0.25\n2,t1,0.123456\n"
    )
    rates = sorted(
        (r.criterion.problem.number, r.criterion.code, r.share_met)
        for r in HumanCriterionRate.objects.select_related("criterion__problem")
    )
    assert rates == [(1, "A1", D("0.2500")), (2, "T1", D("0.1235"))]
    assert str(summary) == "Imported human rates for 2 criteria of Contest iol (replacing 2)."


def test_a_bad_criterion_rates_file_names_every_row_and_column_and_writes_nothing(graded, tmp_path):
    csv_file = tmp_path / "rates.csv"
    csv_file.write_text(
        "criterion,share_met\nP1.A1,0.9\nP9.A1,0.5\nP1.T1,1.5\nP1.A1,0.4\nA1,0.3\nP2.T1,\n"
    )
    with pytest.raises(CommandError) as error:
        call_command("import_criterion_rates", "--contest", "iol", str(csv_file), verbosity=0)
    assert str(error.value).split("\n") == [
        "rates.csv, row 3, column “criterion”: Contest iol has no criterion A1 in problem 9.",
        "rates.csv, row 4, column “share_met”: 1.5 is outside 0 to 1; write a share, e.g. 0.45 for 45%.",
        "rates.csv, row 5: criterion P1.A1 is already on row 2.",
        "rates.csv, row 6, column “criterion”: “A1” is not a criterion such as “P3.A1” (or add a “problem” column).",
        "rates.csv, row 7, column “share_met”: the share is blank; write a share between 0 and 1, e.g. 0.45.",
    ]
    assert HumanCriterionRate.objects.count() == 0


def test_a_criterion_rates_file_with_unknown_columns_is_refused(graded):
    with pytest.raises(Exception) as error:
        criterion_rates_import(
            contest=graded["contest"], text="code,rate\nP1.A1,0.5\n", name="rates.csv"
        )
    assert error.value.messages == [
        "rates.csv, row 1: there is no “criterion” column.",
        "rates.csv, row 1: there is no “share_met” column.",
        "rates.csv, row 1, column 1: “code” is not one of “problem”, “criterion”, “share_met”.",
        "rates.csv, row 1, column 2: “rate” is not one of “problem”, “criterion”, “share_met”.",
    ]


def test_a_dry_run_of_criterion_rates_writes_nothing(graded, tmp_path):
    csv_file = tmp_path / "rates.csv"
    csv_file.write_text("criterion,share_met\nP1.A1,0.9\n")
    call_command(
        "import_criterion_rates", "--contest", "iol", str(csv_file), "--dry-run", verbosity=0
    )
    assert HumanCriterionRate.objects.count() == 0


# --- The page: access, anonymity, queries ------------------------------------------------------


def _get(client, user, graded, name="analysis", **kwargs):
    if user is not None:
        client.force_login(user)
    return client.get(reverse(name, args=[graded["contest"].slug], kwargs=kwargs or None))


def test_the_chair_and_the_organizer_see_the_page_jurors_get_404_and_visitors_log_in(
    client, graded, organizer
):
    url = reverse("analysis", args=["iol"])
    anonymous = client.get(url)
    statuses = []
    for user in (graded["chair"], organizer, graded["alice"]):
        client.force_login(user)
        statuses.append(client.get(url).status_code)
    assert statuses == [200, 200, 404]
    assert (anonymous.status_code, anonymous["Location"]) == (
        302,
        f"{reverse('login')}?next={url}",
    )


def test_the_charts_follow_the_same_access_rules(client, graded, organizer):
    url = reverse("analysis_chart", args=["iol", "scatter"])
    anonymous = client.get(url)
    statuses = []
    for user in (graded["chair"], organizer, graded["alice"]):
        client.force_login(user)
        statuses.append(client.get(url).status_code)
    client.force_login(graded["chair"])
    unknown = client.get(reverse("analysis_chart", args=["iol", "pie"]))
    assert (anonymous.status_code, statuses, unknown.status_code) == (302, [200, 200, 404], 404)


def test_the_chair_sees_neutral_paper_numbers_until_the_contest_is_final(client, graded):
    client.force_login(graded["chair"])
    before = client.get(reverse("analysis", args=["iol"]))
    html = before.content.decode()
    assert [identity for identity in IDENTITIES if identity in html] == []
    assert [row.name for row in before.context["a"].papers] == [
        "Paper 1",
        "Paper 2",
        "Paper 3",
        "Paper 4",
    ]
    contest_finalize(contest=graded["contest"], actor=graded["chair"])
    after = client.get(reverse("analysis", args=["iol"]))
    assert [row.name for row in after.context["a"].papers] == [
        "Team Walrus",
        "Team Yak",
        "Team Xerus",
        "Team Zebu",
    ]


def test_only_the_chair_sees_the_jurors_calibration(client, graded, organizer):
    client.force_login(graded["chair"])
    chair_page = client.get(reverse("analysis", args=["iol"]))
    client.force_login(organizer)
    organizer_page = client.get(reverse("analysis", args=["iol"]))
    assert (
        'id="calibration"' in chair_page.content.decode(),
        'id="calibration"' in organizer_page.content.decode(),
        "Bob Baird" in organizer_page.content.decode(),
    ) == (True, False, False)


def test_the_page_shows_the_hand_computed_figures(client, graded):
    client.force_login(graded["chair"])
    html = client.get(reverse("analysis", args=["iol"])).content.decode()
    assertInHTML('<dd id="spearman">0.80</dd>', html)
    assertInHTML('<dd id="pearson">0.93</dd>', html)
    # Jury − automatic, at the data's precision (points to 0.01, the metric to 0.0001 of 1).
    assertInHTML('<dd id="halves">\u221210.00 / +10.00</dd>', html)
    assert "Differences are jury − automatic" in html
    walrus = html.split('<tr id="paper-1">', 1)[1].split("</tr>", 1)[0]
    assertInHTML('<td class="num">87.50</td>', walrus)
    assertInHTML('<td class="num under">+2.50</td>', walrus)


def test_home_links_the_analysis_for_the_chair(client, graded):
    client.force_login(graded["chair"])
    html = client.get(reverse("home")).content.decode()
    assert html.count(f'href="{reverse("analysis", args=["iol"])}"') == 1


def _graded_contest(slug: str, papers: int, jurors, *, humans: int = 0) -> None:
    """Every mark 2 and every sheet submitted; the first `humans` papers are human ones."""
    contest = make_contest(slug, papers=papers)
    first = list(contest.papers.order_by("pk").values_list("pk", flat=True)[:humans])
    Paper.objects.filter(pk__in=first).update(source=Paper.Source.HUMAN)
    assign(contest, jurors)
    Mark.objects.filter(sheet__problem__contest=contest).update(points=D("2"))
    Sheet.objects.filter(problem__contest=contest).update(state=Sheet.State.SUBMITTED)


def _page_queries(client, slug: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("analysis", args=[slug]))
    assert response.status_code == 200
    return len(queries)


# The tests below build their own contests beside the module's (which may be there already):
# their people have names of their own.


def test_the_analysis_page_runs_as_many_queries_for_300_papers_as_for_5(client, db):
    jurors = [make_user("ada", roles.JUROR), make_user("ben", roles.JUROR)]
    _graded_contest("small", 5, jurors)
    _graded_contest("large", 300, jurors)
    client.force_login(make_user("cleo", roles.CHAIR))
    client.get(reverse("home"))
    small, large = _page_queries(client, "small"), _page_queries(client, "large")
    assert (small, large) == (small, small)
    assert small <= 25


# --- Charts ------------------------------------------------------------------------------------


def _chart(client, graded, name: str):
    client.force_login(graded["chair"])
    response = client.get(reverse("analysis_chart", args=["iol", name]))
    assert response["Content-Type"] == "image/svg+xml"
    return ET.fromstring(response.content)


def _points(root, group_id: str) -> int:
    groups = [g for g in root.iter(f"{SVG}g") if g.get("id") == group_id]
    assert len(groups) == 1
    return len(list(groups[0].iter(f"{SVG}use")))


def test_the_scatter_has_one_point_per_paper_and_the_identity_line(client, graded):
    root = _chart(client, graded, "scatter")
    assert root.tag == f"{SVG}svg"
    assert _points(root, "papers") == 4
    assert [g.get("id") for g in root.iter(f"{SVG}g") if g.get("id") == "identity"] == ["identity"]


def test_the_distribution_has_every_paper_twice_and_a_line_per_medal(client, graded):
    root = _chart(client, graded, "distribution")
    assert (_points(root, "jury-points"), _points(root, "auto-points")) == (4, 4)
    labels = [t.text.strip() for t in root.iter(f"{SVG}text") if t.text and t.text.strip()]
    assert [name for name in ("gold", "silver", "honourable mention") if name in labels] == [
        "gold",
        "silver",
        "honourable mention",
    ]


def test_the_difference_chart_has_a_bar_per_problem_and_one_for_the_totals(client, graded):
    root = _chart(client, graded, "differences")
    bars = [g.get("id") for g in root.iter(f"{SVG}g") if (g.get("id") or "").startswith("bar-")]
    assert bars == ["bar-P1", "bar-P2", "bar-Total"]


def test_the_difficulty_chart_has_a_point_per_criterion_with_a_human_rate(client, graded):
    criterion_rates_import(
        contest=graded["contest"], text="criterion,share_met\nP1.A1,0.9\nP1.T1,0.6\nP2.A1,0.7\n"
    )
    assert _points(_chart(client, graded, "difficulty"), "criteria") == 3


def test_the_charts_carry_a_policy_that_allows_their_inline_styles_and_nothing_else(client, graded):
    client.force_login(graded["chair"])
    response = client.get(reverse("analysis_chart", args=["iol", "differences"]))
    assert response["Content-Security-Policy"] == "default-src 'none'; style-src 'unsafe-inline'"


def test_an_empty_contest_renders_the_page_and_charts(client, db):
    make_contest("empty", papers=2)
    client.force_login(make_user("cleo", roles.CHAIR))
    page = client.get(reverse("analysis", args=["empty"]))
    charts = [
        client.get(reverse("analysis_chart", args=["empty", name])).status_code
        for name in ("distribution", "scatter", "differences", "difficulty")
    ]
    assert (page.status_code, charts) == (200, [200, 200, 200, 200])
    assert page.context["a"].totals.n == 0
